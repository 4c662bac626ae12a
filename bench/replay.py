"""Pulumi's own cost of registering what the program registered, with no program logic at all.

A recorded run (:class:`prescale.offline.Registration`) is registered again under fresh mocks, parents first, with
the same stack outputs: ``sdk``, **the baseline**, through the SDK class a program declares each resource with
(found in the SDKs' registry of type tokens; Kubernetes custom resources through ``CustomResource``, prescale's
components through a subclass, :class:`DeclaredComponent`), and ``engine``, **the floor**, as plain
``pulumi.CustomResource``, ``ComponentResource`` and ``ProviderResource``. :func:`differences` proves a replay
registered the same thing as the program. What each measures and what is not replayed: bench/README.md ("How it
measures").
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal

import pulumi
import pulumi_kubernetes as k8s
from prescale.offline import Registration
from pulumi.runtime import rpc

Through = Literal["sdk", "engine"]
_PROVIDER_TYPE = "pulumi:providers:"


def replay(registrations: list[Registration], outputs: Mapping[str, Any], through: Through) -> None:
    """Register every recorded resource again, parents first, then export ``outputs`` (a Pulumi program)."""
    made: dict[str, pulumi.Resource] = {}
    for registration in parents_first(registrations):
        made[registration.urn] = _register(registration, made, through)
    for registration in registrations:  # a component registers its outputs once its children are declared
        if registration.outputs is not None:
            made[registration.urn].register_outputs(registration.outputs)
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


def differences(program: list[Registration], replayed: list[Registration]) -> list[str]:
    """What a replay registered differently from the program (empty when it is the same stack)."""
    recorded = {registration.urn for registration in program}
    replayed_by_urn = {registration.urn: registration for registration in replayed}
    found = [f"{urn}: not registered by the program" for urn in replayed_by_urn.keys() - recorded]
    for registration in program:
        again = replayed_by_urn.get(registration.urn)
        if again is None:
            found.append(f"{registration.urn}: not replayed")
            continue
        expected, got = _comparable(registration, recorded), _comparable(again, recorded)
        found.extend(f"{registration.urn}: {what} differ" for what in expected if expected[what] != got[what])
    return found


def _comparable(registration: Registration, recorded: set[str]) -> dict[str, Any]:
    return {"type and name": (registration.type, registration.name), "inputs": registration.inputs,
            "parent": registration.parent, "provider": registration.provider, "custom": registration.custom,
            "remote": registration.remote, "version": registration.version, "protect": registration.protect,
            "retain_on_delete": registration.retain_on_delete, "outputs": registration.outputs,
            "ignore_changes": registration.ignore_changes,
            "dependencies": {urn for urn in registration.dependencies if urn in recorded},
            "aliases": sorted(map(_alias_key, registration.aliases))}


def _alias_key(alias: str | pulumi.Alias) -> str:
    return alias if isinstance(alias, str) else repr(sorted((key, repr(value)) for key, value in vars(alias).items()))


def _register(registration: Registration, made: Mapping[str, pulumi.Resource], through: Through) -> pulumi.Resource:
    sdk_class = _sdk_class(registration.type) if through == "sdk" else None
    # A typed class adds its type's former tokens itself: given them again, it would register each twice.
    aliases = [alias for alias in registration.aliases if not _type_only(alias)] if sdk_class else \
        registration.aliases
    opts = pulumi.ResourceOptions(
        parent=made.get(registration.parent),
        provider=made.get(_provider_urn(registration.provider)),
        depends_on=[made[urn] for urn in registration.dependencies if urn in made],
        ignore_changes=registration.ignore_changes or None,
        aliases=aliases or None,
        protect=registration.protect or None,
        retain_on_delete=registration.retain_on_delete or None,
        version=registration.version or None)
    inputs = dict(registration.inputs)
    if sdk_class is not None:
        return sdk_class(registration.name, opts=opts, **_keyword_arguments(inputs))
    if through == "sdk" and registration.custom and registration.type.startswith("kubernetes:"):
        return k8s.apiextensions.CustomResource(registration.name, opts=opts, **_keyword_arguments(inputs))
    if registration.type.startswith(_PROVIDER_TYPE):
        return pulumi.ProviderResource(registration.type.removeprefix(_PROVIDER_TYPE), registration.name, inputs,
                                       opts)
    if registration.custom:
        return pulumi.CustomResource(registration.type, registration.name, inputs, opts)
    component = DeclaredComponent if through == "sdk" else pulumi.ComponentResource
    return component(registration.type, registration.name, inputs, opts, remote=registration.remote)


class DeclaredComponent(pulumi.ComponentResource):
    """A component as a Python program declares one: a subclass of ``ComponentResource``.

    The SDK records the call stack under the third ``__init__`` on it at every registration (``Resource``,
    ``ComponentResource``, the subclass: ``pulumi.runtime.resource._get_stack_trace``); a bare
    ``ComponentResource`` has no third, so its registration skips that work, which no program's component does.
    """

    def __init__(self, type_: str, name: str, inputs: pulumi.Inputs, opts: pulumi.ResourceOptions,
                 remote: bool) -> None:
        super().__init__(type_, name, inputs, opts, remote=remote)


def _type_only(alias: str | pulumi.Alias) -> bool:
    """Whether an alias names only a former type, the kind the SDK classes add (``apps/v1beta1:Deployment``).

    prescale declares none itself; if a program did, its replay would lack it and :func:`differences` say so.
    """
    return isinstance(alias, pulumi.Alias) and alias.type_ is not ... and all(
        value is ... for value in (alias.name, alias.parent, alias.stack, alias.project))


@cache
def _sdk_class(type_: str) -> type[pulumi.Resource] | None:
    """The SDK class of a type token, from the registry the SDKs fill on import (None for other types)."""
    if type_.startswith(_PROVIDER_TYPE):
        package = type_.removeprefix(_PROVIDER_TYPE)
        info = rpc.get_resource_package(package, "") if _sdk_imported(package) else None
        return _class_in(info.pkg_info["fqn"], info.pkg_info["class"]) if info else None
    package, module, _ = type_.split(":")
    info = rpc.get_resource_module(package, module, "") if _sdk_imported(package) else None
    class_name = info.mod_info["classes"].get(type_) if info else None
    return _class_in(info.mod_info["fqn"], class_name) if class_name else None


def _sdk_imported(package: str) -> bool:
    """Import the package's SDK (``pulumi_<package>``), which fills the registry; False if it is not installed."""
    try:
        importlib.import_module(f"pulumi_{package}")
    except ImportError:
        return False
    return True


def _class_in(module: str, name: str) -> type[pulumi.Resource]:
    return getattr(importlib.import_module(module), name)


def _keyword_arguments(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Wire inputs as an SDK class's keyword arguments (``assumeRolePolicy`` → ``assume_role_policy``).

    Nested objects stay as they are: the SDKs translate only the keys they know, so wire names pass unchanged.
    """
    return {re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower(): value for key, value in inputs.items()}


def _provider_urn(reference: str) -> str:
    """A provider reference is ``<urn>::<id>``."""
    return reference.rpartition("::")[0]
