"""Secrets never reach storage; ordinary technical text passes through untouched."""

from __future__ import annotations

import re

import pytest
import secret_corpus as corpus  # tests/ is on sys.path (it is not a package)
from reasongraph_mcp.hooks.redact import RULES, contains_secret, redact

SECRET_CASES = [
    # (text, expected)
    ("key sk-proj-abcdefghijklmnopqrstuvwxyz123456", "key [REDACTED:openai_key]"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:anthropic_key]"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github_token]"),
    ("gho_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github_token]"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED:github_token]"),
    ("id AKIAIOSFODNN7EXAMPLE here", "id [REDACTED:aws_access_key] here"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = [REDACTED:aws_secret_key]",
    ),
    ("xoxb-1234567890-abcdefghij", "[REDACTED:slack_token]"),
    ("sk_live_abcdefghijklmnop1234", "[REDACTED:stripe_key]"),
    ("rk_live_abcdefghijklmnop1234", "[REDACTED:stripe_key]"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:google_api_key]"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "jwt [REDACTED:jwt]",
    ),
    ("Authorization: Bearer abcdef1234567890xyz", "Authorization: Bearer [REDACTED:bearer_token]"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nxyz\n-----END RSA PRIVATE KEY----- done",
        "[REDACTED:private_key] done",
    ),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[REDACTED:private_key]"),
    (
        "postgres://admin:s3cr3tP4ss@db.internal:5432/app",
        "postgres://admin:[REDACTED:password]@db.internal:5432/app",
    ),
    ("redis://:hunter2pw@cache:6379", "redis://:[REDACTED:password]@cache:6379"),
    ("password=hunter2", "password=[REDACTED:password]"),
    ("passwd: hunter2", "passwd: [REDACTED:password]"),
    ("DB_PASSWORD=abc", "DB_PASSWORD=[REDACTED:password]"),
    ('DB_PASSWORD: "p@ss w0rd"', 'DB_PASSWORD: "[REDACTED:password]"'),
    ("dbPassword=hunter22", "dbPassword=[REDACTED:password]"),
    ("secret=abc", "secret=[REDACTED:secret]"),
    ("token=abc123", "token=[REDACTED:token]"),
    ('"api_key": "abc123def456"', '"api_key": "[REDACTED:api_key]"'),
    ("api_key: 'abc123def456'", "api_key: '[REDACTED:api_key]'"),
    ("password: correcthorsebatterystaple", "password: [REDACTED:password]"),
    (
        "SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddccbbaa",
        "SECRET_KEY_BASE=[REDACTED:secret]",
    ),
    (
        'signingKeyMaterial = "Zx8vQ2mN7pL4kR9tW3yB6cF1"',
        'signingKeyMaterial = "[REDACTED:api_key]"',
    ),
]

UNTOUCHED = [
    "commit 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a fixed the race",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out",
    "see src/app/main.py and ~/.config/reasongraph/config.toml",
    "upgraded to v2.3.1 and fastapi==0.110",
    "max_tokens=4096 and token_count: 3",
    "the password is required on login",
    "token: it expired yesterday",
    "password=${DB_PASSWORD}",
    "api_key=None",
    "token = os.environ['TOKEN']",
    "primary_key = id",
    'cache_key = "user:123"',
    "bypass=yes",
    "the secret to good caching is invalidation",
    "postgres://db.internal:5432/app",
    "Authorization header is missing",
    "We use sk-learn style names and the skip-list",
    "",
]


