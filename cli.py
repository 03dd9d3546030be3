"""``reasongraph-mcp <command>``: the command line for people, over the same facade as the
MCP server (``views.py`` holds the shared operations and renderings, and ``views.dump`` the
JSON of their records, so the CLI's ``--json`` is exactly the tools' structured output).

Every command opens the memory file (``--db``, else ``REASONGRAPH_DB``, else the user data
folder) and scopes reads to the project of the working directory (``--project`` to choose
another; ``--all-projects`` to look everywhere). Mistakes print one line on stderr and exit
non-zero; no command prints a traceback. ``demo`` builds a throwaway memory from a short story
of three coding sessions and shows what recall, why and trace make of it.

Commands that other modules own (``install``, ``uninstall``, ``doctor``, ``drain``) are routed
through ``EXTERNAL``: each maps to ``module:function`` taking the remaining arguments.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import views
from .hooks.common import project_root
from .memory.records import RecallResult

if TYPE_CHECKING:
    from .memory import Memory
    from .memory.records import Fact

PROG = "reasongraph-mcp"

# Subcommands with parsers of their own: name -> "module:function" (function(argv) -> int | None).
EXTERNAL: dict[str, str] = {
    "install": ".install:main",
    "uninstall": ".uninstall:main",
    "doctor": ".doctor:main",
    "drain": ".cli:drain_main",
}


class CliError(Exception):
    """A mistake on the command line, reported as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not usage + error
        raise CliError(f"{message} (see {self.prog} --help)")


# -- output helpers ----------------------------------------------------------------------------


def _emit(args: argparse.Namespace, result: Any, text: str) -> None:
    if args.json:
        data = result if isinstance(result, dict) else views.dump(result)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text)


def fact_table(facts: Sequence[Fact], *, show_project: bool = False) -> str:
    """Facts as aligned columns: id, date, session, [project,] kind, text (+ status, path)."""
    if not facts:
        return "No facts found."
    rows = []
    for f in facts:
        text = f.text
        if f.status != "current":
            text += f"  ({f.status}" + (f" by #{f.superseded_by}" if f.superseded_by else "") + ")"
        if f.via and not f.via.startswith("seed"):
            text += f"  <{f.via}>"
        cells = [f"#{f.id}", (f.date or "")[:10], f.session or "-"]
        if show_project:
            cells.append(f.project or "-")
        rows.append([*cells, f.kind or "-", text])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1]
        for r in rows
    )


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


