"""Second stage of the card reader: a small CNN that reads the rank of one corner index.

The detector (``models/corners.pt``) finds each corner index and predicts the centre of its
card; this classifier then looks again at the index, cropped from the full frame and turned
so that the card's centre lies straight below it (a card's indices are printed upright
towards the nearest short edge, so after this turn every glyph stands within about 45
degrees of upright: no 6/9 ambiguity from rotation). Its classes are the 14 ranks plus
``-`` (not an index: a pip, face art, the table), which lets the reader drop detector
false positives. Trained on synthetic crops only (``python -m referee.vision.train_ranker``).
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from referee.paths import MODELS_DIR
from referee.vision.labels import RANK_CLASSES

PATCH = 48
#: The crop is this many times the index box's longer side.
CONTEXT = 1.25
CLASSES: tuple[str, ...] = RANK_CLASSES + ("-",)
NONE = len(CLASSES) - 1
DEFAULT_RANKER = MODELS_DIR / "ranks.onnx"
#: the trained checkpoint that ``ranks.onnx`` is exported from (``[train]`` extra)
RANKER_PT = MODELS_DIR / "ranks.pt"


def index_patch(
    grey: np.ndarray,
    box,
    centre=None,
    size: int = PATCH,
    context: float = CONTEXT,
) -> np.ndarray:
    """A ``size`` px grey crop of an index box, turned so its card's centre is below it.

    Without a centre (or one inside the box) the crop is not turned.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    s = max(x2 - x1, y2 - y1, 4.0)
    dx, dy = 0.0, 1.0
    if centre is not None:
        vx, vy = float(centre[0]) - mx, float(centre[1]) - my
        n = math.hypot(vx, vy)
        if n > 0.5 * s:
            dx, dy = vx / n, vy / n
    k = context * s / size
    # patch -> frame: p = m + k * R (q - c), with R mapping patch-down (0, 1) onto (dx, dy)
    r = np.float32([[dy, dx], [-dx, dy]]) * k
    c = (size - 1) / 2
    t = np.float32([mx, my]) - r @ np.float32([c, c])
    m = np.hstack([r, t[:, None]]).astype(np.float32)
    return cv2.warpAffine(
        grey,
        m,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def to_grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def build_net(n_classes: int = len(CLASSES), width: int = 24):
    """About 12 M multiply-adds per 48 px crop; the input is contrast-normalised inside."""
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list:
        return [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    w = width

    class RankNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, w, 3, stride=2, padding=1, bias=False),
                nn.BatchNorm2d(w),
                nn.ReLU(inplace=True),
                *block(w, w),
                nn.MaxPool2d(2),
                *block(w, 2 * w),
                *block(2 * w, 2 * w),
                nn.MaxPool2d(2),
                *block(2 * w, 4 * w),
                *block(4 * w, 4 * w),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.drop = nn.Dropout(0.2)
            self.head = nn.Linear(4 * w, n_classes)

        def embed(self, x: torch.Tensor) -> torch.Tensor:
            """(N, 1, 48, 48) uint8-range floats -> (N, 4w) features."""
            mu = x.mean(dim=(2, 3), keepdim=True)
            sd = x.std(dim=(2, 3), keepdim=True) + 8.0
            return self.features((x - mu) / sd)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.drop(self.embed(x)))

    return RankNet()


class Ranker:
    """Reads index crops (CPU): ``models/ranks.onnx`` on onnxruntime (the default, no torch),
    or a ``.pt`` checkpoint on torch (``[train]`` extra; training and export use it)."""

    def __init__(self, path: str | Path | None = None, *, threads: int = 2) -> None:
        p = Path(path) if path else DEFAULT_RANKER
        self.path = p
        self.net = None
        if p.suffix == ".onnx":
            import json

            from referee.vision.detector import session

            self.session = session(p, threads)
            meta = self.session.get_modelmeta().custom_metadata_map
            names = json.loads(meta.get("classes", "null"))
            self.classes: tuple[str, ...] = tuple(names or CLASSES)
            self.patch = int(meta.get("patch", PATCH))
            self.context = float(meta.get("context", CONTEXT))
            self.dim = int(self.session.get_outputs()[1].shape[1])
            return
        import torch

        ckpt = torch.load(p, map_location="cpu", weights_only=False)
        self.classes = tuple(ckpt.get("classes", CLASSES))
        self.patch = int(ckpt.get("patch", PATCH))
        self.context = float(ckpt.get("context", CONTEXT))
        self.net = build_net(len(self.classes), int(ckpt.get("width", 24)))
        self.net.load_state_dict(ckpt["model"])
        self.net.eval()
        self.dim = self.net.head.in_features

    def patches(self, image: np.ndarray, corners) -> np.ndarray:
        grey = to_grey(image)
        return np.stack(
            [index_patch(grey, c.box, c.centre, self.patch, self.context) for c in corners]
        )

    def probs(self, patches: np.ndarray) -> np.ndarray:
        """(N, classes) softmax probabilities for (N, 48, 48) grey patches."""
        return self.run(patches)[0]

    def run(self, patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities (N, classes), unit feature vectors (N, D)) in one pass."""
        if len(patches) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, self.dim), np.float32)
        x = np.ascontiguousarray(patches.astype(np.float32)[:, None])
        if self.net is None:
            p, e = self.session.run(None, {"patches": x})
        else:
            import torch

            with torch.inference_mode():
                t = self.net.embed(torch.from_numpy(x))
                p = torch.softmax(self.net.head(t), 1).numpy()
            e = t.numpy()
        return p, e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-6)

    def embed(self, patches: np.ndarray) -> np.ndarray:
        """(N, D) unit feature vectors (for nearest-exemplar matching)."""
        return self.run(patches)[1]
