"""The schedule maths: when a window's capacity is up, exactly as KEDA, Karpenter and the CronJob controller compute
it. Pure, and below the config model (which parses its crons with it).

* :mod:`.cron` robfig/cron as KEDA and Karpenter read it; :mod:`.duration` Go-style durations; :mod:`.time_zones`
  which zone names a window may use; :mod:`.instants` how instants are written;
* :mod:`.keda` KEDA's cron scaler (:func:`cron_window_active`, the public answer for any instant) and each
  occurrence it opens; :mod:`.shift` a cron moved by a lead time; :mod:`.dst` where clocks change;
* :mod:`.freezes` a window's UTC consolidation freeze and fitting a pool's into its 50 budgets;
  :mod:`.after_end` KEDA's scale-down, the nodes' tail and the failsafe; :mod:`.overlaps` where spans coincide.
"""

from .keda import cron_window_active

__all__ = ["cron_window_active"]