class Progress:
    """One self-rewriting line on stderr for long jobs, only when stderr is a terminal
    (nothing in pipes, files or tests). Called as the engine's progress watcher
    (``memory.progress``): ``(what, done, total or None)``; at most about 5 updates a second."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.on = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self.shown = 0.0

    def __call__(self, what: str, done: int, total: int | None = None) -> None:
        now = time.monotonic()
        if not self.on or now - self.shown < 0.2:
            return
        self.shown = now
        count = f"{done:,}/{total:,} {what} ({100 * done // max(total, 1)}%)" if total else (
            f"{done:,} {what}"
        )
        self.stream.write(f"\r{self.label}: {count}, {now - self.start:.0f} s\033[K")
        self.stream.flush()

    def __enter__(self) -> Progress:
        from .memory import progress

        self._watch = progress.watching(self)
        self._watch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._watch.__exit__(*exc)
        if self.on and self.shown:
            self.stream.write("\r\033[K")  # leave the terminal as it was
            self.stream.flush()


# -- commands ----------------------------------------------------------------------------------


def _open(args: argparse.Namespace) -> Memory:
    from .memory import Memory

    return Memory(args.db) if args.db else Memory()


def db_path(args: argparse.Namespace) -> Path:
    """The memory file a command would open (``--db``, else ``REASONGRAPH_DB``, else the
    user data folder), without opening it: opening creates the file and its folders."""
    from .memory.config import Settings

    return Path(args.db).expanduser() if args.db else Settings.from_env().db_path


# Commands that only read (or, like forget, have nothing to do in an empty memory): on a
# missing file they never create it. recall and stats answer as an empty memory would (a new
# user's first look); the others name a fact, or write a file of the memory, so a missing
# memory file is a mistake, reported in one line (most often a mistyped --db).
READ_ONLY = {"recall", "stats", "why", "trace", "history", "export", "forget"}


def _missing(args: argparse.Namespace, path: Path) -> int:
    """Answer a read-only command on a memory file that does not exist (nothing is created)."""
    from .memory.errors import GraphMemoryError, InvalidInput

    where = f"no memory file at {path}"
    if args.command == "forget":
        _confirm_forget(args)
    if args.command == "recall":
        if not args.query.strip():  # the engine's own checks, as on an existing file
            raise InvalidInput("recall needs a non-empty query text")
        if not 1 <= args.k <= 200:
            raise InvalidInput("k must be an integer from 1 to 200")
        res = RecallResult(facts=[], note=f"{where} yet: nothing has been remembered there")
        _emit(args, res, fact_table(res.facts) + f"\n({res.note})")
        return 0
    if args.command == "stats":
        s = {
            "path": str(path), "exists": False, "facts": 0, "current_facts": 0, "entities": 0,
            "links": 0, "sessions": 0, "projects": 0, "file_bytes": 0, "schema_version": None,
            "model": "not loaded (no memory file)", "slots": [],
        }
        _emit(args, s, f"{'file':<9} {path} (does not exist yet: the first write creates it)"
                       f"\n{'facts':<9} 0")
        return 0
    raise GraphMemoryError(
        f"{where} (check --db or REASONGRAPH_DB; nothing has been remembered there)"
    )


def _project(args: argparse.Namespace) -> str:
    return project_root(args.project)


def cmd_recall(args: argparse.Namespace, mem: Memory) -> int:
    res = views.do_recall(
        mem, args.query, project=_project(args), k=args.k, all_projects=args.all_projects,
        as_of=args.as_of, valid_at=args.valid_at, include_history=args.include_history,
    )
    text = fact_table(res.facts, show_project=args.all_projects)
    _emit(args, res, text + (f"\n({res.note})" if res.note else ""))
    return 0


def cmd_remember(args: argparse.Namespace, mem: Memory) -> int:
    text = " ".join(args.text)
    if text.strip() == "-":
        text = sys.stdin.read()
    with Progress("remember") as watch:
        if len(text) > 20_000:
            watch("characters to split into sentences", len(text))
            watch.shown = 0.0  # let the first count from the engine through
        res = views.do_remember(
            mem, text, project=_project(args), session=args.session, when=args.when,
            role="user", harness="cli",
        )
    text = views.render_remember(res)
    if len(res.ids) > views.LIST_IDS_UP_TO:
        text += " (--json lists every id)"
    _emit(args, res, text)
    return 0


def cmd_why(args: argparse.Namespace, mem: Memory) -> int:
    res = views.do_why(mem, " ".join(args.target), project=_project(args), k=args.k)
    _emit(args, res, views.render_why(res))
    return 0


def cmd_trace(args: argparse.Namespace, mem: Memory) -> int:
    mode = "causes" if args.causes else "chain" if args.to is not None else (
        "what_if" if args.what_if else "effects"
    )
    target = " ".join(args.target)
    res = views.do_trace(
        mem, target, mode=mode, to=args.to, depth=args.depth, project=_project(args)
    )
    _emit(args, res, views.render_trace(res, views.parse_ref(target)))
    return 0


def cmd_history(args: argparse.Namespace, mem: Memory) -> int:
    res = views.do_history(mem, " ".join(args.target))
    _emit(args, res, views.render_history(res))
    return 0


def _confirm_forget(args: argparse.Namespace) -> None:
    project = _project(args) if args.whole_project else None
    if (args.session is not None or project is not None) and not args.yes:
        what = f"session {args.session}" if args.session else f"every fact of {project}"
        raise CliError(f"this erases {what} for good: add --yes to confirm")


def cmd_forget(args: argparse.Namespace, mem: Memory) -> int:
    _confirm_forget(args)
    project = _project(args) if args.whole_project else None
    res = views.do_forget(mem, fact=args.fact, session=args.session, project=project)
    _emit(args, res, res.summary)
    return 0


def cmd_export(args: argparse.Namespace, mem: Memory) -> int:
    n = mem.export(args.path)
    _emit(args, {"exported": n, "path": args.path}, f"Exported {n} fact(s) to {args.path}")
    return 0


def cmd_import(args: argparse.Namespace, mem: Memory) -> int:
    if not Path(args.path).is_file():
        raise CliError(f"no such file: {args.path}")
    with Progress("import"):
        n = mem.import_(args.path)
    _emit(args, {"imported": n, "path": args.path}, f"Imported {n} fact(s) from {args.path}")
    return 0


def stats_of(mem: Memory) -> dict[str, Any]:
    st = mem.status()
    return {
        "path": str(mem.path),
        "facts": st.facts,
        "current_facts": st.current_facts,
        "entities": st.entities,
        "links": st.links,
        "sessions": st.sessions,
        "projects": st.projects,
        "file_bytes": st.file_bytes,
        "schema_version": st.schema_version,
        "model": mem.model_status,
        "slots": list(mem.model_notes),
    }


def cmd_stats(args: argparse.Namespace, mem: Memory) -> int:
    s = stats_of(mem)
    rows = [
        ("file", s["path"]),
        ("size", _human_bytes(s["file_bytes"])),
        ("facts", f"{s['facts']} ({s['current_facts']} current)"),
        ("entities", str(s["entities"])),
        ("links", str(s["links"])),
        ("sessions", str(s["sessions"])),
        ("projects", str(s["projects"])),
        ("schema", f"v{s['schema_version']}"),
        ("model", s["model"]),
        *(("", note) for note in s["slots"]),
    ]
    _emit(args, s, "\n".join(f"{k:<9} {v}" for k, v in rows))
    return 0


# -- demo --------------------------------------------------------------------------------------

DEMO_PROJECT = "/demo/checkout-service"

# Three sessions a week apart. Session 2 makes a decision that session 3 reverses, and the
# bug found in session 3 has its root cause in a setting chosen in session 1.
DEMO_STORY: list[tuple[str, str, list[str]]] = [
    ("s1-redis", "2026-03-02T10:00:00Z", [
        "We chose Redis 7 as the session store for the checkout API because it needs "
        "sub-millisecond reads.",
        "We set the Redis maxmemory-policy to allkeys-lru, so Redis evicts session keys when "
        "its memory is full.",
        "The team prefers pytest with real SQLite files over mocks.",
    ]),
    ("s2-ledger", "2026-03-09T14:00:00Z", [
        "We decided to use PostgreSQL 16 for the ledger service.",
        "We added the product-recommendations cache to the same Redis instance, so Redis "
        "memory fills up during traffic peaks.",
        "The ledger service runs a nightly export job at 02:00 UTC.",
    ]),
    ("s3-logouts", "2026-03-16T09:30:00Z", [
        "Users were logged out at random during checkout because Redis evicted their "
        "session keys.",
        "We fixed the logouts by moving session keys to a separate Redis instance with "
        "maxmemory-policy noeviction.",
    ]),
]
DEMO_REVISION = (
    "We decided to use PostgreSQL 16 for the ledger service.",
    "The ledger service uses SQLite instead of PostgreSQL because the edge devices cannot run "
    "a database server.",
    "the ledger now runs on edge devices with no database server",
)
DEMO_QUESTIONS = (
    "which database does the ledger service use?",
    "why were users logged out during checkout?",
)


@contextmanager
def _clock(moment: str) -> Iterator[None]:
    """Replay a dated session: the engine takes REASONGRAPH_NOW as the time of writes."""
    old = os.environ.get("REASONGRAPH_NOW")
    os.environ["REASONGRAPH_NOW"] = moment
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("REASONGRAPH_NOW", None)
        else:
            os.environ["REASONGRAPH_NOW"] = old


def build_demo(mem: Memory, project: str = DEMO_PROJECT) -> dict[str, int]:
    """Write the demo story into ``mem``; return the fact id of each sentence (by text)."""
    ids: dict[str, int] = {}
    for session, moment, sentences in DEMO_STORY:
        with _clock(moment):
            for sentence in sentences:
                res = views.do_remember(
                    mem, sentence, project=project, session=session, when=moment[:10],
                    role="assistant", harness="demo",
                )
                if res.ids:
                    ids[sentence] = res.ids[0]
            if session == "s3-logouts":
                old, new, reason = DEMO_REVISION
                row = mem.store.fact(ids[old])
                if row is not None and row.superseded_by is not None:  # a second demo run
                    ids[new] = row.superseded_by
                    continue
                revised = views.do_revise(
                    mem, ids[old], new_text=new, reason=reason, session=session,
                    role="assistant",
                )
                if revised.new_id is not None:
                    ids[new] = revised.new_id
    return ids


def cmd_demo(args: argparse.Namespace) -> int:
    """Write the demo story to a throwaway file, or to ``--db`` (kept afterwards: a new or
    empty memory file, or any file with ``--force``), then show recall, why and trace."""
    if args.db is None:
        with tempfile.TemporaryDirectory(prefix="reasongraph-demo-") as tmp:
            return _run_demo(args, Path(tmp) / "memory.db", kept=False)
    path = Path(args.db).expanduser()
    if path.is_dir():
        raise CliError(f"--db {path} is a folder: name a memory file")
    return _run_demo(args, path, kept=True)


def _run_demo(args: argparse.Namespace, path: Path, *, kept: bool) -> int:
    from .memory import Memory

    with Memory(path) as mem:
        held = mem.status().facts
        if held and not args.force:
            raise CliError(
                f"{path} already holds {held} fact(s): the demo writes a new or empty file "
                "(choose another --db, or add --force to add the demo's story to this one)"
            )
        ids = build_demo(mem)
        policy = ids[DEMO_STORY[0][2][1]]
        out: dict[str, Any] = {"db": str(path), "kept": kept, "facts": ids}
        out["recall"] = views.do_recall(mem, DEMO_QUESTIONS[0], project=DEMO_PROJECT, k=4)
        out["why"] = views.do_why(mem, DEMO_QUESTIONS[1], project=DEMO_PROJECT)
        out["trace"] = views.do_trace(mem, policy, project=DEMO_PROJECT)
    if args.json:
        print(json.dumps(
            {k: v if isinstance(v, str | dict | bool) else views.dump(v) for k, v in out.items()},
            indent=2, ensure_ascii=False,
        ))
        return 0
    text = _demo_text(out, policy)
    if kept:
        text = text.replace("(a throwaway file)", f"(in {path})") + (
            f"\nThe demo memory stays in {path}; for example:\n"
            f'  {PROG} recall "redis eviction" --db {path} --project {DEMO_PROJECT}'
        )
    print(text)
    return 0


def _demo_text(out: dict[str, Any], policy: int) -> str:
    lines = [
        "A memory of three coding sessions on a checkout service (a throwaway file):",
        "",
    ]
    for session, moment, sentences in DEMO_STORY:
        lines.append(f"  {session} ({moment[:10]})")
        lines += [f"    - {s}" for s in sentences]
    old, new, reason = DEMO_REVISION
    lines.append(f"    - revised: {new}  [reason: {reason}]")

    def block(command: str, body: Any, render: Callable[[Any], str]) -> None:
        lines.extend(["", f"$ {PROG} {command}"])
        text = body if isinstance(body, str) else render(body)
        lines.extend("  " + line for line in text.splitlines())

    block(f'recall "{DEMO_QUESTIONS[0]}"', out["recall"], lambda r: fact_table(r.facts))
    block(f'why "{DEMO_QUESTIONS[1]}"', out["why"], views.render_why)
    block(f"trace {policy}", out["trace"], lambda r: views.render_trace(r, policy))
    lines += ["", "Every fact carries its id, date and session; superseded facts stay in history."]
    return "\n".join(lines)


# -- parser and dispatch -----------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="memory file (default: $REASONGRAPH_DB or the user data dir)")
    common.add_argument("--project", help="project folder (default: the git top-level of the cwd)")
    common.add_argument("--json", action="store_true", help="machine-readable output")

    parser = _Parser(
        prog=PROG,
        description="Local causal memory for coding agents. With no command: serve MCP on stdio.",
        epilog="Also: " + ", ".join(EXTERNAL) + " (see their own --help). Settings: "
               "REASONGRAPH_DB (memory file), REASONGRAPH_EMBED_MODEL (model name, folder or "
               "'none'), REASONGRAPH_CACHE (folder for models downloaded by name), "
               "REASONGRAPH_ENTITY_MODEL, REASONGRAPH_SPLIT_MODEL, REASONGRAPH_RERANK_MODEL "
               "(optional models).",
    )
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help, description=help)

    p = add("recall", "facts relevant to a question, best first")
    p.add_argument("query", help="the question or words to look for")
    p.add_argument("-k", type=int, default=10, help="how many facts (default 10)")
    p.add_argument("--all-projects", action="store_true", help="search every project")
    p.add_argument("--as-of", help="ISO date: what was recorded as known then")
    p.add_argument("--valid-at", help="ISO date: what was true in the world then")
    p.add_argument("--include-history", action="store_true", help="show superseded facts too")

    p = add("remember", "store statements ('-' reads stdin)")
    p.add_argument("text", nargs="+", help="the statements (one or more sentences); - reads stdin")
    p.add_argument("--session", help="session id to file them under")
    p.add_argument("--when", help="ISO date they became true (default: now)")

    p = add("why", "root causes of a fact or a problem, as numbered chains")
    p.add_argument("target", nargs="+", help="a fact id (12 or #12) or the problem in words")
    p.add_argument("-k", type=int, default=3, help="how many causes (default 3)")

    p = add("trace", "effects of a fact (or --causes, --to ID, --what-if)")
    p.add_argument("target", nargs="+", help="a fact id or text")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--causes", action="store_true", help="walk to causes instead of effects")
    g.add_argument("--to", type=int, metavar="ID", help="the causal chain to this fact")
    g.add_argument("--what-if", action="store_true", help="what collapses if it were false")
    p.add_argument("--depth", type=int, default=6, help="how many links to follow (default 6)")

    p = add("history", "timeline of a fact or an entity")
    p.add_argument("target", nargs="+", help="a fact id or an entity name")

    p = add("forget", "erase facts for good (one fact, a session, or the project)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--fact", type=int, metavar="ID", help="one fact, by its id")
    g.add_argument("--session", metavar="ID", help="every fact of this session")
    g.add_argument("--whole-project", action="store_true", help="every fact of --project")
    p.add_argument("--yes", action="store_true", help="confirm erasing a session or project")

    p = add("export", "write every fact and its history to a JSON Lines file")
    p.add_argument("path", help="the file to write (replaced if it exists)")
    p = add("import", "read facts from a file written by export into an empty memory")
    p.add_argument("path", help="a file written by export")
    add("stats", "counts, file size and model status")
    demo_help = ("build a small memory from a built-in story and query it (in a throwaway "
                 "file, or in --db, which is kept)")
    p = sub.add_parser("demo", help=demo_help, description=demo_help)
    p.add_argument("--db", help="write the demo memory to this new or empty file and keep it "
                                "(default: a throwaway file)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--force", action="store_true",
                   help="add the demo's story to a --db file that already holds facts")
    serve_help = "serve MCP on stdio (the default with no command)"
    sub.add_parser("serve", help=serve_help, description=serve_help)
    return parser


COMMANDS: dict[str, Callable[[argparse.Namespace, Memory], int]] = {
    "recall": cmd_recall,
    "remember": cmd_remember,
    "why": cmd_why,
    "trace": cmd_trace,
    "history": cmd_history,
    "forget": cmd_forget,
    "export": cmd_export,
    "import": cmd_import,
    "stats": cmd_stats,
}


DRAIN_HELP = (
    "Ingest every exchange the hooks captured, then exit (for scripts, evals and machines "
    "where no server runs). Safe while servers run too."
)


def drain_main(argv: Sequence[str]) -> int:
    """``reasongraph-mcp drain``: ingest every exchange the hooks captured, then exit (for
    scripts, evals and machines where no server runs). Safe while servers run too."""
    from .hooks.common import spool_dir
    from .memory.errors import GraphMemoryError
    from .memory.prompt.inbox import DrainReport

    parser = _Parser(prog=f"{PROG} drain", description=DRAIN_HELP)
    parser.add_argument("--db", help="memory file (default: $REASONGRAPH_DB or the user data dir)")
    parser.add_argument("--limit", type=int, help="stop after this many exchanges")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    try:
        args = parser.parse_args(list(argv))
        path = db_path(args)
        spool = spool_dir(path)
        if not path.exists() and not any(spool.glob("*.json")):
            report = DrainReport()  # nothing captured: create no file
        else:
            with _open(args) as mem, Progress("drain") as watch:
                calls = [0]

                def tick() -> bool:  # drain asks before each exchange whether to stop
                    calls[0] += 1
                    if calls[0] > 1 and not args.quiet:
                        watch("exchanges", calls[0] - 1)
                    return False

                report = mem.drain(limit=args.limit, spool=spool, stop=tick)
    except CliError as exc:
        print(f"{PROG} drain: {exc}", file=sys.stderr)
        return 2
    except GraphMemoryError as exc:
        print(f"{PROG} drain: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report.__dict__))
    elif not args.quiet:
        line = f"Drained {report.ingested} exchange(s)"
        extra = [f"{n} {what}" for n, what in (
            (report.failed, "failed"), (report.recovered, "recovered from a dead drain"),
            (report.spooled, "moved from the spool"), (report.remaining, "still pending"),
        ) if n]
        print(line + (f" ({', '.join(extra)})" if extra else "") + ".")
    return 0


def _external(name: str, argv: list[str]) -> int:
    module, _, attr = EXTERNAL[name].partition(":")
    code = getattr(importlib.import_module(module, __package__), attr)(argv)
    return code if isinstance(code, int) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``reasongraph-mcp``: no command = the stdio MCP server; else run one command and
    return its exit status."""
    parent = os.getppid()  # first: the parent may exit while the SDK imports
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in EXTERNAL:
        return _external(args_list[0], args_list[1:])
    from .memory.errors import GraphMemoryError

    command = args_list[0] if args_list else ""
    try:
        args = build_parser().parse_args(args_list)
        command = args.command or ""
        if command in ("", "serve"):
            from .server import serve

            serve(parent)  # never returns: the server leaves with os._exit
        if command == "demo":
            return cmd_demo(args)
        if command in READ_ONLY and not db_path(args).exists():
            return _missing(args, db_path(args))
        with _open(args) as mem:
            return COMMANDS[command](args, mem)
    except CliError as exc:
        print(f"{PROG}{' ' + command if command else ''}: {exc}", file=sys.stderr)
        return 2
    except GraphMemoryError as exc:
        print(f"{PROG} {command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `reasongraph-mcp recall x | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
