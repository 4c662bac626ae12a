"""Cron as KEDA and Karpenter read it: a robfig/cron v3.0.1-faithful parser and a fast fire iterator.

KEDA's cron scaler parses ``start``/``end`` with ``cron.NewParser(Minute|Hour|Dom|Month|Dow)`` and asks
``Schedule.Next(now)`` on every poll; Karpenter parses disruption-budget schedules with
``cron.ParseStandard("TZ=UTC " + schedule)``. Both libraries in Python reach (croniter, cronsim) are too
slow to walk a year of fires for hundreds of windows and differ from robfig in ways that matter here (an
``a-a`` range read as ``*``, fires moved out of a DST gap instead of skipped, ``*/N`` day fields ANDed), so
this module re-implements exactly the part of robfig we rely on.

robfig's behaviour, and where the model is exact: docs/internals.md#prescalemodelvaluescron.
"""

from __future__ import annotations

import calendar
import re
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cached_property, lru_cache
from itertools import chain, pairwise
from zoneinfo import ZoneInfo

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = _EPOCH.replace(tzinfo=None)
_EPOCH_ORDINAL = _EPOCH.toordinal()
_SECOND = timedelta(seconds=1)
_DAY_SECONDS = 86_400
_SEARCH_YEARS = 5  # robfig's Next gives up after the end of the year five years after the start

KARPENTER_DESCRIPTORS: Mapping[str, str] = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
"""The descriptors Karpenter's budget ``schedule`` pattern admits, with robfig's meaning of each."""


class CronError(ValueError):
    """A cron expression KEDA (robfig/cron) would refuse, or one we refuse on purpose; robfig's wording."""


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    names: Mapping[str, int]


_MONTH_NAMES = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_DOW_NAMES = {name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_FIELDS = (
    _Field("minute", 0, 59, {}),
    _Field("hour", 0, 23, {}),
    _Field("day-of-month", 1, 31, {}),
    _Field("month", 1, 12, _MONTH_NAMES),
    _Field("day-of-week", 0, 6, _DOW_NAMES),
)
FIELD_VALUES: Mapping[str, frozenset[int]] = {field.name: frozenset(range(field.low, field.high + 1))
                                              for field in _FIELDS}
"""Every value of each field, by name: what ``*`` means there."""
_GO_INT = re.compile(r"[+-]?[0-9]+")
_GO_INT_MAX = 2**63 - 1


@dataclass(frozen=True)
class CronSpec:
    """A parsed 5-field schedule: the value set of each field plus robfig's two day-field star bits.

    ``dom_star``/``dow_star`` decide whether the day fields are ANDed (either is a star) or ORed (both
    restricted); they are kept separately because ``*`` and ``1-31`` have the same values but different
    meanings next to a restricted day-of-week.
    """

    expr: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]  # 0 = Sunday, as in cron
    dom_star: bool
    dow_star: bool

    def __hash__(self) -> int:
        """The expression's hash: equal specs have equal expressions, and the month cache hashes a spec per lookup
        (the generated hash of all eight fields cost several times as much)."""
        return hash(self.expr)

    @cached_property
    def times(self) -> tuple[int, ...]:
        """Fire times of day in minutes after midnight, ascending: every hour × every minute."""
        return tuple(sorted(hour * 60 + minute for hour in self.hours for minute in self.minutes))

    @property
    def days_anded(self) -> bool:
        """robfig's rule: a star day field makes the other one decide alone (AND); else either may match."""
        return self.dom_star or self.dow_star

    def matches_day(self, day: date) -> bool:
        """Whether the month and the day-of-month/day-of-week rule admit this calendar date."""
        return day.month in self.months and self.days_match(day.day, day.isoweekday() % 7)

    def days_match(self, day_of_month: int, day_of_week: int) -> bool:
        """robfig's ``dayMatches``: the day-of-month/day-of-week rule alone, without the month."""
        dom_match = day_of_month in self.days_of_month
        dow_match = day_of_week in self.days_of_week
        return dom_match and dow_match if self.days_anded else dom_match or dow_match


