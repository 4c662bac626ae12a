"""The baseline: Pulumi's own cost of registering what the program registered, with no program logic at all.

A recorded run (:class:`prescale_cli.offline.Registration`: type, name, inputs, parent, provider, dependencies
and options) is replayed as plain ``pulumi.CustomResource``/``ComponentResource``/``ProviderResource``
registrations under fresh mocks: the same resources with the same inputs, the same tree and the same
dependencies, the same stack outputs, but no config validation, schedule maths, typed SDK classes or
``Output`` chains. What the program costs on top of this floor is what prescale adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from prescale_cli.offline import Registration

_PROVIDER_TYPE = "pulumi:providers:"


def replay(registrations: list[Registration], outputs: Mapping[str, Any]) -> None:
    """Register every recorded resource again, parents first, then export ``outputs`` (a Pulumi program)."""
    made: dict[str, pulumi.Resource] = {}
    for registration in parents_first(registrations):
        made[registration.urn] = _register(registration, made)
    for name, value in outputs.items():
        pulumi.export(name, value)


def parents_first(registrations: list[Registration]) -> list[Registration]:
    """The registrations in an order where each parent and dependency comes before the resources needing it.

    The engine registers from several threads, so the recorded order is nearly but not always such an order.
    """
    by_urn = {registration.urn: registration for registration in registrations}
    ordered: list[Registration] = []
    placed: set[str] = set()

    def place(registration: Registration) -> None:
        if registration.urn in placed:
            return
        placed.add(registration.urn)
        for needed in (registration.parent, _provider_urn(registration.provider), *registration.dependencies):
            if needed in by_urn:
                place(by_urn[needed])
        ordered.append(registration)

    for registration in registrations:
        place(registration)
    return ordered


def _register(registration: Registration, made: Mapping[str, pulumi.Resource]) -> pulumi.Resource:
    opts = pulumi.ResourceOptions(
        parent=made.get(registration.parent),
        provider=made.get(_provider_urn(registration.provider)),
        depends_on=[made[urn] for urn in registration.dependencies if urn in made],
        ignore_changes=registration.ignore_changes or None,
        aliases=registration.aliases or None,
        protect=registration.protect or None,
        version=registration.version or None)
    inputs = dict(registration.inputs)
    if registration.type.startswith(_PROVIDER_TYPE):
        return pulumi.ProviderResource(registration.type.removeprefix(_PROVIDER_TYPE), registration.name, inputs,
                                       opts)
    if registration.custom:
        return pulumi.CustomResource(registration.type, registration.name, inputs, opts)
    return pulumi.ComponentResource(registration.type, registration.name, inputs, opts, remote=registration.remote)


def _provider_urn(reference: str) -> str:
    """A provider reference is ``<urn>::<id>``."""
    return reference.rpartition("::")[0]
