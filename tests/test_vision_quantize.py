"""Quantizing the detector: the script that made ``models/corners.int8.onnx`` still works."""

from __future__ import annotations

import importlib.util

import pytest

from referee.vision.detector import OnnxDetector
from referee.vision.quantize import HEAD_FINAL, quantize
from referee.vision.reader import MODEL_FLOAT
from tests.vision_scenes import render_decks, scene

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("onnx") is None, reason="quantizing needs onnx ([train] extra)"
)


@pytest.mark.slow  # renders four designs and quantizes the 12 MB detector (~20 s here)
def test_quantize_writes_an_eight_bit_detector_that_finds_the_indices(tmp_path):
    import onnx

    faces = tmp_path / "faces"
    decks = render_decks(faces, n=4, seed=5)
    out = quantize(MODEL_FLOAT, tmp_path / "c.int8.onnx", faces=faces, scenes=4, seed=1)
    model = onnx.load(str(out))
    made_by = {o: n.op_type for n in model.graph.node for o in n.output}
    convs = {n.name: n for n in model.graph.node if n.op_type == "Conv"}
    # 8-bit weights (dequantized at the convolution, which onnxruntime fuses into one
    # integer convolution), except in the head's last convolutions
    int8 = {k for k, n in convs.items() if made_by.get(n.input[1]) == "DequantizeLinear"}
    assert len(int8) >= 50
    assert set(HEAD_FINAL) <= set(convs) and not int8 & set(HEAD_FINAL)
    meta = {p.key: p.value for p in model.metadata_props}
    assert "names" in meta and meta["quantized"].startswith("int8 static, 4 synthetic scenes")
    img, truth = scene(decks[0], ["QH", "7C"], seed=3, card_h=0.45)
    found = OnnxDetector(out).detect(img, conf=0.25)
    assert {c.rank for c in found} >= set(truth)
