"""prescale: pre-scale an EKS cluster for known traffic events, one ``pulumi up`` per environment.

The only place that reads stack config (through `prescale.program`). It is read once, validated whole (any problem
stops the program before a single resource is registered), planned once, and handed to the components as typed
objects: stack config → prescale.model.config → prescale.model.plan → components → resources.
"""

import pulumi
from prescale.capacity import PrescaleCapacity, PrescaleCapacityArgs
from prescale.model.validation import load_stack_config
from prescale.platform import PrescalePlatform, PrescalePlatformArgs
from prescale.program import evaluation_time, read_raw_config

now = evaluation_time()
config = load_stack_config(read_raw_config(), now)
platform = PrescalePlatform("prescale", PrescalePlatformArgs.from_config(config, now))
capacity = PrescaleCapacity("prescale", PrescaleCapacityArgs(config, platform.platform, now))

for name, value in {**platform.stack_outputs, **capacity.stack_outputs}.items():
    pulumi.export(name, value)
