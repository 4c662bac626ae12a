"""The EC2 On-Demand vCPU quota an instance type counts against, by the letters that start its name.

Service Quotas sets a Region's On-Demand vCPUs per family group (AWS docs, "Amazon EC2 service quotas", On-Demand
Instance quotas): the standard group takes A, C, D, H, I, M, R, T and Z instances; F, G and VT, Inf, P, X, DL,
Trn and HPC instances each count against their own; high-memory (``u-``) ones too. ``prescale fleet`` adds a
fleet's vCPUs up per group, and ``prescale:quotas`` names them by these keys.
"""

from __future__ import annotations

import re
from typing import Literal

QuotaFamily = Literal["standard", "f", "g", "inf", "p", "x", "dl", "trn", "hpc", "high-memory"]
QUOTA_FAMILIES: tuple[QuotaFamily, ...] = ("standard", "f", "g", "inf", "p", "x", "dl", "trn", "hpc", "high-memory")
_STANDARD = frozenset("acdhimrtz")
_OWN: dict[str, QuotaFamily] = {"f": "f", "g": "g", "vt": "g", "inf": "inf", "p": "p", "x": "x", "dl": "dl",
                                "trn": "trn", "hpc": "hpc", "u": "high-memory"}


def quota_family(instance_type: str) -> QuotaFamily:
    """The quota group of ``instance_type`` (``m7i.xlarge`` → standard, ``g5.xlarge`` and ``vt1.3xlarge`` → g)."""
    letters = re.match(r"[a-z]+", instance_type)
    prefix = letters.group(0) if letters else ""
    if prefix in _OWN:
        return _OWN[prefix]
    return "standard" if prefix[:1] in _STANDARD else _OWN.get(prefix[:1], "standard")
