"""What every part of the config shares: the namespace, the model base (strict, camelCase, no unknown keys), the
scalar types (names, quantities, durations, versions, images, zones) and their validators.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StrictStr,
    ValidationInfo,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from ..values.cron import CronError, parse_cron
from ..values.duration import ALLOWED as DURATION_ALLOWED
from ..values.duration import PATTERN as DURATION_PATTERN
from ..values.duration import parse_duration
from ..values.quantity import ALLOWED as QUANTITY_ALLOWED
from ..values.quantity import LARGEST as QUANTITY_LARGEST
from ..values.quantity import MEMORY_PATTERN, memory_problem, parse_quantity
from ..values.quantity import PATTERN as QUANTITY_PATTERN
from ..values.time_zones import time_zone_problem

CONFIG_NAMESPACE = "prescale"
# The validation context of a refused map validated again without its refused keys (prescale.model.validation):
# the fields left out. A rule across keys of one map skips when one of its keys is among them.
SALVAGE_CONTEXT = "refused"


def _fail(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message)


_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


class _Checked:
    """A check of a value (``check`` returns it or raises the refusal), and what JSON Schema can say of it
    (``facts``, such as a pattern) for the editors' schema (:mod:`prescale.model.config_schema`). The check stays
    the validator: the facts only let an editor flag what they can express."""

    def __init__(self, check: Callable[[Any], Any], **facts: Any):
        self.check, self.facts = check, facts

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {**handler(schema), **self.facts}


def _dns_label(max_length: int) -> _Checked:
    def check(value: str) -> str:
        if not _DNS_LABEL.match(value) or len(value) > max_length:
            raise _fail("dns_label", f"must be a DNS-1123 label: lowercase letters, digits and '-', starting "
                                     f"and ending with a letter or digit, at most {max_length} characters")
        return value
    return _Checked(check, pattern=_DNS_LABEL.pattern, maxLength=max_length,
                    patternErrorMessage="must be a DNS-1123 label: lowercase letters, digits and '-', starting and "
                                        "ending with a letter or digit")


def _shaped(pattern: str, shape: str) -> _Checked:
    """A string that must match ``pattern`` (whole), refused in words: ``shape`` says what the value looks
    like, with an example, instead of showing the regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            lowered = value.lower()  # `M7i.xlarge`: what was meant, when that is all that is wrong
            meant = f"; did you mean {lowered!r}?" if lowered != value and compiled.fullmatch(lowered) else ""
            raise _fail("format", f"must be {shape}{meant}")
        return value
    return _Checked(check, pattern=f"^(?:{pattern})$", patternErrorMessage=f"must be {shape}")


_SEMVER_SHAPE = "must be an exact version MAJOR.MINOR.PATCH without 'v' or ranges (e.g. \"1.14.1\")"


def _semver(value: str) -> str:
    if not _SEMVER.match(value):
        raise _fail("semver", _SEMVER_SHAPE)
    return value


def _quantity(value: str) -> str:
    try:
        amount = parse_quantity(value)
    except ValueError:
        raise _fail("quantity", f"is not a Kubernetes quantity; use {QUANTITY_ALLOWED}") from None
    if amount <= 0:
        raise _fail("quantity", "must be greater than zero")
    if amount > QUANTITY_LARGEST:
        raise _fail("quantity", "is more than any Kubernetes quantity holds: at most 2^63-1 cores or bytes "
                                "(k8s.io/apimachinery's resource.Quantity)")
    return value


def _duration(value: str) -> str:
    try:
        parse_duration(value)
    except ValueError as error:
        raise _fail("duration", str(error)) from None
    return value


def _duration_or_never(value: str) -> str:
    return value if value == "Never" else _duration(value)


def _whole_seconds(value: str) -> str:
    """The NodePool CRD's duration fields take whole hours, minutes and seconds (``^([0-9]+(s|m|h))+$``)."""
    if value != "Never" and parse_duration(value) % timedelta(seconds=1):
        raise _fail("duration", "must be whole seconds: the NodePool CRD takes hours, minutes and seconds only")
    return value


