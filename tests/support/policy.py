"""Run the CrossGuard policy pack offline over what a program registers, as the Pulumi engine would.

The engine hands each policy the resource's inputs deserialized (secrets unwrapped) and wrapped so that
unknown values raise; :func:`resource_args` builds exactly that from a mock registration
(pulumi-policy's own ``_PolicyAnalyzerServicer`` does the same for the gRPC request).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from prescale.offline import Registration
from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

from policy.prescale_policies import POLICIES


@dataclass(frozen=True)
class Violation:
    policy: str
    level: EnforcementLevel
    message: str


def _props(registration: Registration) -> Any:
    return unknown_checking_proxy(deserialize_properties(copy.deepcopy(registration.inputs)))


def _options(registration: Registration) -> PolicyResourceOptions:
    return PolicyResourceOptions(protect=registration.protect, ignore_changes=registration.ignore_changes,
                                 delete_before_replace=None, aliases=[], custom_timeouts=None,
                                 additional_secret_outputs=[], parent=None)


def resource_args(registration: Registration) -> ResourceValidationArgs:
    return ResourceValidationArgs(registration.type, _props(registration), registration.urn, registration.name,
                                  _options(registration), provider=None)


def stack_args(registrations: list[Registration]) -> StackValidationArgs:
    resources = [PolicyResource(r.type, _props(r), r.urn, r.name, _options(r), provider=None, parent=None,
                                dependencies=[], property_dependencies={}) for r in registrations]
    return StackValidationArgs(resources=resources)


def violations(registrations: list[Registration]) -> list[Violation]:
    """Every violation the pack reports on these resources (resource policies each, stack policies once)."""
    found: list[Violation] = []
    for policy in POLICIES:
        def report(message: str, urn: str | None = None, policy=policy) -> None:
            found.append(Violation(policy.name, policy.enforcement_level, message))
        if isinstance(policy, ResourceValidationPolicy):
            for registration in registrations:
                policy.validate(resource_args(registration), report)
        else:
            policy.validate(stack_args(registrations), report)
    return found


def mandatory(found: list[Violation]) -> list[Violation]:
    return [v for v in found if v.level == EnforcementLevel.MANDATORY]