@lru_cache(maxsize=4096)
def parse_cron(expr: str, *, allow_descriptors: bool = False) -> CronSpec:
    """Parse ``expr`` the way KEDA's cron scaler does (robfig v3.0.1, 5 fields, no descriptors).

    ``allow_descriptors=True`` is Karpenter's budget dialect: it adds the named schedules of
    :data:`KARPENTER_DESCRIPTORS` (``@every`` stays refused: the budget CRD pattern does not admit it).
    Beyond robfig we refuse a ``TZ=``/``CRON_TZ=`` prefix (KEDA would silently override the trigger's
    ``timezone`` with it) and ``*-N``/``?-N`` (robfig silently reads them as ``*``). Cached: a spec is
    immutable and validation parses the same few expressions many times.
    """
    spec = expr.strip()  # KEDA TrimSpaces every metadata value
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        raise CronError(f"time zone prefix {spec.split()[0]!r} is not allowed: it would override the "
                        "window's timezone; set the window's timezone instead")
    if spec.startswith("@"):
        return _parse_descriptor(spec, allow_descriptors)
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    (minutes, _), (hours, _), (doms, dom_star), (months, _), (dows, dow_star) = (
        _parse_field(text, field) for text, field in zip(fields, _FIELDS, strict=True))
    return CronSpec(spec, minutes, hours, doms, months, dows, dom_star, dow_star)


def _parse_descriptor(spec: str, allowed: bool) -> CronSpec:
    if not allowed:
        raise CronError(f"parser does not accept descriptors: {spec}")
    if spec not in KARPENTER_DESCRIPTORS:
        raise CronError(f"unrecognized descriptor: {spec}; allowed: {', '.join(KARPENTER_DESCRIPTORS)}")
    parsed = parse_cron(KARPENTER_DESCRIPTORS[spec])
    return CronSpec(spec, parsed.minutes, parsed.hours, parsed.days_of_month, parsed.months,
                    parsed.days_of_week, parsed.dom_star, parsed.dow_star)


def _parse_field(text: str, field: _Field) -> tuple[frozenset[int], bool]:
    """A comma list's values and star bit; like robfig, empty list items are dropped (``1,,2`` is ``1,2``)."""
    values: set[int] = set()
    star = False
    for item in filter(None, text.split(",")):
        item_values, item_star = _parse_item(item, field)
        values |= item_values
        star |= item_star
    return frozenset(values), star


def _parse_item(item: str, field: _Field) -> tuple[frozenset[int], bool]:
    """One ``*``/``N``/``A-B`` with optional ``/S``, with robfig's ``getRange`` checks in robfig's order."""
    range_and_step = item.split("/")
    low_and_high = range_and_step[0].split("-")
    star = low_and_high[0] in ("*", "?")
    if star:
        if len(low_and_high) > 1:
            raise CronError(f"{item!r} in the {field.name} field: robfig/cron reads it as {low_and_high[0]!r} "
                            "and ignores the rest; write '*' or a range A-B")
        start, end = field.low, field.high
    else:
        if len(low_and_high) > 2:
            raise CronError(f"too many hyphens: {item}")
        start = _int_or_name(low_and_high[0], field)
        end = _int_or_name(low_and_high[1], field) if len(low_and_high) == 2 else start
    if len(range_and_step) > 2:
        raise CronError(f"too many slashes: {item}")
    step = 1
    if len(range_and_step) == 2:
        step = _go_atoi(range_and_step[1])
        if len(low_and_high) == 1:  # "N/S" means "N-max/S"
            end = field.high
        if step > 1:
            star = False
    if start < field.low:
        raise CronError(f"beginning of range ({start}) below minimum ({field.low}): {item}")
    if end > field.high:
        raise CronError(f"end of range ({end}) above maximum ({field.high}): {item}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {item}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {item}")
    return frozenset(range(start, end + 1, step)), star


def _int_or_name(text: str, field: _Field) -> int:
    named = field.names.get(text.lower())
    return named if named is not None else _go_atoi(text)


def _go_atoi(text: str) -> int:
    """Go's ``strconv.Atoi`` plus robfig's sign check: ASCII digits with an optional sign, int64 range."""
    if not _GO_INT.fullmatch(text):
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    number = int(text)
    if abs(number) > _GO_INT_MAX:
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": value out of range')
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {text}")
    return number