def _left_out(info: ValidationInfo, *fields: str) -> bool:
    """Whether this is a refused map validated again without one of ``fields`` (see :data:`SALVAGE_CONTEXT`)."""
    context = info.context or {}
    return not context.get(SALVAGE_CONTEXT, frozenset()).isdisjoint(fields)


def _list_as_tuple(value: object) -> object:
    """A YAML list, kept as a tuple so that the model stays hashable (windows are dictionary keys)."""
    if not isinstance(value, list | tuple):
        raise _fail("list_type", "must be a list")
    return tuple(value)


_Strings = TypeVar("_Strings", bound=Sequence[str])


def _distinct(values: _Strings) -> _Strings:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise _fail("unique", f"lists {', '.join(duplicates)} more than once")
    return values


def _number_for_duration(value: object) -> object:
    """YAML reads ``leadTime: 10`` as the number 10: say which duration to write (the unit is what is missing)."""
    if type(value) is int:
        raise _fail("duration", f'is a number, not a duration: write it in quotes with its unit, like "{value}m" '
                                f'or "{value}h" (m for minutes, h for hours)')
    return value


# Window names become parts of Kubernetes object names (`prescale-<window>` ScaledObject → HPA
# `keda-hpa-prescale-<window>` must stay within 63 characters), hence the tighter limit.
WindowName = Annotated[StrictStr, _dns_label(40)]
PoolName = Annotated[StrictStr, _dns_label(40)]
Version = Annotated[StrictStr, _Checked(_semver, pattern=_SEMVER.pattern, patternErrorMessage=_SEMVER_SHAPE)]
# What the editors' schema can say of a quantity: its grammar, above zero (no sign '-', a digit 1-9 before any
# exponent or suffix E); how small a positive one may be stays the checks'.
_ABOVE_ZERO = r"(?!\s*-)(?=[^1-9eE]*[1-9])"
_QUANTITY_FACTS = {"pattern": f"^{_ABOVE_ZERO}{QUANTITY_PATTERN}$",
                   "patternErrorMessage": f"must be a quantity above zero: {QUANTITY_ALLOWED}"}
Quantity = Annotated[StrictStr, _Checked(_quantity, **_QUANTITY_FACTS)]


def _number_for_memory(value: object) -> object:
    """YAML reads ``memory: 2048`` as a number, which Kubernetes would read as bytes: say which unit to write."""
    if type(value) is int:
        raise _fail("quantity", str(memory_problem(str(value))))
    return value


def _memory(value: str) -> str:
    problem = memory_problem(value)
    if problem:
        raise _fail("quantity", problem)
    return value


Memory = Annotated[StrictStr, BeforeValidator(_number_for_memory),
                   _Checked(_quantity, pattern=f"^{_ABOVE_ZERO}{MEMORY_PATTERN}$",
                            patternErrorMessage='must be a quantity above zero with its unit, like "16Gi" or '
                                                '"2048Mi"'),
                   AfterValidator(_memory)]
_DURATION_FACTS = {"minLength": 1, "patternErrorMessage": f"must be {DURATION_ALLOWED}"}
Duration = Annotated[StrictStr, BeforeValidator(_number_for_duration),
                     _Checked(_duration, pattern=f"^{DURATION_PATTERN}$", **_DURATION_FACTS)]
DurationOrNever = Annotated[StrictStr, BeforeValidator(_number_for_duration),
                            _Checked(_duration_or_never, pattern=f"^(?:Never|{DURATION_PATTERN})$", **_DURATION_FACTS)]
# A NodePool's own durations, written in the CRD's form when deployed (prescale.model.values.duration).
NodePoolDuration = Annotated[Duration, AfterValidator(_whole_seconds)]
NodePoolDurationOrNever = Annotated[DurationOrNever, AfterValidator(_whole_seconds)]


