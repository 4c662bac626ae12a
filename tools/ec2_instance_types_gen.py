"""Regenerate :mod:`prescale.model.fleet.ec2_instance_types` from Karpenter's instance types and the VPC CNI's limits.

Karpenter's per-release reference of the instance types it launches, with the room each offers pods after its
overhead (``website/content/en/v<MINOR>/reference/instance-types.md`` in aws/karpenter-provider-aws), joined with
the network interfaces and IPv4 addresses per interface the VPC CNI's ipamd reads (``pkg/vpc/vpc_ip_resource_limit.go``
in aws/amazon-vpc-cni-k8s); both must describe every type alike, or nothing is written (where each comes from:
docs/internals.md#prescalemodelfleetinstances). To refresh the table for a new release::

    python -m tools.ec2_instance_types_gen instance-types.md vpc_ip_resource_limit.go \\
        "the instance-types reference of aws/karpenter-provider-aws v1.14 (release commit 692ccdd, 2026-07-11) \\
        and pkg/vpc/vpc_ip_resource_limit.go of aws/amazon-vpc-cni-k8s v1.23.0" \
        > components/model/fleet/ec2_instance_types.py
"""

from __future__ import annotations

import re
import sys
import textwrap

from prescale.model.values.quantity import MIB, parse_quantity

_HEADING = re.compile(r"^### `(?P<name>[^`]+)`$", re.MULTILINE)
_ROW = re.compile(r"^ \|(?P<key>[^|]+)\|(?P<value>[^|]*)\|$", re.MULTILINE)
_LIMITS = re.compile(r'^\t"(?P<name>[^"]+)": \{\n\t\tENILimit:\s+(?P<enis>\d+),\n\t\tIPv4Limit:\s+(?P<ipv4>\d+),',
                     re.MULTILINE)

# (name, category, architecture, vCPUs, memory MiB, allocatable millicores, allocatable MiB, max pods)
Reference = tuple[str, str, str, int, int, int, int, int]
# The same without max pods, with the network interfaces and IPv4 addresses per interface in their place.
Row = tuple[str, str, str, int, int, int, int, int, int]


def parse_reference(markdown: str) -> list[Reference]:
    """Each type of Karpenter's reference, sorted by name."""
    sections = _HEADING.split(markdown)[1:]
    rows = []
    for name, body in zip(sections[::2], sections[1::2], strict=True):
        values = {match["key"]: match["value"] for match in _ROW.finditer(body)}
        rows.append((name, values["karpenter.k8s.aws/instance-category"], values["kubernetes.io/arch"],
                     int(values["karpenter.k8s.aws/instance-cpu"]), int(values["karpenter.k8s.aws/instance-memory"]),
                     int(parse_quantity(values["cpu"]) * 1000), int(parse_quantity(values["memory"]) / MIB),
                     int(values["pods"])))
    return sorted(rows)


def parse_network_limits(go_source: str) -> dict[str, tuple[int, int]]:
    """Instance type → (network interfaces, IPv4 addresses per interface), from the VPC CNI's limits table."""
    return {match["name"]: (int(match["enis"]), int(match["ipv4"])) for match in _LIMITS.finditer(go_source)}


def table_rows(reference: list[Reference], limits: dict[str, tuple[int, int]]) -> list[Row]:
    """The reference's types with the CNI's interface limits; refuses a type either source lacks or describes
    differently (its max pods not the CNI's formula)."""
    rows = []
    for *known, pods in reference:
        name = known[0]
        if name not in limits:
            raise ValueError(f"{name}: not in the VPC CNI's limits")
        enis, ipv4 = limits[name]
        if enis * (ipv4 - 1) + 2 != pods:
            raise ValueError(f"{name}: Karpenter lists {pods} pods, the CNI's {enis} interfaces × {ipv4} addresses "
                             f"give {enis * (ipv4 - 1) + 2}")
        rows.append((*known, enis, ipv4))
    return rows


def render_module(rows: list[Row], source: str) -> str:
    """The Python source of :mod:`prescale.model.fleet.ec2_instance_types` for ``rows`` read from ``source``."""
    lines = ['"""EC2 instance types Karpenter can launch, with the room each offers pods and its network interfaces.',
             "",
             *textwrap.wrap(f"From {source}.", 116),
             "Allocatable CPU and memory are what a node of the type offers pods after Karpenter's kubelet and system",
             "reservations, eviction threshold and VM overhead, before DaemonSets; the network interfaces and IPv4",
             "addresses per interface are the VPC CNI's. Written by :mod:`tools.ec2_instance_types_gen`: do not edit,",
             "regenerate.",
             '"""',
             "",
             "# (name, category, architecture, vCPUs, memory MiB, allocatable millicores, allocatable MiB,",
             "#  network interfaces, IPv4 addresses per interface)",
             "INSTANCE_TYPES: tuple[tuple[str, str, str, int, int, int, int, int, int], ...] = ("]
    lines += [f"    {row!r}," for row in rows]
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as reference, open(sys.argv[2], encoding="utf-8") as limits:
        sys.stdout.write(render_module(table_rows(parse_reference(reference.read()),
                                                  parse_network_limits(limits.read())), sys.argv[3]))
