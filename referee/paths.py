"""Where the referee keeps its files: the user's data directory, or ``REFEREE_DATA_DIR``."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = PROJECT_ROOT / "models"


def data_dir() -> Path:
    """The folder for the journal, the score database and deck profiles (created on demand)."""
    root = Path(os.environ.get("REFEREE_DATA_DIR") or user_data_dir("referee", appauthor=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def default_journal() -> Path:
    return Path(os.environ.get("REFEREE_JOURNAL") or data_dir() / "current-game.jsonl")
