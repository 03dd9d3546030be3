"""Sentence splitting: one fact per sentence, code blocks whole, technical tokens intact."""

from __future__ import annotations

import re
import threading

import pytest
from reasongraph_mcp.memory.errors import InvalidInput
from reasongraph_mcp.memory.extract.sentences import split_sentences

CASES = [
    ("One. Two! Three?", ["One.", "Two!", "Three?"]),
    ("See e.g. the docs. Then stop.", ["See e.g. the docs.", "Then stop."]),
    ("Dr. Smith fixed it. Good.", ["Dr. Smith fixed it.", "Good."]),
    ("We shipped v2.3.1 today. It works.", ["We shipped v2.3.1 today.", "It works."]),
    ("Edit main.py now. Then test.", ["Edit main.py now.", "Then test."]),
    (
        "Read https://x.com/a.b?c=1 first. Then go.",
        ["Read https://x.com/a.b?c=1 first.", "Then go."],
    ),
    ("Run `x.y(). z` now. Done.", ["Run `x.y(). z` now.", "Done."]),
    ("no boundary at all", ["no boundary at all"]),
    ("soft\nwrapped line. Next one.", ["soft wrapped line.", "Next one."]),
    ("Para one\n\nPara two", ["Para one", "Para two"]),
    ("Options:\n- first\n- second item\n* third", ["Options:", "first", "second item", "third"]),
    ("Steps:\n1. install\n2) configure", ["Steps:", "install", "configure"]),
    ("  \n --- \n ... \n", []),
    ("", []),
    (
        "Before.\n```python\nx = 1. \ny = 2\n```\nAfter.",
        ["Before.", "```python\nx = 1. \ny = 2\n```", "After."],
    ),
    ("Open fence\n```\nprint('hi')", ["Open fence", "```\nprint('hi')"]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_long_sentence_is_cut_at_the_last_space_before_the_limit() -> None:
    text = "alpha beta gamma delta epsilon"
    assert split_sentences(text, max_chars=12) == ["alpha beta", "gamma delta", "epsilon"]


def test_a_word_longer_than_the_limit_is_cut_hard() -> None:
    assert split_sentences("abcdefghij", max_chars=4) == ["abcd", "efgh", "ij"]


def test_a_long_code_block_becomes_fenced_pieces_and_loses_no_line() -> None:
    lines = [f"x{i} = compute({i})" for i in range(100)]
    text = "Before.\n```python\n" + "\n".join(lines) + "\n```\nAfter."
    units = split_sentences(text, max_chars=120)
    assert units[0] == "Before." and units[-1] == "After."
    code = units[1:-1]
    assert len(code) > 1 and all(len(u) <= 120 for u in code)
    assert all(u.startswith("```python\n") and u.endswith("\n```") for u in code)
    kept = [line for u in code for line in u.split("\n")[1:-1]]
    assert kept == lines


def test_nothing_beyond_a_cut_is_dropped() -> None:
    run = "a" * 120_000
    pieces = split_sentences(run)
    assert all(len(p) <= 800 for p in pieces) and "".join(pieces) == run
    wide = "```\n" + "y" * 3_000 + "\n```"
    pieces = split_sentences(wide, max_chars=800)
    assert all(len(p) <= 800 for p in pieces)
    assert "".join(p.removeprefix("```\n").removesuffix("\n```") for p in pieces) == "y" * 3_000


def test_every_piece_respects_max_chars() -> None:
    text = ("This is a long sentence without any stop " * 40) + ". Short."
    pieces = split_sentences(text, max_chars=100)
    assert all(len(p) <= 100 for p in pieces)
    assert pieces[-1] == "Short."


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(InvalidInput):
        split_sentences("text", max_chars=0)


def test_threads_splitting_at_once_each_get_their_own_sentences() -> None:
    # pysbd keeps the text being split on its segmenter: a shared one swaps or drops
    # sentences between threads (seen as a lost write when two drains ran at once).
    texts = [
        f"The {w} module lives in src/{w}/mod.rs. Its tests use the {w} fixture. "
        f"Dr. Smith reviewed the {w} change on Jan. 5."
        for w in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
    ]
    expected = {t: split_sentences(t) for t in texts}
    wrong: list[str] = []

    def work(text: str) -> None:
        for _ in range(300):
            if split_sentences(text) != expected[text]:
                wrong.append(text)
                return

    threads = [threading.Thread(target=work, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert all(len(v) == 3 for v in expected.values())


def _long_paragraph(chars: int, seed: int) -> str:
    """One paragraph of varied sentences (abbreviations, versions, URLs, inline code)."""
    import random

    rng = random.Random(seed)
    words = ("the cache service retries e.g. Dr. Smith v2.3.1 at https://x.io/a?b=1 deploy "
             "config `a.b()` worker queue redis postgres fails because of timeout when load "
             "is high").split()
    out: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rng.choices(words, k=rng.randint(4, 30))).capitalize()
        sentence += rng.choice([".", ".", "!", "?", "..."])
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


def test_a_long_paragraph_splits_as_pysbd_splits_it_whole() -> None:
    """Long paragraphs go to pysbd in windows (its time is about quadratic in length); the
    windows must not change where sentences end."""
    from reasongraph_mcp.memory.extract import sentences

    text = _long_paragraph(12 * sentences.WINDOW, seed=7)
    whole = [piece for _, piece in sentences._pysbd(text)]
    assert len(whole) > 100
    assert sentences._windowed(text) == whole


def test_a_paragraph_of_a_million_characters_is_split() -> None:
    text = _long_paragraph(1_000_000, seed=3)
    pieces = split_sentences(text)
    assert len(pieces) > 5000
    assert max(len(p) for p in pieces) <= 800
    words = re.compile(r"\W")
    assert words.sub("", "".join(pieces)) == words.sub("", text)  # nothing lost, in order


def test_code_written_into_prose_ends_no_sentence() -> None:
    text = ("I replaced the calls with ? plus anyhow's .with_context(|| format!(\"reading {}\", "
            "p.display())) messages, and put #![deny(clippy::unwrap_used)] in main.rs. Done!")
    assert split_sentences(text) == [text[: text.index(" Done!")], "Done!"]


def test_the_dots_inside_a_path_end_no_sentence() -> None:
    assert split_sentences(
        "Deck and Linux map to ~/.local/share/godot/saves. So everything under it is synced."
    ) == ["Deck and Linux map to ~/.local/share/godot/saves.", "So everything under it is synced."]
    assert split_sentences(
        "ansible/roles/grafana/files/dashboards/*.json are copied to /etc/grafana. Done."
    ) == ["ansible/roles/grafana/files/dashboards/*.json are copied to /etc/grafana.", "Done."]
    assert split_sentences("I opened src/index/segment.rs. It was fine.") == [
        "I opened src/index/segment.rs.", "It was fine."]
    assert split_sentences("It runs on tags matching v*.*.* (e.g. v0.9.3). CI checks *.tscn.") == [
        "It runs on tags matching v*.*.* (e.g. v0.9.3).", "CI checks *.tscn."]


@pytest.mark.parametrize(("text", "expected"), [
    ("CLIs go in oakhaven/cli/<name>.py and get registered as oh-<name>. Scripts are one-off.",
     ["CLIs go in oakhaven/cli/<name>.py and get registered as oh-<name>.",
      "Scripts are one-off."]),
    ("Then run {name}.py to check. It prints the diff.",
     ["Then run {name}.py to check.", "It prints the diff."]),
])
def test_a_placeholder_in_a_path_ends_no_sentence(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("GET /items?page=2 returns 500 since Monday. We fixed it.",
     ["GET /items?page=2 returns 500 since Monday.", "We fixed it."]),
    ("en nooit ?ref=main. altijd een tag pinnen.",
     ["en nooit ?ref=main.", "altijd een tag pinnen."]),
    ("Is it the cache? Probably not.", ["Is it the cache?", "Probably not."]),
])
def test_a_query_strings_question_mark_ends_no_sentence(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected
