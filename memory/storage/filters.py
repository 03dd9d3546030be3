"""``Scope``: which facts a read may see, as a typed value; and the SQL it becomes.

Callers outside the storage package pass a ``Scope`` to the ``Store`` methods; only the
store turns it into a predicate over a ``facts`` alias (``where``). A scope names a project
(or every project), a session, a time view, and for the write path one fact to leave out;
``also`` admits the facts of a second scope (SQL ``OR``).

The time view is bi-temporal. Transaction time (``recorded_at``, and the ``events`` log of
assert, supersede, retract and revive) answers "what did the memory hold at T" (``as_of``): a fact
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

from dataclasses import dataclass, replace

LIFECYCLE_ACTIONS = ("assert", "supersede", "retract", "revive")
_ACTIONS_SQL = "(" + ", ".join(f"'{a}'" for a in LIFECYCLE_ACTIONS) + ")"


def _last_event(alias: str) -> str:
    """The id of the last lifecycle event of ``alias`` at or before a ``?`` time."""
    return (
        f"(SELECT e.id FROM events e WHERE e.fact_id = {alias}.id AND e.at <= ? "
        f"AND e.action IN {_ACTIONS_SQL} ORDER BY e.at DESC, e.id DESC LIMIT 1)"
    )


def _time_predicate(
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


@dataclass(frozen=True)
class Scope:
    """Which facts a read may see: project, session, and the time view (current by default;
    ``as_of`` transaction time, ``valid_at`` world time, ``include_history`` everything).

    ``project`` None means every project, unless ``exact_project``: then the project is
    matched as given and None means the facts that have no project (the write path looks
    for neighbours inside the writer's own project). ``exclude`` leaves one fact out;
    ``also`` admits, besides, the facts another scope admits."""

    project: str | None = None
    session: str | None = None
    all_projects: bool = False
    as_of: str | None = None
    valid_at: str | None = None
    include_history: bool = False
    exact_project: bool = False
    exclude: int | None = None
    also: Scope | None = None

    @classmethod
    def current_in(cls, project: str | None, *, exclude: int | None = None) -> Scope:
        """The facts current now in exactly ``project`` (None: the facts with none)."""
        return cls(project=project, exact_project=True, exclude=exclude)

    @property
    def partition(self) -> str | None:
        """The one project a project-partitioned index may be searched in (None: all)."""
        return None if self.all_projects else self.project


def where(scope: Scope, alias: str = "f") -> tuple[str, tuple[object, ...]]:
    """The SQL predicate (with ``?`` parameters) over the ``facts`` alias ``alias`` that
    admits exactly the facts of ``scope``, and its parameters in order."""
    if scope.also is not None:
        own_sql, own_args = where(replace(scope, also=None), alias)
        also_sql, also_args = where(scope.also, alias)
        return f"(({own_sql}) OR ({also_sql}))", (*own_args, *also_args)
    time_sql, time_args = _time_predicate(
        alias, as_of=scope.as_of, valid_at=scope.valid_at, include_history=scope.include_history
    )
    parts: list[str] = []
    args: list[object] = []
    if scope.exact_project:
        # The write path's lookups, in the order they were measured: lifecycle first.
        parts.append(time_sql)
        args += time_args
        parts.append(f"{alias}.project IS ?")
        args.append(scope.project)
    elif scope.project is not None and not scope.all_projects:
        parts.append(f"{alias}.project = ?")
        args.append(scope.project)
    if scope.session is not None:
        parts.append(
            f"({alias}.session = ? OR {alias}.id IN "
            f"(SELECT fact_id FROM statements WHERE session = ?))"
        )
        args += [scope.session, scope.session]
    if not scope.exact_project:
        parts.append(time_sql)
        args += time_args
    if scope.exclude is not None:
        parts.append(f"{alias}.id != ?")
        args.append(scope.exclude)
    return " AND ".join(parts), tuple(args)