# --- time ----------------------------------------------------------------------------------------------


def epoch_seconds(moment: datetime) -> int:
    """Whole seconds since 1970 of an aware datetime, floored (exact: no float rounding near a second)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment.isoformat()} has no time zone; give an aware datetime")
    return (moment - _EPOCH) // _SECOND


def ceil_epoch_seconds(moment: datetime) -> int:
    """Epoch seconds rounded up: fires are whole seconds, so ``fire >= moment`` iff ``fire >= ceil(moment)``."""
    return epoch_seconds(moment) + (moment.microsecond > 0)


def wall_instants(wall: datetime, tz: ZoneInfo) -> tuple[int, ...]:
    """Epoch seconds at which the naive wall-clock time ``wall`` occurs in ``tz``, as robfig sees it.

    One instant normally; none in a spring-forward gap (robfig skips it); two in a fall-back overlap
    (robfig fires at both). ``fold=0`` uses the offset before a transition and ``fold=1`` the one after, so
    a gap is where the offset grows across the two and an overlap where it shrinks.
    """
    local = (wall - _NAIVE_EPOCH) // _SECOND
    before = _offset_seconds(tz, wall)
    after = _offset_seconds(tz, wall.replace(fold=1))
    if before == after:
        return (local - before,)
    if before > after:
        return (local - before, local - after)
    return ()


def _offset_seconds(tz: ZoneInfo, wall: datetime) -> int:
    offset = tz.utcoffset(wall)
    assert offset is not None, tz.key  # a ZoneInfo has an offset at every instant
    return offset // _SECOND


@lru_cache(maxsize=1 << 16)
def day_offsets(tz: ZoneInfo, day: date) -> tuple[int, int]:
    """UTC offsets (seconds) at the start of ``day`` and at the start of the next day, read after any change.

    Equal offsets mean no clock change touches the day (zones never change twice within a day), so every
    wall time of the day maps to exactly one instant with that offset: the fast path of :func:`fire_timestamps`.
    Cached: hundreds of windows share a few zones and the same year of days.
    """
    start = datetime(day.year, day.month, day.day)
    return _offset_seconds(tz, start), _offset_seconds(tz, (start + timedelta(days=1)).replace(fold=1))


def _local_date(seconds: int, tz: ZoneInfo) -> date:
    return datetime.fromtimestamp(seconds, tz).date()


def calendar_months(first: date, last: date) -> Iterator[tuple[int, int]]:
    """``(year, month)`` of every month from ``first``'s to ``last``'s, both included, in order."""
    for index in range(first.year * 12 + first.month - 1, last.year * 12 + last.month):
        year, month = divmod(index, 12)
        yield year, month + 1


def matching_days(spec: CronSpec, first: date, last: date) -> Iterator[date]:
    """Every date in ``[first, last]`` the spec's month and day rule admit, ascending; skips whole months."""
    for year, month in calendar_months(first, last):
        if month not in spec.months:
            continue
        low = first.day if (year, month) == (first.year, first.month) else 1
        high = last.day if (year, month) == (last.year, last.month) else calendar.monthrange(year, month)[1]
        for day_of_month in _days_admitted(spec.days_of_month, spec.days_of_week, spec.days_anded, year, month, low,
                                           high):
            yield date(year, month, day_of_month)


def _days_admitted(doms: frozenset[int], dows: frozenset[int], anded: bool, year: int, month: int, low: int,
                   high: int) -> list[int]:
    """The days ``low``-``high`` of a month robfig's day rule (:meth:`CronSpec.days_match`) admits; the month
    itself is not checked."""
    first_day_of_week = date(year, month, low).isoweekday() - low  # day-of-week of day d: (this + d) % 7
    return [day for day in range(low, high + 1)
            if ((day in doms and (first_day_of_week + day) % 7 in dows) if anded
                else (day in doms or (first_day_of_week + day) % 7 in dows))]


