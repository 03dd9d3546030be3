"""Identifiers in a sentence: the names that can tie two things written independently.

snake_case, kebab-case, dotted and slashed names (paths, config keys, hosts, versions),
CamelCase, names with digits, ports, acronyms and capitalised names inside a sentence, each
with how specific it is. Read by the prompt block (exchanges that name the same thing) and by
the causal linker (two steps of one story that name the same thing)."""

from __future__ import annotations

import re
from functools import lru_cache

from ...hooks.redact import TAG as REDACTED

CODE_SPAN = re.compile(r"`[^`\n]*\w[^`\n]*`")


# Identifiers that can link two exchanges written independently: snake_case, kebab-case,
# dotted and slashed names (paths, config keys, hosts, versions), CamelCase, acronyms, and
# capitalised names inside a sentence (vendors, products). Plain words are too ambiguous.
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:(?:::|://|[_\-./:])[A-Za-z0-9]+)+")
_MIXED = re.compile(r"(?<![\w\-./:])(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{3,}(?![\w\-./:])")
_NAME = re.compile(r"(?<![\w\-./:])([A-Z][A-Za-z0-9]*)(?:['\u2019]s)?(?![\w\-./:])")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "n.b", "p.s", "vs.", "w.r.t", "u.s"})
# A port number: after "port", "tcp"/"udp" or a colon (not a time: three digits at least).
_PORT = re.compile(r"(?:\bports?\s+|\b(?:tcp|udp)[\s/]+|(?<![\d:]):)(\d{3,5})\b(?![:.]\d)", re.I)
# Units and generic technical words, capitalised or not, that name no particular thing.
_GENERIC = frozenset(
    """kb mb gb tb ms utc gmt api apis cpu gpu ram ssd url urls uri http https json yaml csv
    xml html css sql ssh tls ssl dns tcp udp ip id ids ui ux cli pr prs ci cd os vm pdf png
    svg tsv sdk faq todo fixme readme note okay yes the this that""".split()
) | frozenset(
    # SQL's keywords, written in capitals in every query: "AT TIME ZONE" in two exchanges is
    # no link between them (an HTTP method is: "OPTIONS" is the preflight).
    """select from where and or not null insert into values update set delete create table
    index on as in is by group order limit offset join left right inner outer distinct count
    max min sum avg time zone at default primary key references conflict do nothing returning
    interval desc asc with case when then else end begin commit rollback alter add column drop
    text integer bigint boolean timestamp timestamptz varchar unique constraint check for skip
    locked like between exists having union all any true false cascade trigger function view
    materialized refresh concurrently grant revoke using if now date""".split()
)


def norm_ident(token: str) -> str:
    return token.lower().replace("-", "_")


@lru_cache(maxsize=16384)
def identifiers(text: str, specific: float = 1.0, plain: float = 0.5) -> dict[str, float]:
    """The linking identifiers of one sentence (normalised: lower case, '-' as '_'), each
    with how specific it is: ``specific`` for a path, snake_case or dotted name or a name
    with digits, ``plain`` for one capitalised word, an acronym or a hyphenated English
    compound ("org-level"). Cached: the prompt block and the causal linker read the same
    stored sentences again and again; callers must not change the dict."""
    out: dict[str, float] = {}
    # What redaction left in place of a secret names nothing: every note that held a
    # password reads "[REDACTED:password]".
    text = REDACTED.sub(" ", text)

    def add(tok: str, strength: float) -> None:
        key = norm_ident(tok)
        out[key] = max(out.get(key, 0.0), strength)

    # Written as code (a code block, a `span`), a hyphenated word is a name: "emb-nightly".
    code = [(0, len(text))] if text.lstrip().startswith("```") else [
        c.span() for c in CODE_SPAN.finditer(text)]
    for m in _COMPOUND.finditer(text):
        tok = m.group(0)
        if not any(c.isalpha() for c in tok) or tok.lower() in _ABBREVIATIONS:
            continue  # numbers, dates and times link unrelated things, and so does "e.g"
        in_code = any(a <= m.start() and m.end() <= b for a, b in code)
        is_plain = not in_code and all(part.isalpha() and part.islower()
                                       for part in tok.split("-"))
        add(tok, plain if is_plain else specific)
        for part in re.split(r"[/.:]+", tok):  # path and dotted components
            if ("_" in part or "-" in part) and any(c.isalpha() for c in part):
                add(part, specific if "_" in part else plain)
    for m in _MIXED.finditer(text):  # safari15, x86, v2
        add(m.group(0), specific)
    for m in _PORT.finditer(text):  # "listening on :9100", "tcp 9100", "port 5432"
        add(m.group(1), specific if len(m.group(1)) >= 4 else plain)
    for m in _NAME.finditer(text):
        if m.start() == 0:
            continue  # the first word of a sentence is capitalised anyway
        word = m.group(1)
        if word.endswith("s") and word[:-1].isupper():
            word = word[:-1]  # "JWTs" names the same thing as "JWT"
        if len(word) < 3 or word.lower() in _GENERIC:
            continue
        inner_caps = any(c.isupper() for c in word[1:]) and not word.isupper()
        add(word, specific if inner_caps or any(c.isdigit() for c in word) else plain)  # PyJWT
    return out
