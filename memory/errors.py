"""The exception tree of the engine.

    GraphMemoryError                 root; never shadows the builtin MemoryError
    ├── NotFound                     a fact, entity, project or session id that does not exist
    ├── InvalidInput (ValueError)    empty, oversized, non-text or otherwise unusable input
    ├── StoreError                   the SQLite file cannot be opened, read or written
    │   ├── MigrationError           the schema could not be created or upgraded
    │   ├── ExtensionUnavailable     sqlite-vec could not be loaded
    │   ├── ReadOnlyStore            a write to a file this process may only read
    │   └── DamagedStore             corrupt pages or not a database
    └── EmbeddingError               the embedding model failed while in use

Messages say what was wrong and what is allowed, in one line a user can act on.
"""

from __future__ import annotations


class GraphMemoryError(Exception):
    """Root of every error the engine raises on purpose."""


class NotFound(GraphMemoryError, LookupError):
    """Raised when a fact, entity, project or session named by the caller does not exist."""

    def __init__(self, what: str, key: object) -> None:
        super().__init__(f"{what} {key!s} not found")
        self.what = what
        self.key = key


class InvalidInput(GraphMemoryError, ValueError):
    """Raised when input is empty, too large, not text, or otherwise unusable."""


class StoreError(GraphMemoryError):
    """Raised when the SQLite file cannot be opened, read or written."""


class MigrationError(StoreError):
    """Raised when the schema could not be created or upgraded."""


class ExtensionUnavailable(StoreError):
    """Raised when sqlite-vec cannot be loaded into the connection."""


class EmbeddingError(GraphMemoryError):
    """Raised when the embedding model fails while in use (not when it fails to load)."""


class ReadOnlyStore(StoreError):
    """Raised on a write to a memory file that this process may only read: a read-only
    file or folder, or a file written by a newer schema. Reads still work."""


class DamagedStore(StoreError):
    """Raised when SQLite finds the memory file damaged (corrupt pages, not a database)."""
