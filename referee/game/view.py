"""What the screen, the JSON lines and the tests see of a game: one view of the state."""

from __future__ import annotations

from typing import Any

from referee.game.engine import legal_ranks
from referee.game.state import State


def view(state: State) -> dict[str, Any]:
    """The state as plain data (``State.to_dict``), with the ranks legal now (none once the
    game is over)."""
    return state.to_dict(legal_ranks(state) if state.phase != "over" else ())
