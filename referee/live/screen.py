"""The table screen: big type readable from across the table, drawn with OpenCV.

:func:`render` is pure (state view in, image out), so it can be checked without a display;
:class:`Window` shows it when a display exists and quietly does nothing otherwise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from referee.game.cards import rank_name

WIDTH, HEIGHT = 1280, 720
BG = (34, 70, 30)  # card-table green
INK = (245, 245, 245)
DIM = (170, 200, 170)
ALERT = (60, 200, 255)
FONT = cv2.FONT_HERSHEY_DUPLEX
QT_FONTS = "/usr/share/fonts/truetype/dejavu"


@dataclass(frozen=True)
class Seen:
    """A card the camera read, for drawing: rank and its box in the frame."""

    rank: str
    box: tuple[float, float, float, float]
    confidence: float = 1.0


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float,
          colour: tuple[int, int, int] = INK, thickness: int = 2) -> None:  # fmt: skip
    cv2.putText(img, text, org, FONT, scale, (0, 0, 0), thickness + 4, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, thickness, cv2.LINE_AA)


def _fit(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(view: dict[str, Any], frame: np.ndarray | None = None,
           seen: Sequence[Seen] = (), message: str = "") -> np.ndarray:  # fmt: skip
    """Draw the game ``view`` (``State.to_dict``) with the camera ``frame`` and cards read."""
    img = np.full((HEIGHT, WIDTH, 3), BG, np.uint8)
    turn = view.get("turn")
    if view.get("phase") == "over" or turn is None:
        headline = f"{view.get('winner') or 'Nobody'} wins game {view.get('game')}"
        subline = 'Say "new game"'
    else:
        headline = f"{turn}'s turn"
        due = view.get("rank_due")
        subline = f"{rank_name(due, 2).upper()} due" if due else "any rank"
        if view.get("phase") == "reveal" and view.get("challenged"):
            caller = view.get("caller")
            headline = f"{caller} calls {view['challenged']}" if caller else view["challenged"]
            subline = "TURN THE CARDS OVER"
        elif view.get("phase") == "who_called":
            subline = "WHO CALLED?"
    _text(img, _fit(headline, 22), (30, 90), 2.4, INK, 4)
    _text(img, subline, (30, 170), 1.8, ALERT, 3)
    _text(img, f"Pile: {view.get('pile', 0)}", (30, 250), 1.6, INK, 3)
    y = 310
    wins = view.get("wins", {})
    for name, count in view.get("hands", {}).items():
        marker = ">" if name == turn else " "
        _text(img, f"{marker} {name[:12]:<12} {count:>3} cards  {wins.get(name, 0)} won",
              (30, y), 1.0, INK if name == turn else DIM, 2)  # fmt: skip
        y += 42
    claim = view.get("last_claim")
    if claim:
        said = f"{claim['player']}: {claim['count']} x {claim['rank']}"
        _text(img, _fit("Last claim: " + said, 36), (30, HEIGHT - 110), 1.0, INK, 2)
    if view.get("last_verdict"):
        _text(img, _fit(view["last_verdict"], 44), (30, HEIGHT - 65), 1.0, ALERT, 2)
    if message:
        _text(img, _fit(message, 44), (30, HEIGHT - 20), 0.9, DIM, 2)
    _draw_camera(img, frame, seen)
    return img


def _draw_camera(img: np.ndarray, frame: np.ndarray | None, seen: Sequence[Seen]) -> None:
    x0, y0, w, h = 700, 30, 550, 412
    cv2.rectangle(img, (x0 - 2, y0 - 2), (x0 + w + 2, y0 + h + 2), DIM, 2)
    if frame is None or frame.size == 0:
        _text(img, "no camera", (x0 + 170, y0 + h // 2), 1.2, DIM, 2)
        return
    fh, fw = frame.shape[:2]
    scale = min(w / fw, h / fh)
    small = cv2.resize(frame, (int(fw * scale), int(fh * scale)))
    if small.ndim == 2:
        small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    img[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
    for card in seen:
        x1, y1, x2, y2 = (int(v * scale) for v in card.box)
        cv2.rectangle(img, (x0 + x1, y0 + y1), (x0 + x2, y0 + y2), ALERT, 3)
        _text(img, card.rank, (x0 + x1, max(y0 + 30, y0 + y1 - 8)), 1.2, ALERT, 2)


class Window:
    """An OpenCV window; without a display it stays silent and the game goes on."""

    TITLE = "referee"

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and bool(os.environ.get("DISPLAY") or sys.platform != "linux")
        if os.path.isdir(QT_FONTS):  # OpenCV's bundled Qt ships no fonts of its own
            os.environ.setdefault("QT_QPA_FONTDIR", QT_FONTS)
        self._opened = False

    def show(self, image: np.ndarray) -> None:
        if not self.enabled:
            return
        try:
            if not self._opened:
                cv2.namedWindow(self.TITLE, cv2.WINDOW_NORMAL)
                cv2.resizeWindow(self.TITLE, WIDTH, HEIGHT)
                self._opened = True
            cv2.imshow(self.TITLE, image)
            cv2.waitKey(1)
        except cv2.error as err:
            print(f"referee: no screen ({err.msg.strip()}); going on without it", file=sys.stderr)
            self.enabled = False

    def close(self) -> None:
        if self._opened:
            cv2.destroyWindow(self.TITLE)
            cv2.waitKey(1)
