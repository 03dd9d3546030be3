"""The engine's records are the tools' structured output: one definition, with the fields
marked HIDDEN left out of both the JSON and its schema."""

from __future__ import annotations

import dataclasses

from reasongraph_mcp import views
from reasongraph_mcp.memory import records
from reasongraph_mcp.memory.records import Cause, Event, Step, TraceNode, TraceResult, WhyResult


def test_dump_leaves_hidden_fields_out_and_keeps_nulls() -> None:
    step = Step(id=1, text="a", session=None, date="2026-03-02", cue="because", via="join")
    why = WhyResult(causes=[Cause(id=1, text="a", score=0.5, chain=[step], session="s")])
    assert views.dump(why) == {
        "causes": [{
            "id": 1, "text": "a", "score": 0.5,
            "chain": [{"id": 1, "text": "a", "session": None, "date": "2026-03-02",
                       "cue": "because"}],
        }]
    }
    event = Event(at="2026-03-02", action="assert", fact_id=1, role="user")
    assert "role" not in views.dump(event)


def test_output_schemas_match_the_dump() -> None:
    schema = views.output_schema(TraceResult)
    assert set(schema["$defs"]["TraceNode"]["properties"]) == {"id", "text", "depth", "via"}
    assert "title" not in str(schema) and "description" not in schema
    node = TraceNode(id=2, text="b", depth=1, via=1, score=0.7, cue="so")
    assert set(views.dump(node)) == set(schema["$defs"]["TraceNode"]["properties"])


def test_every_record_is_a_frozen_dataclass() -> None:
    classes = [c for c in vars(records).values()
               if isinstance(c, type) and c.__module__ == records.__name__]
    assert classes and all(
        dataclasses.is_dataclass(c) and c.__dataclass_params__.frozen for c in classes  # type: ignore[attr-defined]
    )
