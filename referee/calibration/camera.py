"""``referee calibrate camera``: check framing, focus, exposure and card size; say what to change.

Pure measurements on one frame (:func:`measure`) turned into advice (:func:`advice`). The
card size comes from the card reader: a corner index should be at least ``MIN_INDEX_PX``
tall in a 640x480 frame to be read reliably (the detector was trained down to about 8 px
but is much surer above 14 px).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

MIN_INDEX_PX = 14.0
MAX_INDEX_PX = 120.0
DARK, BRIGHT = 60.0, 200.0
CLIPPED = 0.08
SHARP = 60.0


@dataclass
class CameraCheck:
    width: int
    height: int
    brightness: float  # mean grey level 0-255
    clipped: float  # share of burnt-out pixels (>= 250)
    contrast: float  # grey-level standard deviation
    sharpness: float  # variance of the Laplacian at 640 px
    cards: int | None = None  # cards the reader saw, if asked
    index_px: float | None = None  # median corner-index height at 640 px
    off_centre: float | None = None  # 0 = cards centred, 1 = at the edge


def measure(image: np.ndarray, reader=None) -> CameraCheck:
    """Measure one BGR frame (resized to 640 px wide); ``reader`` adds the card size."""
    h, w = image.shape[:2]
    s = 640 / max(w, 1)
    frame = cv2.resize(image, (640, max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    check = CameraCheck(
        width=w,
        height=h,
        brightness=float(grey.mean()),
        clipped=float((grey >= 250).mean()),
        contrast=float(grey.std()),
        sharpness=float(cv2.Laplacian(grey, cv2.CV_64F).var()),
    )
    if reader is not None:
        corners = reader.corners(frame)
        reveal = reader.read(frame)
        check.cards = reveal.count
        if corners:
            check.index_px = float(np.median([c.box[3] - c.box[1] for c in corners]))
            xs = [(c.box[0] + c.box[2]) / 2 for c in corners]
            ys = [(c.box[1] + c.box[3]) / 2 for c in corners]
            fh, fw = grey.shape[:2]
            dx = abs(np.mean(xs) - fw / 2) / (fw / 2)
            dy = abs(np.mean(ys) - fh / 2) / (fh / 2)
            check.off_centre = float(max(dx, dy))
    return check


def advice(c: CameraCheck) -> list[str]:
    """What to change, most important first; empty when the camera is fine."""
    tips: list[str] = []
    if c.width < 640 or c.height < 360:
        tips.append(f"the picture is small ({c.width}x{c.height}): use at least 640x480")
    if c.brightness < DARK:
        tips.append("too dark: turn on a light over the table or face the camera away from it")
    elif c.brightness > BRIGHT:
        tips.append("too bright: dim the light or move the lamp out of the picture")
    if c.clipped > CLIPPED:
        tips.append("glare: part of the picture is burnt white; tilt the camera or move the lamp")
    if c.contrast < 12:
        tips.append("the picture is flat (no contrast): check the lens is uncovered")
    if c.sharpness < SHARP:
        tips.append("out of focus or moving: clean the lens, hold the camera still, refocus")
    if c.cards == 0:
        tips.append("no cards seen: put a card face up in the middle of the picture")
    if c.index_px is not None:
        if c.index_px < MIN_INDEX_PX:
            tips.append("the cards look too small: move the camera closer to the table")
        elif c.index_px > MAX_INDEX_PX:
            tips.append("the cards look very large: move the camera back so several cards fit")
    if c.off_centre is not None and c.off_centre > 0.7:
        tips.append("the cards are at the edge of the picture: point the camera at the middle")
    return tips


def add_camera_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--camera", type=int, default=None, metavar="N", help="camera to check")
    src.add_argument("--image", type=Path, metavar="FILE", help="check a photo instead")
    parser.add_argument("--no-cards", action="store_true", help="skip the card-size check")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")


def _grab(index: int) -> np.ndarray:
    from referee.errors import UserError
    from referee.vision.camera import open_camera

    cap = open_camera(index)
    try:
        frame = None
        for _ in range(10):  # let auto-exposure settle
            ok, f = cap.read()
            if ok and f is not None:
                frame = f
        if frame is None:
            raise UserError(f"camera {index} gives no pictures")
        return frame
    finally:
        cap.release()


def run_camera(args: argparse.Namespace) -> int:
    import json

    from referee.errors import UserError

    if args.image is not None:
        if not args.image.is_file():
            raise UserError(f"no such image: {args.image}")
        frame = cv2.imread(str(args.image))
        if frame is None:
            raise UserError(f"cannot read {args.image} as an image")
    else:
        frame = _grab(args.camera if args.camera is not None else 0)
    reader = None
    if not args.no_cards:
        from referee.vision.reader import CardReader

        reader = CardReader()
    check = measure(frame, reader)
    tips = advice(check)
    if args.json:
        print(json.dumps({**asdict(check), "advice": tips}))
    else:
        print(f"picture {check.width}x{check.height}, brightness {check.brightness:.0f}/255, "
              f"sharpness {check.sharpness:.0f}"
              + (f", {check.cards} card(s), index {check.index_px:.0f} px"
                 if check.index_px is not None else ""))  # fmt: skip
        for t in tips:
            print(f"- {t}")
        if not tips:
            print("the camera looks good")
    return 0 if not tips else 1
