"""prescale: scheduled, pre-scaled Karpenter capacity for known traffic events, as Pulumi components.

Installed from the project's ``components/`` folder. Two layers:

* :mod:`prescale.model`: the typed stack config and the schedule math, pure (no Pulumi);
* this package: the Pulumi ``ComponentResource`` s built on it (platform, node pools, scheduled capacity).
"""
