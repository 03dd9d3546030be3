"""``reasongraph-mcp install``: wire the memory into one agent (Claude Code, Codex CLI or
OpenCode); ``uninstall`` (``uninstall.py``) is its exact inverse and ``doctor``
(``doctor.py``) checks it.

What each harness gets (``--scope user`` = the user's config, ``project`` = the project's):

- claude-code: the MCP server (``~/.claude.json`` ``mcpServers``, or ``.mcp.json`` plus its
  approval in ``.claude/settings.local.json`` ``enabledMcpjsonServers``), the
  UserPromptSubmit and Stop hooks (``~/.claude/settings.json`` or
  ``.claude/settings.local.json``, which is untracked because the commands hold absolute
  paths), and the skill in ``.claude/skills/reasongraph/``.
- codex: ``[mcp_servers.reasongraph]`` in ``config.toml`` (appended as one delimited block:
  Python reads TOML but cannot write it, and other tables must keep their bytes), the hooks
  in ``hooks.json`` and the skill in ``.agents/skills/reasongraph/``. Codex runs new hooks
  only after the user trusts them in ``/hooks``; the installer says so.
- opencode: the ``mcp`` entry of ``opencode.json`` (the v2 ``mcp.servers`` shape when
  OpenCode 2.x is installed or the file already uses it) and the plugin file.

The hook scripts are standard-library only; they are copied to ``<data dir>/hooks/`` so the
commands keep working after the package's virtualenv goes (``uv cache clean``), and run by
the base interpreter, not the virtualenv's. With ``--db`` the commands run two generated
stubs in ``hooks/db-<hash>/`` that set ``REASONGRAPH_DB`` and run the real scripts: the
hooks read only the environment, and a command must not be a shell one-liner (Windows).

Edits are plans before they are writes: each file's new bytes are computed from its current
bytes, so ``--dry-run`` shows exactly what would change and a second run changes nothing.
JSON files are parsed and re-written with indent 2 only when something of ours changes;
every other entry is left as it was. Before a file is changed its previous bytes are kept
in ``<data dir>/backups/``, and ``<data dir>/install-state.json`` records which files and
folders an install created or edited, so that uninstall removes exactly what was added:
when what remains equals the backup, the backup's bytes come back byte for byte.
A config that does not parse is reported and nothing of that harness is written.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROG = "reasongraph-mcp"
NAME = "reasongraph"  # the MCP server's name in every config, and the skill's folder
HARNESSES = ("claude-code", "codex", "opencode")
SCOPES = ("user", "project")
HOOK_TIMEOUT = 10  # seconds (Claude Code and Codex both count seconds)
HOOK_SCRIPTS = ("prepare.py", "capture.py", "common.py", "relay.py", "redact.py", "text.py")
EVENTS = (("UserPromptSubmit", "prepare.py"), ("Stop", "capture.py"))
# Codex gives a server this long to answer `initialize`. A cold start imports the MCP SDK
# (about a second) on a cold disk; through uvx after a cache clean it also re-installs.
STARTUP_TIMEOUT = 60
STARTUP_TIMEOUT_UVX = 180
# Every setting the server reads (README "Settings"). Codex starts an MCP server with a short
# fixed list of variables only, so the codex block names these in `env_vars` (passed from
# Codex's own environment when set) together with any other REASONGRAPH_* the installing
# shell has: the server then opens the same memory file as the hooks.
SERVER_SETTINGS = (
    "REASONGRAPH_DB", "REASONGRAPH_CACHE", "REASONGRAPH_EMBED_MODEL", "REASONGRAPH_ENTITY_MODEL",
    "REASONGRAPH_SPLIT_MODEL", "REASONGRAPH_RERANK_MODEL", "REASONGRAPH_NOW", "REASONGRAPH_HOOKS",
    "REASONGRAPH_SESSION", "REASONGRAPH_HARNESS", "REASONGRAPH_BUDGET",
)
TOML_BEGIN = f"# >>> {NAME}: added by `{PROG} install`; `{PROG} uninstall` removes it"
TOML_END = f"# <<< {NAME}"
PLUGIN_FILE = "reasongraph.js"
PLUGIN_MARK = f"// Installed by `{PROG} install`; `{PROG} uninstall` removes it."
CODEX_TRUST_NOTE = (
    "Codex runs new or changed hooks only after you trust them: start `codex`, type "
    "`/hooks`, and trust the two reasongraph hooks (UserPromptSubmit, Stop)."
)
_OUR_HOOK = re.compile(r"reasongraph[\\/]+hooks[\\/]+(?:db-[0-9a-f]+[\\/]+)?(prepare|capture)\.py")


class UsageError(Exception):
    """A mistake on the command line: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, not usage + error
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | None:
    """``parser.parse_args``, printing a mistake as one line (None = exit 2)."""
    try:
        return parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return None


