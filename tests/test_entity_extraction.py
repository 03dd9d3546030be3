"""Entity extraction: code-aware mentions with canonical keys that bridge sessions."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.extract.entities import EntityMention, canonical, extract_entities


def _found(text: str) -> dict[str, tuple[str, str]]:
    return {m.name: (m.display, m.type) for m in extract_entities(text)}


CASES = [
    # (text, canonical name, display, type)
    ("Edit src/app/main.py first", "src/app/main.py", "src/app/main.py", "file"),
    ("Open ./x.ts please", "./x.ts", "./x.ts", "file"),
    ("It lives in ~/.config/x now", "~/.config/x", "~/.config/x", "file"),
    ("Bump the version in Cargo.toml.", "cargo.toml", "Cargo.toml", "file"),
    ("Check docker-compose.yml", "docker-compose.yml", "docker-compose.yml", "file"),
    ("The Dockerfile is stale", "dockerfile", "Dockerfile", "file"),
    ("prettier reads .prettierrc", ".prettierrc", ".prettierrc", "file"),
    ("Docs at https://x.io/a/b.", "https://x.io/a/b", "https://x.io/a/b", "url"),
    ("Set DATABASE_URL before boot", "database_url", "DATABASE_URL", "env"),
    ("It reads $HOME first", "home", "$HOME", "env"),
    ("point REASONGRAPH_DB at it", "reasongraph_db", "REASONGRAPH_DB", "env"),
    ("It raised KeyError on start", "keyerror", "KeyError", "error"),
    ("got ECONNREFUSED from redis", "econnrefused", "ECONNREFUSED", "error"),
    ("a TypeError in the handler", "typeerror", "TypeError", "error"),
    ("the pod was OOMKilled twice", "oomkilled", "OOMKilled", "error"),
    ("nginx returned HTTP 502 again", "http 502", "HTTP 502", "error"),
    ("rustc says E0502 here", "e0502", "E0502", "error"),
    ("use os.path.join there", "os.path.join", "os.path.join", "symbol"),
    ("call UserService.get_user() now", "userservice.get_user", "UserService.get_user", "symbol"),
    ("the UserService class", "userservice", "UserService", "symbol"),
    ("resize the NodePool", "nodepool", "NodePool", "symbol"),
    ("rename get_user to fetch", "get_user", "get_user", "symbol"),
    ("keep paginate_offset small", "paginate_offset", "paginate_offset", "symbol"),
    ("pin fastapi==0.110 now", "fastapi@0.110", "fastapi==0.110", "version"),
    ("pin fastapi==0.110 now", "fastapi", "fastapi", "package"),
    ("we need react@18 here", "react@18", "react@18", "version"),
    ("require pydantic>=2 there", "pydantic>=2", "pydantic>=2", "version"),
    ("require pydantic>=2 there", "pydantic", "pydantic", "package"),
    ("we released v2.3.1 today", "v2.3.1", "v2.3.1", "version"),
    ("we are on Python 3.11 now", "python@3.11", "Python 3.11", "version"),
    ("we are on Python 3.11 now", "python", "Python", "package"),
    ("the image uses Node 20 still", "node.js@20", "Node 20", "version"),
    ("then run `npm run build` again", "npm run", "npm run build", "command"),
    ("I ran cargo test and it passed", "cargo test", "cargo test", "command"),
    ("try `pytest -k slow`", "pytest -k", "pytest -k slow", "command"),
    ("Hey Caroline, how are you?", "caroline", "Caroline", "name"),
    ("We moved to Amsterdam last year", "amsterdam", "Amsterdam", "name"),
    ("I flew to New York yesterday", "new york", "New York", "name"),
    ("New York was cold", "new york", "New York", "name"),
    ("I joined the LGBTQ Support Group", "lgbtq support group", "LGBTQ Support Group", "name"),
    ("Caroline's dog is cute", "caroline", "Caroline", "name"),
    ("we ruled out AG Grid's licence", "ag grid", "AG Grid", "name"),
    ("we use PostgreSQL in prod", "postgresql", "PostgreSQL", "package"),
    ("we use Postgres in prod", "postgresql", "Postgres", "package"),
    ("move it all to k8s", "kubernetes", "k8s", "package"),
    ("we run Kubernetes", "kubernetes", "Kubernetes", "package"),
    ("cache it in redis", "redis", "redis", "package"),
    ("orchestrated by airflow and dbt", "dbt", "dbt", "package"),
    ("use @tanstack/react-table", "@tanstack/react-table", "@tanstack/react-table", "package"),
    ("react-window needs sizes", "react-window", "react-window", "package"),
    ("Prettier and ESLint disagree", "eslint", "ESLint", "package"),
    ("we shipped on Node.js", "node.js", "Node.js", "package"),
]


@pytest.mark.parametrize(("text", "name", "display", "type_"), CASES)
def test_extracts_entity_with_canonical_name(
    text: str, name: str, display: str, type_: str
) -> None:
    found = _found(text)
    assert name in found, found
    assert found[name] == (display, type_)


NOT_ENTITIES = [
    ("The build is green. We shipped it. This works. Thanks!", ["the", "we", "this", "thanks"]),
    ("I met him on Monday in May", ["i", "monday", "may"]),
    ("Yes, when it fails, Hey look", ["yes", "when", "hey"]),
    ("see e.g. the docs, i.e. this", ["e.g", "i.e"]),
    ("The API returns JSON over HTTP", ["api", "json", "http"]),
    ("Make the header sticky. Go ahead.", ["make", "go"]),
    ("Implemented the fix. Scrolling is smooth.", ["implemented", "scrolling"]),
    ("we need 10k rows at 60fps in 2.3s", ["10k", "60fps", "2.3s"]),
    ("read/write access and/or TCP/IP", ["read/write", "and/or", "tcp/ip"]),
    ("mail bob@example.com please", ["bob@example.com"]),
]


@pytest.mark.parametrize(("text", "absent"), NOT_ENTITIES)
def test_ignores_function_words_calendar_and_noise(text: str, absent: list[str]) -> None:
    found = _found(text)
    for name in absent:
        assert name not in found, found


def test_mentions_are_deduplicated_in_order_of_first_appearance() -> None:
    mentions = extract_entities("Redis and Postgres; later redis, postgresql and PostgreSQL again.")
    assert mentions == [
        EntityMention("redis", "Redis", "package"),
        EntityMention("postgresql", "Postgres", "package"),
    ]


def test_spellings_in_different_sessions_share_one_key() -> None:
    first = {m.name for m in extract_entities("We migrated to Kubernetes.")}
    second = {m.name for m in extract_entities("the k8s cluster is down")}
    assert first & second == {"kubernetes"}


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("Postgres", "postgresql"),
        ("postgresql", "postgresql"),
        ("K8s", "kubernetes"),
        ("UserService.get_user()", "userservice.get_user"),
        ("Caroline's", "caroline"),
        ("  New   York. ", "new york"),
        ("Redis,", "redis"),
    ],
)
def test_canonical_folds_case_punctuation_and_aliases(spelling: str, key: str) -> None:
    assert canonical(spelling) == key


def test_empty_text_has_no_entities() -> None:
    assert extract_entities("") == []
