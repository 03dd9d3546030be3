"""Shared code of the two hook scripts (``prepare.py``, ``capture.py``): standard library only.

The hooks run on every prompt, so they must start in tens of milliseconds, survive a broken
install and never block the agent. Nothing here imports ``memory``, apsw or a model: the
hooks talk to a warm server over a Unix socket beside the database, and otherwise read the
file with the standard library's ``sqlite3`` (read-only for recall; one ``INSERT OR IGNORE``
into ``inbox`` for capture).

Files beside the database ``<db>`` (all owner-only):

- ``<db>.sock``: the warm server's socket (a short path in the temp folder when ``<db>`` is
  too long for a socket address; see ``socket_path``).
- ``<db>.hooks/<session>.json``: per-session state: the turn counter, the prompt of the
  current turn (redacted) for capture, and the fact ids this session was already shown.
- ``<db>.spool/*.json``: exchanges captured while the file was missing or stayed locked;
  the next drain moves them into ``inbox``.

The paths, the project key and the injected tag are defined here once; ``server.py`` and
the CLI's ``drain`` import them from this module (the engine takes the spool folder as an
argument), so the two sides cannot disagree about where things are.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import socket
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if __package__:  # hooks.common, imported by the server, the CLI and tests
    from . import relay
else:  # common, next to the hook script that imported it
    import relay

if TYPE_CHECKING:
    from collections.abc import Mapping

INJECTED_TAG = "reasongraph-memory"  # == memory.ingest.INJECTED_TAG (a test checks)
DEFAULT_BUDGET = 2000  # characters of injected context (REASONGRAPH_BUDGET)
MAX_TEXT = 200_000  # characters of prompt or response kept per exchange
STATE_TTL = 14 * 86400  # per-session state files older than this are pruned

# -- environment -------------------------------------------------------------------------------


def db_path() -> Path:
    """The memory file (``relay.db_file``: ``REASONGRAPH_DB``, else the user data folder)."""
    return Path(relay.db_file())


def project_root(
    start: str | None = None, *, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> str:
    """The project key, the same rule as ``server.project_root``: ``start`` (the event's
    ``cwd``), else ``CLAUDE_PROJECT_DIR``, else the working directory, raised to the nearest
    folder holding ``.git``; absolute, symlinks not resolved. ``env`` and ``cwd`` are the
    hook process's when the server runs a hook for it (default: this process's)."""
    env = os.environ if env is None else env
    base = start or env.get("CLAUDE_PROJECT_DIR") or cwd or os.getcwd()
    here = Path(os.path.abspath(os.path.join(cwd or os.getcwd(), os.path.expanduser(base))))
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return str(folder)
    return str(here)


def now_iso(env: Mapping[str, str] | None = None) -> str:
    """The hook's clock as ISO-8601 UTC: ``REASONGRAPH_NOW`` in replays, else the time."""
    override = (os.environ if env is None else env).get("REASONGRAPH_NOW", "").strip()
    if override:
        from datetime import datetime, timezone  # replays only: datetime costs milliseconds

        try:
            moment = datetime.fromisoformat(override.replace("Z", "+00:00").replace("z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            pass
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def budget(env: Mapping[str, str] | None = None) -> int:
    return max(200, int(relay.number("REASONGRAPH_BUDGET", DEFAULT_BUDGET, env)))


def socket_path(db: Path) -> Path:
    """Where the warm server listens (``relay.socket_file``): ``<db>.sock``, or a hashed
    name in an owner-only temp folder when that path is too long for a socket address."""
    return Path(relay.socket_file(str(db)))


def state_dir(db: Path) -> Path:
    return Path(str(db) + ".hooks")


def spool_dir(db: Path) -> Path:
    return Path(str(db) + ".spool")


def ensure_private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)


def write_private(path: Path, data: str) -> None:
    """Write ``data`` to ``path`` atomically, born 0600."""
    ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(data)
    os.replace(tmp, path)


# -- the event ---------------------------------------------------------------------------------


def parse_event(raw: bytes | str) -> dict[str, Any]:
    """The hook event: a dict, or {} for empty, malformed or non-object input. Bytes that
    are not UTF-8 are replaced, never fatal."""
    if not raw:
        return {}
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    try:
        event = json.loads(text)
    except ValueError:
        return {}
    return event if isinstance(event, dict) else {}


def text_of(value: Any) -> str:
    """A string field of the event as text ('' when missing or not text)."""
    return value if isinstance(value, str) else ""


def harness_of(event: dict[str, Any], env: Mapping[str, str] | None = None) -> str:
    forced = (os.environ if env is None else env).get("REASONGRAPH_HARNESS")
    if forced:
        return forced
    if "turn_id" in event or "model" in event:
        return "codex"
    return "claude-code"


def log_error(db: Path, where: str, exc: BaseException) -> None:
    """Append one line to ``<db>.hooks/errors.log`` (kept small); never raises."""
    with contextlib.suppress(Exception):
        folder = state_dir(db)
        ensure_private_dir(folder)
        path = folder / "errors.log"
        if path.exists() and path.stat().st_size > 256 * 1024:
            path.replace(folder / "errors.log.1")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(f"{now_iso()} {where}: {type(exc).__name__}: {exc}\n")


# -- per-session state -------------------------------------------------------------------------


def _state_file(db: Path, session: str) -> Path:
    name = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:24]
    return state_dir(db) / f"{name}.json"


