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


@pytest.fixture
def room():
    """A private PulseAudio room (tests/room.py); skipped, saying why, where it can't start."""
    from tests.room import PulseRoom, RoomError

    try:
        started = PulseRoom().start()
    except RoomError as err:
        pytest.skip(f"no PulseAudio room here: {err}")
    try:
        yield started
    finally:
        started.stop()


os.environ.setdefault("YOLO_OFFLINE", "1")
