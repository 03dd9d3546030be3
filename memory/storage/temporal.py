"""Bi-temporal predicates as SQL fragments over a ``facts`` alias: pure functions, no I/O.

Two time axes. Transaction time (``recorded_at``, and the ``events`` log of assert,
supersede, retract and revive) answers "what did the memory hold at T" (``as_of``): a fact
is visible if it was recorded by T and its last lifecycle event at or before T left it
current. Valid time (``valid_from``/``valid_to`` from the dates a sentence states, and the
valid time of the fact that replaced it) answers "what was true in the world at T"
(``valid_at``): the fact's interval contains T and it had not yet been ended, where a
supersession ends it when its replacement became valid (or, when that is unknown, when the
supersession was recorded) and a retraction ends it when the retraction was recorded
("no longer true", not "never true": the retract event is the only date we have).

With both, valid time is judged by the lifecycle as recorded at ``as_of``, so a correction
learned later does not leak into the past view. ``include_history`` drops the lifecycle
conditions (superseded and retracted facts are returned, marked by the caller) but keeps the
time windows. The default view is what is current now.

Times are ISO-8601 UTC text with a ``Z`` (``timeutil.to_iso``), so comparisons are string
comparisons, and ties between events recorded in the same second are broken by event id.
"""

from __future__ import annotations

LIFECYCLE_ACTIONS = ("assert", "supersede", "retract", "revive")
_ACTIONS_SQL = "(" + ", ".join(f"'{a}'" for a in LIFECYCLE_ACTIONS) + ")"


def _last_event(alias: str) -> str:
    """The id of the last lifecycle event of ``alias`` at or before a ``?`` time."""
    return (
        f"(SELECT e.id FROM events e WHERE e.fact_id = {alias}.id AND e.at <= ? "
        f"AND e.action IN {_ACTIONS_SQL} ORDER BY e.at DESC, e.id DESC LIMIT 1)"
    )


def time_predicate(
    alias: str,
    *,
    as_of: str | None = None,
    valid_at: str | None = None,
    include_history: bool = False,
) -> tuple[str, tuple[object, ...]]:
    """SQL (with ``?`` parameters) selecting the facts visible under the given time view.

    Args:
        alias: the alias of ``facts`` in the caller's query.
        as_of: transaction time (ISO UTC): the memory as it had been recorded then.
        valid_at: valid time (ISO UTC): what was true in the world then.
        include_history: also superseded and retracted facts (inside the time windows).

    Returns:
        A boolean SQL expression and its parameters, in order.
    """
    f = alias
    parts: list[str] = []
    args: list[object] = []
    if as_of is not None:
        parts.append(f"{f}.recorded_at <= ?")
        args.append(as_of)
    if valid_at is not None:
        parts.append(f"({f}.valid_from IS NULL OR {f}.valid_from <= ?)")
        parts.append(f"({f}.valid_to IS NULL OR {f}.valid_to > ?)")
        args += [valid_at, valid_at]
    if include_history:
        return (" AND ".join(parts) or "1"), tuple(args)

    if as_of is not None:
        # Lifecycle as recorded at as_of. A fact with no lifecycle event (none is ever
        # written without one, but an import could) counts as asserted at recorded_at.
        if valid_at is None:
            ended = "le.action IN ('supersede', 'retract')"
            ended_args: list[object] = []
        else:
            ended = (
                "(le.action = 'retract' AND le.at <= ?) OR (le.action = 'supersede' AND "
                "coalesce((SELECT n.valid_from FROM facts n WHERE n.id = le.other_id), le.at) <= ?)"
            )
            ended_args = [valid_at, valid_at]
        parts.append(
            f"NOT EXISTS (SELECT 1 FROM events le WHERE le.id = {_last_event(f)} AND ({ended}))"
        )
        args += [as_of, *ended_args]
    elif valid_at is not None:
        # Lifecycle as it stands now; a superseded fact whose replacement was erased has no
        # superseded_by, and then ends when it was retired.
        parts.append(
            f"({f}.status = 'current' OR ({f}.status = 'retracted' AND {f}.retired_at > ?) OR "
            f"({f}.status = 'superseded' AND coalesce((SELECT n.valid_from FROM facts n "
            f"WHERE n.id = {f}.superseded_by), {f}.retired_at) > ?))"
        )
        args += [valid_at, valid_at]
    else:
        parts.append(f"{f}.status = 'current'")
    return " AND ".join(parts), tuple(args)