class ConfigError(Exception):
    """An existing config file we must not touch (it does not parse, or holds an entry of
    our name that we did not write); the message names the file and the fix."""


# -- locations ---------------------------------------------------------------------------------


def home() -> Path:
    return Path(os.path.expanduser("~"))


def data_dir() -> Path:
    """The user data folder (``platformdirs``), the one the memory file defaults into."""
    from .memory.config import default_data_dir

    return default_data_dir()


def hooks_dir() -> Path:
    return data_dir() / "hooks"


def state_path() -> Path:
    return data_dir() / "install-state.json"


def claude_dir() -> Path:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else home() / ".claude"


def claude_json() -> Path:
    """Claude Code's user-scope MCP servers live in ``~/.claude.json`` (inside
    ``CLAUDE_CONFIG_DIR`` when that is set)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() / ".claude.json" if env else home() / ".claude.json"


def codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else home() / ".codex"


def opencode_dir() -> Path:
    env = os.environ.get("OPENCODE_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg).expanduser() if xdg else home() / ".config") / "opencode"


def opencode_config(folder: Path) -> Path:
    """``opencode.json``, or an existing ``opencode.jsonc`` when there is no ``.json``."""
    names = ("opencode.json", "opencode.jsonc")
    for name in names:
        if (folder / name).exists():
            return folder / name
    return folder / names[0]


@dataclass(frozen=True)
class Target:
    """One install: a harness, a scope and (for project scope) the project folder."""

    harness: str
    scope: str
    project: Path | None = None
    db: Path | None = None

    @property
    def key(self) -> str:
        return f"{self.harness}:{self.scope}" + (f":{self.project}" if self.project else "")

    def files(self) -> dict[str, Path]:
        """The config files and installed artifacts this target touches, by role."""
        p = self.project
        if self.harness == "claude-code":
            if p is not None:
                return {"mcp": p / ".mcp.json", "settings": p / ".claude" / "settings.local.json",
                        "skill": p / ".claude" / "skills" / NAME / "SKILL.md"}
            return {"mcp": claude_json(), "settings": claude_dir() / "settings.json",
                    "skill": claude_dir() / "skills" / NAME / "SKILL.md"}
        if self.harness == "codex":
            base = p / ".codex" if p is not None else codex_home()
            skills = (p if p is not None else home()) / ".agents" / "skills"
            return {"config": base / "config.toml", "hooks": base / "hooks.json",
                    "skill": skills / NAME / "SKILL.md"}
        folder = p if p is not None else opencode_dir()
        plugins = (p / ".opencode" if p is not None else opencode_dir()) / "plugins"
        return {"config": opencode_config(folder), "plugin": plugins / PLUGIN_FILE}


# -- commands to register ----------------------------------------------------------------------


def _uv_cache_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("UV_CACHE_DIR"):
        dirs.append(Path(os.environ["UV_CACHE_DIR"]).expanduser())
    xdg = os.environ.get("XDG_CACHE_HOME")
    dirs.append((Path(xdg).expanduser() if xdg else home() / ".cache") / "uv")
    if sys.platform == "darwin":
        dirs.append(home() / "Library" / "Caches" / "uv")
    if sys.platform.startswith("win") and os.environ.get("LOCALAPPDATA"):
        dirs.append(Path(os.environ["LOCALAPPDATA"]) / "uv" / "cache")
    return dirs


def is_ephemeral(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` lies in uv's cache (a ``uvx`` environment that ``uv cache clean``
    deletes)."""
    text = os.path.abspath(path)
    if re.search(r"[\\/]uv[\\/](?:cache[\\/])?(?:archive|builds|environments)-v\d", text):
        return True
    return any(text.startswith(str(d) + os.sep) for d in _uv_cache_dirs())


def server_command() -> list[str]:
    """The MCP command: ``uvx reasongraph-mcp`` when we run from uv's cache (that virtualenv
    may vanish; uvx rebuilds it), else the console script next to this interpreter, else
    ``python -m reasongraph_mcp.server``. Always absolute paths."""
    exe = Path(sys.executable)
    if is_ephemeral(sys.prefix):
        uvx = shutil.which("uvx")
        if uvx:
            return [os.path.abspath(uvx), PROG]
    script = exe.with_name(PROG + (".exe" if sys.platform.startswith("win") else ""))
    if script.exists():
        return [str(script)]
    return [str(exe), "-m", "reasongraph_mcp.server"]


