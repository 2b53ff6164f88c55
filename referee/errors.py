"""Errors and warnings the user can act on, importable by any layer below the command line."""

from __future__ import annotations

import sys


class UserError(Exception):
    """A problem the user can fix; printed as a message, never as a traceback."""


def warn(message: str) -> None:
    """Tell the user about a problem that does not stop the command."""
    print(f"referee: warning: {message}", file=sys.stderr, flush=True)
