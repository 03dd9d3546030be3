"""World time for a statement: when the thing a sentence describes was (or is) true.

Facts carry two time axes: when we *learned* them (the statement time) and when they *held*
(valid time). People speak in relative terms ("yesterday", "last week", "since March"), and
those only mean something against the moment the sentence was said, so
:func:`resolve_valid_time` takes ``stated_at`` and resolves every expression against it.

Conventions, chosen so intervals compose without off-by-one errors:

* Intervals are half-open ``[valid_from, valid_to)`` at UTC midnight boundaries. A named
  period covers all of itself: "yesterday" is ``[yesterday 00:00, today 00:00)``, "last
  week" is ``[Monday 00:00, next Monday 00:00)`` of the previous ISO week, "in 2022" is
  ``[2022-01-01, 2023-01-01)``.
* "since X" / "from X" gives ``(start of X, None)``: still true, open-ended.
* "until X" / "till X" / "through X" includes X: ``valid_to`` is the end of X. The start is
  ``stated_at`` when that is earlier, else :data:`UNKNOWN_START` (the epoch).
* "before X" ends at the start of X; "after X" begins at the end of X.
* "from X to Y" and "between X and Y" give ``(start of X, end of Y)``.
* A month or weekday without a year is read as the most recent one (past bias), or the next
  one when the sentence looks ahead ("until June", "next Monday", "will ...").

English first; German, French, Spanish, Dutch, Turkish and Portuguese words for yesterday,
today, tomorrow, last week/month/year and "N days ago" are recognised too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from ...hooks.text import MONTH_NUMBERS, WEEKDAY_NUMBERS
from ..timeutil import ensure_utc

__all__ = ["UNKNOWN_START", "resolve_valid_time"]

UNKNOWN_START = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""valid_from for "until X" statements made after X: true up to X, start unknown."""

_MONTHS = MONTH_NUMBERS  # "jan" -> 1 (hooks.text)
_WEEKDAYS = WEEKDAY_NUMBERS  # "mon" -> 0
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple": 2, "a couple": 2, "a couple of": 2, "couple of": 2, "few": 3, "a few": 3,
    "several": 3,
}  # fmt: skip

_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAY = r"(?P<weekday>mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_COUNT = (
    r"(?P<count>\d+|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve)"
)

_FORWARD_PREFIX = ("until", "till", "til", "through", "thru", "by", "before", "next", "bis")
_FUTURE = re.compile(
    r"\b(?:will|won't|going to|gonna|plan(?:ning)? to|next|upcoming|tomorrow|'ll)\b", re.I
)
_FRENCH = re.compile(
    r"\b(?:je|j'|nous|vous|il|elle|on|ai|avons|est|été|soir|matin|les|une)\b", re.I
)


@dataclass(frozen=True)
class _Period:
    start: date
    end: date  # exclusive
    at: int  # match start in the text
    stop: int  # match end in the text


def _day(d: date) -> tuple[date, date]:
    return d, d + timedelta(days=1)


def _week(d: date) -> tuple[date, date]:
    monday = d - timedelta(days=d.weekday())
    return monday, monday + timedelta(days=7)


