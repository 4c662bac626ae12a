"""Registered inputs as plain data that JSON and YAML print the same way every run.

The Pulumi engine carries numbers as protobuf doubles, so ``replicas: 0`` arrives as ``0.0``; Kubernetes
refuses ``0.0`` for an integer field, and every Pulumi provider turns integral numbers back into integers,
so this does too. Secrets keep Pulumi's rule of never being printed. Map keys are sorted because the wire
order is arbitrary and a GitOps diff must only show real changes.
"""

from __future__ import annotations

from typing import Any

from prescale.offline import SECRET, is_secret


def plain(value: Any) -> Any:
    """``value`` with integral floats as ints, secrets as ``"[secret]"`` and dict keys sorted, recursively."""
    if isinstance(value, dict):
        if is_secret(value):
            return SECRET
        return {key: plain(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
