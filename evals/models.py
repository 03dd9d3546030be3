"""Each model configuration on the LoCoMo and causal evals, side by side.

    python -m evals.models [--limit 2] [--gliner NAME_OR_FOLDER] [--sat ...] [--rerank ...]

Configurations: ``default`` (packaged MiniLM, code-aware rules, pysbd, no reranker), then
GLiNER entities, SaT splitting, a cross-encoder reranker, and all three together. Each
optional model is named by its flag or its slot's environment variable (``memory/slots.py``)
and otherwise by the usual public model name. A configuration whose model cannot load here
(no network for a download, missing folder, extra not installed) is listed with the reason
instead of a row. Each run is a child process (so peak RSS is its own), running
``evals.locomo`` (first ``--limit`` conversations) and ``evals.causal`` (both case files)
with the slots set through their environment variables.

Columns: LoCoMo frac@10 of the engine, ingest turns/s and recall ms per question; causal
why root@1 and chain (project scope) and load seconds; peak RSS of the child in MB.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from reasongraph_mcp.memory.ml import slots
from reasongraph_mcp.memory.ml.slots import ENV

from evals.common import table

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
DEFAULTS = {
    "entities": "gliner-community/gliner_small-v2.5",
    "splitter": "sat-3l-sm",
    "reranker": "Xenova/ms-marco-MiniLM-L-6-v2",
}


def _probe(slot: str, spec: str) -> str | None:
    """None when ``spec`` loads for ``slot`` here, else the status line saying why not."""
    probe = slots.slot(slot, spec)
    return None if probe.get() is not None else probe.status


def _child(argv: list[str]) -> int:
    """Run one eval module in this process, then print its peak RSS."""
    from evals import causal, locomo
    from evals.common import peak_rss_mb

    mod = {"locomo": locomo, "causal": causal}[argv[0]]
    mod.main(argv[1:])
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


def _run(kind: str, args: list[str], env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-m", "evals.models", "--child", kind, *args],
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    return out.stdout


def _num(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text, re.MULTILINE)
    return float(m.group(1)) if m else None


def measure(env: dict[str, str], limit: int) -> list[object]:
    """One table row (without the name) for the configuration in ``env``."""
    lo = _run("locomo", ["--data", str(DATA / "locomo" / "locomo10-dev.json"),
                         "--limit", str(limit)], env)
    ca = _run("causal", ["--data", str(DATA / "causal-cases" / "causal_cases.jsonl"),
                         "--data", str(DATA / "causal-cases" / "causal_cases_batch2.jsonl")],
              env)
    why = re.search(r"^why \(project\)\s+\d+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", ca, re.MULTILINE)
    rss = max(_num(r"peak RSS (\d+)", lo) or 0, _num(r"peak RSS (\d+)", ca) or 0)
    return [
        _num(r"^engine\s+overall\s+\d+\s+[\d.]+\s+([\d.]+)", lo),
        _num(r"engine ingest: ([\d.]+)", lo),
        _num(r"engine recall: mean ([\d.]+)", lo),
        float(why.group(1)) if why else None,
        float(why.group(2)) if why else None,
        _num(r"into one memory: .*?, ([\d.]+) s", ca),
        f"{rss:.0f}",
    ]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        return _child(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=2, help="LoCoMo conversations (default 2)")
    for slot, flag in (("entities", "--gliner"), ("splitter", "--sat"), ("reranker", "--rerank")):
        ap.add_argument(flag, dest=slot, default=os.environ.get(ENV[slot]) or DEFAULTS[slot],
                        help=f"model name or folder (default ${ENV[slot]} or {DEFAULTS[slot]})")
    args = ap.parse_args(argv)
    base = {k: v for k, v in os.environ.items() if k not in ENV.values() or k == ENV["embed"]}
    configs: list[tuple[str, dict[str, str]]] = [("default", {})]
    skipped: list[str] = []
    usable: dict[str, str] = {}
    for slot in ("entities", "splitter", "reranker"):
        spec = getattr(args, slot)
        why = _probe(slot, spec)
        if why is None:
            usable[ENV[slot]] = spec
            configs.append((f"{slot}={spec}", {ENV[slot]: spec}))
        else:
            skipped.append(why)
    if len(usable) > 1:
        configs.append(("all models", dict(usable)))
    rows = []
    for name, extra in configs:
        try:
            rows.append([name, *measure({**base, **extra}, args.limit)])
        except RuntimeError as exc:
            skipped.append(f"{name}: the run failed ({exc})")
    print(f"Model configurations (LoCoMo: first {args.limit} conversations; causal: 2 files)")
    print(table(["configuration", "locomo frac@10", "ingest turns/s", "recall ms",
                 "why root@1", "why chain", "causal load s", "peak RSS MB"],
                [[c if c is not None else "-" for c in r] for r in rows]))
    if skipped:
        print("\nCould not run here:")
        for line in skipped:
            print(f"  - {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