def hook_python() -> str:
    """The interpreter for the hooks: the base interpreter of this virtualenv (the hooks use
    only the standard library, and the base survives the virtualenv), else this one."""
    base = getattr(sys, "_base_executable", None)
    for candidate in (base, sys.executable):
        if candidate and os.path.exists(candidate) and not is_ephemeral(candidate):
            return os.path.abspath(candidate)
    return os.path.abspath(sys.executable)


def quote(path: str | os.PathLike[str]) -> str:
    """One double-quoted argument for the harness's shell (POSIX sh, or cmd/PowerShell)."""
    text = str(path)
    if '"' in text:
        raise ConfigError(f"cannot quote a path holding a double quote: {text}")
    if not sys.platform.startswith("win"):
        text = text.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")
    return f'"{text}"'


def hook_folder(db: Path | None) -> Path:
    """Where the hook commands point: the copied scripts, or the ``--db`` stubs."""
    if db is None:
        return hooks_dir()
    return hooks_dir() / ("db-" + hashlib.sha256(str(db).encode()).hexdigest()[:10])


# The hooks use only the standard library: ``-S`` skips site-packages and every .pth file in
# it, which here is most of an interpreter's start (48 -> 12 ms for ``python3 -c pass``).
HOOK_FLAGS = ("-S",)


def hook_command(script: str, db: Path | None) -> str:
    flags = " ".join(HOOK_FLAGS)
    return f"{quote(hook_python())} {flags} {quote(hook_folder(db) / script)}"


def stub_source(script: str, db: Path) -> str:
    return (
        f"# Generated by `{PROG} install --db`: runs ../{script} on one memory file.\n"
        "import os\nimport runpy\nimport sys\n\n"
        f"os.environ[\"REASONGRAPH_DB\"] = {str(db)!r}\n"
        "script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "
        f"{script!r})\n"
        "sys.argv[0] = script\n"
        "runpy.run_path(script, run_name=\"__main__\")\n"
    )


def mcp_env(db: Path | None) -> dict[str, str]:
    """The server's environment: the memory file when one was chosen, nothing else (never a
    key or token from this shell)."""
    return {"REASONGRAPH_DB": str(db)} if db is not None else {}


def package_file(folder: str, name: str) -> bytes:
    """A file the package ships (``hooks/prepare.py``, ``skill/SKILL.md``)."""
    return (Path(__file__).resolve().parent / folder / name).read_bytes()


def opencode_shape(config: dict[str, Any], forced: str | None) -> str:
    """``v2`` when forced, when the file already uses ``mcp.servers``, or when the installed
    ``opencode --version`` is 2.x; else ``v1``."""
    if forced in ("v1", "v2"):
        return forced
    mcp = config.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):
        return "v2"
    exe = shutil.which("opencode")
    if exe:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [exe, "--version"], capture_output=True, text=True, timeout=10
            ).stdout
            match = re.search(r"(\d+)\.\d+", out or "")
            if match and int(match.group(1)) >= 2:
                return "v2"
    return "v1"


# -- JSON and TOML editing ---------------------------------------------------------------------


def display(path: Path) -> str:
    text, h = str(path), str(home())
    return "~" + text[len(h):] if text == h or text.startswith(h + os.sep) else text


