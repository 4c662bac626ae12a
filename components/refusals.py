"""What a preview refuses: a stack that validates but that the cloud's answers show cannot work as it is.

A few checks need what only a preview reads: an existing VPC's free addresses (:mod:`prescale.capacity.addresses`),
the identity running the deployment and an existing cluster's settings (:mod:`prescale.platform.cluster`). They run
inside the Outputs those reads return and raise a :class:`PreviewRefusal`, which fails the run before the resources
waiting for them are registered. The SDK wraps an exception raised there in its own ``ValueError`` ("While processing
resource ...", the original as its cause), so whoever reports the run's failure finds the refusal's own words with
:func:`refusal_in` (``prescale plan`` does).
"""

from __future__ import annotations


class PreviewRefusal(ValueError):
    """The stack cannot be deployed as it is, found at preview; the message says why and what is allowed."""


def refusal_in(error: BaseException) -> PreviewRefusal | None:
    """The refusal that ``error`` is or that led to it through the SDK's wrapping; None if none did."""
    # The SDK re-raises a failed registration from itself (``raise exn from cause``, both one exception), so its
    # wrapping is reached through the exception being handled when it was raised (``__context__``) as well.
    seen: set[int] = set()
    chain: list[BaseException | None] = [error]
    while chain:
        link = chain.pop()
        if link is None or id(link) in seen:
            continue
        if isinstance(link, PreviewRefusal):
            return link
        seen.add(id(link))
        chain += [link.__context__, link.__cause__]
    return None
