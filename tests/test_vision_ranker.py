"""The second stage: index patches turned upright by the card centre, and the rank classifier."""

from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.vision.group import Corner
from referee.vision.ranker import CLASSES, DEFAULT_RANKER, NONE, PATCH, Ranker, index_patch


def glyph_scene(angle: float) -> tuple[np.ndarray, tuple, tuple]:
    """A grey frame with an 'L' glyph whose card centre lies 60 px below it, all turned by
    ``angle`` degrees about the frame centre; returns (frame, glyph box, card centre)."""
    img = np.full((240, 240), 200, np.uint8)
    cv2.rectangle(img, (110, 50), (116, 80), 20, -1)  # the L's stem
    cv2.rectangle(img, (110, 74), (130, 80), 20, -1)  # its foot, to the right
    m = cv2.getRotationMatrix2D((120, 120), angle, 1.0)
    img = cv2.warpAffine(img, m, (240, 240), borderValue=200)
    pts = np.float32([[108, 48], [132, 48], [132, 82], [108, 82], [120, 125]])
    pts = cv2.transform(pts[None], m)[0]
    box = (*pts[:4].min(axis=0), *pts[:4].max(axis=0))
    return img, tuple(float(v) for v in box), tuple(float(v) for v in pts[4])


@pytest.mark.parametrize("angle", [90, 180, -135, 30])
def test_patches_turn_the_card_centre_downwards(angle):
    img0, box0, c0 = glyph_scene(0)
    upright = index_patch(img0, box0, c0)
    img, box, c = glyph_scene(angle)
    turned = index_patch(img, box, c)
    assert turned.shape == (PATCH, PATCH)

    # the same glyph, the same way up, whatever the frame's rotation (scale may differ a bit
    # because the box is axis-aligned): the L's foot points right, the stem is on the left
    def foot_right(p):  # the lowest dark row reaches further right than the highest
        ys, xs = np.nonzero(p < 110)
        return xs[ys >= ys.max() - 2].max() > xs[ys <= ys.min() + 2].max() + 8

    assert foot_right(upright)
    a = cv2.resize(turned, (24, 24)).astype(float)
    b = cv2.resize(upright, (24, 24)).astype(float)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.6
    flipped = cv2.rotate(upright, cv2.ROTATE_180).astype(float)
    assert np.corrcoef(a.ravel(), cv2.resize(flipped, (24, 24)).ravel())[0, 1] < 0.5


def test_no_centre_means_no_turn():
    img, box, _ = glyph_scene(0)
    assert np.array_equal(index_patch(img, box, None), index_patch(img, box, (120.0, 200.0)))


@pytest.fixture(scope="module")
def ranker():
    if not DEFAULT_RANKER.exists():
        pytest.skip("models/ranks.pt not trained")
    return Ranker()


def test_ranker_reads_rendered_indices(ranker):
    """Indices drawn with a font at a slant, as in a photo, read right; blank paper is '-'."""
    from tests.vision_scenes import render_decks

    patches, truth = [], []
    with tempfile.TemporaryDirectory() as tmp:
        (deck,) = render_decks(Path(tmp), n=1, seed=11)
        for code in ("AS", "7H", "10C", "QD", "KS", "4C", "9H", "JD"):
            face = cv2.imread(str(deck.path / f"{code}.jpg"), cv2.IMREAD_GRAYSCALE)
            fh, fw = face.shape
            x1, y1, x2, y2 = deck.card_boxes.get(code, deck.index_box)
            box = (x1 * fw, y1 * fh, x2 * fw, y2 * fh)
            patches.append(index_patch(face, box, (fw / 2, fh / 2)))
            truth.append(code[:-1])
        patches.append(np.full((PATCH, PATCH), 235, np.uint8))
        truth.append("-")
    probs = ranker.probs(np.stack(patches))
    got = [CLASSES[int(k)] for k in probs.argmax(1)]
    right = sum(g == t for g, t in zip(got, truth, strict=True))
    assert right >= 8, list(zip(truth, got, strict=True))
    assert got[-1] == "-" and probs[-1, NONE] > 0.5


def test_ranker_embeddings_are_unit_vectors(ranker):
    img, box, c = glyph_scene(0)
    p = ranker.patches(img, [Corner("A", 0.9, box, c)] * 3)
    probs, emb = ranker.run(p)
    assert probs.shape == (3, len(CLASSES)) and np.allclose(probs.sum(1), 1, atol=1e-5)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-4)


def test_training_crops_take_the_rank_of_the_index_they_match():
    """scene_crops: a detection on a true index gets its rank, one far from any gets '-',
    one half-overlapping is left out; every true index also gives a jittered crop."""
    import random

    from referee.vision.train_ranker import scene_crops

    img = np.full((200, 300, 3), 120, np.uint8)
    labels = [(3, 20.0, 30.0, 40.0, 70.0, 100.0, 120.0, 2)]  # a "4" whose card centre is below
    corners = [
        Corner("7", 0.6, (21.0, 31.0, 41.0, 71.0), (98.0, 118.0)),  # on the index
        Corner("Q", 0.5, (200.0, 100.0, 220.0, 140.0), (150.0, 150.0)),  # far away
        Corner("2", 0.5, (30.0, 30.0, 50.0, 70.0), (100.0, 120.0)),  # half on it
    ]
    xs, ys = scene_crops(random.Random(0), img, labels, corners)
    assert all(x.shape == (PATCH, PATCH) for x in xs)
    assert ys[:2] == [3, NONE]
    assert ys[2] == 3  # the jittered crop of the true index
    assert set(ys[3:]) <= {NONE} and len(ys) <= 4  # at most one extra: a negative on the card
