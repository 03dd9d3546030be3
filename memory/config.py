"""``Settings``: where the file lives and which models to load, read from the environment
only when an entry point asks (never at import)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_data_dir() -> Path:
    """The user data folder. The hooks compute it without platformdirs (``hooks.relay.db_file``,
    whose docstring says when the two differ: an ``XDG_DATA_HOME`` on macOS or a relative one
    on Linux); ``REASONGRAPH_DB`` set for both makes them agree whatever the platform."""
    import platformdirs

    return Path(platformdirs.user_data_dir("reasongraph", appauthor=False))


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("reasongraph", appauthor=False))


@dataclass(frozen=True)
class Settings:
    """Entry-point configuration: database path, embedding model, model cache folder."""

    db_path: Path
    embed_model: str | None = None  # None = the packaged MiniLM; "none" = FTS5 only
    cache_dir: Path | None = None

    @classmethod
    def from_env(cls) -> Settings:
        """``REASONGRAPH_DB`` (file), ``REASONGRAPH_EMBED_MODEL`` (name, folder or "none"),
        ``REASONGRAPH_CACHE`` (folder), else the platform's user data and cache folders."""
        db = os.environ.get("REASONGRAPH_DB")
        cache = os.environ.get("REASONGRAPH_CACHE")
        return cls(
            db_path=Path(db).expanduser() if db else default_data_dir() / "memory.db",
            embed_model=os.environ.get("REASONGRAPH_EMBED_MODEL") or None,
            cache_dir=Path(cache).expanduser() if cache else None,
        )
