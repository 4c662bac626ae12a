"""Kubernetes resource quantities (``"512"``, ``"250m"``, ``"2048Gi"``) as exact decimals.

Stack config holds CPU and memory the way Kubernetes writes them. Comparing a window's capacity with a
NodePool's limits, or splitting capacity into placeholder pods, needs their numeric value; doing it with
``Decimal`` keeps ``"0.1"`` and ``"100m"`` exactly equal. The grammar is the one the API server accepts
(``k8s.io/apimachinery/pkg/api/resource``), so ``"256GB"`` is refused here rather than by the cluster.
"""

from __future__ import annotations

import re
from decimal import Decimal

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_SUFFIX = r"Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+"
_QUANTITY = re.compile(rf"^(?P<number>{_NUMBER})(?P<suffix>{_SUFFIX})?$")
# The same grammar without named groups, spelt alike in Python and JavaScript, with the blanks parse_quantity strips:
# the pattern of the editors' JSON Schema (prescale.model.config_schema); a memory's suffix is not optional.
PATTERN = rf"\s*{_NUMBER}(?:{_SUFFIX})?\s*"
MEMORY_PATTERN = rf"\s*{_NUMBER}(?:{_SUFFIX})\s*"

MIB = 2**20  # bytes in a mebibyte (`Mi`), the unit instance tables and sizes are counted in
GIB = 2**30
_BINARY = {"Ki": 2**10, "Mi": MIB, "Gi": GIB, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
            "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
            "P": Decimal("1e15"), "E": Decimal("1e18")}
# "no quantity may represent a number greater than 2^63-1 in magnitude" (resource.Quantity's documentation,
# k8s.io/apimachinery/pkg/api/resource/quantity.go): the API server caps a larger one.
LARGEST = Decimal(2**63 - 1)

ALLOWED = ("a number with an optional suffix: binary Ki Mi Gi Ti Pi Ei, decimal n u m k M G T P E, "
           "or an exponent like 1e3 (e.g. \"500m\", \"64\", \"256Gi\")")


def parse_quantity(text: str) -> Decimal:
    """The value of a Kubernetes quantity in base units (cores or bytes); ``ValueError`` if malformed."""
    match = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not a Kubernetes quantity; use {ALLOWED}")
    number, suffix = Decimal(match["number"]), match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Decimal(10) ** int(suffix[1:])


def memory_problem(text: str) -> str | None:
    """Why quantity ``text`` (valid) cannot be meant as memory, or None: without a unit Kubernetes reads it as bytes
    (``"2048"`` is 2 KiB), and below 1Mi no pod or node is that small (``"512m"`` is half a byte: ``m`` is milli)."""
    match = _QUANTITY.match(text.strip())
    assert match is not None, text
    size, number, suffix = parse_quantity(text), Decimal(match["number"]), match["suffix"]
    if suffix is None:
        return (f"has no unit, so Kubernetes reads it as {_plain(size)} bytes; allowed: a quantity with its unit, "
                f"like {_meant(number)}")
    if size < MIB:
        milli = " (m is milli, a thousandth: mebibytes are Mi)" if suffix == "m" else ""
        instead = f"{_plain(number)}Mi" if suffix in ("m", "k", "Ki") else "1Mi"
        return (f"is {_plain(size)} bytes{milli}, less than any pod or node has; allowed: at least 1Mi, like "
                f"\"{instead}\"")
    return None


def _meant(number: Decimal) -> str:
    """The memory a number written without a unit most likely means: whole mebibytes written in bytes (in the
    largest unit that keeps them whole), a number below 1024 in gibibytes, else in mebibytes."""
    if number >= MIB and number % MIB == 0:
        return f"\"{format_memory(number)}\" (the same bytes)"
    if number < 1024:
        return f"\"{_plain(number)}Gi\""
    gibibytes = number / 1024
    if gibibytes == int(gibibytes):
        return f"\"{_plain(gibibytes)}Gi\" ({_plain(number)}Mi)"
    return f"\"{_plain(number)}Mi\""


def _plain(number: Decimal) -> str:
    """A decimal without exponent or trailing zeros: 2048, 0.512."""
    return f"{number.normalize():f}"


def format_cpu(cores: Decimal) -> str:
    """CPU as Kubernetes prints it: whole cores as ``"2"``, fractions in millicores (``"1500m"``)."""
    millis = (cores * 1000).to_integral_value(rounding="ROUND_CEILING")
    return str(int(millis // 1000)) if millis % 1000 == 0 else f"{int(millis)}m"


def format_memory(size: Decimal) -> str:
    """Memory rounded up to whole MiB, written in the largest binary unit that keeps it whole."""
    mib = int((size / _BINARY["Mi"]).to_integral_value(rounding="ROUND_CEILING"))
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"
