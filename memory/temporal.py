"""Bi-temporal predicates as SQL fragments over a ``facts`` alias: pure functions, no I/O.

Two time axes: transaction time (``recorded_at``, and the ``events`` log of supersede,
retract and revive) answers "what did the memory hold at T" (``as_of``); valid time
(``valid_from``/``valid_to``, and the valid time of the fact that replaced it) answers "what
was true in the world at T" (``valid_at``). The default view is what is current now.
"""

from __future__ import annotations


def time_predicate(
    alias: str,
    *,
    as_of: str | None = None,
    valid_at: str | None = None,
    include_history: bool = False,
) -> tuple[str, tuple[object, ...]]:
    """SQL (with ``?`` parameters) selecting the facts visible under the given time view."""
    f = alias
    parts: list[str] = []
    args: list[object] = []
    if as_of is not None:
        parts.append(f"{f}.recorded_at <= ?")
        args.append(as_of)
        if not include_history:
            # Lifecycle as recorded at as_of: the last assert/supersede/retract/revive then.
            parts.append(
                f"(SELECT e.action FROM events e WHERE e.fact_id = {f}.id AND e.at <= ? "
                f"AND e.action != 'restate' ORDER BY e.at DESC, e.id DESC LIMIT 1) "
                f"IN ('assert', 'revive')"
            )
            args.append(as_of)
    if valid_at is not None:
        parts.append(f"({f}.valid_from IS NULL OR {f}.valid_from <= ?)")
        parts.append(f"({f}.valid_to IS NULL OR {f}.valid_to > ?)")
        args += [valid_at, valid_at]
        if not include_history:
            # True then unless retracted, or replaced by a fact already valid at that time.
            parts.append(f"{f}.status != 'retracted'")
            parts.append(
                f"({f}.superseded_by IS NULL OR (SELECT coalesce(n.valid_from, n.recorded_at) "
                f"FROM facts n WHERE n.id = {f}.superseded_by) > ?)"
            )
            args.append(valid_at)
    if as_of is None and valid_at is None and not include_history:
        parts.append(f"{f}.status = 'current'")
    return (" AND ".join(parts) or "1"), tuple(args)
