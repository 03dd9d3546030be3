"""``EntityMention``: an entity named in a sentence, the record that the rule extractor
(``entities.py``) and the optional model backends (``backends.py``) both produce."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EntityMention"]


@dataclass(frozen=True)
class EntityMention:
    """One entity named in a text.

    ``name`` is the canonical key shared by every spelling; ``display`` is the first
    spelling seen; ``type`` is one of file, url, env, error, symbol, package, version,
    command or name.
    """

    name: str
    display: str
    type: str