def parse_json(path: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        hint = " (comments are not supported: add the entry by hand)" if (
            path.suffix == ".jsonc") else ""
        raise ConfigError(
            f"{display(path)} is not valid JSON ({exc}){hint}; left untouched") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{display(path)} does not hold a JSON object; left untouched")
    return data


def dump_json(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def _dict_at(data: dict[str, Any], keys: Sequence[str], path: Path) -> dict[str, Any]:
    node = data
    for key in keys:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(
                f"{display(path)}: {'.'.join(keys)} is not an object; left untouched"
            )
        node = child
    return node


def set_entry(data: dict[str, Any], keys: Sequence[str], value: Any, path: Path) -> None:
    _dict_at(data, keys[:-1], path)[keys[-1]] = value


def add_to_list(data: dict[str, Any], key: str, item: str, path: Path) -> None:
    items = data.setdefault(key, [])
    if not isinstance(items, list):
        raise ConfigError(f"{display(path)}: {key} is not a list; left untouched")
    if item not in items:
        items.append(item)


def is_our_handler(handler: Any, script: str | None = None) -> bool:
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    match = _OUR_HOOK.search(handler["command"])
    return match is not None and (script is None or match.group(1) + ".py" == script)


def set_hook(data: dict[str, Any], event: str, handler: dict[str, Any], path: Path) -> None:
    """Ensure exactly one group of ``event`` runs ``handler`` (ours is found by its script
    path, so a changed interpreter or db replaces it in place)."""
    hooks = _dict_at(data, ["hooks"], path)
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"{display(path)}: hooks.{event} is not a list; left untouched")
    script = _OUR_HOOK.search(handler["command"]).group(1) + ".py"  # type: ignore[union-attr]
    found = False
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            continue
        for i, h in enumerate(list(inner)):
            if is_our_handler(h, script):
                if found:
                    inner.remove(h)
                else:
                    inner[i] = handler
                    found = True
    groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
    if not found:
        groups.append({"hooks": [handler]})


def remove_ours(data: dict[str, Any], target: Target, role: str) -> None:
    """Take out of ``data`` every entry of ours for this file role (leaves empty containers;
    ``prune`` removes them)."""
    if role in ("mcp", "config"):  # .mcp.json / ~/.claude.json / opencode.json
        for keys in (["mcpServers"], ["mcp"], ["mcp", "servers"]):
            node: Any = data
            for k in keys:
                node = node.get(k) if isinstance(node, dict) else None
            if isinstance(node, dict) and isinstance(node.get(NAME), dict):
                del node[NAME]
    if role == "settings":
        approved = data.get("enabledMcpjsonServers")
        if isinstance(approved, list) and NAME in approved:
            approved.remove(NAME)
    if role in ("settings", "hooks"):
        hooks = data.get("hooks")
        if isinstance(hooks, dict):
            for event, _script in EVENTS:
                groups = hooks.get(event)
                if not isinstance(groups, list):
                    continue
                for group in groups:
                    inner = group.get("hooks") if isinstance(group, dict) else None
                    if isinstance(inner, list):
                        inner[:] = [h for h in inner if not is_our_handler(h)]
                groups[:] = [g for g in groups
                             if not (isinstance(g, dict) and g.get("hooks") == [])]


def prune(data: Any, keep: Any) -> Any:
    """Drop empty objects and lists that ``keep`` (the file before install) did not have."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            before = keep.get(k) if isinstance(keep, dict) else None
            v = prune(v, before)
            was_there = isinstance(keep, dict) and k in keep
            if isinstance(v, dict | list) and not v and not was_there:
                continue
            out[k] = v
        return out
    return data


def codex_env_vars(env: dict[str, str], environ: dict[str, str] | None = None) -> list[str]:
    """The names Codex passes on to the server from its own environment: every setting the
    server reads and every other REASONGRAPH_* set now, minus those fixed in ``env``."""
    environ = dict(os.environ) if environ is None else environ
    names = set(SERVER_SETTINGS) | {k for k in environ if k.startswith("REASONGRAPH_")}
    return sorted(names - set(env))


def toml_block(command: list[str], env: dict[str, str], timeout: int,
               env_vars: Sequence[str] = ()) -> str:
    """The ``[mcp_servers.reasongraph]`` block. ``required = true``: since about 0.147 Codex
    waits only about a second for an optional server and then runs the turn without its
    tools; a required one is waited for (up to ``startup_timeout_sec``) on every turn."""
    def s(value: str) -> str:  # a TOML basic string (JSON's escapes are valid TOML)
        return json.dumps(value, ensure_ascii=False)

    lines = [
        TOML_BEGIN,
        f"[mcp_servers.{NAME}]",
        f"command = {s(command[0])}",
        "args = [" + ", ".join(s(a) for a in command[1:]) + "]",
        "required = true",
        f"startup_timeout_sec = {timeout}",
    ]
    if env_vars:
        lines.append("env_vars = [" + ", ".join(s(v) for v in env_vars) + "]")
    if env:
        lines += ["", f"[mcp_servers.{NAME}.env]"] + [f"{k} = {s(v)}" for k, v in env.items()]
    return "\n".join([*lines, TOML_END]) + "\n"


def _block_span(text: str) -> tuple[int, int] | None:
    start = text.find(TOML_BEGIN)
    if start < 0:
        return None
    end = text.find(TOML_END, start)
    if end < 0:
        return None
    end += len(TOML_END)
    if text[end:end + 1] == "\n":
        end += 1
    return start, end


def toml_with_block(path: Path, text: str, block: str) -> str:
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display(path)} is not valid TOML ({exc}); left untouched") from None
    span = _block_span(text)
    if span is not None:
        new = text[: span[0]] + block + text[span[1]:]
    else:
        servers = parsed.get("mcp_servers")
        if isinstance(servers, dict) and NAME in servers:
            raise ConfigError(
                f"{display(path)} already has [mcp_servers.{NAME}] not written by the installer; "
                "remove it, then install again"
            )
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        new = text + sep + block
    try:
        ok = isinstance(tomllib.loads(new).get("mcp_servers", {}).get(NAME), dict)
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        raise ConfigError(
            f"{display(path)}: appending [mcp_servers.{NAME}] would not parse (is mcp_servers "
            "an inline table?); left untouched"
        )
    return new


def toml_without_block(text: str, original: str | None) -> str:
    """``text`` minus our block and the blank line we put before it (the variant equal to
    ``original``, the file before install, when one is)."""
    span = _block_span(text)
    if span is None:
        return text
    start, end = span
    variants = []
    for k in (0, 1, 2):
        if k <= start and text[start - k:start] == "\n" * k:
            variants.append(text[: start - k] + text[end:])
    for v in variants:
        if v == original:
            return v
    return variants[1] if len(variants) > 1 and text[:start].endswith("\n\n") else variants[0]


# -- plans -------------------------------------------------------------------------------------


@dataclass
class Change:
    """One file's new bytes (None = delete), with what changes in words."""

    path: Path
    before: bytes | None
    after: bytes | None
    what: str
    owned: bool = False  # an artifact of ours (hook script, plugin, skill), not a user config


@dataclass
class Plan:
    target: Target
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def effective(self) -> list[Change]:
        return [c for c in self.changes if c.before != c.after]


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {display(path)}: {exc}") from None


def edit_json(path: Path, what: str, mutate: Callable[[dict[str, Any]], None]) -> Change:
    raw = read_bytes(path)
    data = parse_json(path, raw)
    original = json.loads(json.dumps(data))
    mutate(data)
    if raw is not None and data == original:
        return Change(path, raw, raw, what)
    return Change(path, raw, dump_json(data), what)


def artifact(path: Path, content: bytes, what: str) -> Change:
    return Change(path, read_bytes(path), content, what, owned=True)


def hook_changes(db: Path | None) -> list[Change]:
    out = [
        artifact(hooks_dir() / name, package_file("hooks", name), f"hook script {name}")
        for name in HOOK_SCRIPTS
    ]
    if db is not None:
        for _event, script in EVENTS:
            out.append(artifact(hook_folder(db) / script, stub_source(script, db).encode(),
                                f"stub running {script} on {display(db)}"))
    return out


def plugin_source(db: Path | None) -> bytes:
    text = package_file("hooks", "opencode-plugin.js").decode()
    py, folder = json.dumps(hook_python()), json.dumps(str(hook_folder(db)))
    text, n1 = re.subn(r"(?m)^const PYTHON = .*$",
                       lambda _m: f"const PYTHON = process.env.REASONGRAPH_PYTHON || {py}", text)
    text, n2 = re.subn(
        r"(?m)^const HOOKS_DIR = .*$",
        lambda _m: f"const HOOKS_DIR = process.env.REASONGRAPH_HOOKS_DIR || {folder}", text)
    if n1 != 1 or n2 != 1:
        raise ConfigError("hooks/opencode-plugin.js has no `const PYTHON`/`const HOOKS_DIR` line")
    return (PLUGIN_MARK + "\n" + text).encode()


def plan_install(target: Target, *, opencode: str | None = None) -> Plan:
    """Every file change that installing ``target`` needs (nothing is written here)."""
    plan = Plan(target)
    files = target.files()
    command, env = server_command(), mcp_env(target.db)
    skill = package_file("skill", "SKILL.md")
    handlers = {
        event: {"type": "command", "command": hook_command(script, target.db),
                "timeout": HOOK_TIMEOUT}
        for event, script in EVENTS
    }
    h = target.harness
    if h == "claude-code":
        entry: dict[str, Any] = {"type": "stdio", "command": command[0], "args": command[1:]}
        if env:
            entry["env"] = env
        key = ["mcpServers", NAME]
        plan.changes.append(edit_json(files["mcp"], "MCP server",
                                      lambda d: set_entry(d, key, entry, files["mcp"])))

        def settings(d: dict[str, Any]) -> None:
            if target.scope == "project":
                add_to_list(d, "enabledMcpjsonServers", NAME, files["settings"])
            for event, handler in handlers.items():
                set_hook(d, event, handler, files["settings"])

        what = "hooks UserPromptSubmit, Stop" + (
            " and the .mcp.json approval" if target.scope == "project" else "")
        plan.changes.append(edit_json(files["settings"], what, settings))
        plan.changes.append(artifact(files["skill"], skill, "skill"))
    elif h == "codex":
        path = files["config"]
        raw = read_bytes(path)
        text = raw.decode("utf-8") if raw is not None else ""
        uvx = Path(command[0]).name.startswith("uvx")
        timeout = STARTUP_TIMEOUT_UVX if uvx else STARTUP_TIMEOUT
        block = toml_block(command, env, timeout, codex_env_vars(env))
        new = toml_with_block(path, text, block)
        after = raw if raw is not None and new == text else new.encode()
        plan.changes.append(Change(path, raw, after, f"[mcp_servers.{NAME}]"))

        def codex_hooks(d: dict[str, Any]) -> None:
            for event, handler in handlers.items():
                set_hook(d, event, handler, files["hooks"])

        plan.changes.append(edit_json(files["hooks"], "hooks UserPromptSubmit, Stop", codex_hooks))
        plan.changes.append(artifact(files["skill"], skill, "skill"))
        plan.notes.append(CODEX_TRUST_NOTE)
        if target.scope == "project":
            plan.notes.append("Codex reads a project's .codex/ only once you trust the project.")
    else:
        path = files["config"]
        raw = read_bytes(path)
        shape = opencode_shape(parse_json(path, raw), opencode)
        oc: dict[str, Any] = {"type": "local", "command": command}
        if env:
            oc["environment"] = env
        if shape == "v1":
            oc["enabled"] = True
        keys = ["mcp", NAME] if shape == "v1" else ["mcp", "servers", NAME]
        plan.changes.append(edit_json(path, f"MCP server ({shape} shape)",
                                      lambda d: set_entry(d, keys, oc, path)))
        plan.changes.append(artifact(files["plugin"], plugin_source(target.db), "plugin"))
    plan.changes = hook_changes(target.db) + plan.changes
    return plan


# -- state, backups, writing -------------------------------------------------------------------


def load_state() -> dict[str, Any]:
    try:
        data = json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data.setdefault("installs", {})
    data.setdefault("files", {})
    data.setdefault("dirs", [])
    return data


def save_state(state: dict[str, Any]) -> None:
    if not state["installs"] and not state["files"] and not state["dirs"]:
        with contextlib.suppress(FileNotFoundError):
            state_path().unlink()
        return
    write_bytes(state_path(), (json.dumps(state, indent=2) + "\n").encode(), state=None)


def write_bytes(path: Path, content: bytes, state: dict[str, Any] | None) -> None:
    """Write atomically, creating missing folders (recorded in ``state`` for uninstall);
    an existing file keeps its permission bits."""
    missing = []
    folder = path.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    path.parent.mkdir(parents=True, exist_ok=True)
    if state is not None:
        for d in missing:
            if str(d) not in state["dirs"]:
                state["dirs"].append(str(d))
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(content)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def backup(path: Path, content: bytes) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", str(path).strip("/\\"))
    dest = data_dir() / "backups" / f"{flat}.{stamp}.bak"
    n = 1
    while dest.exists():
        dest = dest.with_name(f"{flat}.{stamp}-{n}.bak")
        n += 1
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(content)
    return dest


def apply(plan: Plan, state: dict[str, Any]) -> list[str]:
    """Write the plan's changes, keeping a backup of every existing file changed; return
    one line per change."""
    lines = []
    key = plan.target.key
    for ch in plan.changes:
        rec = state["files"].setdefault(
            str(ch.path), {"existed": ch.before is not None, "backup": None, "owners": []}
        )
        if key not in rec["owners"]:
            rec["owners"].append(key)
        if ch.before == ch.after:
            continue
        if ch.before is not None:
            saved = backup(ch.path, ch.before)
            if rec["backup"] is None and rec["existed"]:
                rec["backup"] = str(saved)  # the bytes before the first install
        assert ch.after is not None
        write_bytes(ch.path, ch.after, state)
        lines.append(f"{'updated' if ch.before is not None else 'created'} "
                     f"{display(ch.path)} ({ch.what})")
    state["installs"][key] = {
        "harness": plan.target.harness, "scope": plan.target.scope,
        "project": str(plan.target.project) if plan.target.project else None,
        "db": str(plan.target.db) if plan.target.db else None,
        "files": [str(c.path) for c in plan.changes],
    }
    return lines


# -- uninstall ---------------------------------------------------------------------------------


def _original(rec: dict[str, Any] | None) -> bytes | None:
    if rec and rec.get("backup"):
        with contextlib.suppress(OSError):
            return Path(rec["backup"]).read_bytes()
    return None


def plan_uninstall(target: Target, state: dict[str, Any]) -> Plan:
    """The inverse of ``plan_install``: take our entries out of each config file (restoring
    the pre-install bytes when nothing else changed), delete the artifacts we created."""
    plan = Plan(target)
    recorded = state["installs"].get(target.key, {})
    files = target.files()
    paths = {str(p): role for role, p in files.items()}
    for extra in recorded.get("files", []):
        paths.setdefault(extra, "artifact")
    for name, role in paths.items():
        path = Path(name)
        rec = state["files"].get(name)
        others = [o for o in (rec or {}).get("owners", []) if o != target.key]
        raw = read_bytes(path)
        if raw is None:
            continue
        if role in ("skill", "plugin", "artifact"):
            if others:
                continue
            if role == "plugin":
                ours = raw.startswith(PLUGIN_MARK.encode())
            else:  # without a state record, only a copy identical to ours is ours
                same = role == "skill" and raw == package_file("skill", "SKILL.md")
                ours = rec is not None or same
            if ours:
                orig = _original(rec) if rec and rec.get("existed") else None
                plan.changes.append(Change(path, raw, orig, role, owned=True))
            continue
        original = _original(rec)
        existed = rec["existed"] if rec else True
        if path.suffix == ".toml":
            text = toml_without_block(raw.decode("utf-8"), original.decode() if original else None)
            after: bytes | None = text.encode()
            if original is not None and after == original:
                after = original
            elif not existed and not text.strip():
                after = None
        else:
            data = parse_json(path, raw)
            bare = json.loads(json.dumps(data))
            remove_ours(bare, target, role)
            keep = parse_json(path, original) if original is not None else {}
            pruned = prune(bare, keep)
            if original is not None and parse_json(path, original) in (bare, pruned):
                after = original
            elif not existed and not pruned:
                after = None
            elif bare == data:
                after = raw
            else:
                after = dump_json(pruned)
        plan.changes.append(Change(path, raw, after, f"{NAME} entries"))
    return plan


def apply_uninstall(plan: Plan, state: dict[str, Any]) -> list[str]:
    lines = []
    key = plan.target.key
    for ch in plan.changes:
        rec = state["files"].get(str(ch.path))
        if ch.before != ch.after:
            if ch.after is None:
                ch.path.unlink()
                lines.append(f"removed {display(ch.path)}")
            else:
                write_bytes(ch.path, ch.after, None)
                lines.append(f"restored {display(ch.path)}")
        if rec is not None:
            rec["owners"] = [o for o in rec["owners"] if o != key]
            if not rec["owners"]:
                if rec.get("backup") and ch.after is not None and ch.after == _original(rec):
                    with contextlib.suppress(OSError):
                        Path(rec["backup"]).unlink()
                del state["files"][str(ch.path)]
    for name, rec in list(state["files"].items()):  # ours only through this install
        rec["owners"] = [o for o in rec["owners"] if o != key]
        if not rec["owners"]:
            del state["files"][name]
    state["installs"].pop(key, None)
    for d in sorted(state["dirs"], key=len, reverse=True):
        with contextlib.suppress(OSError):
            Path(d).rmdir()  # only when empty
    state["dirs"] = [d for d in state["dirs"] if Path(d).exists()]
    return lines


def finish_uninstall(state: dict[str, Any]) -> None:
    """Once no install remains, delete the copied hook scripts (and their ``__pycache__``),
    the state file and every folder an install created that is now empty."""
    with contextlib.suppress(OSError):
        (data_dir() / "backups").rmdir()  # only when empty: backups of changed files stay
    if state["installs"]:
        save_state(state)
        return
    if hooks_dir().is_dir():
        shutil.rmtree(hooks_dir(), ignore_errors=True)
    dirs, state["dirs"] = state["dirs"], []
    save_state(state)  # empty: deletes the state file
    for d in sorted(dirs, key=len, reverse=True):
        with contextlib.suppress(OSError):
            Path(d).rmdir()  # only when empty
    left = [d for d in dirs if Path(d).exists()]
    if left:
        state["dirs"] = left
        save_state(state)


def purge(db: Path) -> list[str]:
    """Delete the memory file and everything beside it (WAL, socket, hook state, spool)."""
    from .hooks.common import socket_path, spool_dir, state_dir

    lines = []
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), socket_path(db),
                 Path(f"{socket_path(db)}.lock"), state_dir(db), spool_dir(db)):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        else:
            continue
        lines.append(f"deleted {display(path)}")
    return lines


