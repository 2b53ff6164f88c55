"""The reader at the table runs ONNX: the same readings as the .pt pipeline, and no torch."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.vision.detector import letterbox, nms, to_frame
from referee.vision.group import within
from referee.vision.ranker import RANKER_PT
from referee.vision.reader import DEFAULT_MODEL, MODEL_FLOAT, MODEL_PT, CardReader
from tests.vision_scenes import closeup, render_decks, scene

ROOT = Path(__file__).resolve().parents[1]
HAVE_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "ultralytics"))
needs_torch = pytest.mark.skipif(
    not HAVE_TORCH, reason="the .pt pipeline needs torch and ultralytics (pip install -e .[train])"
)


def test_letterbox_pads_to_the_stride_as_predict_does():
    frame = np.zeros((480, 640, 3), np.uint8)
    x, hw = letterbox(frame, 512)
    assert x.shape == (1, 3, 384, 512) and hw == (384, 512) and x.dtype == np.float32
    x, hw = letterbox(np.zeros((500, 375, 3), np.uint8), 512)
    assert hw == (512, 384)  # 375 * 512 / 500 = 384: no padding needed
    x, hw = letterbox(np.zeros((480, 640, 3), np.uint8), 512, auto=False)
    assert hw == (512, 512)
    # grey padding above and below, the frame's pixels (RGB, 0-1) in the middle
    frame[:, :, 0] = 255  # blue in BGR
    x, _ = letterbox(frame, 512, auto=False)
    assert x[0, :, 0, 0] == pytest.approx([114 / 255] * 3)
    assert x[0, :, 256, 256] == pytest.approx([0, 0, 1])


def test_points_go_back_to_the_frame_they_came_from():
    h, w = 480, 640
    _, hw = letterbox(np.zeros((h, w, 3), np.uint8), 416)
    g = min(hw[0] / h, hw[1] / w)
    pad_y = (hw[0] - round(h * g)) / 2
    pts = np.array([[[10.0, 20.0], [600.0, 470.0]]])
    seen = pts * g + [0, round(pad_y - 0.1)]
    assert to_frame(seen, hw, (h, w)) == pytest.approx(pts, abs=1e-3)
    assert to_frame(np.array([[-50.0, 900.0]]), hw, (h, w)).tolist() == [[0.0, 480.0]]


def test_nms_keeps_the_best_of_overlapping_boxes_only():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [0, 0, 10, 6]], float)
    scores = np.array([0.5, 0.9, 0.3, 0.4])
    # box 1 beats 0 (IoU 0.82); box 3 overlaps box 1 by 0.5 (not above 0.7) and stays
    assert nms(boxes, scores, 0.7).tolist() == [1, 3, 2]
    assert nms(boxes[:0], scores[:0], 0.7).tolist() == []


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    return render_decks(tmp_path_factory.mktemp("faces"), n=4, seed=5)


def fixed_scenes(decks, truth: bool = False) -> list:
    """Ten rendered reveals: 1-4 cards in a row, tilted, some upside down, two close-ups;
    with ``truth``, each as (image, true ranks sorted)."""
    rng = random.Random(42)
    out = []
    for k in range(8):
        deck = decks[k % len(decks)]
        codes = [rng.choice(deck.codes) for _ in range(rng.randint(1, 4))]
        out.append(scene(deck, codes, seed=500 + k, card_h=0.55 - 0.05 * len(codes)))
    for k, turn in enumerate((0, 90)):
        img, rank = closeup(decks[k], decks[k].codes[7], seed=600 + k, turn=turn)
        out.append((img, [rank]))
    return out if truth else [img for img, _ in out]


def _box(card):
    return card.box


@needs_torch
@pytest.mark.slow  # imports torch and ultralytics (~10 s here) and reads every scene twice
def test_onnx_reads_the_same_cards_as_the_pt_pipeline(decks):
    onnx = CardReader(MODEL_FLOAT)
    pt = CardReader(MODEL_PT, ranker=RANKER_PT)
    assert pt.detector.__class__.__name__ == "UltraDetector" and pt.ranker.net is not None
    seen = 0
    for i, img in enumerate(fixed_scenes(decks)):
        a, b = onnx.read(img), pt.read(img)
        assert a.ranks == b.ranks and a.readable == b.readable, f"scene {i}"
        pairs = zip(sorted(a.cards, key=_box), sorted(b.cards, key=_box), strict=True)
        for x, y in pairs:
            assert x.rank == y.rank
            assert np.abs(np.subtract(x.box, y.box)).max() <= 2.0, f"scene {i}: {x} vs {y}"
            assert x.confidence == pytest.approx(y.confidence, abs=0.01)
        seen += a.count
    assert seen >= 12  # the scenes were read, not all empty


def test_the_eight_bit_detector_reads_as_well_as_the_float_one(decks):
    """The default detector is the float export quantized (8-bit convolutions, the head's
    last layers in floats): on the fixed scenes it reads as many cards right as the float
    one, and every card it reads lies where the float one saw a card: most of its box
    within the float one's, as a box may grow or shrink by an index the other found (a
    joker's second corner, 20 px). The 8-bit kernels differ by processor: on an AVX2-only
    machine (2026-12-05) a joker's box was narrower than the float one's, IoU 0.67 with
    94% of it inside."""
    import onnx

    model = onnx.load(str(DEFAULT_MODEL))
    ops = {n.op_type for n in model.graph.node}
    assert (
        DEFAULT_MODEL.name == "corners.int8.onnx" and {"QuantizeLinear", "DequantizeLinear"} <= ops
    )
    int8, flt = CardReader(), CardReader(MODEL_FLOAT)
    right = {"int8": 0, "float": 0}
    for i, (img, truth) in enumerate(fixed_scenes(decks, truth=True)):
        a, b = int8.read(img), flt.read(img)
        for key, got in (("int8", a), ("float", b)):
            right[key] += sum((Counter(got.ranks) & Counter(truth)).values())
        for x in a.cards:  # each card the int8 reader sees, the float one sees there too
            best = max(within(x.box, y.box) for y in b.cards)
            assert best >= 0.8, f"scene {i}: {x} lies on no float card ({best:.0%} within one)"
    assert right["int8"] >= right["float"] >= 12, right


BLOCK_TORCH = """
import sys
for name in ("torch", "torchvision", "ultralytics"):
    sys.modules[name] = None  # any import of them now fails
