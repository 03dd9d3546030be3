"""The operations the MCP tools and the CLI share, their results as JSON, and their text.

Each operation (``do_recall``, ``do_why``, ...) calls one ``memory.Memory`` method and returns
one of the engine's records (``memory/records.py``, the only definition of a result). ``dump``
turns it into the tool's structured output (the CLI's ``--json`` prints the same), and
``output_schema`` gives that output's JSON schema for ``tools/list`` (``compact_schema`` keeps it
small). ``render_*`` gives the compact text an agent or a person reads (facts with ids, dates
and sessions; chains as numbered steps).

Import-cheap on purpose (the standard library and pydantic only): the server imports this
before its handshake.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import TypeAdapter

from .memory.records import (
    Fact,
    ForgetResult,
    HistoryResult,
    RecallResult,
    RememberResult,
    ReviseResult,
    Step,
    TraceResult,
    WhyResult,
)

if TYPE_CHECKING:
    from .memory import Memory


def parse_ref(value: int | str) -> int | str:
    """A fact reference as given by an agent or a person: ``12``, ``"12"`` or ``"#12"`` is
    fact 12; any other text is passed on as text (a question, an entity name)."""
    if isinstance(value, int) or isinstance(value, bool):
        return int(value)
    m = re.fullmatch(r"\s*#?(\d+)\s*", value)
    return int(m.group(1)) if m else value.strip()


# -- results as JSON (the structured output of the tools and the CLI's --json) ----------------


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def dump(result: Any) -> dict[str, Any]:
    """A record as JSON data: every field in order, nulls included, ``HIDDEN`` fields left out."""
    return _adapter(type(result)).dump_python(result, mode="json")


def output_schema(cls: type) -> dict[str, Any]:
    """The JSON schema of ``dump(cls(...))``, compact: what ``tools/list`` shows as outputSchema.
    The records' docstrings are for readers of the code, not for agents: left out."""
    schema = _adapter(cls).json_schema(mode="serialization")
    for sub in (schema, *schema.get("$defs", {}).values()):
        sub.pop("description", None)
    return compact_schema(schema, keep_defaults=False)


def compact_schema(schema: dict[str, Any], *, keep_defaults: bool = True) -> dict[str, Any]:
    """Shrink a pydantic JSON schema in place without changing what it accepts: agents pay
    for every byte of every tool schema on every turn.

    Drops the titles pydantic adds (they repeat the names), null defaults (and, for output
    schemas, every default), and writes ``anyOf: [{type: X}, {type: null}]`` as
    ``type: [X, "null"]``.
    """
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        if "default" in prop and (prop["default"] is None or not keep_defaults):
            del prop["default"]
        variants = prop.get("anyOf")
        if (
            isinstance(variants, list)
            and len(variants) == 2
            and {"type": "null"} in variants
            and all(set(v) == {"type"} and isinstance(v["type"], str) for v in variants)
        ):
            del prop["anyOf"]
            prop["type"] = [v["type"] for v in variants if v["type"] != "null"] + ["null"]
    for sub in schema.get("$defs", {}).values():
        compact_schema(sub, keep_defaults=keep_defaults)
    return schema


# -- compact text renderings (what the agent reads; the CLI prints the same) -------------------


def _day(value: str | None) -> str:
    return value[:10] if value else "----------"


def render_fact(f: Fact, *, show_project: bool = False) -> str:
    parts = [f"#{f.id}", _day(f.date)]
    if f.session:
        parts.append(f.session)
    if show_project and f.project:
        parts.append(f.project)
    line = " ".join(parts) + (f" [{f.kind}]" if f.kind else "") + f" {f.text}"
    if f.status != "current":
        line += f" ({f.status}" + (f" by #{f.superseded_by}" if f.superseded_by else "") + ")"
    if f.via and not f.via.startswith("seed"):
        line += f" <{f.via}>"
    return line


