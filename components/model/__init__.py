"""The pure half of prescale: the typed stack config, its validation and the plan, with no Pulumi import.

Three doors, in the order data flows through them: :mod:`.config` the stack config as typed, immutable models;
:mod:`.validation` the one way in (every problem of a raw config at once, or a valid config); :mod:`.plan` what a
run deploys and shows at ``now`` (:mod:`.windows`: what each window becomes). Behind them, the rooms:
:mod:`.checks` the rules across keys and through time, :mod:`.schedule` the time maths, :mod:`.fleet` the nodes
and pods. Everything is a plain function of its inputs and an explicit ``now``, shared by the components and the
CLI. The map: docs/library.md#the-layers.
"""
