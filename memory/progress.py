"""Progress of long jobs for whoever watches (the CLI, on a terminal). The engine only
reports, through a callback held in a context variable; with no watcher a report costs one
lookup. Reports come from the thread that runs the job (``watching`` sets the callback for
that thread's context)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Watcher = Callable[[str, int, "int | None"], None]  # (what, done, total or None)

_WATCHER: ContextVar[Watcher | None] = ContextVar("reasongraph_progress", default=None)


@contextmanager
def watching(callback: Watcher | None) -> Iterator[None]:
    """Send the reports of the jobs run inside this block to ``callback``."""
    token = _WATCHER.set(callback)
    try:
        yield
    finally:
        _WATCHER.reset(token)


def report(what: str, done: int, total: int | None = None) -> None:
    """``done`` of ``total`` (None when unknown) units of ``what`` are finished."""
    callback = _WATCHER.get()
    if callback is not None:
        callback(what, done, total)
