"""Where the referee keeps its files: the user's data directory, or ``REFEREE_DATA_DIR``."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

from referee.errors import UserError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = PROJECT_ROOT / "models"


def _usable(folder: Path, *, write: bool = False) -> Path:
    """``folder``, created if need be; a clear message when it cannot be (or, with
    ``write``, cannot be written in)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        problem = err.strerror or str(err)
    else:
        if not write or os.access(folder, os.W_OK | os.X_OK):
            return folder
        problem = "Permission denied"
    raise UserError(f"cannot write in the referee's data folder {folder}: {problem}. "
                    "Point REFEREE_DATA_DIR at a folder you can write.")  # fmt: skip


def data_dir() -> Path:
    """The folder for journals, the score database and deck profiles (created on demand)."""
    return _usable(
        Path(os.environ.get("REFEREE_DATA_DIR") or user_data_dir("referee", appauthor=False))
    )


def journals_dir() -> Path:
    """One journal per match, named by its start (``20261202-205001-123456.jsonl``)."""
    return _usable(data_dir() / "journals", write=True)


def journal_env() -> Path | None:
    """``REFEREE_JOURNAL``: one journal file for every game, as ``--journal`` gives."""
    value = os.environ.get("REFEREE_JOURNAL", "").strip()
    return Path(value).expanduser() if value else None


def legacy_journal() -> Path:
    """Where versions before one journal per match kept the running game."""
    return data_dir() / "current-game.jsonl"