def load_state(db: Path, session: str) -> dict[str, Any]:
    try:
        data = json.loads(_state_file(db, session).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_state(db: Path, session: str, state: dict[str, Any]) -> None:
    state["shown"] = list(state.get("shown", []))[-2000:]
    write_private(_state_file(db, session), json.dumps(state, ensure_ascii=False))


def prune_states(db: Path, now: float | None = None) -> None:
    """Drop state files of sessions idle for STATE_TTL (called when a new session starts)."""
    limit = (now or time.time()) - STATE_TTL
    with contextlib.suppress(OSError):
        for entry in os.scandir(state_dir(db)):
            if entry.name.endswith(".json") and entry.stat().st_mtime < limit:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def digest(text: str, n: int = 10) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:n]


# -- cleaning: our block, private and system blocks, secrets -----------------------------------

_BLOCKS = re.compile(
    rf"<({INJECTED_TAG}|private|system-reminder)\b[^>]*>.*?(</\1>|\Z)", re.S | re.I
)


def strip_blocks(text: str) -> str:
    """Remove our own injected block, ``<private>`` and ``<system-reminder>`` blocks
    (an unclosed block runs to the end), like ``memory.ingest.strip_blocks``."""
    return _BLOCKS.sub(" ", text)


# A compact mirror of memory/redact.py's main rules (tests/test_hooks.py runs both over one
# secret table). Capture redacts BEFORE the inbox row is written, so no secret ever reaches
# the file, even if the server never runs.
_VENDOR = (
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("slack_token", r"\bxox[baprs]-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{16,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b"),
)
_PEM = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]*)PRIVATE KEY-----.*?"
    r"(?:-----END (?P=label)PRIVATE KEY-----|\Z)",
    re.S,
)
_URL_PASSWORD = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:)([^\s@/]+)(@(?=[^\s@]))")
_AUTH_HEADER = re.compile(
    r"(\bAuthorization\s*[:=]\s*[\"']?(?:Bearer|Basic|Token|Bot)\s+)([A-Za-z0-9._~+/=\-]{8,})",
    re.I,
)
_BEARER = re.compile(r"(\bBearer\s+)([A-Za-z0-9._~+/=\-]{20,})")
_AWS_SECRET = re.compile(
    r"(\baws_secret_access_key[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9/+=]{40})", re.I
)
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|pwd|pass|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|secret[_\-]?key|private[_\-]?key|client[_\-]?secret|auth|credentials?|signing[_\-]?key)"
)
_ASSIGN = re.compile(
    r"(?<![A-Za-z0-9_])((?:[A-Za-z0-9_.\-]*[_.\-]|[A-Za-z0-9]*(?-i:[a-z0-9])(?=(?-i:[A-Z])))?"
    + _SECRET_WORD
    + r")(?![A-Za-z0-9_])([\"']?)(\s*(?::=|=(?!=)|:(?![/:]))\s*)"
    r"(?:([\"'])([^\"'\n]{1,500})\4|([^\s\"',;}{)\]]{1,500}))",
    re.I,
)
_GENERIC = re.compile(
    r"(\b[A-Za-z0-9_.\-]*(?:key|secret|token|password|passwd|credential)[A-Za-z0-9_.\-]*"
    r"[\"']?\s*(?::=|=(?!=)|:)\s*[\"']?)([A-Za-z0-9+/=_\-.]{16,})",
    re.I,
)
_PLACEHOLDER = re.compile(
    r"^(?:none|null|nil|true|false|undefined|empty|changeme|required|optional|string|str|"
    r"\*+|x+|\.\.\.|…|redacted|secret|password|token|\[redacted.*)$"
    r"|^(?:\$|<|\{|%|os\.|process\.env|env\(|getenv|settings\.|config\.|self\.|\[REDACTED)",
    re.I,
)


