"""prescale's CrossGuard policy pack: ``pulumi preview --policy-pack policy`` (see docs/guardrails.md).

Only builds the pack: ``PolicyPack`` serves the policies to the Pulumi engine over gRPC and never returns, so
the policies live in the importable :mod:`prescale_policies`, where the tests call them directly.
"""

from prescale_policies import POLICIES
from pulumi_policy import PolicyPack

PolicyPack(name="prescale-guardrails", policies=POLICIES)
