"""hooks/text.py is the one home of the word lists, stemmers and calendar names."""

from __future__ import annotations

from reasongraph_mcp.hooks import text
from reasongraph_mcp.memory.causal import links
from reasongraph_mcp.memory.extract import dates, entities
from reasongraph_mcp.memory.read import recall
from reasongraph_mcp.memory.updates import lexicon


def test_the_engine_reads_the_one_copy() -> None:
    assert recall.QUERY_STOP is text.QUERY_STOP
    assert links.link_stem is text.link_stem  # its stop list is text.LINK_STOP, read there
    assert lexicon._STOP is text.FACT_STOP and lexicon._stem is text.stem
    assert entities._STOP_WORDS is text.ENTITY_STOP and entities._CALENDAR is text.CALENDAR_WORDS
    assert dates._MONTHS is text.MONTH_NUMBERS and dates._WEEKDAYS is text.WEEKDAY_NUMBERS


def test_the_stop_lists_are_composed_from_shared_parts() -> None:
    assert text.PROMPT_STOP == text.QUERY_STOP | text.REQUEST_WORDS | text.TASK_WORDS
    assert text.HOOK_PROMPT_STOP - text.PROMPT_STOP == {"let's", "one", "two"}
    assert {"may", "mon", "sept", "easter"} <= text.CALENDAR_WORDS


def test_the_stemmers() -> None:
    assert text.stem("stopped") == text.stem("stops") == "stop"
    assert text.stem("wrote") == text.stem("writes") == "writ"
    assert text.prefix_stem("migration") == "migrat" and text.prefix_stem("cache") == "cache"
    assert text.index_forms("queries") == ["queries", "queri", "querie"]
    assert text.MONTH_NUMBERS["dec"] == 12 and text.WEEKDAY_NUMBERS["sun"] == 6


def test_content_words() -> None:
    words = text.identifier_words("Please fix app/api.py now")
    # In order, the whole identifier before its parts: the same words whatever the hash seed.
    assert words == ["fix", "app/api.py", "app", "api", "py"]
    assert text.plain_words("Please explain the retry_policy twice") == ["retry_policy", "twice"]
