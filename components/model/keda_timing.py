"""How KEDA moves a window's placeholders: the ScaledObject's timings, chosen together.

The ScaledObjects render them (:mod:`prescale.capacity.scheduled_capacity`, whose docstring says how KEDA's
executor uses each) and ``prescale schedule`` counts them in a window's tail; pure, so the CLI reads them without
a Pulumi SDK.
"""

POLLING_INTERVAL_SECONDS = 15  # KEDA writes N within 15 s of the window opening (default 30)
# After the window closes, KEDA waits this long since the last poll that saw it open, then writes 0.
# One minute absorbs a missed poll without keeping nodes long.
COOLDOWN_SECONDS = 60
# A ScaledObject never active yet (just created outside its window) scales a Deployment the API server
# defaulted to 1 replica (a GitOps apply without `replicas`) to 0 at KEDA's first poll.
INITIAL_COOLDOWN_SECONDS = 0
IDLE_REPLICAS = 0  # outside windows; KEDA's docs: the only supported idleReplicaCount
