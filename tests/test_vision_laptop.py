"""Laptop-view synthetic scenes: the camera's geometry, the labels, the reveal's truth."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.vision.labels import RANK_CLASSES
from referee.vision.synth import Webcam, make_laptop_scene
from tests.vision_scenes import render_decks


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    return render_decks(tmp_path_factory.mktemp("faces"), n=2)


def test_the_webcam_sees_the_table_in_perspective():
    cam = Webcam(640, 480, height=35, elevation=30, hfov=70)
    # the middle of the picture looks at the table height / tan(elevation) ahead
    p = cam.on_table(320, 240)
    assert p is not None and p[1] == pytest.approx(35 / np.tan(np.radians(30)))
    assert np.allclose(cam.project(p[None, :])[0], (320, 240), atol=1e-3)
    # a card lying flat: its far edge is narrower than its near edge, and it is foreshortened
    near = cam.project(np.array([[-3.2, 40, 0], [3.2, 40, 0]]))
    far = cam.project(np.array([[-3.2, 48.9, 0], [3.2, 48.9, 0]]))
    assert far[1, 0] - far[0, 0] < 0.9 * (near[1, 0] - near[0, 0])
    assert near[0, 1] - far[0, 1] < 0.7 * (near[1, 0] - near[0, 0]) * 8.9 / 6.4
    assert Webcam(640, 480, 35, 15, 70).on_table(320, 0) is None  # above the horizon


def test_scenes_are_reproducible_and_labelled_inside_the_frame(decks):
    a = make_laptop_scene(random.Random(5), decks)
    b = make_laptop_scene(random.Random(5), decks)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]
    for seed in range(4):
        img, labels, info = make_laptop_scene(random.Random(seed), decks)
        h, w = img.shape[:2]
        assert 25 <= info.camera.height <= 45 and 15 <= info.camera.elevation <= 60
        for cls, x1, y1, x2, y2, *_ in labels:
            assert 0 <= cls < len(RANK_CLASSES)
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        assert len(info.reveal) <= 6


def test_the_reveal_is_the_cards_shown_not_those_lying_around(decks):
    codes = ["7H", "7S", "QD"]
    strays = 0
    for seed in range(8):
        _, labels, info = make_laptop_scene(random.Random(seed), decks, codes=codes)
        assert all(r in ("7", "Q") for r in info.reveal)
        assert info.reveal.count("7") <= 2 and info.reveal.count("Q") <= 1
        strays += len(info.others)
    assert strays > 0  # the generator lays other cards around


def test_a_hand_holding_a_fan_covers_some_corner_indices(decks):
    # in a fan each card shows its top-left index (the next card covers the rest); a card
    # showing none has its index under the thumb
    thumbed = 0
    for seed in range(8):
        codes = ["2C", "5D", "9H", "KS"]
        _, labels, info = make_laptop_scene(
            random.Random(seed), decks, codes=codes, held=True, card_px=(90, 200)
        )
        assert info.held and len(info.reveal) >= 2
        thumbed += len(info.reveal) < len(codes)
    assert thumbed >= 2
