"""The eyes in their own thread: a reveal is read from the camera while the ears go on.

Reading a reveal (``read_stable``: dozens of frames and the classifier) takes a second or
more; done in the loop, the microphone's chunks would wait for it. :class:`Eyes` reads in a
worker thread and posts :class:`~referee.live.events.CardsRead` when it has an answer.
"""

from __future__ import annotations

import inspect
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from referee.live.camera import CameraError
from referee.live.events import CardsRead


def _takes(method: Any, name: str) -> bool:
    """Whether ``method`` takes a keyword ``name`` (cameras and readers that don't are
    called without it)."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def frames_for(camera: Any, reveal: int) -> Any:
    """The camera's frames for reveal number ``reveal`` (a feed of photos shows that
    reveal's photo, however often it is looked at; a webcam shows what is there now)."""
    return camera.frames(reveal=reveal) if _takes(camera.frames, "reveal") else camera.frames()


def read(
    camera: Any, reader: Any, reveal: int, asked_at: float, expect: int | None = None
) -> CardsRead:
    """Read reveal ``reveal`` now (in the calling thread); with ``expect`` (the claim's
    count) a reader that can tells a count other than that as unreadable ("spread the
    cards") instead of judging on what may be a partial read."""
    try:
        frames = frames_for(camera, reveal)
        if expect is not None and _takes(reader.read_stable, "expect"):
            return CardsRead(reveal, asked_at, reader.read_stable(frames, expect=expect))
        return CardsRead(reveal, asked_at, reader.read_stable(frames))
    except CameraError as err:
        return CardsRead(reveal, asked_at, error=str(err))


class Eyes:
    """Reads reveals in a worker thread and posts what it read."""

    def __init__(self, camera: Any, reader: Any, post: Callable[[Any], None]) -> None:
        self.camera, self.reader, self.post = camera, reader, post
        self._asked: queue.Queue[tuple[int, float, int | None] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def look(self, reveal: int, asked_at: float, expect: int | None = None) -> None:
        """Read reveal ``reveal`` (of ``expect`` cards, when known); a :class:`CardsRead`
        is posted when done."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="eyes", daemon=True)
            self._thread.start()
        self._asked.put((reveal, asked_at, expect))

    def _work(self) -> None:
        while (asked := self._asked.get()) is not None:
            reveal, asked_at, expect = asked
            try:
                seen = read(self.camera, self.reader, reveal, asked_at, expect)
            except Exception as err:  # noqa: BLE001 - a broken reader must not stop the game
                print(f"referee: the card reader failed: {err!r}", file=sys.stderr)
                seen = CardsRead(reveal, asked_at, error="I could not read the cards. "
                                 "Say true or lie.")  # fmt: skip
            self.post(seen)

    def close(self) -> None:
        if self._thread is not None:
            self._asked.put(None)
            self._thread.join(5.0)
