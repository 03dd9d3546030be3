"""reasongraph-mcp: a local memory for coding agents, one SQLite file served over MCP.

The repository's top level is this package: ``memory`` is the engine, ``server`` the MCP
server, ``hooks`` the standard-library hook scripts, ``install`` the installer. The Python
API is the one facade::

    from reasongraph_mcp import Memory
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["Memory"]


def __getattr__(name: str) -> Any:
    if name == "Memory":  # lazily: importing the package must stay cheap (the hooks, the CLI)
        from .memory import Memory

        return Memory
    raise AttributeError(name)
