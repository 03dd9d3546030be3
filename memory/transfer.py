"""Export and import of a whole memory as JSON Lines. (Scaffold; being written.)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import GraphMemoryError

if TYPE_CHECKING:
    from .embed import Embedder
    from .store import Store


def export(store: Store, path: Path) -> int:
    raise GraphMemoryError("export is not available in this version")


def import_(store: Store, embedder: Embedder | None, path: Path) -> int:
    raise GraphMemoryError("import is not available in this version")
