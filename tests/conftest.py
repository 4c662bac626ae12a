"""What the whole test session shares: nothing but how it ends."""

import gc


def pytest_unconfigure(config):
    """The session is over: without this, the interpreter's exit would rescan every object the SDKs and the
    cached evaluations hold (2-4 s on this repository's 2-core machine) only to free them as the process ends,
    and print asyncio's "exception was never retrieved" for the refused runs' futures the SDK still holds."""
    gc.freeze()
