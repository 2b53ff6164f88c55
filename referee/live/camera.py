"""Camera feeds for the live referee: a real webcam, or image files standing in for one.

A feed gives frames for one reveal at a time (``frames()``); a feed that fails raises
:class:`CameraError` with a message for the table, and the referee falls back to a spoken
or keyed verdict.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np


class CameraError(Exception):
    """The camera cannot give a frame now (unplugged, vanished, unreadable)."""


class Webcam:
    """An OpenCV capture device, opened on first use and reopened once if it vanishes."""

    def __init__(self, index: int = 0, frames_per_reveal: int = 45) -> None:
        self.index = index
        self.frames_per_reveal = frames_per_reveal
        self._capture: cv2.VideoCapture | None = None
        self.last_frame: np.ndarray | None = None

    def _open(self) -> cv2.VideoCapture:
        if self._capture is None or not self._capture.isOpened():
            capture = cv2.VideoCapture(self.index)
            if not capture.isOpened():
                raise CameraError(f"No camera {self.index}. Plug one in, or say true or lie.")
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, 640)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, 480)
            self._capture = capture
        return self._capture

    def frames(self, reveal: int | None = None) -> Iterator[np.ndarray]:
        """What the camera sees now (``reveal``, the reveal's number, changes nothing)."""
        capture = self._open()
        for _ in range(self.frames_per_reveal):
            ok, frame = capture.read()
            if not ok or frame is None:
                capture.release()
                self._capture = None
                raise CameraError("The camera stopped sending pictures. Say true or lie.")
            self.last_frame = frame
            yield frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()


class ImageFeed:
    """Image files played as the camera: each reveal shows its own file, held still (reveal
    ``n`` the ``n``-th file, however often it is looked at; without a number, the next file).

    A path that cannot be read behaves like a camera that vanished for that reveal.
    """

    def __init__(self, paths: Sequence[Path | str], frames_per_reveal: int = 6) -> None:
        self.paths = [Path(p) for p in paths]
        self.frames_per_reveal = frames_per_reveal
        self.shown = 0
        self.last_frame: np.ndarray | None = None

    @classmethod
    def from_folder(cls, folder: Path | str, **kw: int) -> ImageFeed:
        folder = Path(folder)
        if not folder.is_dir():
            raise CameraError(f"{folder} is not a folder of images")
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        return cls(paths, **kw)

    def frames(self, reveal: int | None = None) -> Iterator[np.ndarray]:
        index = self.shown if reveal is None else reveal
        if index >= len(self.paths):
            raise CameraError("The camera shows nothing. Say true or lie.")
        path = self.paths[index]
        self.shown = index + 1
        frame = cv2.imread(str(path)) if path.is_file() else None
        if frame is None:
            raise CameraError("The camera stopped sending pictures. Say true or lie.")
        self.last_frame = frame
        for _ in range(self.frames_per_reveal):
            yield frame

    def close(self) -> None:
        pass