def day_fire_timestamps(spec: CronSpec, tz: ZoneInfo, day: date) -> list[int]:
    """Epoch seconds of the spec's fires whose wall-clock date is ``day`` (the day must match), ascending."""
    start_offset, end_offset = day_offsets(tz, day)
    if start_offset == end_offset:
        base = (day.toordinal() - _EPOCH_ORDINAL) * _DAY_SECONDS - start_offset
        return [base + minute * 60 for minute in spec.times]
    midnight = datetime(day.year, day.month, day.day)
    return sorted(instant for minute in spec.times
                  for instant in wall_instants(midnight + timedelta(minutes=minute), tz))


def fire_timestamps(spec: CronSpec, tz: ZoneInfo, since: int, until: int) -> Iterator[int]:
    """Epoch seconds of every fire in ``[since, until)``, ascending: the hot path of all schedule maths.

    Walks matching local dates (a day of margin on each side: a fall-back overlap can put an instant's wall
    date one day back) and, per date, the sorted times of day; about a microsecond per fire on days without a
    clock change, far less when the month was walked before (:func:`_month_fires`). Lazy chunk by chunk (a
    search for the next fire stops at the first chunk that has one) and chained in C within a chunk, so reading
    a year of fires costs no Python step per fire.
    """
    return chain.from_iterable(_fire_slices(spec, tz, since, until))


def _fire_slices(spec: CronSpec, tz: ZoneInfo, since: int, until: int) -> Iterator[Sequence[int]]:
    """:func:`fire_timestamps` as slices of the chunks: they are ascending and follow one another, so each is
    cut to ``[since, until)`` by bisection rather than fire by fire."""
    if since >= until:
        return
    first = _local_date(since, tz) - timedelta(days=1)
    last = _local_date(until, tz) + timedelta(days=1)
    for instants in _fire_chunks(spec, tz, first, last):
        end = bisect_left(instants, until)
        yield instants[bisect_left(instants, since, 0, end):end]
        if end < len(instants):
            return


_CACHED_TIMES_PER_DAY = 4  # event windows, budgets and failsafes fire once or twice a day; `*/5` is not cached


def _fire_chunks(spec: CronSpec, tz: ZoneInfo, first: date, last: date) -> Iterator[Sequence[int]]:
    """The fires of the days ``first``-``last`` in day order, a day or (cached) a whole month at a time.

    Whole months add days outside ``[first, last]``: they fire more than a day before ``first``'s fires or
    after ``last``'s, which :func:`fire_timestamps` filters out, in the same order as walking day by day.
    """
    if len(spec.times) > _CACHED_TIMES_PER_DAY:  # a month of such a cron is too big to keep
        yield from (day_fire_timestamps(spec, tz, day) for day in matching_days(spec, first, last))
        return
    for year, month in calendar_months(first, last):
        if month in spec.months:
            yield _month_fires(spec, tz, year, month)


@lru_cache(maxsize=1024)
def _month_fires(spec: CronSpec, tz: ZoneInfo, year: int, month: int) -> tuple[int, ...]:
    """Every fire whose local date is in ``month``, day by day. Cached: each check of a window walks the same
    year of the same crons again (and windows share ends and zones), so most walks are lookups.

    The times of day are added to the instants of the matching days' midnights, both of which windows of one
    zone and one day rule share (:func:`_month_midnights`, :func:`_month_days`); a day a clock change touches
    goes through :func:`day_fire_timestamps` instead.
    """
    midnights, changed = _month_midnights(tz, year, month)
    seconds = [minute * 60 for minute in spec.times]
    days = _month_days(spec.days_of_month, spec.days_of_week, spec.days_anded, year, month)
    if not changed and len(seconds) == 1:  # most crons here fire once a day: no inner loop
        second = seconds[0]
        return tuple([midnights[day - 1] + second for day in days])
    if not changed:
        return tuple([midnights[day - 1] + second for day in days for second in seconds])
    fires: list[int] = []
    for day in days:
        fires += (day_fire_timestamps(spec, tz, date(year, month, day)) if day in changed
                  else [midnights[day - 1] + second for second in seconds])
    return tuple(fires)


