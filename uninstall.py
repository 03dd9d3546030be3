"""``reasongraph-mcp uninstall`` / ``python uninstall.py``: the exact inverse of
``install.py`` for one harness and scope (or ``--harness all``): our MCP entries, hooks,
approval, skill and plugin come out, every other entry stays, and a file whose other content
did not change gets its pre-install bytes back. The memory file stays unless ``--purge``.

The planning and writing live in ``install.py`` so that the two cannot drift apart.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .install import uninstall_main


def main(argv: Sequence[str] | None = None) -> int:
    """Remove exactly what ``install`` added; see ``--help``."""
    return uninstall_main(argv)


if __name__ == "__main__":
    sys.exit(main())
