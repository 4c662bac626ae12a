"""One measurement in a fresh interpreter: evaluate the program, its baseline or its floor once; print JSON.

A fresh process per measurement is what ``pulumi preview`` is, and keeps the schedule maths' caches out of the next
run; imports and the SDK's start-up are paid before the clock starts, by a warm-up evaluation
(:func:`bench.stacks.warm_up_config`). Why: bench/README.md ("How it measures"). ::

    python -m bench.worker program STACK.json [--record RUN.pickle]   # the stack config in Pulumi's wire form
    python -m bench.worker baseline STACK.json --record RUN.pickle    # replays through the SDKs' classes
    python -m bench.worker floor STACK.json --record RUN.pickle       # replays as plain resources
    python -m bench.worker baseline STACK.json --record RUN.pickle --cold  # no warm-up: timed from outside
    python -m bench.worker program STACK.json --stop run               # for an instruction count: nothing after

Both replays fail unless they registered exactly what the program did. Printed: resources registered, wall
seconds of the evaluation, and the process's peak resident memory (``ru_maxrss``, imports included).
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import resource
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from prescale.offline import Evaluation, evaluate, run_program

from .replay import differences, replay
from .stacks import NOW, warm_up_config

PROJECT = Path(__file__).resolve().parent.parent
STACK = "bench"
_REPLAYS = {"baseline": "sdk", "floor": "engine"}  # mode → how bench.replay registers


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("program", *_REPLAYS))
    parser.add_argument("stack", type=Path, help="the stack config in wire form (JSON)")
    parser.add_argument("--record", type=Path,
                        help="program: where to write what it registered; baseline, floor: the recording to replay")
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up: imports and the SDK's start-up are left for the first (timed) evaluation, "
                             "as in a `prescale plan` that bench.run times from outside")
    parser.add_argument("--stop", choices=("warm-up", "run"),
                        help="for an instruction count (bench.instructions): stop after the warm-up and reading the "
                             "recording, or right after the evaluation, before the recording or the check; prints "
                             "nothing")
    args = parser.parse_args(argv)
    if args.mode in _REPLAYS and args.record is None:
        parser.error(f"{args.mode} needs --record: the program's recorded run to replay")

    wire = json.loads(args.stack.read_text())
    if not args.cold:
        run_program(PROJECT, "warm-up", NOW, config=warm_up_config())
        gc.collect()  # the warm-up's leftovers: no collection of them may fall in the timed run
    recorded: Evaluation | None = None
    if args.mode == "program":
        run = partial(run_program, PROJECT, STACK, NOW, config=wire)
    else:
        recorded = pickle.loads(args.record.read_bytes())
        run = partial(evaluate, partial(replay, recorded.resources, recorded.outputs, _REPLAYS[args.mode]),
                      stack=STACK, config=wire)
    if args.stop == "warm-up":
        return 0
    started = time.perf_counter()
    evaluation = run()
    seconds = time.perf_counter() - started
    if args.stop == "run":
        return 0
    if args.mode == "program" and args.record:
        args.record.write_bytes(pickle.dumps(evaluation))
    if recorded is not None and (unlike := differences(recorded.resources, evaluation.resources)):
        sys.exit(f"the {args.mode} did not register what the program did: " + "; ".join(unlike[:5]))
    print(json.dumps({"resources": len(evaluation.resources), "seconds": seconds, "peak_bytes": peak_memory()}))
    return 0  # the exit skips its collections (prescale.offline), as `prescale plan`'s does


def peak_memory() -> int:
    """The process's peak resident memory in bytes (``ru_maxrss`` is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


if __name__ == "__main__":
    raise SystemExit(main())
