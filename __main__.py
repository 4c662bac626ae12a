"""prescale: pre-scale an EKS cluster for known traffic events, one ``pulumi up`` per environment.

The only place that reads stack config. It is read once, validated whole (any problem stops the
program before a single resource is registered), and handed to the components as typed objects:
stack config → prescale.model.config → prescale.model.schedule → components → resources.
"""

import os
from datetime import datetime, timezone

import pulumi
from pulumi.runtime import config as runtime_config

from prescale.model.validation import decode_config, load_stack_config
from prescale.capacity import deploy_capacity
from prescale.platform import deploy_platform


def read_raw_config() -> dict:
    """Every config value the engine hands the program, decoded for the config model."""
    return decode_config({**runtime_config.get_config_env(), **runtime_config.CONFIG.get()})


def evaluation_time() -> datetime:
    """Now, or ``PRESCALE_NOW`` (ISO-8601) so offline plans and tests are reproducible."""
    fixed = os.environ.get("PRESCALE_NOW")
    return datetime.fromisoformat(fixed) if fixed else datetime.now(timezone.utc)


now = evaluation_time()
config = load_stack_config(read_raw_config(), now)
platform = deploy_platform(config, now)
capacity = deploy_capacity(config, platform, now)

for name, value in platform.exports.items():
    pulumi.export(name, value)
pulumi.export("nodePools", sorted(capacity.node_pools))
pulumi.export("armedWindows", sorted(capacity.windows))
pulumi.export("idleWindows", capacity.idle_windows)
