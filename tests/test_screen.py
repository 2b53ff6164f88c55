"""The table screen, checked the way a person sees it: a real window under Xvfb, screenshotted."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import cv2
import numpy as np
import pytest

from referee.game.engine import legal_ranks
from referee.live.screen import BG, Seen, Window, render
from tests.game_helpers import session


def view_after(*phrases: str):
    s = session()
    for phrase in phrases:
        s.hear(phrase)
    return s.state.to_dict(legal_ranks(s.state))


def test_render_shows_the_turn_the_camera_and_the_boxes():
    frame = np.full((480, 640, 3), 255, np.uint8)
    img = render(view_after("two aces"), frame, [Seen("A", (100, 100, 200, 250))])
    assert img.shape == (720, 1280, 3)
    camera = img[30:442, 700:1250]
    assert (camera > 240).all(axis=2).mean() > 0.8  # the white frame is shown
    assert (np.abs(camera.astype(int) - (60, 200, 255)).sum(axis=2) < 60).any()  # a box drawn
    headline = img[20:110, 20:660]
    assert (headline > 230).all(axis=2).sum() > 2000  # big white text


def test_render_differs_by_phase():
    playing = render(view_after("two aces"))
    called = render(view_after("two aces", "Ben calls cheat"))
    assert np.abs(playing.astype(int) - called.astype(int)).sum() > 100_000


@pytest.fixture
def display():
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (scripts/setup.sh installs it)")
    # -displayfd: the server picks a free display and writes its number once it accepts clients,
    # so neither a busy display number nor a slow start on a loaded machine can fool the test
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x900x24"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              pass_fds=(write,))  # fmt: skip
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        pytest.fail("Xvfb did not start")
    old = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = f":{number}"
    yield f":{number}"
    if old is None:
        os.environ.pop("DISPLAY", None)
    else:
        os.environ["DISPLAY"] = old
    server.terminate()
    server.wait()


def green_area(shot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the screenshot shows the table green the window draws."""
    return np.nonzero(np.all(np.abs(shot.astype(int) - BG) < 12, axis=2))


def test_the_window_shows_the_screen_under_xvfb(display):
    from PIL import ImageGrab

    img = render(view_after("two aces", "Ben calls cheat"))
    # On a loaded machine, Qt under a bare Xvfb (no window manager) now and then maps a window
    # that never gets its first paint, however often it is shown; a fresh window does. So: up to
    # four windows, each shown for 5 s or until the screenshot matches what was rendered.
    for _ in range(4):
        window = Window()
        deadline = time.monotonic() + 5
        while True:
            window.show(img)
            time.sleep(0.05)
            shot = np.array(ImageGrab.grab(xdisplay=display))[:, :, ::-1].copy()
            ys, xs = green_area(shot)
            score = 0.0
            if len(ys) > 100_000:  # the window is up; is it painted in full yet?
                shown = shot[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
                shown = cv2.resize(shown, (img.shape[1], img.shape[0]))
                score = cv2.matchTemplate(shown, img, cv2.TM_CCOEFF_NORMED).max()
            if score > 0.8 or time.monotonic() > deadline:
                break
        window.close()
        if score > 0.8:
            break
    assert len(ys) > 100_000, "no referee screen visible"
    assert score > 0.8, "the window does not show what was rendered"
