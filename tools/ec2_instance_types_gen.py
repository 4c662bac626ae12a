"""Regenerate :mod:`prescale.model.ec2_instance_types` from Karpenter's own instance-type reference.

Karpenter publishes, with every release, a page listing each EC2 instance type it can launch with its labels and
the resources a node of that type offers pods *after* Karpenter's overhead (kube-reserved, system-reserved, the
eviction threshold and the VM memory overhead): ``website/content/en/v<MINOR>/reference/instance-types.md`` in
aws/karpenter-provider-aws, written by ``hack/docs/instancetypes_gen`` from EC2's ``DescribeInstanceTypes`` in
us-east-1, us-east-2 and us-west-2 (AL2023 AMI, no block device mappings). To refresh the table for a new
Karpenter release::

    python -m tools.ec2_instance_types_gen instance-types.md "aws/karpenter-provider-aws v1.14 \\
        (release commit 692ccdd, 2026-07-11)" > components/model/ec2_instance_types.py
"""

from __future__ import annotations

import re
import sys

from prescale.model.quantity import MIB, parse_quantity

_HEADING = re.compile(r"^### `(?P<name>[^`]+)`$", re.MULTILINE)
_ROW = re.compile(r"^ \|(?P<key>[^|]+)\|(?P<value>[^|]*)\|$", re.MULTILINE)

Row = tuple[str, str, str, int, int, int, int]


def parse_reference(markdown: str) -> list[Row]:
    """``(name, category, architecture, vCPUs, memory MiB, allocatable millicores, allocatable MiB)`` per type."""
    sections = _HEADING.split(markdown)[1:]
    rows = []
    for name, body in zip(sections[::2], sections[1::2]):
        values = {match["key"]: match["value"] for match in _ROW.finditer(body)}
        rows.append((name, values["karpenter.k8s.aws/instance-category"], values["kubernetes.io/arch"],
                     int(values["karpenter.k8s.aws/instance-cpu"]), int(values["karpenter.k8s.aws/instance-memory"]),
                     int(parse_quantity(values["cpu"]) * 1000), int(parse_quantity(values["memory"]) / MIB)))
    return sorted(rows)


def render_module(rows: list[Row], source: str) -> str:
    """The Python source of :mod:`prescale.model.ec2_instance_types` for ``rows`` read from ``source``."""
    lines = ['"""EC2 instance types Karpenter can launch, with the room each offers pods.',
             "",
             f"From the instance-types reference of {source}.",
             "Allocatable CPU and memory are what a node of the type offers pods after Karpenter's kubelet and system",
             "reservations, eviction threshold and VM overhead, before DaemonSets. Written by",
             ":mod:`prescale.model.ec2_instance_types_gen`: do not edit, regenerate.",
             '"""',
             "",
             "# (name, category, architecture, vCPUs, memory MiB, allocatable millicores, allocatable MiB)",
             "INSTANCE_TYPES: tuple[tuple[str, str, str, int, int, int, int], ...] = ("]
    lines += [f"    {row!r}," for row in rows]
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as reference:
        sys.stdout.write(render_module(parse_reference(reference.read()), sys.argv[2]))
