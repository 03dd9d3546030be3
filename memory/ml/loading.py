"""Load a model once: on first use, or on a background thread, keeping why it failed.

Both kinds of slot (the embedder in ``embed.py``, the optional models in ``slots.py``) use
this one loader, so "started", "loading", "ready" and "failed" mean the same for each.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger("reasongraph.loading")

T = TypeVar("T")


class LoadOnce(Generic[T]):
    """The value ``build()`` returns, built at most once, or the line saying why not.

    Args:
        build: makes the value; any exception it raises is a failed load.
        describe: turns that exception into the one line kept as ``error``.
        thread: the name of the background thread ``start`` runs.
        settled: skip loading: the value is already known (``value``, or None with ``error``).
    """

    def __init__(
        self,
        build: Callable[[], T],
        describe: Callable[[BaseException], str],
        thread: str,
        *,
        settled: bool = False,
        value: T | None = None,
        error: str | None = None,
    ) -> None:
        self._build, self._describe, self._thread = build, describe, thread
        self.value: T | None = value
        self.error: str | None = error
        self._done = threading.Event()
        self._lock = threading.Lock()
        self.started = settled
        if settled:
            self._done.set()

    def start(self) -> None:
        """Begin loading on a background thread (idempotent; nothing once settled)."""
        if self._claim():
            threading.Thread(target=self._load, name=self._thread, daemon=True).start()

    def get(self, wait: bool = True) -> T | None:
        """The value, loading it here first if nobody has started; None when it failed or
        (with ``wait=False``) is still loading."""
        if self._claim():
            self._load()
        if wait:
            self._done.wait()
        return self.value if self._done.is_set() else None

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a load under way; True once settled."""
        return self._done.wait(max(0.0, timeout)) if self.started else self._done.is_set()

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self.value is not None

    @property
    def loading(self) -> bool:
        return self.started and not self._done.is_set()

    def _claim(self) -> bool:
        """True for exactly one caller: the one that must run the load."""
        with self._lock:
            first = not self.started
            self.started = True
        return first

    def _load(self) -> None:
        try:
            self.value = self._build()
        except Exception as exc:  # a missing package, folder or download; corrupt weights
            self.error = self._describe(exc)
            slot = self._thread.removeprefix("reasongraph-").removesuffix("-load")
            log.warning("%s: %s", slot, self.error)
        finally:
            self._done.set()


def first_line(exc: BaseException, limit: int = 200) -> str:
    """``Type: first line of the message`` (messages of model libraries run to pages)."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:limit]}"
