"""Sentence splitting for stored facts: one fact per sentence, code blocks kept whole.

Agent transcripts mix prose, bullet lists, file names, URLs and fenced code, so plain
``split(". ")`` breaks on ``e.g.``, ``v2.3.1`` and ``https://x.io/a?b=1``. The pipeline:

1. Fenced code blocks (```...```) are cut out first and kept as one unit each: splitting code
   into "sentences" would make nonsense facts. A block longer than ``max_chars`` becomes
   consecutive pieces cut at line ends, each fenced again (``_code_pieces``).
2. The prose between them is cut into paragraphs at blank lines and at newlines that start a
   bullet or numbered item (hard boundaries); other newlines are soft wraps and become spaces.
   Bullet markers ("- ", "* ", "1. ") are dropped.
3. Each paragraph goes through pysbd (English, ``clean=False``), with URLs and inline code
   masked so that their dots and question marks cannot end a sentence. pysbd is the slow part,
   so a paragraph without any ". ", "! " or "? " candidate skips it, and a long paragraph
   goes through in windows of ``WINDOW`` characters (pysbd's time is about quadratic).
4. Pieces longer than ``max_chars`` are cut at the last space before the limit, and every
   piece is kept: text beyond a cut becomes the next fact, never dropped.

The segmenter is created lazily on first use and cached: importing this module stays cheap.
A ``Memory`` with a SaT model activates it through ``memory.extract.backends``; it then
replaces pysbd in step 3 (and an active entity model is primed with every sentence).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInput
from .backends import current as current_backends

__all__ = ["split_sentences"]

_FENCE = re.compile(r"^[ \t]*```.*?(?:^[ \t]*```[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_BLANK = re.compile(r"\n[ \t]*\n+")
_ITEM = re.compile(r"^[ \t]*(?:[-*+\u2022\u25aa\u2023]|\d{1,3}[.)]|#{1,6})[ \t]+")
_CANDIDATE = re.compile(r"[.!?\u2026][\"')\]]*\s")
# URLs, inline code, paths ("~/.local/share", "dashboards/*.json", "cli/<name>.py") and globs:
# their dots end nothing
# (a path's last character is a word character, '*' or '/', so "... in src/main.rs." still ends).
_MASKED = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+|`[^`\n]+`|[~.]*[\w*\-~.<>{}]*/[\w*\-~./<>{}]*[\w*/>}]"
    r"|[\w.\-]*\*[\w.*\-]*[\w*]"  # a glob: "v*.*.*", "*.tscn"
    r"|[<{][\w\-]+[>}]\.\w+"  # a placeholder file name: "{name}.py", "<module>.rs"
    # a query string: "GET /items?page=2", "never ?ref=main." (its "?" asks nothing)
    r"|\?[\w\-%\[\]]+=(?:[\w\-.%&=/+:,]*[\w\-%&=/+])?"
)
_HAS_WORD = re.compile(r"\w")


_LOCAL = threading.local()


def _segmenter() -> Any:
    """This thread's pysbd segmenter. One per thread: ``Segmenter.segment`` keeps the text
    it is splitting on the instance, so two threads sharing one (two drains, or a drain and
    a tool call) lose or swap each other's sentences."""
    seg = getattr(_LOCAL, "segmenter", None)
    if seg is None:
        import pysbd  # imported here so that importing memory.extract stays cheap

        seg = _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False)
    return seg


# Code written into prose without backticks: a call's or macro's argument list
# ("format!(...)", ".with_context(|| ...)"), an attribute ("#![deny(...)]"), a method's dot
# ("anyhow's .with_context"), an operator "?" between spaces. Their punctuation ends nothing.
_CODE_START = re.compile(r"(?:\w|#!?)[!]?[(\[]")
_CODE_MARK = re.compile(r"(?<=\s)\.(?=[A-Za-z_])|(?<=\s)\?(?=\s+[a-z])|\w!(?=\s*[(\[{])")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _mask(text: str) -> str:
    """Replace URL and inline-code characters with letters, keeping every offset."""
    out = list(_MASKED.sub(lambda m: "x" * len(m.group(0)), text))
    for m in _CODE_MARK.finditer(text):
        for i in range(m.start(), m.end()):
            out[i] = "x"
    for m in _CODE_START.finditer(text):
        end = _balanced(text, m.end() - 1)
        if end is not None:
            for i in range(m.start(), end + 1):
                out[i] = "x"
    return "".join(out)


def _balanced(text: str, at: int, limit: int = 300) -> int | None:
    """Where the bracket opened at ``at`` closes on the same line, or None."""
    stack = [_CLOSE[text[at]]]
    for i in range(at + 1, min(len(text), at + limit)):
        c = text[i]
        if c == "\n":
            return None
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
    return None


def _segment(paragraph: str) -> list[str]:
    """Split one paragraph (no hard boundaries inside) into sentences."""
    active = current_backends()
    splitter = active.splitter if active is not None else None
    if splitter is not None:
        return _model_segment(paragraph, splitter.split)
    if not _CANDIDATE.search(paragraph):
        return [paragraph]
    if len(paragraph) <= WINDOW:
        return [piece for _, piece in _pysbd(paragraph)]
    return _windowed(paragraph)


# pysbd's time grows about with the square of a paragraph's length (a 200 KB paragraph took
# 23 s, 1 MB did not finish in 300 s), so a long paragraph is fed to it in windows.
WINDOW = 4000


