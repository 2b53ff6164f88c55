"""Open a webcam quietly, with a message a user can act on when it is not there."""

from __future__ import annotations

import contextlib

import cv2


def open_camera(index: int) -> cv2.VideoCapture:
    """An opened ``cv2.VideoCapture``; raises ``UserError`` when camera ``index`` is absent."""
    from referee.errors import UserError

    if index < 0:  # OpenCV's VideoCapture(-1).read() crashes the process
        raise UserError(f"a camera is a number 0, 1, 2 ..., not {index}")
    # OpenCV prints several warnings of its own for a missing camera
    with contextlib.suppress(AttributeError):  # builds without the logging module
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    cap = cv2.VideoCapture(index)
    if not cap.isOpened():
        cap.release()
        raise UserError(f"camera {index} is not available (is it plugged in and free?)")
    return cap
