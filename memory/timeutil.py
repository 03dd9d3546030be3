"""Clocks and time parsing: the only module that reads the clock or handles time zones.

All stored times are ISO-8601 UTC text (``2026-03-09T09:45:00Z``) so that they sort as
strings. ``REASONGRAPH_NOW`` (an ISO date-time) replaces the clock for replays.
"""

from __future__ import annotations

import os
from datetime import date, datetime, timezone

from .errors import InvalidInput

_ISO_HINT = "give an ISO date or date-time such as 2026-03-09T09:45:00Z"


def utc_now() -> datetime:
    """Return the current time in UTC, or ``REASONGRAPH_NOW`` when a replay sets it."""
    override = os.environ.get("REASONGRAPH_NOW")
    if override:
        try:
            return parse_when(override)
        except InvalidInput:
            pass
    return datetime.now(timezone.utc)


def ensure_utc(moment: datetime) -> datetime:
    """Return ``moment`` as an aware UTC datetime (naive values are taken as UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def to_iso(moment: datetime) -> str:
    """Format a datetime as sortable ISO-8601 UTC text with a ``Z`` suffix."""
    return ensure_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_when(value: object) -> datetime:
    """Parse an ISO date/date-time (a bare one is UTC), a date or a datetime.

    Raises InvalidInput with the accepted forms when the value is none of them.
    """
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"cannot read time {value!r}: {_ISO_HINT}")
    text = value.strip()
    iso = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        return ensure_utc(datetime.fromisoformat(iso))
    except ValueError:
        raise InvalidInput(f"cannot read time {value!r}: {_ISO_HINT}") from None