@lru_cache(maxsize=4096)
def _month_days(days_of_month: frozenset[int], days_of_week: frozenset[int], anded: bool, year: int,
                month: int) -> tuple[int, ...]:
    """The days of a month a day rule admits (:func:`_days_admitted` of the whole month); cached: a stack's
    windows have a few day rules between them."""
    last = calendar.monthrange(year, month)[1]
    return tuple(_days_admitted(days_of_month, days_of_week, anded, year, month, 1, last))


def clock_change_days(tz: ZoneInfo, year: int, month: int) -> frozenset[int]:
    """The days of a month a clock change touches in ``tz`` (their :func:`day_offsets` differ), from the cache the
    month's fires read."""
    return _month_midnights(tz, year, month)[1]


@lru_cache(maxsize=4096)
def _month_midnights(tz: ZoneInfo, year: int, month: int) -> tuple[tuple[int, ...], frozenset[int]]:
    """Each day's local midnight in a month as epoch seconds, and the days a clock change touches
    (:func:`day_offsets`: there a wall time may have no instant or two, and the midnight does not apply)."""
    midnights, changed = [], set()
    midnight = (date(year, month, 1).toordinal() - _EPOCH_ORDINAL) * _DAY_SECONDS  # of day 1, read as UTC
    for day in range(1, calendar.monthrange(year, month)[1] + 1):
        start_offset, end_offset = day_offsets(tz, date(year, month, day))
        midnights.append(midnight - start_offset)
        if start_offset != end_offset:
            changed.add(day)
        midnight += _DAY_SECONDS
    return tuple(midnights), frozenset(changed)


def _search_limit(start: int, tz: ZoneInfo) -> int:
    """robfig's horizon: the end of the year five years after ``start``'s year, in ``tz``."""
    year = datetime.fromtimestamp(start, tz).year + _SEARCH_YEARS + 1
    return epoch_seconds(datetime(year, 1, 1, tzinfo=tz))


def next_fire_timestamp(spec: CronSpec, tz: ZoneInfo, after: datetime) -> int | None:
    """robfig ``Next(after)`` in epoch seconds: the first fire ≥ ``floor_to_second(after) + 1s``, or ``None``."""
    start = epoch_seconds(after) + 1
    return next(fire_timestamps(spec, tz, start, _search_limit(start, tz)), None)


def next_fire(spec: CronSpec, tz: ZoneInfo, after: datetime) -> datetime | None:
    """robfig ``Next(after)`` as an aware datetime in ``tz``; ``None`` where robfig returns the zero time."""
    instant = next_fire_timestamp(spec, tz, after)
    return None if instant is None else datetime.fromtimestamp(instant, tz)


def fires_between(spec: CronSpec, tz: ZoneInfo, since: datetime, until: datetime) -> Iterator[datetime]:
    """Every fire in ``[since, until)`` as aware datetimes in ``tz`` (``fold`` set on repeated wall times)."""
    for instant in fire_timestamps(spec, tz, ceil_epoch_seconds(since), ceil_epoch_seconds(until)):
        yield datetime.fromtimestamp(instant, tz)


# --- writing crons ----------------------------------------------------------------------------------------


def render_field(values: frozenset[int] | None, field: str, *, star: bool = True) -> str:
    """One cron field for ``values`` (``None``: every value): ``*`` only where allowed (a star day field changes
    robfig's AND/OR of the two day fields), an even step as ``a-b/s``, runs of three or more as ranges."""
    if values is None or (star and values == FIELD_VALUES[field]):
        return "*"
    ordered = sorted(values)
    steps = {b - a for a, b in pairwise(ordered)}
    if len(ordered) >= 3 and len(steps) == 1 and min(steps) > 1:
        return f"{ordered[0]}-{ordered[-1]}/{steps.pop()}"
    runs: list[list[int]] = []
    for value in ordered:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ",".join(f"{run[0]}-{run[-1]}" if len(run) >= 3 else ",".join(map(str, run)) for run in runs)


def dated_cron(moment: datetime) -> str:
    """A cron that fires at ``moment``'s wall-clock minute on its date, every year (crons have no year field)."""
    return f"{moment.minute} {moment.hour} {moment.day} {moment.month} *"
