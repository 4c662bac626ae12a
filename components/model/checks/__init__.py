"""The rules across keys and through time: the second half of validation (:mod:`prescale.model.validation` runs
:func:`.stack.stack_problems`). Each rule names the key it blames, its value and what would be accepted, and runs on
every part of the config that validated on its own (:mod:`.refused`).
"""
