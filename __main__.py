"""prescale: pre-scale an EKS cluster for known traffic events, one ``pulumi up`` per environment.

The only place that reads stack config (through `prescale.program`). It is read once, validated whole (any problem
stops the program before a single resource is registered), planned once, and handed to the components as typed
objects: stack config → prescale.model.config → prescale.model.plan → components → resources.
"""

import pulumi
from prescale.capacity import deploy_capacity
from prescale.model.validation import load_stack_config
from prescale.platform import deploy_platform
from prescale.program import evaluation_time, read_raw_config

now = evaluation_time()
config = load_stack_config(read_raw_config(), now)
platform = deploy_platform(config, now)
capacity = deploy_capacity(config, platform, now)

for name, value in platform.exports.items():
    pulumi.export(name, value)
pulumi.export("nodePools", sorted(capacity.node_pools))
pulumi.export("armedWindows", sorted(capacity.windows))
pulumi.export("idleWindows", capacity.idle_windows)
if capacity.plan.reservations:  # one-off windows with `reserve`
    pulumi.export("reservations", capacity.reservation_outputs)
    pulumi.export("nextUpForReservations", capacity.next_up_for_reservations)
