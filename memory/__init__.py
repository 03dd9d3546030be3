"""reasongraph memory engine: one SQLite file of facts, entities, causes and history.

Import-cheap on purpose: apsw, sqlite-vec and models load only when a ``Memory`` opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    EmbeddingError,
    ExtensionUnavailable,
    GraphMemoryError,
    InvalidInput,
    MigrationError,
    NotFound,
    StoreError,
)
from .records import Hit, RememberResult, Status

if TYPE_CHECKING:
    from .api import Memory

__all__ = [
    "EmbeddingError",
    "ExtensionUnavailable",
    "GraphMemoryError",
    "Hit",
    "InvalidInput",
    "Memory",
    "MigrationError",
    "NotFound",
    "RememberResult",
    "Status",
    "StoreError",
]


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from .api import Memory

        return Memory
    raise AttributeError(name)