class Model(BaseModel):
    """Strict, immutable, camelCase-keyed, and closed to unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)

    def written_keys(self) -> set[str]:
        """The keys the stack file sets on this object, spelled as it spells them (each field's camelCase alias)."""
        fields = type(self).model_fields
        return {fields[name].alias or name for name in self.model_fields_set}


class CapacityRequest(Model):
    """Capacity to hold ready for an event, as pod requests (CPU cores and memory)."""

    cpu: Quantity = Field(description='CPU as a Kubernetes quantity above zero, in quotes: "4" cores or "500m".')
    memory: Memory = Field(description=(
        'Memory as a Kubernetes quantity with its unit, at least 1Mi, like 16Gi or "2048Mi" (a number without a unit '
        "would be bytes)."))

    @property
    def requests(self) -> tuple[Decimal, Decimal]:
        """CPU cores and memory bytes, as exact decimals."""
        return parse_quantity(self.cpu), parse_quantity(self.memory)


# distribution/reference's grammar (reference.go): [host[:port]/]path[:tag][@digest], path components in
# lowercase; a registry given by an IPv6 address is not accepted.
_HOST_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_PATH_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE_REFERENCE = (rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*(?::[0-9]+)?/)?{_PATH_PART}(?:/{_PATH_PART})*"
                    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
                    r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")
ImageReference = Annotated[StrictStr, Field(max_length=512), _shaped(
    _IMAGE_REFERENCE, 'an image reference like "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com/shop/api:v1.4.2": '
                      "an optional registry host, a lowercase path, then a :tag and/or an @sha256: digest")]
SecretName = Annotated[StrictStr, Field(max_length=253), _shaped(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
    'a Secret name like "registry-credentials" (DNS-1123): lowercase letters, digits, \'-\' and \'.\', starting '
    "and ending with a letter or digit")]


LOCAL_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$")
# The years an instant prescale reads may fall in (a one-off window's date-times, a command's --at or --from): they
# become Unix times, which start in 1970, and the schedule maths look years ahead of them (the next fire of a
# cron), which near year 9999, the last Python's datetimes hold, would leave them; a century short of it is plenty.
INSTANT_YEARS = range(1970, 9900)


def _time_zone(value: str) -> str:
    problem = time_zone_problem(value)
    if problem:
        raise _fail("timezone", problem)
    return value


def _window_time(value: str) -> str:
    """A window's (or a calendar event's) start or end: a cron in KEDA's dialect, or a local date-time."""
    if LOCAL_DATETIME.match(value):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError as error:
            raise _fail("datetime", f"is not a real date-time ({error})") from None
        if moment.year not in INSTANT_YEARS:
            raise _fail("datetime", f"must be in a year from {INSTANT_YEARS[0]} to {INSTANT_YEARS[-1]}: a "
                                    "window's instants are Unix times, moved by its lead time, hold and grace")
        return value
    if re.match(r"^\d{4}-\d{2}-\d{2}", value):
        raise _fail("datetime", "a one-off date-time must be local and exactly YYYY-MM-DDTHH:MM "
                                "(no seconds, no offset: the window's timezone gives the zone)")
    try:
        parse_cron(value)
    except CronError as error:
        raise _fail("cron", f"is not a cron in KEDA's dialect ({error}); use 5 fields "
                            "'minute hour day-of-month month day-of-week' (day-of-week 0-6), or a local "
                            "date-time YYYY-MM-DDTHH:MM") from None
    return value


WindowTime = Annotated[StrictStr, AfterValidator(_window_time)]

AvailabilityZone = Annotated[StrictStr, _shaped(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9][a-z]",
                                                'an availability zone name like "ap-northeast-2a" (the region and a '
                                                "letter)")]


# The longest reserve.holdFrom: every hour of it bills the whole reservation unused. A week still lets a team create
# it on the last working day before a weekend or a holiday week and retry if EC2 cannot reserve; more only bills.