"""


def test_look_and_the_live_paths_need_no_torch(decks, tmp_path):
    """`referee look` reads a photo with torch, torchvision and ultralytics unimportable;
    the play, listen and replay modules import none of them."""
    img = fixed_scenes(decks)[0]
    photo = tmp_path / "reveal.jpg"
    cv2.imwrite(str(photo), img)
    code = (
        BLOCK_TORCH
        + f"""
import json
import referee.live.cli, referee.live.demo, referee.speech.cli, referee.replay
from referee.cli import main
rc = main(["look", "--json", {str(photo)!r}])
heavy = [m for m in ("torch", "ultralytics", "faster_whisper") if sys.modules.get(m)]
print(json.dumps({{"rc": rc, "heavy": heavy}}))
"""
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    look, status = (json.loads(line) for line in out.stdout.strip().splitlines()[-2:])
    assert status == {"rc": 0, "heavy": []}
    assert look["count"] >= 1 and set(look) == {"image", "cards", "count"}


def test_a_pt_model_without_torch_is_a_clear_error(tmp_path):
    code = (
        BLOCK_TORCH
        + f"""
from referee.cli import main
raise SystemExit(main(["look", "--model", {str(MODEL_PT)!r}, {str(tmp_path / "x.jpg")!r}]))
"""
    )
    cv2.imwrite(str(tmp_path / "x.jpg"), np.zeros((48, 64, 3), np.uint8))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "needs torch and ultralytics" in out.stderr and "Traceback" not in out.stderr