@pytest.mark.parametrize(("text", "expected"), SECRET_CASES)
def test_redact_replaces_only_the_secret(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert contains_secret(text)


@pytest.mark.parametrize("text", UNTOUCHED)
def test_redact_leaves_ordinary_text_alone(text: str) -> None:
    assert redact(text) == text
    assert not contains_secret(text)


@pytest.mark.parametrize(("text", "_expected"), SECRET_CASES)
def test_redact_is_idempotent(text: str, _expected: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_no_secret_survives_a_realistic_paragraph() -> None:
    secrets = [
        "sk-proj-Q9v8x7W6u5T4s3R2q1P0oNmLkJiHgF",
        "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
        "AKIAZ7Y6X5W4V3U2T1S0",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "Tr0ub4dor&3",
        "xoxp-2222222222-3333333333-abcdefABCDEF",
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZXYiLCJleHAiOjE3MDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        "pg_Pa55w0rd!",
        "hunter2hunter2",
    ]
    paragraph = f"""The deploy failed, so I pasted the env file:

    OPENAI_API_KEY={secrets[0]}
    GITHUB_TOKEN="{secrets[1]}"
    AWS_ACCESS_KEY_ID={secrets[2]}
    aws_secret_access_key = {secrets[3]}
    SMTP_PASSWORD='{secrets[4]}'
    SLACK_BOT={secrets[5]}

curl -H "Authorization: Bearer {secrets[6]}" https://api.example.com/v1/me
-----BEGIN PRIVATE KEY-----
{secrets[7]}
-----END PRIVATE KEY-----
DATABASE_URL=postgresql://app:{secrets[8]}@db.prod.internal:5432/app
config.yaml has `password: {secrets[9]}` too. Commit 3f2a9c1 touched src/app/main.py.
"""
    cleaned = redact(paragraph)
    for secret in secrets:
        assert secret not in cleaned
    for kept in ("app:", "db.prod.internal:5432", "3f2a9c1", "src/app/main.py", "OPENAI_API_KEY="):
        assert kept in cleaned


SECRETS = [
    ("anthropic", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("openai", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234"),
    ("github", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("aws", "AKIAIOSFODNN7EXAMPLE"),
    ("slack", "xoxb-1234567890-abcdefghij"),
    ("stripe", "sk_live_AbCdEfGhIjKlMnOp1234"),
    ("google", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
            ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("url", "hunter2pass"),
    ("assignment", "Tr0ub4dor&3xyz"),
    ("generic", "a8f5f167f44f4964e6c998dee827110c"),
    ("bearer", "abcdefghijklmnopqrstuvwxyz012345"),
]
SECRET_TEXT = {
    "anthropic": "my key is {s} ok",
    "openai": "OPENAI={s}",
    "github": "token {s} for CI",
    "aws": "aws id {s}",
    "slack": "bot {s}",
    "stripe": "stripe {s}",
    "google": "maps {s}",
    "jwt": "cookie {s}",
    "url": "postgres://ledger:{s}@db.internal:5432/ledger",
    "assignment": "DB_PASSWORD={s}",
    "generic": "session_secret_value: {s}",
    "bearer": "curl -H 'Authorization: Bearer {s}'",
}



@pytest.mark.parametrize(("kind", "secret"), SECRETS, ids=[k for k, _ in SECRETS])
def test_the_secret_table_is_redacted_once_and_for_all(kind: str, secret: str) -> None:
    text = SECRET_TEXT[kind].format(s=secret)
    out = redact(text)
    assert secret not in out and "[REDACTED:" in out, out
    assert redact(out) == out  # idempotent


@pytest.mark.parametrize("text", [
    "max_tokens=4096 and token_count: 3", "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "password_policy=strict", "DB_PASSWORD=${DB_PASSWORD}", "see src/app/settings.py line 12",
])
def test_settings_that_merely_mention_secrets_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_the_hooks_and_the_engine_share_one_redactor() -> None:
    from reasongraph_mcp.hooks import common
    from reasongraph_mcp.memory.write import ingest, revision

    assert common.redact is redact and ingest.redact is redact and revision.redact is redact


# -- the secret corpus (tests/secret_corpus.py) --------------------------------------------------


def test_the_corpus_covers_at_least_40_formats_and_30_safe_texts() -> None:
    assert len({kind for kind, _, _ in corpus.SECRETS}) == len(corpus.SECRETS) >= 40
    assert len(set(corpus.SAFE)) == len(corpus.SAFE) >= 30
    for _, text, secret in corpus.SECRETS:
        assert secret in text and len(secret) >= 8


@pytest.mark.parametrize(("kind", "text", "secret"), corpus.SECRETS,
                         ids=[k for k, _, _ in corpus.SECRETS])
def test_every_secret_of_the_corpus_is_gone(kind: str, text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert redact(out) == out  # idempotent


@pytest.mark.parametrize("text", corpus.SAFE)
def test_every_safe_text_of_the_corpus_is_kept(text: str) -> None:
    assert redact(text) == text
    assert not contains_secret(text)


def test_the_corpus_in_one_transcript() -> None:
    """All of it at once, as a pasted session: nothing leaks, nothing safe is touched."""
    texts = [text for _, text, _ in corpus.SECRETS] + corpus.SAFE
    transcript = "\n\n".join(texts)
    out = redact(transcript)
    for _, _, secret in corpus.SECRETS:
        assert secret not in out
    for text in corpus.SAFE:
        assert text in out
    assert redact(out) == out


@pytest.mark.parametrize(("text", "expected"), [
    ("mysql -uroot -pS3cr3tPw db", "mysql -uroot -p[REDACTED:password] db"),
    ("mysql -u root -p db", "mysql -u root -p db"),  # -p alone prompts, db is the database
    ("ssh -p2222 host", "ssh -p2222 host"),  # a port, not a password
    ("sshpass -pS3cr3tPw ssh host", "sshpass -p[REDACTED:password] ssh host"),
    ("sshpass -f ~/.pw ssh host", "sshpass -f ~/.pw ssh host"),
    ("docker login --password $PW", "docker login --password $PW"),  # a placeholder
    ("ansible-playbook --ask-pass site.yml", "ansible-playbook --ask-pass site.yml"),
    ("mysql --skip-password ledger", "mysql --skip-password ledger"),
    ("psql -U app --password ledger", "psql -U app --password ledger"),
    ("tool --password -v", "tool --password -v"),
    ("tool --api-key=k3yV4lue9", "tool --api-key=[REDACTED:api_key]"),
    ("curl --user ci:S3cr3tPw https://x", "curl --user ci:[REDACTED:password] https://x"),
    ("curl -u ci https://x", "curl -u ci https://x"),
    ("htpasswd -nb admin S3cr3tPw", "htpasswd -nb admin [REDACTED:password]"),
    ("pymysql -pfoo", "pymysql -pfoo"),  # starts inside a word
    ("docker run -u 1000:1000 app", "docker run -u 1000:1000 app"),
    ("password changed", "password changed"),  # netrc: below a machine or login line
    ("machine h\n  login u\n  password hunter2",
     "machine h\n  login u\n  password [REDACTED:password]"),
    ("login u\nthe password hunter2", "login u\nthe password hunter2"),
])
def test_password_flags_are_told_apart_from_other_flags(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_every_rule_of_the_table_is_exercised_by_the_corpus() -> None:
    """Each row of RULES redacts something in the corpus (or in the flag cases above), so
    the table holds no dead rows."""
    texts = [text for _, text, _ in corpus.SECRETS] + [
        "htpasswd -nb admin S3cr3tPw", "sshpass -pS3cr3tPw ssh host",
    ]
    dead = [pattern for _, pattern, _ in RULES if not any(re.search(pattern, t) for t in texts)]
    assert dead == []
