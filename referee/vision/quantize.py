"""Quantize the corner detector to 8-bit integers: about twice as fast on a laptop's CPU.

    python -m referee.vision.quantize                   # models/corners.onnx -> corners.int8.onnx
    python -m referee.vision.quantize --scenes 200 --seed 5 --faces .faces

The float model spends 47 ms of a 52 ms frame in its convolutions on these cores; as 8-bit
integers (onnxruntime's QLinearConv, VNNI where the CPU has it) they take about half. The
quantization is static: the activations' ranges are measured on synthetic scenes made from
the *training* designs (:func:`referee.vision.synth.make_scene` and
:func:`~referee.vision.synth.make_laptop_scene`, never a held-out design, never a real
photo), letterboxed exactly as the reader does. Weights are per channel. The head's last
convolutions (box distribution, class scores, the card-centre keypoint) and the decoding
after them stay in floats: that is where a few 8-bit steps would move a box or a score.

Needs ``onnx`` (the ``[train]`` extra) and ``.faces`` (``python -m referee.vision.faces
.faces``); the runtime only loads the result.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from referee.paths import MODELS_DIR

SOURCE = MODELS_DIR / "corners.onnx"
TARGET = MODELS_DIR / "corners.int8.onnx"
#: the detect/pose head's final 1x1 convolutions: box distribution (cv2), class scores
#: (cv3) and keypoints (cv4), one per stride
HEAD_FINAL = tuple(
    f"/model.22/{b}.{i}/{b}.{i}.2/Conv" for b in ("cv2", "cv3", "cv4") for i in (0, 1, 2)
)


def float_nodes(model) -> list[str]:
    """Nodes left in floats: the head's final convolutions and everything of the head that is
    not one of its hidden convolution blocks (DFL, decoding, concatenations)."""
    hidden = tuple(
        f"/model.22/{b}.{i}/{b}.{i}.{j}/"
        for b in ("cv2", "cv3", "cv4")
        for i in (0, 1, 2)
        for j in (0, 1)
    )
    names = [node.name for node in model.graph.node]
    return [
        n
        for n in names
        if n in HEAD_FINAL or (n.startswith("/model.22/") and not n.startswith(hidden))
    ]


def calibration_inputs(faces: Path, n: int, seed: int, imgsz: int = 512, laptop: float = 0.5):
    """Letterboxed inputs of ``n`` synthetic scenes of the training designs (a share
    ``laptop`` of them seen from a laptop's webcam), as the reader feeds the network; all
    640x480 (a webcam's frame), so the calibration's histograms share one shape."""
    import cv2

    from referee.vision.detector import letterbox
    from referee.vision.synth import load_decks, make_laptop_scene, make_scene

    decks = load_decks(faces, held_out=False)
    if not decks:
        raise SystemExit(
            f"quantize: no training designs in {faces} (python -m referee.vision.faces)"
        )
    rng = random.Random(seed)
    for _ in range(n):
        if rng.random() < laptop:
            img = make_laptop_scene(rng, decks)[0]
        else:
            img = make_scene(rng, decks)[0]
        if img.shape[:2] != (480, 640):
            img = cv2.resize(img, (640, 480), interpolation=cv2.INTER_AREA)
        yield letterbox(img, imgsz)[0]


def quantize(
    source: Path = SOURCE,
    target: Path = TARGET,
    *,
    faces: Path = Path(".faces"),
    scenes: int = 160,
    seed: int = 5,
) -> Path:
    """Write the 8-bit detector ``target`` from the float ``source``."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    inputs = iter(calibration_inputs(faces, scenes, seed))

    class Scenes(CalibrationDataReader):
        def get_next(self):
            x = next(inputs, None)
            return None if x is None else {"images": x}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(source), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(target),
            Scenes(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=float_nodes(onnx.load(str(pre))),
        )
    # keep the source's metadata (class names, stride, image size) for the reader
    src, out = onnx.load(str(source)), onnx.load(str(target))
    del out.metadata_props[:]
    out.metadata_props.extend(src.metadata_props)
    p = out.metadata_props.add()
    p.key, p.value = "quantized", f"int8 static, {scenes} synthetic scenes, seed {seed}"
    onnx.save(out, str(target))
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m referee.vision.quantize", description=__doc__)
    ap.add_argument("--source", type=Path, default=SOURCE)
    ap.add_argument("--out", type=Path, default=TARGET)
    ap.add_argument("--faces", type=Path, default=Path(".faces"))
    ap.add_argument("--scenes", type=int, default=160, help="calibration scenes")
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args(argv)
    if not a.source.is_file():
        print(f"quantize: no such model {a.source}", file=sys.stderr)
        return 2
    print(quantize(a.source, a.out, faces=a.faces, scenes=a.scenes, seed=a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
