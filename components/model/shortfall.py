"""Whether a pool's subnets hold the addresses its windows' busiest moment takes: refused where that is certain, said
where tight. Pure, and shared by the config checks (:mod:`prescale.model.checks.addresses`, on the subnets the
config names or the VPC prescale would create) and the capacity wing, which runs it again at preview on the subnets
it looks up, so that wing needs nothing of the checks. The counts are :mod:`prescale.model.fleet.addresses`'.
Rules and sources: docs/capacity.md#addresses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from .fleet.addresses import Subnets, WindowAddresses, busiest
from .windows import occupied_spans

TIGHT = Fraction(1, 2)  # more than this share of the free addresses held at once is said


@dataclass(frozen=True)
class AddressShortfall:
    """Node pools whose subnets cannot hold (``refused``), or can barely hold, their busiest moment."""

    refused: bool
    message: str
    needed: int  # addresses held at that moment (under the defaults, or at the least when refused otherwise)


def address_shortfall(pools: Sequence[str], subnets: Subnets, windows: Sequence[WindowAddresses], now: datetime, *,
                      defaults_certain: bool, prefixes: bool = False) -> AddressShortfall | None:
    """Whether the busiest moment of ``windows`` (on ``pools``, which share ``subnets``) in the year from ``now`` fits
    their free addresses.

    Refused when it certainly cannot: its addresses under the networking's defaults where those are certain
    (``defaults_certain``: a cluster prescale creates, with the VPC CNI as EKS installs it), else one per node and
    one per placeholder, the least any setting holds. Said when the defaults need more than half of them.
    """
    free = subnets.total
    if sum(window.expected for window in windows) <= TIGHT * free:
        return None  # all of them at once fit: no sweep needed (the usual case)
    spans = {window.index: occupied_spans(window.window, now) for window in windows}
    expected = busiest(windows, spans, lambda window: window.expected)
    if expected is None or expected.expected <= TIGHT * free:
        return None
    defaults = ("under EKS Auto Mode's networking, which takes /28 prefixes of 16 addresses" if prefixes else
                "under the VPC CNI's defaults, where WARM_ENI_TARGET=1 keeps a spare network interface of addresses on "
                "each node")
    on = f"node pool{'s' * (len(pools) != 1)} {', '.join(map(repr, pools))}"
    in_subnets = f"the {free} free in {subnets.describe()}"
    if defaults_certain and expected.expected > free:
        return AddressShortfall(True, f"{on}: at least {expected.expected} addresses are held {expected.describe()} "
                                      f"{defaults} ({expected.breakdown()}), more than {in_subnets}",
                                expected.expected)
    least = busiest(windows, spans, lambda window: window.least)
    assert least is not None  # the same spans
    if not defaults_certain and least.least > free:
        return AddressShortfall(True, (
            f"{on}: at least {least.least} addresses are held {least.describe()} whatever the networking's settings "
            f"(one per node and one per placeholder; {least.expected} {defaults}: {least.breakdown()}), more than "
            f"{in_subnets}"), least.least)
    if expected.expected > free:
        tail = f"more than {in_subnets}: those nodes will lack pod addresses " + (
            "unless Auto Mode falls back to single addresses" if prefixes else
            "unless the VPC CNI is set to hold fewer (WARM_IP_TARGET, MINIMUM_IP_TARGET)")
    else:
        tail = (f"{expected.expected * 100 // free}% of {in_subnets}, leaving little for other nodes and pods (and "
                "Karpenter may put every node in one zone's subnet)")
    return AddressShortfall(False, f"{on}: at least {expected.expected} addresses are held {expected.describe()} "
                                   f"{defaults} ({expected.breakdown()}), {tail}", expected.expected)