# -- command line ------------------------------------------------------------------------------


def resolve_target(args: argparse.Namespace, harness: str) -> Target:
    from .hooks.common import project_root

    project = None
    if args.scope == "project":
        project = Path(project_root(args.project)) if args.project else Path(project_root())
    db = Path(os.path.abspath(os.path.expanduser(args.db))) if args.db else None
    return Target(harness, args.scope, project, db)


INSTALL_HELP = (
    "Wire the memory into one agent (its MCP server entry and hooks). Exits 1 when a config "
    "file could not be edited; nothing of that agent is written then."
)
UNINSTALL_HELP = (
    "Remove exactly what install added; the memory file stays unless --purge."
)


def common_parser(
    prog: str, description: str, harness_choices: Iterable[str]
) -> argparse.ArgumentParser:
    choices = list(harness_choices)
    p = _Parser(prog=prog, description=description)
    p.add_argument("--harness", required=True, choices=choices,
                   help="the agent: " + ", ".join(choices))
    p.add_argument("--scope", choices=SCOPES, default="user",
                   help="user config (default) or the project's own files")
    p.add_argument("--project", help="project folder for --scope project (default: the git "
                                     "top-level of the working directory)")
    p.add_argument("--db", help="memory file (default: the user data folder's memory.db)")
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``reasongraph-mcp install``: wire the memory into one agent; exit 1 when a config
    file could not be edited (nothing of that harness is written then)."""
    p = common_parser(f"{PROG} install", INSTALL_HELP, HARNESSES)
    p.add_argument("--opencode-shape", choices=("auto", "v1", "v2"), default="auto",
                   help="OpenCode config shape (default: read from 'opencode --version')")
    args = parse(p, argv)
    if args is None:
        return 2
    target = resolve_target(args, args.harness)
    try:
        plan = plan_install(target, opencode=None if args.opencode_shape == "auto"
                            else args.opencode_shape)
    except ConfigError as exc:
        print(f"{PROG} install: {exc}", file=sys.stderr)
        return 1
    where = f"{target.harness} ({target.scope}" + (
        f", {display(target.project)})" if target.project else ")")
    if args.dry_run:
        changes = plan.effective
        for ch in changes:
            print(f"would {'update' if ch.before is not None else 'create'} "
                  f"{display(ch.path)} ({ch.what})")
        print(f"Dry run for {where}: {len(changes)} file(s) would change; nothing written.")
        return 0
    state = load_state()
    try:
        lines = apply(plan, state)
    finally:
        save_state(state)
    for line in lines:
        print(line)
    if lines:
        print(f"Installed reasongraph for {where}. Backups: {display(data_dir() / 'backups')}")
    else:
        print(f"reasongraph is already installed for {where}; nothing changed.")
    for note in plan.notes:
        print(f"Note: {note}")
    return 0


def uninstall_main(argv: Sequence[str] | None = None) -> int:
    """``reasongraph-mcp uninstall``: remove exactly what install added; the memory file stays
    unless --purge."""
    p = common_parser(f"{PROG} uninstall", UNINSTALL_HELP, (*HARNESSES, "all"))
    p.add_argument("--purge", action="store_true", help="also delete the memory file")
    args = parse(p, argv)
    if args is None:
        return 2
    state = load_state()
    if args.harness == "all":
        targets = [
            Target(r["harness"], r["scope"], Path(r["project"]) if r.get("project") else None,
                   Path(r["db"]) if r.get("db") else None)
            for r in state["installs"].values()
        ]
    else:
        targets = [resolve_target(args, args.harness)]
    lines: list[str] = []
    code = 0
    for target in targets:
        try:
            plan = plan_uninstall(target, state)
        except ConfigError as exc:
            print(f"{PROG} uninstall: {exc}", file=sys.stderr)
            code = 1
            continue
        if args.dry_run:
            lines += [f"would {'remove' if c.after is None else 'restore'} {display(c.path)}"
                      for c in plan.effective]
            continue
        lines += apply_uninstall(plan, state)
    if not args.dry_run:
        finish_uninstall(state)
    if args.purge:
        db = Path(args.db).expanduser() if args.db else _default_db()
        lines += [f"would delete {display(db)} and its side files"] if args.dry_run else purge(db)
    for line in lines:
        print(line)
    verb = "Dry run: nothing written." if args.dry_run else (
        "Uninstalled." if lines else "Nothing of reasongraph was installed there.")
    if not args.purge and not args.dry_run:
        verb += " The memory file is kept (--purge deletes it)."
    print(verb)
    return code


def _default_db() -> Path:
    from .memory.config import Settings

    return Settings.from_env().db_path


if __name__ == "__main__":
    sys.exit(main())
