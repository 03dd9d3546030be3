"""What a user's ``pip install`` (or ``uvx``) gets: the built wheel installed into a fresh,
plain virtual environment, its console script running ``stats`` and ``demo`` and answering
an ``initialize`` handshake from outside the source tree. Catches modules, package data and
entry points that the checkout has but the wheel forgets, and names the wheel would put
into site-packages beside ``reasongraph_mcp``.

The venv is plain (no system site-packages): the wheel is installed with its dependencies,
which pip takes from its cache after the project's own install (the registry otherwise).
The build runs without isolation when the installed setuptools can read pyproject.toml
(PEP 639 ``license`` needs setuptools >= 77), and otherwise in pip's isolated environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", "build", "dist", ".venv", ".pytest_cache", "__pycache__", ".ruff_cache"}


def _setuptools_reads_pyproject() -> bool:
    try:
        from importlib.metadata import version

        return int(version("setuptools").split(".")[0]) >= 77
    except Exception:
        return False


def _copy_tree(src: Path, dest: Path) -> None:
    # Build from a copy: an in-tree build writes build/ and *.egg-info into the checkout.
    shutil.copytree(src, dest, ignore=lambda d, names: [
        n for n in names if n in SKIP_DIRS or n.endswith((".egg-info", ".db", ".db-wal", ".db-shm"))
    ])


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    tmp = tmp_path_factory.mktemp("wheel")
    src, dist, env_dir = tmp / "src", tmp / "dist", tmp / "venv"
    _copy_tree(ROOT, src)
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist),
             str(src)]
    if _setuptools_reads_pyproject():
        build.insert(4, "--no-build-isolation")
    subprocess.run(build, check=True, timeout=300, cwd=tmp)
    wheel = next(dist.glob("reasongraph_mcp-*.whl"))

    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                          "--disable-pip-version-check", str(wheel)],
                         capture_output=True, text=True, timeout=900, cwd=tmp)
    assert pip.returncode == 0, pip.stderr
    yield wheel, env_dir


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REASONGRAPH_", "PYTHON"))}
    env["REASONGRAPH_CACHE"] = str(tmp / "cache")
    env["REASONGRAPH_DB"] = str(tmp / "memory.db")
    return env


def test_the_wheel_holds_the_modules_and_the_data_files_of_the_tree(
    venv: tuple[Path, Path],
) -> None:
    wheel, _ = venv
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"reasongraph_mcp"}, f"the wheel puts {sorted(top)} into site-packages"
    # Whatever the checkout ships beside the code must reach users too.
    for pattern in ("*.py", "py.typed", "memory/**/*.py", "memory/**/*.tsv", "memory/**/*.npz",
                    "hooks/*.py", "hooks/*.js", "hooks/*.ts", "skill/*.md"):
        for path in ROOT.glob(pattern):
            rel = path.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel:
                assert f"reasongraph_mcp/{rel}" in names, f"{rel} is in the tree, not in the wheel"
    assert not any(n.startswith(("reasongraph_mcp/tests/", "reasongraph_mcp/evals/"))
                   for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert ("reasongraph-mcp = reasongraph_mcp.cli:main"
            in zipfile.ZipFile(wheel).read(entry_points).decode())


def test_the_installed_script_runs_stats_and_the_demo_from_outside_the_tree(
    venv: tuple[Path, Path], tmp_path: Path
) -> None:
    _, env_dir = venv
    python = env_dir / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c",
         "import reasongraph_mcp.server as s; from reasongraph_mcp import Memory; import sys; "
         "print(s.__file__); print(sys.modules[Memory.__module__].__file__)"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, check=True, timeout=60,
    )
    assert len(where.stdout.splitlines()) == 2
    for line in where.stdout.splitlines():
        assert line.startswith(str(env_dir)), f"imported from outside the venv: {line}"

    stats = subprocess.run([str(env_dir / "bin" / "reasongraph-mcp"), "stats"], cwd=tmp_path,
                           env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert stats.returncode == 0, stats.stderr
    assert "facts" in stats.stdout and "Traceback" not in stats.stderr

    demo = subprocess.run([str(env_dir / "bin" / "reasongraph-mcp"), "demo"], cwd=tmp_path,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=180)
    assert demo.returncode == 0, demo.stderr
    assert "SQLite instead of PostgreSQL" in demo.stdout
    assert "$ reasongraph-mcp why" in demo.stdout
    assert "Traceback" not in demo.stderr


def test_the_installed_script_answers_the_mcp_handshake(
    venv: tuple[Path, Path], tmp_path: Path
) -> None:
    _, env_dir = venv
    (tmp_path / ".git").mkdir()
    params = StdioServerParameters(
        command=str(env_dir / "bin" / "reasongraph-mcp"), cwd=str(tmp_path), env=_env(tmp_path)
    )

    async def handshake() -> tuple[str | None, set[str], bool]:
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            result = await client.call_tool("recall", {"query": "anything at all"})
            info = client.server_info
            return info.name if info else None, {t.name for t in tools.tools}, result.is_error

    name, tools, failed = anyio.run(handshake)
    assert name == "reasongraph"
    assert {"remember", "recall", "why", "trace", "revise", "forget", "history"} == tools
    assert failed is False
