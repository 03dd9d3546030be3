"""Secret scrubbing: text in, the same text with secrets replaced by ``[REDACTED:<kind>]``.

Standard library only, and the one copy: the hooks (``common.clean``, before the capture hook
writes an inbox row, even when no server ever runs) and the engine (``memory.write.ingest``,
``memory.write.revision``) both import this module; the installer copies it with the hook
scripts. Everything the memory stores passes through :func:`redact` first, so a pasted
``.env`` file or a stack trace with a bearer token never reaches the SQLite file. The design
is a fixed, ordered list of compiled rules, applied one after another:

1. Whole blocks (PEM private keys) go first so that nothing inside them is matched twice.
2. Credentials in URLs (``postgres://user:PASSWORD@host``): only the password is replaced, so
   the user and host stay searchable.
3. Vendor token formats with a recognisable prefix (``sk-ant-``, ``ghp_``, ``AKIA`` ...). These
   are safe to match anywhere because the prefixes do not occur in prose.
4. Assignments to secret-looking names (``password=...``, ``"api_key": "..."``,
   ``DB_PASSWORD: ...``), in env-file, shell, JSON, YAML and Python styles.
5. Long, high-entropy values assigned to any name containing key/secret/token/password.

Deliberately *not* redacted: git SHAs, UUIDs, paths, version numbers and ordinary words. Those
carry meaning for recall and look nothing like the prefixed formats; the generic rule (5) only
fires on an assignment to a secret-sounding name. Placeholders such as ``${DB_PASSWORD}``,
``<your-token>`` or ``None`` are left alone because they reveal nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

__all__ = ["contains_secret", "redact"]

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _whole(kind: str) -> Callable[[re.Match[str]], str]:
    """Replace the whole match."""
    return lambda m: _tag(kind)


def _group(kind: str, group: str = "secret") -> Callable[[re.Match[str]], str]:
    """Replace only the named group and keep the surrounding text of the match."""

    def replace(m: re.Match[str]) -> str:
        start, end = m.span(group)
        base = m.start()
        whole = m.group(0)
        return whole[: start - base] + _tag(kind) + whole[end - base :]

    return replace


# Vendor formats. Order matters: Anthropic before OpenAI because both start with "sk-".
_VENDOR: list[tuple[str, str]] = [
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("slack_token", r"\bxox[baprs]-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("stripe_key", r"\bwhsec_[A-Za-z0-9]{16,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b"),
]

# Name of a secret-bearing setting: its *last* word must be the secret word, so that
# ``max_tokens=4096``, ``token_count: 3`` and ``password_policy=strict`` are left alone.
_SECRET_NAME = (
    # A prefix must end in a separator or a camelCase hump, so "bypass" and "compass" don't count.
    r"(?:[A-Za-z0-9_.\-]*[_.\-]|[A-Za-z0-9]*(?-i:[a-z0-9])(?=(?-i:[A-Z])))?"
    r"(?:password|passwd|passphrase|pwd|pass|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|secret[_\-]?key|private[_\-]?key|client[_\-]?secret|auth|credentials?|signing[_\-]?key)"
)

_ASSIGNMENT = re.compile(
    r"(?P<name>(?<![A-Za-z0-9_])" + _SECRET_NAME + r")(?![A-Za-z0-9_])"
    r"(?P<q1>[\"']?)\s*(?P<op>:=|=(?!=)|:(?![/:]))\s*"
    r"(?:(?P<q>[\"'])(?P<qsecret>[^\"'\n]{1,500})(?P=q)|(?P<secret>[^\s\"',;}{)\]]{1,500}))",
    re.IGNORECASE,
)

# Any name containing a secret word, assigned a long token; entropy is checked in code.
_GENERIC = re.compile(
    r"(?P<name>\b[A-Za-z0-9_.\-]*(?:key|secret|token|password|passwd|credential)[A-Za-z0-9_.\-]*)"
    r"[\"']?\s*(?::=|=(?!=)|:)\s*[\"']?(?P<secret>[A-Za-z0-9+/=_\-.]{16,})",
    re.IGNORECASE,
)

_PLACEHOLDER = re.compile(
    r"^(?:none|null|nil|true|false|undefined|empty|changeme|required|optional|string|str|"
    r"\*+|x+|\.\.\.|…|redacted|secret|password|token|\[redacted.*)$"
    r"|^(?:\$|<|\{|%|os\.|process\.env|env\(|getenv|settings\.|config\.|self\.|\[REDACTED)",
    re.IGNORECASE,
)

_RULES: list[_Rule] = [
    (
        re.compile(
            r"-----BEGIN (?P<label>[A-Z0-9 ]*)PRIVATE KEY-----.*?"
            r"(?:-----END (?P=label)PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        _whole("private_key"),
    ),
    (
        # scheme://user:PASSWORD@host -- the user may be empty (redis://:pw@host).
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@(?=[^\s@])"),
        _group("password"),
    ),
    (
        re.compile(
            r"\bAuthorization\s*[:=]\s*[\"']?(?:Bearer|Basic|Token|Bot)\s+"
            r"(?P<secret>[A-Za-z0-9._~+/=\-]{8,})",
            re.IGNORECASE,
        ),
        _group("bearer_token"),
    ),
    (
        re.compile(r"\bBearer\s+(?P<secret>[A-Za-z0-9._~+/=\-]{20,})"),
        _group("bearer_token"),
    ),
    (
        re.compile(
            r"\baws_secret_access_key[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})",
            re.IGNORECASE,
        ),
        _group("aws_secret_key"),
    ),
    *[(re.compile(pattern), _whole(kind)) for kind, pattern in _VENDOR],
]


def _kind_for(name: str) -> str:
    lowered = name.lower()
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "token" in lowered or "auth" in lowered:
        return "token"
    if "api" in lowered:
        return "api_key"
    if "secret" in lowered or "credential" in lowered:
        return "secret"
    return "api_key" if "key" in lowered else "secret"


def _replace_assignment(m: re.Match[str]) -> str:
    group = "qsecret" if m.group("qsecret") is not None else "secret"
    value = m.group(group)
    if _PLACEHOLDER.search(value.strip()):
        return m.group(0)
    if m.group("op") == ":" and not m.group("q") and not m.group("q1"):
        # "password: hunter2" (YAML or prose) -- but prose such as "the token: it expired"
        # must survive, so an unquoted colon value needs a digit or symbol, or real length.
        if not (re.search(r"[^A-Za-z]", value) or len(value) >= 12):
            return m.group(0)
    return _group(_kind_for(m.group("name")), group)(m)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _replace_generic(m: re.Match[str]) -> str:
    value = m.group("secret")
    if value.startswith("[REDACTED") or _PLACEHOLDER.search(value):
        return m.group(0)
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    # Dotted identifiers (settings.SECRET_KEY_VALUE) and paths are names, not secrets.
    if not (has_letter and has_digit) or _entropy(value) < 3.5 or "/" in value.strip("/+="):
        if not (len(value) >= 32 and _entropy(value) >= 4.0):
            return m.group(0)
    return _group(_kind_for(m.group("name")))(m)


def redact(text: str) -> str:
    """Return ``text`` with every recognised secret replaced by ``[REDACTED:<kind>]``.

    Kinds include ``private_key``, ``password``, ``bearer_token``, ``openai_key``,
    ``anthropic_key``, ``github_token``, ``aws_access_key``, ``aws_secret_key``,
    ``slack_token``, ``stripe_key``, ``google_api_key``, ``jwt``, ``token``, ``api_key``
    and ``secret``. Only the secret itself is replaced: names, users and hosts stay.
    Idempotent: redacting twice gives the same text.
    """
    if not text:
        return text
    for pattern, replace in _RULES:
        text = pattern.sub(replace, text)
    text = _ASSIGNMENT.sub(_replace_assignment, text)
    return _GENERIC.sub(_replace_generic, text)


def contains_secret(text: str) -> bool:
    """Return True when :func:`redact` would change ``text``."""
    return redact(text) != text