def render_recall(r: RecallResult, *, show_project: bool = False) -> str:
    lines = [render_fact(f, show_project=show_project) for f in r.facts] or ["No facts found."]
    if r.note:
        lines.append(f"({r.note})")
    return "\n".join(lines)


def render_steps(steps: Sequence[Step], indent: str = "") -> list[str]:
    out = []
    for i, s in enumerate(steps, 1):
        cue = f" ({s.cue})" if s.cue and i > 1 else ""
        if s.via == "precedes" and i > 1:
            cue = " (told after it; no cause stated)"  # an inferred step, not a recorded link
        elif s.via == "story" and i > 1:
            cue = " (told after it about the same thing; no cause stated)"
        when = f" {_day(s.date)}" if s.date else ""
        sess = f" {s.session}" if s.session else ""
        out.append(f"{indent}{i}. #{s.id}{when}{sess}{cue} {s.text}")
    return out


def render_why(r: WhyResult) -> str:
    if not r.causes:
        return "No recorded cause found."
    lines: list[str] = []
    for n, c in enumerate(r.causes, 1):
        lines.append(f"Cause {n}: #{c.id} {c.text}")
        lines += render_steps(c.chain, "  ")
    return "\n".join(lines)


def render_trace(r: TraceResult, target: int | str) -> str:
    ref = f"#{target}" if isinstance(target, int) else repr(target)
    if r.mode == "chain":
        if not r.chain:
            return "No causal chain links these facts."
        return "\n".join([f"Chain ({len(r.chain)} steps):", *render_steps(r.chain, "  ")])
    if r.mode == "what_if":
        lines = [f"If {ref} were false:", "  collapses:"]
        lines += [f"    #{n.id} {n.text}" for n in r.nodes] or ["    nothing"]
        lines.append("  survives:")
        lines += [f"    #{n.id} {n.text}" for n in r.survives] or ["    nothing"]
        return "\n".join(lines)
    if not r.nodes:
        return f"No recorded {r.mode} of {ref}."
    lines = [f"{r.mode.capitalize()} of {ref}:"]
    for n in r.nodes:
        via = f" (from #{n.via})" if n.via else ""
        lines.append(f"  {'  ' * max((n.depth or 1) - 1, 0)}#{n.id}{via} {n.text}")
    return "\n".join(lines)


def render_history(r: HistoryResult) -> str:
    if not r.events:
        return "No history."
    lines = []
    for e in r.events:
        line = f"{_day(e.at)} {e.action}"
        if e.fact_id is not None:
            line += f" #{e.fact_id}"
        if e.other_id is not None:
            line += f" -> #{e.other_id}"
        if e.session:
            line += f" [{e.session}]"
        if e.text:
            line += f" {e.text}"
        if e.reason:
            line += f" (reason: {e.reason})"
        lines.append(line)
    return "\n".join(lines)


LIST_IDS_UP_TO = 20  # a larger remember is summarised in one line (its record has every id)


def _id_span(ids: list[int]) -> str:
    if not ids:
        return ""
    low, high = min(ids), max(ids)
    return f" (#{low})" if low == high else f" (#{low}-#{high})"


def render_remember(r: RememberResult) -> str:
    """Every id of a small write; one summary line for a large one, such as
    "Stored 2,341 new fact(s) (#120-#2460), 12 restated, 3 superseded"."""
    if len(r.ids) > LIST_IDS_UP_TO:
        return (
            f"Stored {len(r.created):,} new fact(s){_id_span(r.created)}, "
            f"{len(r.restated):,} restated{_id_span(r.restated)}, "
            f"{len(r.superseded):,} superseded."
        )
    parts = [f"Remembered {len(r.ids)} fact(s): " + ", ".join(f"#{i}" for i in r.ids)]
    if r.restated:
        parts.append("already known: " + ", ".join(f"#{i}" for i in r.restated))
    for s in r.superseded:
        parts.append(f"#{s.new} supersedes #{s.old} ({s.reason})")
    return "; ".join(parts)


