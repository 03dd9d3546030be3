"""Valid time: relative and absolute expressions resolved against the statement time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from reasongraph_mcp.memory.extract.dates import UNKNOWN_START, resolve_valid_time

# Wednesday 24 May 2023, 15:00 UTC.
STATED = datetime(2023, 5, 24, 15, 0, tzinfo=timezone.utc)


def d(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


CASES = [
    # (sentence, valid_from, valid_to) -- half-open [from, to) at UTC midnights
    ("I went to the support group yesterday", "2023-05-23", "2023-05-24"),
    ("The deploy is today", "2023-05-24", "2023-05-25"),
    ("We release tomorrow", "2023-05-25", "2023-05-26"),
    ("the day before yesterday it broke", "2023-05-22", "2023-05-23"),
    ("I painted it last Friday", "2023-05-19", "2023-05-20"),
    ("We ship next Monday", "2023-05-29", "2023-05-30"),
    ("It crashed on Monday", "2023-05-22", "2023-05-23"),
    ("We will demo on Friday", "2023-05-26", "2023-05-27"),
    ("It was slow last week", "2023-05-15", "2023-05-22"),
    ("We went hiking last weekend", "2023-05-20", "2023-05-22"),
    ("Costs rose last month", "2023-04-01", "2023-05-01"),
    ("I painted a sunrise last year", "2022-01-01", "2023-01-01"),
    ("It failed two days ago", "2023-05-22", "2023-05-23"),
    ("I moved 3 weeks ago", "2023-05-01", "2023-05-08"),
    ("We met 2 months ago", "2023-03-01", "2023-04-01"),
    ("She left 4 years ago", "2019-01-01", "2020-01-01"),
    ("I got it a few days ago", "2023-05-21", "2023-05-22"),
    ("We adopted it in 2022", "2022-01-01", "2023-01-01"),
    ("It launched in March 2023", "2023-03-01", "2023-04-01"),
    ("I went there on 5 May 2023", "2023-05-05", "2023-05-06"),
    ("I went there on 8 May, 2023", "2023-05-08", "2023-05-09"),
    ("The release was May 5, 2023", "2023-05-05", "2023-05-06"),
    ("Incident on 2023-05-05 at noon", "2023-05-05", "2023-05-06"),
    ("It happened in May", "2023-05-01", "2023-06-01"),
    ("It happened in October", "2022-10-01", "2022-11-01"),
    ("We have used Redis since March", "2023-03-01", None),
    ("I've lived here since 2020", "2020-01-01", None),
    ("The freeze lasts until June 2024", "2023-05-24T15:00:00", "2024-07-01"),
    ("I worked there until 2019", "1970-01-01", "2020-01-01"),
    ("I worked there from 2019 to 2021", "2019-01-01", "2022-01-01"),
    ("I was there 2019-2021", "2019-01-01", "2022-01-01"),
    ("between March and June 2022 it was down", "2022-03-01", "2022-07-01"),
    ("It was fine before 2020", "1970-01-01", "2020-01-01"),
    ("It broke after 2020", "2021-01-01", None),
    ("ich war gestern da", "2023-05-23", "2023-05-24"),
    ("hier soir je suis allé au cinéma", "2023-05-23", "2023-05-24"),
    ("ayer fuimos al parque", "2023-05-23", "2023-05-24"),
    ("gisteren was het druk", "2023-05-23", "2023-05-24"),
    ("letzte Woche war es laut", "2023-05-15", "2023-05-22"),
    ("la semaine dernière", "2023-05-15", "2023-05-22"),
    ("la semana pasada", "2023-05-15", "2023-05-22"),
    ("vorige week was het koud", "2023-05-15", "2023-05-22"),
    ("vor 3 Tagen", "2023-05-21", "2023-05-22"),
]


@pytest.mark.parametrize(("text", "valid_from", "valid_to"), CASES)
def test_resolves_valid_time(text: str, valid_from: str, valid_to: str | None) -> None:
    assert resolve_valid_time(text, STATED) == (d(valid_from), d(valid_to))


NO_TIME = [
    "Redis is our cache",
    "We may 2 things later",  # lowercase-ish modal, not the month
    "ich bin hier",  # German "hier" means "here"
    "Friday is fine for me",
    "listen on port 2022",
    "upgrade to Python 3.11",
    "",
]


@pytest.mark.parametrize("text", NO_TIME)
def test_returns_none_without_a_time_expression(text: str) -> None:
    assert resolve_valid_time(text, STATED) is None


def test_results_are_utc_even_for_other_zones() -> None:
    tokyo = timezone(timedelta(hours=9))
    # 01:00 on the 25th in Tokyo is still the 24th in UTC.
    stated = datetime(2023, 5, 25, 1, 0, tzinfo=tokyo)
    valid_from, valid_to = resolve_valid_time("yesterday", stated) or (None, None)
    assert valid_from == d("2023-05-23") and valid_to == d("2023-05-24")
    assert valid_from is not None and valid_from.tzinfo == timezone.utc


def test_naive_stated_at_is_taken_as_utc() -> None:
    expected = (d("2023-05-24"), d("2023-05-25"))
    assert resolve_valid_time("today", datetime(2023, 5, 24, 12)) == expected


def test_last_weekday_is_strictly_before_the_statement_day() -> None:
    # STATED is a Wednesday: "last Wednesday" is a week earlier, not today.
    assert resolve_valid_time("last Wednesday", STATED) == (d("2023-05-17"), d("2023-05-18"))


def test_unknown_start_is_the_epoch() -> None:
    assert UNKNOWN_START == datetime(1970, 1, 1, tzinfo=timezone.utc)