def _windowed(paragraph: str) -> list[str]:
    """Split a long paragraph window by window, in time linear in its length: every
    sentence but a window's last is kept, and the next window starts where that last one
    starts, so each boundary is decided with a whole sentence of context on both sides."""
    out: list[str] = []
    start = 0
    while start < len(paragraph):
        window = paragraph[start : start + WINDOW]
        pieces = _pysbd(window)
        if start + WINDOW >= len(paragraph):
            out.extend(piece for _, piece in pieces)
            break
        last_at = pieces[-1][0] if len(pieces) > 1 else -1
        if last_at <= 0:  # one sentence longer than the window, or text pysbd rewrote
            out.extend(piece for _, piece in pieces)
            start += len(window)
            continue
        out.extend(piece for _, piece in pieces[:-1])
        start += last_at
    return out


def _pysbd(paragraph: str) -> list[tuple[int, str]]:
    """pysbd's sentences of ``paragraph`` with their offsets, URLs and inline code masked
    (offset -1 when pysbd changed the text and its own output is returned instead)."""
    masked = _mask(paragraph)
    pieces: list[tuple[int, str]] = []
    cursor = 0
    for segment in _segmenter().segment(masked):
        found = masked.find(segment, cursor)
        if found < 0:  # pysbd changed the text after all; fall back to its own output
            return [(-1, str(s)) for s in _segmenter().segment(paragraph)]
        pieces.append((found, paragraph[found : found + len(segment)]))
        cursor = found + len(segment)
    return pieces


def _model_segment(paragraph: str, split: Callable[[str], list[str]]) -> list[str]:
    """Split with a model (SaT) on the masked paragraph, mapping pieces back by offset."""
    masked = _mask(paragraph)
    pieces: list[str] = []
    cursor = 0
    for segment in split(masked):
        found = masked.find(segment.strip(), cursor)
        if found < 0:  # the model rewrote the text: keep the paragraph whole
            return [paragraph]
        end = found + len(segment.strip())
        pieces.append(paragraph[found:end])
        cursor = end
    return pieces or [paragraph]


def _cut(piece: str, max_chars: int) -> list[str]:
    """Cut an over-long piece at the last space before ``max_chars`` (hard cut if none)."""
    out: list[str] = []
    while len(piece) > max_chars:
        at = piece.rfind(" ", 0, max_chars + 1)
        if at <= 0:
            at = max_chars
        out.append(piece[:at])
        piece = piece[at:].lstrip()
    out.append(piece)
    return out


def _paragraphs(prose: str) -> list[str]:
    """Split prose at blank lines and list items; join soft-wrapped lines with spaces."""
    out: list[str] = []
    for block in _BLANK.split(prose):
        current: list[str] = []
        for line in block.split("\n"):
            item = _ITEM.match(line)
            if item:
                if current:
                    out.append(" ".join(current))
                current = [line[item.end() :].strip()]
            elif line.strip():
                current.append(line.strip())
        if current:
            out.append(" ".join(current))
    return out


def split_sentences(text: str, *, max_chars: int = 800) -> list[str]:
    """Split ``text`` into sentences, each stripped and at most ``max_chars`` long.

    Fenced code blocks come back as single units (a longer block as consecutive fenced
    pieces). Text beyond a cut is kept as the next piece. Pieces without any letter or digit
    are dropped. Order follows the text.
    """
    if max_chars < 1:
        raise InvalidInput(f"max_chars must be at least 1, got {max_chars}")
    units: list[str] = []
    cursor = 0
    for fence in _FENCE.finditer(text):
        units.extend(_prose(text[cursor : fence.start()], max_chars))
        code = fence.group(0).strip()
        if _HAS_WORD.search(code.strip("`")):
            units.extend(_code_pieces(code, max_chars))
        cursor = fence.end()
    units.extend(_prose(text[cursor:], max_chars))
    active = current_backends()
    if active is not None and active.entities is not None:
        active.entities.prime(units)  # one batched model run for the whole text
    return units


def _code_pieces(code: str, max_chars: int) -> list[str]:
    """A fenced block as one unit, or, when longer than ``max_chars``, as consecutive pieces
    cut at line ends (each fenced again with the block's own opening line when that fits):
    nothing of the code is dropped."""
    if len(code) <= max_chars:
        return [code]
    opening, _, body = code.partition("\n")
    if body.rstrip().endswith("```"):
        body = body.rstrip()[:-3]
    fence_cost = len(opening) + len("\n\n```")
    budget = max_chars - fence_cost
    if budget < max(40, max_chars // 4):  # a fence line too long to repeat: plain pieces
        opening, budget = "", max_chars
    pieces: list[str] = []
    current = ""
    for line in body.split("\n"):
        for part in _cut(line, budget) if len(line) > budget else [line]:
            if current and len(current) + 1 + len(part) > budget:
                pieces.append(current)
                current = ""
            current = f"{current}\n{part}" if current else part
    if current.strip():
        pieces.append(current)
    if not opening:
        return [p.strip() for p in pieces if _HAS_WORD.search(p)]
    return [f"{opening}\n{p.strip(chr(10))}\n```" for p in pieces if _HAS_WORD.search(p)]


def _prose(text: str, max_chars: int) -> list[str]:
    out: list[str] = []
    for paragraph in _paragraphs(text):
        for sentence in _segment(paragraph):
            for piece in _cut(sentence.strip(), max_chars):
                piece = piece.strip()
                if piece and _HAS_WORD.search(piece):
                    out.append(piece)
    return out
