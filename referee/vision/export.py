"""Export the card models to ONNX, which is all the referee runs at the table (no torch).

    python -m referee.vision.export                  # models/corners.pt, models/ranks.pt
    python -m referee.vision.export --corners runs/x/best.pt --ranks build/ranks.pt

Each ``NAME.pt`` becomes ``NAME.onnx`` beside it (or ``--out DIR``). Needs the ``[train]``
extra (torch, ultralytics, onnx). The detector is exported by ultralytics with a dynamic
input size (the runtime letterboxes a 640x480 frame to 512x384, as ``predict`` does with
the ``.pt``), opset 18, no graph simplifier (nothing is installed at run time:
``YOLO_AUTOINSTALL=False``); the rank classifier by ``torch.onnx.export`` with two
outputs, class probabilities and the feature vector, and its settings as metadata.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

from referee.paths import MODELS_DIR

IMGSZ = 512


def export_corners(pt: Path, out: Path | None = None, imgsz: int = IMGSZ) -> Path:
    """``corners.pt`` -> ``corners.onnx`` (dynamic height and width, batch 1)."""
    from referee.vision.ultra import ultralytics

    out = out or pt.with_suffix(".onnx")
    ul = ultralytics(threads=2)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / pt.name  # ultralytics writes beside the weights it reads
        shutil.copyfile(pt, copy)
        model = ul.YOLO(str(copy), task="pose")
        made = model.export(
            format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=18, device="cpu"
        )
        _drop_date(Path(made))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(made, out)
    return out


def _drop_date(path: Path) -> None:
    """Remove the export time from the metadata, so the same weights export the same bytes."""
    import onnx

    m = onnx.load(str(path))
    keep = [p for p in m.metadata_props if p.key != "date"]
    del m.metadata_props[:]
    m.metadata_props.extend(keep)
    onnx.save(m, str(path))


def export_ranks(pt: Path, out: Path | None = None) -> Path:
    """``ranks.pt`` -> ``ranks.onnx``: input ``patches`` (N, 1, 48, 48) float grey levels,
    outputs ``probs`` (N, classes) and ``features`` (N, D); settings in the metadata."""
    import onnx
    import torch

    from referee.vision.ranker import Ranker

    out = out or pt.with_suffix(".onnx")
    ranker = Ranker(pt)
    net = ranker.net

    class Both(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            e = self.net.embed(x)
            return torch.softmax(self.net.head(e), 1), e

    dummy = torch.zeros(2, 1, ranker.patch, ranker.patch)
    out.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # the TorchScript exporter is "legacy" but needs no onnxscript
        warnings.simplefilter("ignore", DeprecationWarning)
        _export(torch, Both().eval(), dummy, out)
    m = onnx.load(str(out))
    meta = {
        "classes": json.dumps(list(ranker.classes)),
        "patch": str(ranker.patch),
        "context": str(ranker.context),
        "source": pt.name,
    }
    for k, v in meta.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, str(out))
    return out


def _export(torch, module, dummy, out: Path) -> None:
    torch.onnx.export(
        module,
        (dummy,),
        str(out),
        input_names=["patches"],
        output_names=["probs", "features"],
        dynamic_axes={"patches": {0: "n"}, "probs": {0: "n"}, "features": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m referee.vision.export", description=__doc__)
    ap.add_argument("--corners", type=Path, default=MODELS_DIR / "corners.pt")
    ap.add_argument("--ranks", type=Path, default=MODELS_DIR / "ranks.pt")
    ap.add_argument("--out", type=Path, default=None, help="folder (default: beside each .pt)")
    ap.add_argument("--imgsz", type=int, default=IMGSZ)
    a = ap.parse_args(argv)
    for pt in (a.corners, a.ranks):
        if not pt.is_file():
            print(f"export: no such model {pt}", file=sys.stderr)
            return 2
    dest = (lambda p: a.out / p.with_suffix(".onnx").name) if a.out else (lambda p: None)
    print(export_corners(a.corners, dest(a.corners), a.imgsz))
    print(export_ranks(a.ranks, dest(a.ranks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
