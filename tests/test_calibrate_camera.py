"""``referee calibrate camera``: measurements and the advice they give."""

from __future__ import annotations

import json

import cv2
import numpy as np

from referee.calibration.camera import CameraCheck, advice, measure
from referee.cli import main
from referee.vision.group import Corner
from referee.vision.reader import Reveal, SeenCard


def textured(level: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = rng.normal(level, 40, (480, 640, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


class StubReader:
    """Pretends to see one card whose corner index is ``px`` pixels tall at (x, y)."""

    def __init__(self, px: float, x: float = 320, y: float = 240):
        self.box = (x, y, x + px / 2, y + px)

    def corners(self, frame):
        return [Corner("Q", 0.9, self.box, None)]

    def read(self, frame):
        return Reveal([SeenCard("Q", None, 0.9, self.box)], readable=True, message="")


def test_a_good_frame_needs_no_change():
    assert advice(measure(textured(120), StubReader(30))) == []


def test_dark_bright_and_glare():
    assert any("too dark" in t for t in advice(measure(textured(25))))
    assert any("too bright" in t for t in advice(measure(textured(230))))
    glare = textured(120)
    glare[:200] = 255
    assert any("glare" in t for t in advice(measure(glare)))


def test_blur_is_out_of_focus():
    blurred = cv2.GaussianBlur(textured(120), (0, 0), 6)
    tips = advice(measure(blurred))
    assert any("focus" in t for t in tips)


def test_card_size_and_framing():
    assert any("closer" in t for t in advice(measure(textured(120), StubReader(6))))
    assert any("move the camera back" in t for t in advice(measure(textured(120), StubReader(200))))
    edge = advice(measure(textured(120), StubReader(30, x=5, y=5)))
    assert any("edge" in t for t in edge)


def test_no_cards_seen():
    check = CameraCheck(640, 480, 120, 0.0, 40, 500, cards=0)
    assert any("no cards" in t for t in advice(check))


def test_small_picture():
    check = CameraCheck(320, 240, 120, 0.0, 40, 500)
    assert any("small" in t for t in advice(check))


def test_cli_on_an_image(tmp_path, capsys):
    p = tmp_path / "dark.png"
    cv2.imwrite(str(p), textured(20))
    assert main(["calibrate", "camera", "--image", str(p), "--no-cards", "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["brightness"] < 60 and any("too dark" in t for t in obj["advice"])


def test_cli_errors(tmp_path, capsys):
    assert main(["calibrate", "camera", "--image", str(tmp_path / "x.png")]) == 2
    assert "no such image" in capsys.readouterr().err
    assert main(["calibrate", "camera", "--camera", "97", "--no-cards"]) == 2
    assert "camera 97 is not available" in capsys.readouterr().err