# -- the operations, shared by the tools and the CLI -------------------------------------------


def do_recall(
    mem: Memory, query: str, *, project: str | None, k: int = 10, all_projects: bool = False,
    as_of: str | None = None, valid_at: str | None = None, include_history: bool = False,
    wait_for_model: bool = True,
) -> RecallResult:
    hits = mem.recall(
        query, k=k, project=None if all_projects else project, all_projects=all_projects,
        as_of=as_of, valid_at=valid_at, include_history=include_history,
        wait_for_model=wait_for_model,
    )
    # Say so whenever the vectors took no part: the model is loading, off, or failed.
    note = None if mem.model_ready else mem.model_status
    return RecallResult(facts=[Fact.of(h) for h in hits], note=note)


def do_remember(
    mem: Memory, text: str | list[str], *, project: str | None, session: str | None,
    when: str | None = None, role: str | None = None, harness: str | None = None,
) -> RememberResult:
    return mem.remember_detailed(
        text, project=project, session=session, when=when, role=role, harness=harness
    )


def do_why(mem: Memory, target: int | str, *, project: str | None, k: int = 3) -> WhyResult:
    causes = mem.why(parse_ref(target), k=k, project=project)
    return WhyResult(causes=causes)


TraceMode = Literal["effects", "causes", "chain", "what_if"]


def do_trace(
    mem: Memory, target: int | str, *, mode: str = "effects", to: int | str | None = None,
    depth: int = 6, project: str | None = None,
) -> TraceResult:
    ref = parse_ref(target)
    if mode in ("effects", "causes"):
        nodes = mem.trace(ref, direction=mode, depth=depth, project=project)
        return TraceResult(mode=mode, nodes=nodes)
    if not isinstance(ref, int):
        raise _invalid(f"trace mode {mode!r} needs a fact id, not text")
    if mode == "chain":
        end = parse_ref(to) if to is not None else None
        if not isinstance(end, int):
            raise _invalid("trace mode 'chain' needs `to`: the id of the fact at the other end")
        steps = mem.chain(ref, end)
        return TraceResult(mode=mode, chain=steps or [])
    if mode == "what_if":
        w = mem.what_if(ref)
        return TraceResult(
            mode=mode, nodes=w.collapsed, survives=w.survives
        )
    raise _invalid(f"unknown trace mode {mode!r}: use effects, causes, chain or what_if")


def do_revise(
    mem: Memory, fact: int, *, reason: str, new_text: str | None = None,
    session: str | None = None, role: str | None = None,
) -> ReviseResult:
    if not reason or not reason.strip():
        raise _invalid("revise needs a reason: say why the fact changed")
    if new_text is not None and new_text.strip():
        new_id = mem.revise(fact, new_text, reason=reason, session=session, role=role)
        return ReviseResult(fact=fact, action="superseded", new_id=new_id)
    mem.retract(fact, reason=reason, session=session, role=role)
    return ReviseResult(fact=fact, action="retracted")


def do_forget(
    mem: Memory, *, fact: int | None = None, session: str | None = None,
    project: str | None = None,
) -> ForgetResult:
    given = [x for x in (fact, session, project) if x is not None]
    if len(given) != 1:
        raise _invalid("forget takes exactly one of: a fact id, a session id, or the whole project")
    erased = mem.forget_detailed(fact=fact, session=session, project=project)
    return ForgetResult(
        deleted=erased.facts, pending_exchanges=erased.pending, spool_files=erased.spool_files,
        state_files=erased.state_files, summary=erased.summary(),
    )


def do_history(mem: Memory, target: int | str) -> HistoryResult:
    return HistoryResult(events=mem.history(parse_ref(target)))


def _invalid(message: str) -> Exception:
    from .memory.errors import InvalidInput

    return InvalidInput(message)
