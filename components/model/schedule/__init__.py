"""The schedule maths: when a window's capacity is up, exactly as KEDA, Karpenter and the CronJob controller compute
it, from the config model's windows and the crons, durations and zones of :mod:`prescale.model.values`. Pure.

* :mod:`.instants` how instants are written;
* :mod:`.keda` KEDA's cron scaler (:func:`cron_window_active`, the public answer for any instant) and each
  occurrence it opens; :mod:`.shift` a cron moved by a lead time; :mod:`.dst` where clocks change;
* :mod:`.freezes` a window's UTC consolidation freeze and fitting a pool's into its 50 budgets;
  :mod:`.after_end` KEDA's scale-down, the nodes' tail and the failsafe; :mod:`.overlaps` where spans coincide.
"""

from .keda import cron_window_active

__all__ = ["cron_window_active"]
