"""Hostile input and faults, probed against a real memory file, the real CLI and hooks.

``python -m evals.robustness`` runs each probe in a fresh temporary folder and prints one
line per probe (ok / FAIL and what it saw), then a total, the redaction share of the secret
corpus (``tests/secret_corpus.py``, when present) and the longest wait that another writer
and a reader had behind a bulk write.

Each probe is a function returning ``(ok, detail)``; a probe that raises counts as a FAIL.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .common import shared_embedder, table

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "/home/dev/robust"
Probe = Callable[[Path, argparse.Namespace], tuple[bool, str]]
PROBES: list[tuple[str, Probe]] = []


def probe(name: str) -> Callable[[Probe], Probe]:
    def register(fn: Probe) -> Probe:
        PROBES.append((name, fn))
        return fn

    return register


def clean_env(db: Path, **settings: str) -> dict[str, str]:
    """This environment without our settings, with ``db`` as the memory file (and ``settings``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    return {**env, "REASONGRAPH_DB": str(db), **settings}


def cli(args: list[str], db: Path, stdin: str | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``reasongraph-mcp ARGS`` on ``db`` as a user runs it (a subprocess)."""
    env = clean_env(db)
    return subprocess.run([sys.executable, "-m", "reasongraph_mcp", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=env)


def one_line_error(out: subprocess.CompletedProcess[str]) -> bool:
    return (out.returncode != 0 and "Traceback" not in out.stderr
            and len(out.stderr.strip().splitlines()) == 1)


def prose(chars: int, seed: int) -> str:
    """Varied coding-session sentences, about ``chars`` long, as one paragraph."""
    rng = random.Random(seed)
    nouns = ("cache", "worker", "queue", "parser", "ledger", "webhook", "scheduler", "index")
    verbs = ("retries", "times out", "drops rows", "is slow", "needs a lock", "runs nightly")
    out: list[str] = []
    size = 0
    i = 0
    while size < chars:
        a, b = rng.sample(nouns, 2)
        s = (f"The {a} {rng.choice(verbs)} because the {b} module {i} changed in release "
             f"1.{i % 97}.{i}.")
        out.append(s)
        size += len(s) + 1
        i += 1
    return " ".join(out)


# -- probes ------------------------------------------------------------------------------------


@probe("a fact id beyond 64-bit integers")
def huge_id(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    db = work / "m.db"
    cli(["remember", "The API uses Redis."], db)
    out = cli(["why", str(2**64)], db)
    return one_line_error(out), out.stderr.strip()[:120]


@probe("one paragraph of 1,000,000 characters")
def huge_paragraph(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    from reasongraph_mcp.memory.extract.sentences import split_sentences

    text = prose(1_000_000, seed=1)
    start = time.perf_counter()
    pieces = split_sentences(text)
    took = time.perf_counter() - start
    return len(pieces) > 5000, f"{len(pieces):,} sentences in {took:.1f} s"


@probe("a hook never trusts another user's socket folder")
def socket_folder(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    code = (
        "import os, socket, tempfile, sys\n"
        "from reasongraph_mcp.hooks import relay\n"
        "path = relay.socket_file(os.environ['REASONGRAPH_DB'])\n"
        "os.makedirs(os.path.dirname(path), mode=0o700)\n"
        "srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)\n"
        "if os.geteuid() == 0:\n"
        "    os.chown(os.path.dirname(path), 65534, 65534)\n"
        "else:\n"
        "    os.chmod(os.path.dirname(path), 0o755)\n"
        "print(relay.forward('prepare', b'{}', 1.0))\n"
    )
    env = dict(os.environ, TMPDIR=str(work / "tmp"),
               REASONGRAPH_DB=str(work / ("d" * 110) / "m.db"))
    (work / "tmp").mkdir()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=env)
    return out.stdout.strip() == "None", (out.stdout.strip() or out.stderr.strip())[-120:]


WAITS: dict[str, float] = {}


@probe("others wait little behind a bulk write")
def bulk_write_waits(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    """A 200 KB ``remember`` in one process (the real CLI); meanwhile another process
    writes one fact every 0.25 s and a thread of a third recalls: the longest each waited."""
    from reasongraph_mcp.memory import Memory

    db = work / "m.db"
    embedder = shared_embedder()
    with Memory(db, embedder=embedder) as mem:
        mem.remember("The cache is warmed at start-up.", project=PROJECT)
    bulk = subprocess.Popen(
        [sys.executable, "-m", "reasongraph_mcp", "remember", "-", "--project", PROJECT],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, REASONGRAPH_DB=str(db)),
    )
    assert bulk.stdin is not None
    bulk.stdin.write(prose(args.bulk_chars, seed=2))
    bulk.stdin.close()
    writes: list[float] = []
    reads: list[float] = []
    errors: list[str] = []
    with Memory(db, embedder=embedder) as other:
        def reader() -> None:
            while bulk.poll() is None:
                start = time.perf_counter()
                try:
                    other.recall("why is the cache slow?", project=PROJECT)
                except Exception as exc:  # noqa: BLE001 - recorded as the probe's failure
                    errors.append(f"recall: {exc}")
                reads.append(time.perf_counter() - start)
                time.sleep(0.1)

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        i = 0
        while bulk.poll() is None:
            start = time.perf_counter()
            try:
                other.remember(f"Probe note {i} says the scheduler moved to slot {i}.",
                               project=PROJECT)
            except Exception as exc:  # noqa: BLE001
                errors.append(f"remember: {exc}")
            writes.append(time.perf_counter() - start)
            i += 1
            time.sleep(0.25)
        thread.join()
    bulk.wait()
    err = bulk.stderr.read() if bulk.stderr else ""
    WAITS["writer"] = max(writes, default=0.0)
    WAITS["reader"] = max(reads, default=0.0)
    def p50(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2] if xs else 0.0

    detail = (f"{len(writes)} writes, p50 {p50(writes):.2f} s, longest {WAITS['writer']:.2f} s; "
              f"{len(reads)} recalls, p50 {p50(reads):.2f} s, longest {WAITS['reader']:.2f} s")
    if errors or bulk.returncode != 0:
        return False, (errors[:1] or [err.strip()[-120:]])[0]
    return max(WAITS.values()) < args.max_wait, detail


def _hook(script: str, event: dict[str, object], db: Path) -> None:
    """Run a hook script as the agent does (stdin = the event), with no warm server."""
    import json

    env = clean_env(db, REASONGRAPH_HOOK_BUSY_MS="200", REASONGRAPH_HOOK_SERVER_TIMEOUT="0.5")
    subprocess.run([sys.executable, str(ROOT / "hooks" / script)], env=env, timeout=60,
                   input=json.dumps(event).encode(), capture_output=True)


def _hook_bytes(db: Path) -> bytes:
    files = [Path(f"{db}{s}") for s in ("", "-wal", "-shm")]
    for folder in (Path(f"{db}.spool"), Path(f"{db}.hooks")):
        if folder.is_dir():
            files += [p for p in folder.iterdir() if p.is_file()]
    return b"".join(p.read_bytes() for p in files if p.exists())


@probe("forget erases a spooled exchange and the session's state file")
def forget_spool(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    import sqlite3

    db = work / "m.db"
    cli(["remember", "Deploys go through the canary first.", "--session", "other"], db)
    base = {"session_id": "leaky", "cwd": PROJECT, "transcript_path": None}
    locker = sqlite3.connect(str(db), isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # the hooks find the file locked: spool
    try:
        _hook("prepare.py", {**base, "hook_event_name": "UserPromptSubmit",
                             "prompt": "Where is the zebracorn vault key?"}, db)
        _hook("capture.py", {**base, "hook_event_name": "Stop", "stop_hook_active": False,
                             "last_assistant_message": "It is in quokkahall_keys.py."}, db)
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    spooled = len(list(Path(f"{db}.spool").glob("*.json")))
    out = cli(["forget", "--session", "leaky", "--yes"], db)
    cli(["drain"], db)
    left = [w for w in ("zebracorn", "quokkahall") if w.encode() in _hook_bytes(db)]
    ok = spooled == 1 and out.returncode == 0 and not left
    return ok, (out.stdout.strip() or out.stderr.strip())[:120].rstrip(".") + (
        f"; still there: {', '.join(left)}" if left else "; nothing left after a drain")


@probe("import refuses a hostile export in one line and writes nothing")
def hostile_import(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    import json

    db = work / "m.db"
    cli(["remember", "The ledger uses PostgreSQL because joins matter.", "--session", "s1"], db)
    dump = work / "dump.jsonl"
    cli(["export", str(dump)], db)
    recs = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    facts = next(r for r in recs if r.get("table") == "facts")
    cases = {
        "text=12345": ("facts", "text", 12345),
        "status pwned": ("facts", "status", "pwned"),
        "dangling superseded_by": ("facts", "superseded_by", 99),
        "version '1'": ("header", "version", "1"),
        "nested": ("raw", "", "[" * 100_000),
    }
    seen = []
    for name, (where, key, value) in cases.items():
        lines = [json.dumps(r) for r in recs]
        if where == "header":
            lines[0] = json.dumps({**recs[0], key: value})
        elif where == "raw":
            lines.append(str(value))
        else:
            lines[recs.index(facts)] = json.dumps({**facts, "row": {**facts["row"], key: value}})
        bad = work / f"bad{len(seen)}.jsonl"
        bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
        target = work / f"t{len(seen)}.db"
        out = cli(["import", str(bad)], target)
        stats = cli(["stats", "--json"], target)
        empty = '"facts": 0' in stats.stdout
        if not (one_line_error(out) and empty):
            return False, f"{name}: {(out.stderr.strip() or out.stdout.strip())[-120:]}"
        seen.append(out.stderr.strip().split(": ", 2)[-1].split(";")[0])
    return True, f"{len(cases)} refused, nothing written; e.g. {seen[1]}"


@probe("a file of a newer schema is read, never written")
def newer_schema(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    import sqlite3

    db = work / "m.db"
    cli(["remember", "The ledger uses PostgreSQL because joins matter."], db)
    with sqlite3.connect(str(db)) as conn:
        conn.execute("INSERT INTO _migrations VALUES ('m099_future', '2030-01-01T00:00:00Z')")
    conn.close()
    read = cli(["recall", "ledger"], db)
    write = cli(["remember", "Another fact."], db)
    doctor = cli(["doctor"], db).stdout
    facts = cli(["stats", "--json"], db).stdout
    ok = (read.returncode == 0 and "PostgreSQL" in read.stdout and one_line_error(write)
          and "newer than this build" in doctor and '"facts": 1' in facts)
    return ok, "refused: " + write.stderr.strip().split(" has ", 1)[-1][:90]


def _cli_as_user(args: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    """``cli`` without root's permission override (so file modes bite as for a user)."""
    import shutil

    if os.geteuid() != 0:
        return cli(args, db)
    if shutil.which("setpriv") is None:
        raise RuntimeError("root without setpriv: cannot make file modes bite")
    env = clean_env(db)
    caps = "-dac_override,-dac_read_search,-fowner"
    return subprocess.run(["setpriv", "--bounding-set", caps, "--inh-caps", caps,
                           sys.executable, "-m", "reasongraph_mcp", *args],
                          capture_output=True, text=True, timeout=600, env=env)


@probe("a read-only file or folder reads and refuses writes in one line")
def read_only(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    folder = work / "ro"
    db = folder / "m.db"
    cli(["remember", "The ledger uses PostgreSQL because joins matter."], db)
    seen = []
    for name, target, mode in (("file", db, 0o444), ("folder", folder, 0o555)):
        os.chmod(target, mode)
        try:
            reads = [_cli_as_user(a, db) for a in (
                ["recall", "ledger"], ["stats"], ["export", str(work / f"{name}.jsonl")])]
            write = _cli_as_user(["remember", "Another fact."], db)
            doctor = _cli_as_user(["doctor"], db).stdout
        finally:
            if name == "folder":
                os.chmod(target, 0o755)
        if name == "file":
            kept = oct(db.stat().st_mode & 0o777)
            os.chmod(db, 0o600)
            if kept != "0o444" or any(Path(f"{db}{s}").exists() for s in ("-wal", "-shm")):
                return False, f"file mode became {kept} or side files were left"
        bad = [r.args[-1] for r in reads if r.returncode != 0]
        if bad or not one_line_error(write) or "read-only" not in doctor:
            return False, f"{name}: reads failed {bad} / {write.stderr.strip()[-100:]}"
        seen.append(name)
    after = cli(["remember", "Writable again."], db)
    return after.returncode == 0, f"{' and '.join(seen)}: reads ok, writes refused, doctor says so"


@probe("corrupt pages give one line, never a traceback")
def corrupt_pages(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    import sqlite3

    db = work / "m.db"
    cli(["remember", "The ledger uses PostgreSQL because joins matter. The cache is warm "
         "because the worker preloads it."], db)
    conn = sqlite3.connect(str(db))
    pages = [r[0] for r in conn.execute(
        "SELECT pageno FROM dbstat WHERE name IN ('facts', 'statements', 'facts_fts_data')")]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    for page in pages:
        data[(page - 1) * size:page * size] = b"\x0d" + b"\xff" * (size - 1)
    db.write_bytes(bytes(data))
    for cmd in (["recall", "ledger"], ["remember", "Another."], ["why", "ledger"],
                ["export", str(work / "x.jsonl")]):
        out = cli(cmd, db)
        if not (one_line_error(out) and "damaged" in out.stderr):
            return False, f"{cmd[0]}: {(out.stderr.strip() or out.stdout.strip())[-120:]}"
    return True, out.stderr.strip().split(": ", 1)[-1][:100]


@probe("no secret of the corpus reaches the file")
def secret_corpus(work: Path, args: argparse.Namespace) -> tuple[bool, str]:
    """Every text of ``tests/secret_corpus.py`` through the real CLI (``remember``, then
    ``export``): a secret counts as redacted when its bytes are in none of the files left (the
    .db, any -wal or -shm, the export); a safe look-alike counts as kept when redaction leaves
    it unchanged. Passes at 100% and no false positive."""
    import importlib.util

    from reasongraph_mcp.hooks.redact import redact

    path = ROOT / "tests" / "secret_corpus.py"  # tests/ is not a package: load it by path
    spec = importlib.util.spec_from_file_location("secret_corpus", path)
    if spec is None or spec.loader is None or not path.exists():
        return False, f"{path} not found"
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    db = work / "m.db"
    texts = "\n\n".join(text for _, text, _ in corpus.SECRETS)
    for out in (cli(["remember", "-", "--project", PROJECT], db, stdin=texts),
                cli(["export", str(work / "export.jsonl")], db)):
        if out.returncode != 0:
            return False, out.stderr.strip()[-120:]
    blob = b"".join(p.read_bytes() for p in work.iterdir() if p.is_file())
    leaked = [kind for kind, _, secret in corpus.SECRETS if secret.encode() in blob]
    changed = [text for text in corpus.SAFE if redact(text) != text]
    n, m = len(corpus.SECRETS), len(corpus.SAFE)
    detail = (f"secrets redacted {n - len(leaked)}/{n} ({(n - len(leaked)) / n:.0%}), "
              f"safe texts kept {m - len(changed)}/{m}")
    if leaked:
        detail += f"; leaked: {', '.join(leaked[:3])}"
    return not leaked and not changed and b"[REDACTED:" in blob, detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.robustness", description=__doc__)
    ap.add_argument("--only", help="comma-separated words; probes whose name has one run")
    ap.add_argument("--bulk-chars", type=int, default=200_000,
                    help="size of the bulk write (default 200,000 characters)")
    ap.add_argument("--max-wait", type=float, default=1.0,
                    help="longest acceptable wait behind the bulk write, in s (default 1)")
    args = ap.parse_args(argv)
    chosen = [(n, p) for n, p in PROBES
              if not args.only or any(w in n for w in args.only.split(","))]
    rows = []
    passed = 0
    for name, fn in chosen:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            try:
                ok, detail = fn(Path(tmp), args)
            except Exception as exc:  # noqa: BLE001 - a probe that raises has failed
                ok, detail = False, f"{type(exc).__name__}: {exc}"[:160]
        passed += ok
        rows.append([name, "ok" if ok else "FAIL", f"{time.perf_counter() - start:.1f}",
                     detail])
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
    print()
    print(table(["probe", "result", "s", "detail"], rows))
    print(f"\n{passed}/{len(chosen)} probes passed")
    if WAITS:
        print(f"longest wait behind a {args.bulk_chars:,}-character write: writer "
              f"{WAITS['writer']:.2f} s, reader {WAITS['reader']:.2f} s")
    return 0 if passed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
