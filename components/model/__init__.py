"""The pure half of prescale: the typed stack config and the schedule math, with no Pulumi import.

Everything here is a plain function of its inputs (and an explicit ``now``), so it is tested directly
and shared by the Pulumi components (:mod:`prescale`), the ``prescale`` CLI and the policy pack.
"""
