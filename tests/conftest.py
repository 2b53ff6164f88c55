from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path, monkeypatch):
    """Every test gets its own data directory: no journal or database leaks between tests."""
    monkeypatch.setenv("REFEREE_DATA_DIR", str(tmp_path / "referee-data"))
    monkeypatch.delenv("REFEREE_DB", raising=False)
    monkeypatch.delenv("REFEREE_JOURNAL", raising=False)
    yield


os.environ.setdefault("YOLO_OFFLINE", "1")
