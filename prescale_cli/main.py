"""The ``prescale`` command: see what ``pulumi up`` would create and when capacity will be there.

``plan`` and ``schedule`` work offline (no cloud account, no Pulumi CLI): ``plan`` runs the real ``__main__.py``
under Pulumi mocks with the stack's config; ``schedule`` reads the same config and asks the schedule maths the
program deploys from. ``status`` reads the cluster; ``schema`` prints the stack file's JSON Schema. Errors are one
message on stderr, never a traceback. Every option and exit code: docs/cli.md#options-every-command-takes.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from prescale.model.config import StackConfig
from prescale.model.plan import plan_capacity
from prescale.model.schedule.instants import parse_instant
from prescale.model.validation import ConfigError
from prescale.model.values.duration import parse_duration
from prescale.stack_file import StackFileError, StackFileProblems, project_name

from .output import Output
from .stack import find_project, load_config, project_at
from .timeline import Timeline, build_timeline

if TYPE_CHECKING:  # report's measurements load urllib3 and Prometheus' client only when a command asks
    from .report import Report

_DESCRIPTION = """\
Pre-scale EKS clusters for known traffic events. `plan` and `schedule` run offline: they
show what `pulumi up` would create for a stack and when its capacity will be up, without a
cloud account or the Pulumi CLI. `status` asks the cluster whether the windows running now
or starting soon are ready; `report` and `tune` measure past events from Prometheus and size
the next ones; `fleet` lines many stacks up by event, `preflight` asks the AWS account days
ahead. `schema` prints the JSON Schema editors check stack files with."""

_PLAN_DESCRIPTION = """\
Run the Pulumi program offline with the stack's config and show every resource it
registers as a tree (type, name, nested under its parent), like `pulumi preview`,
followed by counts per type. Values AWS would compute (account, ARNs, endpoints) are
offline stand-ins."""

_SCHEDULE_DESCRIPTION = """\
List every event-window occurrence in a range, in the window's time zone and in UTC:
placeholder scale-up (start minus lead time), event start and end, the nodes or capacity
held, the consolidation freeze covering it, windows that overlap on a NodePool, and the
Karpenter disruption budgets (UTC). One-off events appear once, and not at all once they
are over. Ends with a cost estimate compared with keeping the nodes all day, and what the
capacity reservations of one-off windows cost and when the `pulumi up` that creates them must run.
Repeats the warnings `pulumi up` would log."""

_STATUS_DESCRIPTION = """\
Ask the cluster whether each window running now or starting within --within is ready: its
KEDA ScaledObject (Ready, Active), its placeholders (desired / Ready / Pending, with the
scheduler's or kubelet's reason: unschedulable, image pull...), the pool's nodes (Ready,
in a capacity reservation), NodeClaims that Karpenter failed to launch (with its reason,
e.g. InsufficientCapacityError) and the consolidation freeze in force; on a static pool the
window's own NodePool (replicas, nodes Ready), on a buffer pool its CapacityBuffer
(replicas, ReadyForProvisioning, Provisioning), and for both their driver's CronJobs and
last Jobs. Windows and times are the ones `prescale schedule` lists. Exit code 0 when every window in its lead time or
running is ready, 1 when one is not (upcoming windows are shown but do not count), 2 when
the stack config is invalid or the cluster cannot be reached or read."""

_SCHEMA_DESCRIPTION = """\
Print the JSON Schema (draft 2020-12) of a whole Pulumi.<stack>.yaml: every prescale: key
with its type, default, allowed values and description, from the config models. Editors
that run the YAML language server validate and complete stack files with it (a
`# yaml-language-server: $schema=FILE` line, or VS Code's yaml.schemas setting); rules
across keys stay `prescale plan`'s and `prescale schedule`'s. See docs/config.md."""

_PRUNE_DESCRIPTION = """\
List the one-off windows (start and end as local date-times) whose event ended, at least
--older-than ago: they deploy nothing any more, but stay in the stack file. With --write, remove
them from Pulumi.<stack>.yaml, each with the comment lines right above it, keeping every other
line as written, and only if the rest still validates. Then `pulumi up` removes their idle
objects."""

_REPORT_DESCRIPTION = """\
Measure every window occurrence of the range against its plan, from the Prometheus that scrapes the cluster: how
much of the planned capacity was Ready at the start, when it was complete and by how much before the start, each
new node's launch to Ready, pods that could not be scheduled, node-hours against the ideal and their cost. A
verdict per occurrence (served, late, short, no-data); exit code 1 when one was late or short, 2 when Prometheus
or the stack cannot be read. What each figure reads and needs: docs/report.md."""

_REPORT_EXAMPLES = """examples:
  prescale report --stack prod --prometheus http://prometheus.monitoring:9090
  prescale report --stack prod --prometheus https://prom.example.com --from 2027-03-02 --days 1 --window launch
  PRESCALE_PROMETHEUS_TOKEN=... prescale report --stack prod --prometheus https://prom.example.com --json"""

_TUNE_DESCRIPTION = """\
Suggest each window's next leadTime and nodes (or capacity) from its last measured occurrences (as prescale report
measures them): the p95 of scale-up to complete plus a margin, and the peak of the pods' requests on its NodePool
plus a headroom. --write puts them into Pulumi.<stack>.yaml, keeping its comments, order and quoting, each only if
the file still validates. What each suggestion reads: docs/report.md."""

_FLEET_DESCRIPTION = """\
Read every stack of the given projects offline, as schedule does, and line their windows up by event (a window's
calendar event, else its name): each stack's nodes, vCPUs and first scale-up, and per AWS account and region the
vCPUs by On-Demand quota group and the launches within one minute. Says what no stack sees alone: a region above its
quota, more launches in a minute than EC2 takes at once, stacks that give one event different times. Exit 1 when it
finds one. docs/fleet.md#the-fleet."""

_PREFLIGHT_DESCRIPTION = """\
Ask the AWS account (boto3, the standard credential chain, the stack's region) what only it knows about the
coming windows: its On-Demand vCPU quotas against what runs now plus the windows, whether their instance types are
offered in the pool's zones, the free addresses of the pool's subnets, and their capacity reservations. Exit 1 on
a blocker. docs/fleet.md#preflight."""

_SCHEMA_EXAMPLES = """examples:
  prescale schema --out prescale.schema.json             for prescale's own program
  prescale schema --library --out prescale.schema.json   for a program using prescale as a library
"""

_STATUS_EXAMPLES = """examples:
  prescale status --stack prod                           windows running now or in the next 24 hours
  prescale status --stack prod --within 2d --context prod-admin
  prescale status --stack prod --json | jq '.windows[] | {window, state, ready, notReady}'
"""

_PLAN_EXAMPLES = """examples:
  prescale plan --stack dev                  tree of resources and counts per type
  prescale plan --stack dev --json | jq '.resources | length'
  prescale plan --stack dev --out k8s/       Kubernetes objects as YAML for kubectl or GitOps
"""

_SCHEDULE_EXAMPLES = """examples:
  prescale schedule --stack dev                          the next 7 days from now
  prescale schedule --stack dev --from 2027-03-01 --days 3
  prescale schedule --stack dev --json | jq '.occurrences[] | {window, scaleUp, end}'
  prescale schedule --stack dev --png week.png           picture of the first week

The cost estimate prices nodes from prescale:pricing (vcpuHour, default 0.05 USD; instanceTypes:
{"c7i.xlarge": 0.1785, ...}). It assumes Karpenter picks the cheapest single instance type of the
pool that holds the placeholders (one per node for `nodes:` windows) within its limits, counts each
node once, from scale-up until its window ends or the consolidation freeze holding it ends, plus
consolidateAfter (a later window on the pool takes over nodes still up), and compares with keeping
the busiest moment's nodes all day. A recurring window's rate is the week of its schedule from now,
or the coming year's average month for one that repeats by the month. A static pool's window is
exactly its nodes of the cheapest type the pool allows, until its end. Details: prescale_cli/cost.py.
"""


class CommandError(Exception):
    """A problem the command reports in one line, without a traceback (exit code 1)."""


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(build_parser(), sys.argv[1:] if argv is None else list(argv))
    try:
        project = (project_at(args.project) if args.project else find_project(Path.cwd())) if args.reads_project \
            else None
        return args.run(args, project, Output(sys.stdout))
    except (ConfigError, StackFileError, FileNotFoundError, CommandError) as error:
        print(f"prescale: {error}", file=sys.stderr)
        # They keep 1 for "not ready", "not served", "blocked".
        return 2 if args.command in ("status", "report", "preflight") else 1
    except BrokenPipeError:
        # The reader stopped early (`prescale plan | head`): end quietly, as if killed by SIGPIPE like other
        # Unix tools, and keep Python from failing again while flushing the closed stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


class CommandParser(argparse.ArgumentParser):
    """The top-level parser, which knows each command's own parser (to show that command's usage)."""

    commands: Mapping[str, argparse.ArgumentParser]  # command name → its parser


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, read only when asked (reading it takes 0.1 s)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **_: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print prescale's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version
        print(f"prescale {version('prescale')}")
        parser.exit()


def parse_args(parser: CommandParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args``, but a mistake after a command is shown with that command's usage (argparse names
    an unknown option under the top-level usage), and a mistyped command with the one meant."""
    commands = parser.commands
    if argv and argv[0] not in commands and not argv[0].startswith("-"):
        meant = difflib.get_close_matches(argv[0], commands, n=1)
        if meant:
            commands[meant[0]].error(f"{argv[0]!r} is not a command; did you mean {meant[0]!r}?")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def build_parser() -> CommandParser:
    parser = CommandParser(
        prog="prescale",
        description=_DESCRIPTION,
        epilog="examples:\n  prescale plan --stack dev\n  prescale schedule --stack dev --days 14\n\n"
               "Run `prescale <command> --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(title="commands", dest="command", required=True,
                                     metavar="{plan,schedule,status,report,tune,fleet,preflight,prune,schema}",
                                     parser_class=argparse.ArgumentParser)

    common = argparse.ArgumentParser(add_help=False)
    options = common.add_argument_group("stack options")
    options.add_argument("--stack", default="dev", metavar="NAME",
                         help="the stack whose Pulumi.<NAME>.yaml to use (default: dev)")
    options.add_argument("--project", type=Path, metavar="DIR",
                         help="the Pulumi project directory (default: the nearest directory holding Pulumi.yaml, "
                              "from the current one upward)")
    options.add_argument("--at", type=instant, metavar="ISO-8601",
                         help="take this instant as 'now' for reproducible output, e.g. 2026-12-01T09:00+09:00 "
                              "(default: $PRESCALE_NOW, else the current time; without an offset: UTC)")

    plan = commands.add_parser(
        "plan", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_PLAN_EXAMPLES,
        help="show the resources `pulumi up` would create", description=_PLAN_DESCRIPTION)
    plan.add_argument("--json", action="store_true",
                      help='print {"resources": [{"type", "name", "parent", "inputs"}, ...]} instead: '
                           "exactly the registered resources, parent as a URN, secrets as \"[secret]\"")
    plan.add_argument("--out", type=Path, metavar="DIR",
                      help="also write every Kubernetes object (NodePool, EC2NodeClass, PriorityClass, "
                           "Deployment, ScaledObject...) to DIR as one YAML manifest per object, for "
                           "`kubectl apply -f DIR` or a GitOps repository; Helm releases are listed in DIR/README.md")
    plan.set_defaults(run=_run_plan, reads_project=True)

    schedule = commands.add_parser(
        "schedule", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_SCHEDULE_EXAMPLES, help="show when each window's capacity is up, and what it costs",
        description=_SCHEDULE_DESCRIPTION)
    schedule.add_argument("--from", dest="since", type=instant, metavar="ISO-8601",
                          help="start of the range, e.g. 2027-03-01 or 2027-03-01T08:00+09:00 (default: now; "
                               "without an offset: UTC)")
    schedule.add_argument("--days", type=_positive_days, default=7, metavar="N",
                          help="length of the range in days (default: 7)")
    schedule.add_argument("--json", action="store_true",
                          help='print {"occurrences": [{"window", "strategy", "scaleUp", "start", "end", "nodes", '
                               '"capacity", "driver", ...}], "overlaps", "freezes", "cost", "warnings"} with ISO-8601 '
                               'instants carrying their offset')
    schedule.add_argument("--png", type=Path, metavar="FILE",
                          help="also draw the first week of the range to FILE (PNG): placeholders vs event windows "
                               "per NodePool")
    schedule.set_defaults(run=_run_schedule, reads_project=True)

    status = commands.add_parser(
        "status", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_STATUS_EXAMPLES, help="ask the cluster whether the windows running or starting soon are ready",
        description=_STATUS_DESCRIPTION)
    status.add_argument("--within", type=_within, default=timedelta(hours=24), metavar="DURATION",
                        help="also report windows whose scale-up is this close, e.g. 90m, 24h, 2d (default: 24h)")
    status.add_argument("--kubeconfig", metavar="FILE",
                        help="the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config)")
    status.add_argument("--context", metavar="NAME", help="its context to use (default: its current-context)")
    status.add_argument("--json", action="store_true",
                        help='print {"stack", "now", "within", "ready", "windows": [{"window", "strategy", "state", '
                             '"ready", "notReady", "scaledObject", "placeholders", "static", "buffer", "driver", '
                             '"nodes", "nodeClaims", "freeze", ...}]}')
    status.set_defaults(run=_run_status, reads_project=True)

    # Where report and tune read the cluster's series.
    prometheus = argparse.ArgumentParser(add_help=False)
    prometheus.add_argument("--prometheus", metavar="URL", default=os.environ.get("PRESCALE_PROMETHEUS_URL"),
                            help="the Prometheus HTTP API's base URL (default: $PRESCALE_PROMETHEUS_URL); basic auth "
                                 "as https://user:password@host, a bearer token in $PRESCALE_PROMETHEUS_TOKEN, an "
                                 "Amazon Managed Service for Prometheus workspace's URL signed with AWS credentials")

    report = commands.add_parser(
        "report", parents=[common, prometheus], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_REPORT_EXAMPLES, help="measure each past event against its plan, from Prometheus",
        description=_REPORT_DESCRIPTION)
    report.add_argument("--from", dest="since", type=instant, metavar="ISO-8601",
                        help="start of the range (default: --days before --to)")
    ending = report.add_mutually_exclusive_group()
    ending.add_argument("--to", dest="until", type=instant, metavar="ISO-8601",
                        help="end of the range (default: now)")
    ending.add_argument("--days", type=_positive_days, metavar="N",
                        help="length of the range in days, from --from (default: 7)")
    report.add_argument("--window", action="append", default=[], metavar="NAME",
                        help="only this window (repeatable)")
    report.add_argument("--json", action="store_true",
                        help='print {"schemaVersion", "stack", "from", "to", "occurrences": [{"window", "strategy", '
                             '"scaleUp", "scaleUpMeasured", "start", "end", "planned", "readyAtStart", "completeAt", '
                             '"marginSeconds", "nodeReadySeconds", "unschedulablePods", "unschedulablePodMinutes", '
                             '"nodeClaimLaunchFailures", "placeholdersReplaced", "nodeHours", "nodesGoneAt", '
                             '"idealNodeHours", "cost", "verdict", "missing", ...}]}')
    report.add_argument("--png", type=Path, metavar="FILE",
                        help="also draw each window's planned vs Ready around its occurrences' starts to FILE (PNG)")
    report.set_defaults(run=_run_report, reads_project=True)

    tune = commands.add_parser(
        "tune", parents=[common, prometheus], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="suggest each window's lead time and size from its last measured occurrences",
        description=_TUNE_DESCRIPTION)
    tune.add_argument("--last", type=_whole("occurrences"), default=5, metavar="N",
                      help="the last N occurrences of each window, within the 35 days before now (default: 5)")
    tune.add_argument("--margin", type=_within, default=timedelta(minutes=2), metavar="DURATION",
                      help="added to the p95 of scale-up to complete (default: 2m)")
    tune.add_argument("--headroom", type=_percent, default=0.1, metavar="PERCENT",
                      help="added to the peak of the pods' requests (default: 10)")
    tune.add_argument("--write", action="store_true",
                      help="write the suggestions into Pulumi.<stack>.yaml, each only if the file still validates")
    tune.add_argument("--json", action="store_true",
                      help='print {"schemaVersion", "windows": [{"window", "occurrences", "leadTime": {"current", '
                           '"suggested"}, "nodes" or "capacity": {"current", "suggested"}}]}')
    tune.set_defaults(run=_run_tune, reads_project=True)

    fleet = commands.add_parser(
        "fleet", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="line up every stack of one or more projects by event, with each account and region's totals",
        description=_FLEET_DESCRIPTION)
    fleet.add_argument("--project", dest="projects", action="append", type=Path, metavar="DIR",
                       help="a Pulumi project directory (repeatable; default: the project around the current one)")
    fleet.add_argument("--stacks", default="*", metavar="GLOB", help="only the stacks whose names match (default: *)")
    fleet.add_argument("--from", dest="since", type=instant, metavar="ISO-8601", help="start of the range (default: "
                                                                                   "now)")
    fleet.add_argument("--days", type=_positive_days, default=7, metavar="N", help="length of the range (default: 7)")
    fleet.add_argument("--quota", action="append", default=[], type=_quota, metavar="GROUP=VCPUS",
                       help="an On-Demand vCPU quota, e.g. standard=1024 (repeatable; over prescale:quotas)")
    fleet.add_argument("--at", type=instant, metavar="ISO-8601", help="take this instant as now")
    fleet.add_argument("--json", action="store_true",
                       help='print {"schemaVersion", "stacks", "events": [{"event", "stacks": [{"stack", "window", '
                            '"nodes", "vcpus", "scaleUp"}], "regions": [{"account", "region", "vcpusByFamily", '
                            '"quota", "launchesPerMinute", "instances"}]}], "problems"}')
    fleet.set_defaults(run=_run_fleet, reads_project=False)

    preflight = commands.add_parser(
        "preflight", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="ask the AWS account, days ahead, whether the coming windows can launch",
        description=_PREFLIGHT_DESCRIPTION)
    scope = preflight.add_mutually_exclusive_group()
    scope.add_argument("--event", metavar="NAME", help="the windows that take this calendar event")
    scope.add_argument("--window", metavar="NAME", help="this window only")
    preflight.add_argument("--days", type=_positive_days, default=3, metavar="N",
                           help="without --event or --window: the windows with a scale-up in the next N days "
                                "(default: 3)")
    preflight.add_argument("--json", action="store_true",
                           help='print {"schemaVersion", "stack", "region", "blocked", "findings": [{"window", '
                                '"check", "ok", "message"}]}')
    preflight.set_defaults(run=_run_preflight, reads_project=True)

    prune = commands.add_parser(
        "prune", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="list one-off windows whose event is over, and remove them from the stack file",
        description=_PRUNE_DESCRIPTION)
    prune.add_argument("--older-than", type=_within, default=timedelta(0), metavar="DURATION",
                       help="only those that ended at least this long ago, e.g. 7d, 36h (default: 0, every ended one)")
    prune.add_argument("--write", action="store_true",
                       help="remove them from Pulumi.<stack>.yaml, keeping its other lines, comments and quoting, if "
                            "what is left validates as `pulumi up` validates it")
    prune.set_defaults(run=_run_prune, reads_project=True)

    schema = commands.add_parser(
        "schema", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_SCHEMA_EXAMPLES,
        help="print the JSON Schema of a stack file, for editors", description=_SCHEMA_DESCRIPTION)
    schema.add_argument("--library", action="store_true",
                        help="the schema of a program that uses prescale as a library: only the capacity's "
                             "prescale: keys, none required, keys without a namespace the program's own")
    schema.add_argument("--out", type=Path, metavar="FILE", help="write it to FILE instead of printing it")
    schema.set_defaults(run=_run_schema, reads_project=False)
    parser.commands = commands.choices
    return parser


def instant(text: str) -> datetime:
    """An ISO-8601 date or date-time; one without an offset is read as UTC."""
    try:
        return parse_instant(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _whole(unit: str, most: int | None = None) -> Callable[[str], int]:
    """An option's whole number of ``unit``, from 1 (to ``most``)."""
    def parse(text: str) -> int:
        try:
            count = int(text)
        except ValueError:
            count = 0
        if count < 1 or most is not None and count > most:
            within = f" from 1 to {most}" if most is not None else ", 1 or more"
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of {unit}{within}")
        return count
    return parse


_positive_days = _whole("days", 366)


def _within(text: str) -> timedelta:
    """A Go duration (``90m``, ``1.5h``, ``1h30m``) or whole days (``2d``), from 1s to 366 days."""
    days = text[:-1] if text.endswith("d") and text[:-1].isdigit() else None
    try:
        span = timedelta(days=int(days)) if days else parse_duration(text)
    except ValueError:
        span = timedelta(0)
    if not timedelta(seconds=1) <= span <= timedelta(days=366):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration from 1s to 366d such as 90m, 24h or 2d")
    return span


def _now(args: argparse.Namespace) -> datetime:
    """``--at``, else ``$PRESCALE_NOW``, else the clock, read to the second as people write it."""
    if args.at:
        return args.at
    fixed = os.environ.get("PRESCALE_NOW")
    if not fixed:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        return parse_instant(fixed)
    except ValueError as error:
        raise CommandError(f"$PRESCALE_NOW: {error}; it stands for --at when that is not given: fix it, or unset "
                           "it to use the current time") from None


def _run_plan(args: argparse.Namespace, project: Path, output: Output) -> int:
    # The Pulumi SDK (and the program's provider SDKs) load only for `plan`: `schedule` needs none of them.
    import pulumi
    from prescale.offline import run_program
    from prescale.refusals import refusal_in

    from .manifests import write_manifests
    from .resources import resources_document, show_resources

    try:
        with contextlib.redirect_stdout(sys.stderr):  # the program's own prints must not corrupt --json
            evaluation = run_program(project, args.stack, now=_now(args))
    except StackFileProblems:  # keys the Pulumi CLI would refuse: reported with every problem of the rest
        load_config(project, args.stack, _now(args))
        raise
    except pulumi.ConfigMissingError as error:  # a library project's own `pulumi.Config().require(...)`
        raise CommandError(f"{error.key}: required config is missing (the program reads it with "
                           f"pulumi.Config.require); set it under `config:` in "
                           f"{project / f'Pulumi.{args.stack}.yaml'}") from None
    except pulumi.RunError as error:  # what Pulumi itself reports without a traceback
        raise CommandError(" ".join(str(error).split())) from None
    except ValueError as error:  # a check that reads the cloud's answers (offline, the mocks') refused the stack
        if (refused := refusal_in(error)) is None:
            raise
        raise CommandError(str(refused)) from None
    for warning in evaluation.warnings:  # as `pulumi up` would say them; stdout stays the plan (or its JSON)
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        output.json(resources_document(evaluation))
    else:
        show_resources(evaluation, f"{project_name(project)}-{args.stack}", output)
    if args.out:
        with _writing("the manifests", args.out):
            rendered = write_manifests(evaluation, args.out, args.stack)
        stale = f" (removed {len(rendered.removed)} stale)" if rendered.removed else ""
        charts = ", ".join(f"{release.chart} {release.version}" for release in rendered.helm_releases)
        helm = f"; Helm releases to install first (see {rendered.readme.name} there): {charts}" if charts else ""
        notes = _notes(args, output)
        notes.line(f"Wrote {len(rendered.files)} Kubernetes manifests to {args.out}{stale}{helm}")
        if rendered.driven:
            notes.line(f"{', '.join(rendered.driven)} written at replicas 0, not the count at the plan's time: the "
                       "files apply later, and each window's scale-up CronJob sets its count (the README there says "
                       "how to start one at once inside a window)")
    return 0


def _run_schedule(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .cost import estimate_cost
    from .reservation_report import show_reservations
    from .schedule_report import schedule_document, show_schedule

    now = _now(args)
    config = load_config(project, args.stack, now)
    since = args.since or now
    timeline = build_timeline(plan_capacity(config, now), since, since + timedelta(days=args.days))
    cost = estimate_cost(timeline)
    if args.json:
        output.json(schedule_document(args.stack, timeline, cost))
    else:
        show_schedule(args.stack, timeline, cost, output)
        show_reservations(timeline.plan, output)
    if args.png:
        from .picture import draw_week  # matplotlib takes a second to import: only when drawing
        with _writing("the picture", args.png):
            draw_week(timeline, args.png)
        _notes(args, output).line(f"Drew the week from {since:%Y-%m-%d %H:%M %Z} to {args.png}")
    return 0


def _run_status(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .cluster_reader import ClusterError, connect
    from .status import check_windows
    from .status_report import all_ready, show_status, status_document

    now = _now(args)
    try:
        config = load_config(project, args.stack, now)
        timeline = build_timeline(plan_capacity(config, now), now, now + args.within)
        statuses = check_windows(timeline, connect(args.kubeconfig, args.context))
    except (ConfigError, StackFileError, FileNotFoundError, ClusterError) as error:
        print(f"prescale: {error}", file=sys.stderr)
        return 2  # `status` keeps 1 for "not ready"
    if args.json:
        output.json(status_document(args.stack, now, args.within, statuses))
    else:
        show_status(args.stack, now, args.within, statuses, output)
    return 0 if all_ready(statuses) else 1
def _run_report(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .report_view import report_document, show_report

    now = _now(args)
    days = timedelta(days=args.days or 7)
    until = args.until or (args.since + days if args.since and args.days else now)
    since = args.since or until - days
    if since >= until:
        raise CommandError(f"--from {since:%Y-%m-%d %H:%M} is not before the range's end {until:%Y-%m-%d %H:%M}")
    config = load_config(project, args.stack, now)
    timeline = build_timeline(plan_capacity(config, since), since, until)
    unknown = sorted(set(args.window) - {window.name for window in config.event_windows})
    if unknown:
        raise CommandError(f"--window {', '.join(unknown)}: no such window in stack {args.stack}")
    report = _measured(args, timeline, min(until, now), args.window)
    if args.json:
        output.json(report_document(report))
    else:
        show_report(report, output)
    if args.png:
        from .report_picture import draw_report  # matplotlib takes a second to import: only when drawing
        with _writing("the picture", args.png):
            draw_report(report, args.png)
        _notes(args, output).line(f"Drew each window's planned vs Ready to {args.png}")
    return 1 if report.failed else 0


def _measured(args: argparse.Namespace, timeline: Timeline, now: datetime, windows: Sequence[str] = ()) -> Report:
    """The timeline's occurrences (of ``windows`` only, if given) measured from ``--prometheus``: what report and
    tune both read."""
    from .prometheus import Prometheus, PrometheusError
    from .report import measure

    if not args.prometheus:
        raise CommandError(f"{args.command} needs a Prometheus: --prometheus URL, or $PRESCALE_PROMETHEUS_URL")
    try:
        server = Prometheus.at(args.prometheus, os.environ.get("PRESCALE_PROMETHEUS_TOKEN"))
        return measure(args.stack, timeline, server, now, windows)
    except PrometheusError as error:
        raise CommandError(str(error)) from None


_TUNE_LOOKBACK = timedelta(days=35)  # five weeks: the last five occurrences of a weekly window


def _run_tune(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .report_view import show_tune, tune_document
    from .tune import suggest, write

    now = _now(args)
    config = load_config(project, args.stack, now)
    since = now - _TUNE_LOOKBACK
    timeline = build_timeline(plan_capacity(config, since), since, now)
    report = _measured(args, timeline, now)
    tuned = suggest(config, report, args.last, args.margin, args.headroom)
    if args.json:
        output.json(tune_document(tuned))
    else:
        show_tune(args.stack, tuned, output)
    if args.write:
        written, refused = write(project, args.stack, now, tuned)
        notes = _notes(args, output)
        notes.line(f"Wrote {', '.join(written)} into Pulumi.{args.stack}.yaml" if written
                   else "Nothing written: no suggestion changes a window")
        for problem in refused:
            notes.line(problem)
    return 0


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage, like 10 or 25%") from None
    if not 0 <= value <= 500:
        raise argparse.ArgumentTypeError(f"{text!r}: a headroom between 0 and 500 percent")
    return value / 100


def _run_fleet(args: argparse.Namespace, project: Path | None, output: Output) -> int:
    from .fleet import read_fleet
    from .fleet_view import fleet_document, show_fleet

    projects = [project_at(path) for path in args.projects] if args.projects else [find_project(Path.cwd())]
    now = _now(args)
    fleet, quotas = read_fleet(projects, args.stacks, now, args.since or now, args.days, dict(args.quota))
    if args.json:
        output.json(fleet_document(fleet, quotas))
    else:
        show_fleet(fleet, quotas, output)
    return 1 if fleet.problems else 0


def _quota(text: str) -> tuple[str, int]:
    from prescale.model.values.quota_families import QUOTA_FAMILIES

    group, _, vcpus = text.partition("=")
    if group not in QUOTA_FAMILIES or not vcpus.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: GROUP=VCPUS with GROUP one of {', '.join(QUOTA_FAMILIES)}")
    return group, int(vcpus)


def _run_preflight(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .fleet_view import preflight_document, show_preflight
    from .preflight import AccountUnreachable, Aws, preflight, windows_ahead

    now = _now(args)
    config = load_config(project, args.stack, now)
    if not isinstance(config, StackConfig):
        raise CommandError(f"stack {args.stack} has no prescale:cluster: preflight needs the stack's region")
    names = {window.name for window in config.event_windows}
    if args.window is not None and args.window not in names:
        raise CommandError(f"--window {args.window}: no such window in stack {args.stack}")
    if args.event is not None and args.event not in {window.event for window in config.event_windows}:
        raise CommandError(f"--event {args.event}: no window of stack {args.stack} takes it")
    plan = plan_capacity(config, now)
    timeline = build_timeline(plan, now, now + timedelta(days=args.days))
    try:
        aws = Aws(config.region)
    except AccountUnreachable as error:
        raise CommandError(str(error)) from None
    result = preflight(args.stack, config, plan, aws,
                       windows_ahead(plan, now, args.days, args.event, args.window, timeline.entries))
    if args.json:
        output.json(preflight_document(result))
    else:
        show_preflight(result, output)
    return 1 if result.blocked else 0


def _run_prune(args: argparse.Namespace, project: Path, output: Output) -> int:
    from .prune import ended_events, ended_one_offs, prune, prune_events

    now = _now(args)
    cut = now - args.older_than
    ended = ended_one_offs(project, args.stack, now, args.older_than)
    calendar, events = ended_events(project, args.stack, now, args.older_than)
    if not ended and not events:
        calendar_too = ", nor event of its calendar," if calendar else ""
        output.line(f"No one-off window of stack {args.stack}{calendar_too} ended before {cut:%Y-%m-%d %H:%M} UTC.")
        return 0
    if ended:
        output.table(["Window", "Pool", "Ended"], [[entry.window.name, entry.window.node_pool,
                                                    f"{entry.end:%Y-%m-%d %H:%M %Z} ({entry.window.timezone})"]
                                                   for entry in ended], title="One-off windows whose event is over")
    if events:
        output.table(["Event", "Ended"], [[event.name, f"{event.end:%Y-%m-%d %H:%M %Z} ({event.timezone})"]
                                          for event in events],
                     title=f"One-off events of {calendar.name if calendar else 'the calendar'} that are over and "
                           "that no stack of the project takes")
    if not args.write:
        output.line(f"`prescale prune --stack {args.stack} --write` removes them from Pulumi.{args.stack}.yaml"
                    + (f" and {calendar.name}" if events and calendar else "")
                    + "; the next `pulumi up` then removes their objects.")
        return 0
    if ended:
        prune(project, args.stack, now, ended)
        output.line(f"Removed {len(ended)} from Pulumi.{args.stack}.yaml; `pulumi up` removes their objects.")
    if events and calendar is not None:
        prune_events(calendar, events)
        output.line(f"Removed {len(events)} from {calendar.name}.")
    return 0


def _run_schema(args: argparse.Namespace, project: Path | None, output: Output) -> int:
    from prescale.model.config_schema import stack_file_schema  # pydantic's schema generator: only when asked

    schema = stack_file_schema(library=args.library)
    if not args.out:
        output.json(schema)
        return 0
    with _writing("the schema", args.out):
        with args.out.open("w", encoding="utf-8") as file:
            Output(file).json(schema)
    whose = "a library program's stack files" if args.library else "prescale's stack files"
    output.line(f"Wrote the JSON Schema of {whose} to {args.out}")
    return 0


@contextlib.contextmanager
def _writing(what: str, path: Path) -> Iterator[None]:
    """A failure to write ``path`` as one line naming it and the reason, instead of ``[Errno 2] ...``."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or str(error)
        if isinstance(error, FileNotFoundError) and not path.parent.exists():
            reason = f"its directory {path.parent} does not exist"
        elif error.filename and Path(error.filename) != path:
            reason += f" ({error.filename})"
        raise CommandError(f"cannot write {what} to {path}: {reason}") from None


def _notes(args: argparse.Namespace, output: Output) -> Output:
    """Where to say what was written: stderr under ``--json``, so stdout stays one JSON document."""
    return Output(sys.stderr) if args.json else output
