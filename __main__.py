"""``python -m reasongraph_mcp``: the same as the ``reasongraph-mcp`` command."""

import sys

from .cli import main

sys.exit(main())