def _kind_for(name: str) -> str:
    low = name.lower()
    if "pass" in low or "pwd" in low:
        return "password"
    if "token" in low or "auth" in low:
        return "token"
    if "api" in low:
        return "api_key"
    if "secret" in low or "credential" in low:
        return "secret"
    return "api_key" if "key" in low else "secret"


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _assign(m: re.Match[str]) -> str:
    name, q1, op, q, qvalue, value = m.groups()
    secret = qvalue if qvalue is not None else value
    if _PLACEHOLDER.search(secret.strip()):
        return m.group(0)
    if op.strip() == ":" and not q and not q1:
        if not (re.search(r"[^A-Za-z]", secret) or len(secret) >= 12):
            return m.group(0)
    tag = f"[REDACTED:{_kind_for(name)}]"
    return f"{name}{q1}{op}{q}{tag}{q}" if q else f"{name}{q1}{op}{tag}"


def _generic(m: re.Match[str]) -> str:
    head, value = m.groups()
    if value.startswith("[REDACTED") or _PLACEHOLDER.search(value):
        return m.group(0)
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if not (letters and digits) or _entropy(value) < 3.5 or "/" in value.strip("/+="):
        if not (len(value) >= 32 and _entropy(value) >= 4.0):
            return m.group(0)
    return head + f"[REDACTED:{_kind_for(head)}]"


def redact(text: str) -> str:
    """Replace secrets (keys, tokens, passwords, credentials in URLs) by ``[REDACTED:kind]``."""
    if not text:
        return text
    text = _PEM.sub("[REDACTED:private_key]", text)
    text = _URL_PASSWORD.sub(r"\1[REDACTED:password]\3", text)
    text = _AUTH_HEADER.sub(r"\1[REDACTED:bearer_token]", text)
    text = _BEARER.sub(r"\1[REDACTED:bearer_token]", text)
    text = _AWS_SECRET.sub(r"\1[REDACTED:aws_secret_key]", text)
    for kind, pattern in _VENDOR:
        text = re.sub(pattern, f"[REDACTED:{kind}]", text)
    text = _ASSIGN.sub(_assign, text)
    return _GENERIC.sub(_generic, text)


def clean(text: str) -> str:
    """What may be stored of a prompt or reply: blocks stripped, secrets redacted, NULs and
    lone surrogates replaced, cut to MAX_TEXT characters."""
    text = strip_blocks(text[: MAX_TEXT * 2])
    text = re.sub("[\ud800-\udfff]", "\ufffd", text.replace("\x00", " "))
    return redact(text).strip()[:MAX_TEXT]


# -- talking to the warm server ----------------------------------------------------------------


def ask_server(db: Path, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """One JSON request/response over the server's socket; None when no server answers in
    ``timeout`` seconds (no socket, a stale socket file, a dead or busy server)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    path = socket_path(db)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(json.dumps(request).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            deadline = time.monotonic() + timeout
            while True:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        reply = json.loads(b"".join(chunks).decode("utf-8", "replace"))
        return reply if isinstance(reply, dict) else None
    except (OSError, ValueError):
        return None


def render_block(lines: list[str], limit: int, *, header: str) -> str:
    """The injected block: our tag, a header saying these are data, fact lines that fit."""
    opening, closing = f"<{INJECTED_TAG}>", f"</{INJECTED_TAG}>"
    used = len(opening) + len(header) + len(closing) + 3
    kept = []
    for line in lines:
        if used + len(line) + 1 > limit:
            continue
        kept.append(line)
        used += len(line) + 1
    if not kept:
        return ""
    return "\n".join([opening, header, *kept, closing])
