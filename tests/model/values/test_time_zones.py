"""Time-zone names: places and UTC pass; abbreviations, legacy tzdata names and fixed offsets are refused with
the place they are usually taken for; the abbreviation table is checked against the installed tzdata."""

from datetime import datetime
from zoneinfo import ZoneInfo, available_timezones

import pytest
from prescale.model.values.time_zones import ABBREVIATIONS, GMT_NAMES, LEGACY_NAMES, NO_PLACE, time_zone_problem

# Mid-January and mid-July: every zone shows its winter and its summer abbreviation.
SEASONS = (datetime(2026, 1, 15, 12), datetime(2026, 7, 15, 12))


def printed(zone: str) -> set[str]:
    return {ZoneInfo(zone).tzname(moment) for moment in SEASONS}


@pytest.mark.parametrize("name", ["UTC", "Etc/UTC", "Asia/Seoul", "America/New_York", "Europe/London",
                                  "America/Argentina/Buenos_Aires", "US/Eastern", "Japan", "Zulu"])
def test_places_and_utc_are_accepted(name):
    assert time_zone_problem(name) is None


@pytest.mark.parametrize("name, fragments", [
    ("KST", ["is a time-zone abbreviation, not an IANA time zone", "did you mean 'Asia/Seoul'?"]),
    ("kst", ["did you mean 'Asia/Seoul'?"]),
    ("JST", ["did you mean 'Asia/Tokyo'?"]),
    ("PST", ["'America/Los_Angeles' (US Pacific) or 'Asia/Manila' (Philippines)"]),
    ("PDT", ["did you mean 'America/Los_Angeles'?"]),
    ("BST", ["did you mean 'Europe/London'?"]),
    ("AEST", ["'Australia/Sydney'", "'Australia/Brisbane' (Queensland)"]),
    ("IST", ["'Asia/Kolkata' (India), 'Europe/Dublin' (Ireland) or 'Asia/Jerusalem' (Israel)"]),
    ("CEST", ["'Europe/Berlin' (Germany) or 'Europe/Paris' (France)"]),
    ("SGT", ["abbreviations are not zones", "Area/City"]),
    ("UTC+9", ["is a UTC offset", "no daylight saving"]),
])
def test_abbreviations_and_offsets_name_the_place_to_write(name, fragments):
    problem = time_zone_problem(name)
    assert problem is not None and "'MST'" not in problem
    for fragment in fragments:
        assert fragment in problem, (fragment, problem)


@pytest.mark.parametrize("name, fragments", [
    ("EST", ["fixed UTC-05:00 all year", "America/New_York moves to UTC-04:00 in summer",
             "an hour late there all summer", "did you mean 'America/New_York'?"]),
    ("MST", ["fixed UTC-07:00 all year", "'America/Denver'", "'America/Phoenix' (Arizona, without)"]),
    ("HST", ["fixed UTC-10:00 all year", "did you mean 'Pacific/Honolulu'?"]),
    ("EST5EDT", ["legacy tzdata name", "did you mean 'America/New_York'?"]),
    ("CST6CDT", ["legacy tzdata name", "did you mean 'America/Chicago'?"]),
    ("MST7MDT", ["did you mean 'America/Denver'?"]),
    ("PST8PDT", ["did you mean 'America/Los_Angeles'?"]),
    ("CET", ["legacy tzdata name", "'Europe/Berlin'"]),
    ("WET", ["did you mean 'Europe/Lisbon'?"]),
    ("GMT", ["UTC all year", "'Europe/London' for the UK"]),
    ("Etc/GMT", ["UTC all year"]),
    ("Etc/GMT+5", ["fixed UTC-05:00", "sign is inverted", "5 hours behind UTC", "'America/New_York'"]),
    ("Etc/GMT-9", ["fixed UTC+09:00", "9 hours ahead of UTC", "'Asia/Tokyo' or 'Asia/Seoul'"]),
    ("localtime", ["whatever zone the machine", "not a place"]),
    ("Factory", ["placeholder", "not a place"]),
])
def test_legacy_and_fixed_offset_tzdata_names_are_refused_with_the_place(name, fragments):
    assert name in available_timezones()  # the trap is real: tzdata would accept it
    problem = time_zone_problem(name)
    assert problem is not None
    for fragment in fragments:
        assert fragment in problem, (fragment, problem)


def test_close_matches_suggest_only_names_that_are_accepted():
    assert time_zone_problem("Asia/Seol").endswith("did you mean 'Asia/Seoul'?")
    assert "did you mean 'EST5EDT'" not in time_zone_problem("EST5ED")


def test_every_refused_tzdata_name_exists():
    assert {*LEGACY_NAMES, *GMT_NAMES, *NO_PLACE} <= available_timezones()


def test_every_abbreviation_tzdata_prints_is_mapped_to_places_that_print_it():
    in_use = {name for zone in available_timezones() if time_zone_problem(zone) is None
              for name in printed(zone) if name.isalpha()} - {"UTC"}
    assert in_use == set(ABBREVIATIONS)
    for abbreviation, places in ABBREVIATIONS.items():
        for zone, _ in places:
            assert time_zone_problem(zone) is None, zone
            assert zone == "UTC" or abbreviation in printed(zone), (abbreviation, zone, printed(zone))
