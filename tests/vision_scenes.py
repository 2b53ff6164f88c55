"""Small rendered card scenes for the vision and deck-calibration tests (no shared data)."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np

from referee.vision import faces
from referee.vision.synth import _card_quad, _paste_card, load_decks


def render_decks(folder: Path, n: int = 4, seed: int = 3, letters: dict | None = None) -> list:
    """``n`` own-renderer designs (TrueType indices), optionally with other corner letters."""
    styles = faces.own_styles(n, seed=seed)
    for i, st in enumerate(styles):
        st = dict(st, hershey=None)
        if letters:
            st["letters"] = letters
        faces.render_own_deck(f"t{i}", st, folder, height=200)
    return load_decks(folder, held_out=None)


def scene(deck, codes: list[str], seed: int, card_h: float = 0.5):
    """A 640x480 reveal: the cards in a row, apart, tilted (some upside down), on a table.

    Returns (BGR image, true ranks sorted).
    """
    rng = random.Random(seed)
    w, h = 640, 480
    table = np.array([rng.uniform(20, 90), rng.uniform(60, 140), rng.uniform(20, 120)])
    img = np.empty((h, w, 3), np.float32)
    img[:] = table
    n = len(codes)
    for i, code in enumerate(codes):
        face = cv2.imread(str(deck.path / f"{code}.jpg")).astype(np.float32)
        scale = card_h * h / face.shape[0]
        cx = w * (i + 0.5) / n
        angle = rng.uniform(-12, 12) + rng.choice([0, 180])
        quad = _card_quad(rng, cx, h / 2 + rng.uniform(-20, 20), face.shape, scale, angle)
        _paste_card(img, face, quad, None)
    noise = np.random.default_rng(seed).normal(0, 3, img.shape)
    out = np.clip(img + noise, 0, 255).astype(np.uint8)
    return out, sorted("JK" if c == "JK" else c[:-1] for c in codes)


def closeup(deck, code: str, seed: int, fill: float = 0.95, turn: float = 0.0):
    """One card filling a 640x480 frame (``fill`` x the frame height, turned ``turn``
    degrees plus a little), as a phone photo of a single card. Returns (BGR image, rank)."""
    rng = random.Random(seed)
    w, h = 640, 480
    img = np.empty((h, w, 3), np.float32)
    img[:] = (rng.uniform(20, 90), rng.uniform(60, 140), rng.uniform(20, 120))
    face = cv2.imread(str(deck.path / f"{code}.jpg")).astype(np.float32)
    scale = fill * h / face.shape[0]
    angle = turn + rng.uniform(-4, 4)
    quad = _card_quad(rng, w / 2 + rng.uniform(-15, 15), h / 2, face.shape, scale, angle)
    _paste_card(img, face, quad, None)
    noise = np.random.default_rng(seed).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), "JK" if code == "JK" else code[:-1]