def _month(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, date(year + month // 12, month % 12 + 1, 1)


def _year(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year + 1, 1, 1)


def _shift_months(d: date, months: int) -> tuple[int, int]:
    index = d.year * 12 + d.month - 1 + months
    return index // 12, index % 12 + 1


def _month_number(name: str) -> int | None:
    # Lowercase "may" is the modal verb far more often than the month.
    if name == "may":
        return None
    return _MONTHS.get(name[:3].lower())


def _nearest_month(month: int, today: date, forward: bool) -> tuple[date, date]:
    year = today.year
    if forward and month < today.month:
        year += 1
    elif not forward and month > today.month:
        year -= 1
    return _month(year, month)


def _valid_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# Each resolver gets the match, the statement date and whether to read ahead in time.
_Resolver = Callable[[re.Match[str], date, bool], "tuple[date, date] | None"]


def _r_iso_day(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    d = _valid_day(int(m["y"]), int(m["m"]), int(m["d"]))
    return _day(d) if d else None


def _r_iso_month(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    month = int(m["m"])
    return _month(int(m["y"]), month) if 1 <= month <= 12 else None


def _r_day_month(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    month = _month_number(m["month"])
    if month is None:
        return None
    day = int(m["day"])
    if m["year"]:
        d = _valid_day(int(m["year"]), month, day)
        return _day(d) if d else None
    d = _valid_day(today.year, month, day)
    if d is None:
        return None
    if forward and d < today:
        d = _valid_day(today.year + 1, month, day) or d
    elif not forward and d > today:
        d = _valid_day(today.year - 1, month, day) or d
    return _day(d)


def _r_month_year(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    month = _month_number(m["month"])
    return _month(int(m["year"]), month) if month else None


def _r_month(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    month = _month_number(m["month"])
    return _nearest_month(month, today, forward) if month else None


def _r_year(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    return _year(int(m["year"]))


def _r_relative_day(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    word = m.group(0).lower()
    if "before yesterday" in word or word in ("vorgestern", "anteayer", "eergisteren"):
        return _day(today - timedelta(days=2))
    if "after tomorrow" in word or word in ("übermorgen", "overmorgen"):
        return _day(today + timedelta(days=2))
    if word in ("yesterday", "gestern", "hier", "ayer", "gisteren", "dün", "ontem", "last night"):
        return _day(today - timedelta(days=1))
    if word in ("tomorrow", "morgen", "demain", "mañana", "yarın", "amanhã"):
        return _day(today + timedelta(days=1))
    return _day(today)


def _r_weekday(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    target = _WEEKDAYS[m["weekday"][:3].lower()]
    which = (m["which"] or "").lower()
    if not which and m.group(0) == m.group("t"):
        return None  # a bare weekday ("Friday is fine") states no time
    if which in ("last", "past", "previous"):
        back = (today.weekday() - target) % 7 or 7
        return _day(today - timedelta(days=back))
    if which in ("next", "this", "coming") or forward:
        ahead = (target - today.weekday()) % 7
        if which == "next" and ahead == 0:
            ahead = 7
        return _day(today + timedelta(days=ahead))
    back = (today.weekday() - target) % 7
    return _day(today - timedelta(days=back))


def _r_period(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    which = m["which"].lower()
    unit = m["unit"].lower()
    step = {"this": 0, "current": 0}.get(which, 1 if which in ("next", "coming") else -1)
    if unit == "week":
        return _week(today + timedelta(days=7 * step))
    if unit == "weekend":
        monday = _week(today)[0] + timedelta(days=7 * step)
        return monday + timedelta(days=5), monday + timedelta(days=7)
    if unit == "month":
        return _month(*_shift_months(today, step))
    return _year(today.year + step)


_FOREIGN_PERIOD = {
    "letzte woche": ("week", -1), "vorige woche": ("week", -1), "letzten monat": ("month", -1),
    "letztes jahr": ("year", -1), "la semaine dernière": ("week", -1),
    "le mois dernier": ("month", -1), "l'année dernière": ("year", -1),
    "l'an dernier": ("year", -1), "la semana pasada": ("week", -1),
    "el mes pasado": ("month", -1), "el año pasado": ("year", -1),
    "vorige week": ("week", -1), "verleden week": ("week", -1), "vorige maand": ("month", -1),
    "vorig jaar": ("year", -1), "geçen hafta": ("week", -1), "geçen ay": ("month", -1),
    "geçen yıl": ("year", -1), "semana passada": ("week", -1), "mês passado": ("month", -1),
    "ano passado": ("year", -1), "nächste woche": ("week", 1), "la semaine prochaine": ("week", 1),
    "la próxima semana": ("week", 1), "volgende week": ("week", 1),
}  # fmt: skip


def _r_foreign_period(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    unit, step = _FOREIGN_PERIOD[" ".join(m.group(0).lower().split())]
    if unit == "week":
        return _week(today + timedelta(days=7 * step))
    if unit == "month":
        return _month(*_shift_months(today, step))
    return _year(today.year + step)


def _count(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _NUMBERS.get(word, 1)


def _r_ago(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    return _ago(_count(m["count"]), m["unit"], today)


def _ago(n: int, unit: str, today: date) -> tuple[date, date]:
    """The day, week, month or year that lies ``n`` units before ``today``."""
    unit = unit.lower()
    if unit.startswith(("hour", "minute", "min", "std", "heure", "hora", "uur", "saat")):
        return _day(today)
    if unit.startswith(("day", "tag", "jour", "día", "dia", "dag", "gün")):
        return _day(today - timedelta(days=n))
    if unit.startswith(("week", "woche", "semaine", "semana", "hafta")):
        return _week(today - timedelta(days=7 * n))
    if unit.startswith(("month", "monat", "mois", "mes", "maand", "ay", "mês", "mese")):
        return _month(*_shift_months(today, -n))
    return _year(today.year - n)


def _r_ago_foreign(m: re.Match[str], today: date, forward: bool) -> tuple[date, date] | None:
    count = m["count"] or m["count2"] or "1"
    return _ago(int(count) if count.isdigit() else 1, m["unit"] or m["unit2"], today)


_AGO_UNIT = r"(?P<unit>minutes?|hours?|days?|weeks?|months?|years?)"
_FOREIGN_AGO_UNIT = (
    r"(?P<unit>tagen?|wochen?|monaten?|jahren?|jours?|semaines?|mois|ans?|años?|d[ií]as?|semanas?"
    r"|mes(?:es)?|meses|dagen?|weken|maanden|jaar|jaren|gün|hafta|ay|yıl|anos?)"
)

_PATTERNS: list[tuple[re.Pattern[str], _Resolver]] = [
    # "2026-05-16", and the day of an ISO timestamp ("2026-05-16T00:00").
    (re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)(?:\b|(?=T\d))"), _r_iso_day),
    (re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)\b(?!-\d)"), _r_iso_month),
    (
        re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.I),
        _r_day_month,
    ),
    (re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!:)", re.I), _r_day_month),
    (re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I), _r_month_year),
    (
        re.compile(
            rf"\b(?:in|since|until|till|from|to|during|by|before|after|of|through|between"
            rf"|and|early|late|mid|seit|depuis|desde|sinds|bis|hasta)\s+(?P<t>{_MONTH})\b(?!\s+\d)",
            re.I,
        ),
        _r_month,
    ),
    (
        re.compile(
            rf"\b(?:in|since|until|till|from|to|during|by|before|after|of|through|between"
            rf"|and|early|late|mid|around|seit|depuis|desde|sinds|bis|hasta|en|im)"
            rf"\s+(?P<t>{_YEAR})\b",
            re.I,
        ),
        _r_year,
    ),
    (re.compile(rf"\b(?:year|summer|winter|spring|autumn|fall)\s+(?P<t>{_YEAR})\b", re.I), _r_year),
    (re.compile(rf"\({_YEAR}\)"), _r_year),
    (
        re.compile(r"\b(?P<year>(?:19|20)\d\d)\s*[-\u2013\u2014]\s*(?P<year2>(?:19|20)\d\d)\b"),
        lambda m, today, forward: (_year(int(m["year"]))[0], _year(int(m["year2"]))[1]),
    ),
    (
        re.compile(
            r"\b(?:the day before yesterday|the day after tomorrow|yesterday|today|tonight"
            r"|tomorrow|this (?:morning|afternoon|evening)|earlier today|last night"
            r"|vorgestern|übermorgen|gestern|heute|morgen|aujourd'hui|demain|hier|anteayer"
            r"|ayer|hoy|mañana|eergisteren|overmorgen|gisteren|vandaag|dün|bugün|yarın|ontem"
            r"|hoje|amanhã)\b",
            re.I,
        ),
        _r_relative_day,
    ),
    (
        re.compile(
            r"(?:\b(?:on|until|till|by|since|before|after|from|through)\s+)?"
            rf"(?P<t>\b(?:(?P<which>last|past|previous|next|this|coming)\s+)?{_WEEKDAY})\b",
            re.I,
        ),
        _r_weekday,
    ),
    (
        re.compile(
            r"\b(?:this\s+)?(?P<which>last|past|previous|next|this|current|coming)\s+"
            r"(?P<unit>week(?:end)?|month|year)\b",
            re.I,
        ),
        _r_period,
    ),
    (
        re.compile(
            r"\b(?:"
            + "|".join(re.escape(k).replace(r"\ ", r"\s+") for k in _FOREIGN_PERIOD)
            + r")\b",
            re.I,
        ),
        _r_foreign_period,
    ),
    (re.compile(rf"\b{_COUNT}\s+{_AGO_UNIT}\s+ago\b", re.I), _r_ago),
    (
        re.compile(
            rf"\b(?:vor|il y a|hace|há)\s+{_COUNT.replace('an?|', 'une?|un|einem?|')}"
            rf"\s+{_FOREIGN_AGO_UNIT}\b|\b(?P<count2>\d+)\s+(?P<unit2>dagen|weken|maanden|jaar"
            r"|gün|hafta|ay|yıl)\s+(?:geleden|önce)\b",
            re.I,
        ),
        _r_ago_foreign,
    ),
]


_SINCE = re.compile(
    r"(?:since|from|starting(?: in| on| from)?|as of|beginning|seit|ab|depuis|desde|sinds"
    r"|vanaf)\s+(?:the\s+)?$",
    re.I,
)
_UNTIL = re.compile(
    r"(?:until|till|til|through|thru|up to|bis|jusqu'(?:à|au|en)|hasta|tot)\s+$", re.I
)
_BEFORE = re.compile(r"(?:before|prior to|vor|avant|antes de|voor)\s+$", re.I)
_AFTER = re.compile(r"(?:after|nach|après|después de|na)\s+$", re.I)
_BETWEEN = re.compile(r"(?:between|zwischen|entre|tussen)\s+$", re.I)
_RANGE_JOIN = re.compile(
    r"^\s*(?:to|until|till|through|thru|and|-|\u2013|\u2014|bis|und|à|au|et|a|y|hasta|tot|en)\s*$",
    re.I,
)


def _periods(text: str, today: date) -> list[_Period]:
    """Every non-overlapping time expression in ``text``, in order of appearance."""
    future = bool(_FUTURE.search(text))
    found: list[_Period] = []
    for pattern, resolve in _PATTERNS:
        for m in pattern.finditer(text):
            at, stop = m.span("t") if "t" in pattern.groupindex else m.span()
            before = text[max(0, at - 12) : at].lower().rstrip()
            forward = future or before.endswith(_FORWARD_PREFIX)
            if m.group(0).lower() == "hier" and not _FRENCH.search(text.replace("hier", "")):
                continue  # German "hier" means "here"
            span = resolve(m, today, forward)
            if span is not None:
                found.append(_Period(span[0], span[1], at, stop))
    found.sort(key=lambda p: (p.at, -(p.stop - p.at)))
    chosen: list[_Period] = []
    for period in found:
        if not chosen or period.at >= chosen[-1].stop:
            chosen.append(period)
    return chosen


def _utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=timezone.utc)


def resolve_valid_time(
    text: str, stated_at: datetime
) -> tuple[datetime, datetime | None] | None:
    """Return ``(valid_from, valid_to)`` for the time a sentence states, or None.

    Args:
        text: One sentence (longer text works; the first time expression wins).
        stated_at: When the sentence was said or written; relative expressions such as
            "yesterday" or "last Friday" are resolved against its UTC date.

    Returns:
        UTC datetimes for a half-open interval; ``valid_to`` is None for open-ended
        statements ("since March"). None when the text states no time.
    """
    stated = ensure_utc(stated_at)
    periods = _periods(text, stated.date())
    if not periods:
        return None
    first = periods[0]
    prefix = text[max(0, first.at - 25) : first.at]
    second = periods[1] if len(periods) > 1 else None
    joined = second is not None and _RANGE_JOIN.match(text[first.stop : second.at])
    if second is not None and joined and first.start > second.start:
        # "between March and June 2022": the year-less month takes the later one's year.
        first = _Period(
            first.start.replace(year=second.start.year),
            first.end.replace(year=second.start.year + (first.end.year - first.start.year)),
            first.at,
            first.stop,
        )
    if second is not None and joined and (
        _SINCE.search(prefix) or _BETWEEN.search(prefix) or text[first.stop : second.at].strip()
        in ("-", "\u2013", "\u2014", "to", "until", "through")
    ):
        return _utc(first.start), _utc(second.end)
    if _SINCE.search(prefix):
        return _utc(first.start), None
    if _UNTIL.search(prefix):
        end = _utc(first.end)
        return (stated if stated < end else UNKNOWN_START), end
    if _BEFORE.search(prefix):
        end = _utc(first.start)
        return (stated if stated < end else UNKNOWN_START), end
    if _AFTER.search(prefix):
        return _utc(first.end), None
    return _utc(first.start), _utc(first.end)
