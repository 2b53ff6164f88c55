"""The corner-index detector, run with onnxruntime (no torch): letterbox, the network, NMS.

``models/corners.onnx`` is ``models/corners.pt`` exported by :mod:`referee.vision.export`
(dynamic input size). :class:`OnnxDetector` reproduces what ultralytics' ``predict`` does
with the ``.pt`` (``referee.vision.ultra``, only with the ``[train]`` extra installed):

1. letterbox: scale the frame so its longer side is ``imgsz`` (aspect kept, linear
   interpolation), pad each side to a multiple of 32 with grey 114, centred; BGR to RGB,
   0-1 floats, CHW;
2. the network: one (4 + classes + 3, anchors) array of box centre/size, class scores and
   the card-centre keypoint (x, y, visibility), already decoded in the graph;
3. best class per anchor above ``conf``, class-aware greedy NMS at IoU 0.7 (as
   ``torchvision.ops.nms``: a box overlapping a higher-scoring one of its class by more
   than 0.7 goes), at most ``max_det`` boxes, highest score first;
4. boxes and keypoints back to frame pixels, clipped to the frame.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from referee.vision.group import Corner
from referee.vision.labels import RANK_CLASSES

STRIDE = 32
PAD_VALUE = 114
IOU = 0.7
#: ultralytics' per-class offset that keeps boxes of different classes apart in one NMS
MAX_WH = 7680.0


def session(path: str | Path, threads: int):
    """An onnxruntime CPU session on ``threads`` threads that do not spin between runs
    (a spinning pool would take the cores the ears need while the eyes wait)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def letterbox(image_bgr: np.ndarray, imgsz: int, stride: int = STRIDE, auto: bool = True):
    """(1, 3, H, W) float32 RGB input, and the (height, width) it has: padded to a multiple
    of ``stride`` (``auto``, for a dynamic-size model) or to ``imgsz`` square."""
    import cv2

    h, w = image_bgr.shape[:2]
    r = min(imgsz / h, imgsz / w)
    new_w, new_h = max(round(w * r), 1), max(round(h * r), 1)
    dw, dh = imgsz - new_w, imgsz - new_h
    if auto:
        dw, dh = dw % stride, dh % stride
    dw, dh = dw / 2, dh / 2
    img = image_bgr
    if (w, h) != (new_w, new_h):
        img = cv2.resize(img, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    img = cv2.copyMakeBorder(
        img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )
    x = img[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255)
    return np.ascontiguousarray(x), img.shape[:2]


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy NMS, highest score first (``torchvision.ops.nms``'s rule)."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = (x2 - x1) * (y2 - y1)
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iw = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        ih = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = iw * ih
        order = rest[inter / (area[i] + area[rest] - inter) <= iou]
    return np.array(keep, np.int64)


def to_frame(xy: np.ndarray, input_hw, frame_hw) -> np.ndarray:
    """Points (..., 2) from letterboxed input pixels back to frame pixels, clipped."""
    (ih, iw), (h, w) = input_hw, frame_hw
    g = min(ih / h, iw / w)
    new_h, new_w = max(round(h * g), 1), max(round(w * g), 1)
    pad_x, pad_y = round((iw - new_w) / 2 - 0.1), round((ih - new_h) / 2 - 0.1)
    out = np.empty_like(xy)
    out[..., 0] = ((xy[..., 0] - pad_x) / (new_w / w)).clip(0, w)
    out[..., 1] = ((xy[..., 1] - pad_y) / (new_h / h)).clip(0, h)
    return out


def decode(
    pred: np.ndarray, conf: float, n_classes: int, max_det: int, iou: float = IOU
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(boxes xyxy, scores, classes, keypoints (N, K, 3)) from one (4+nc+3K, anchors) output."""
    p = pred.T
    cls = p[:, 4 : 4 + n_classes]
    j = cls.argmax(1)
    score = cls[np.arange(len(p)), j]
    keep = score > conf
    p, j, score = p[keep], j[keep], score[keep]
    xy, wh = p[:, :2], p[:, 2:4] / 2
    boxes = np.concatenate([xy - wh, xy + wh], 1)
    kpts = p[:, 4 + n_classes :].reshape(len(p), (pred.shape[0] - 4 - n_classes) // 3, 3)
    if not len(p):
        return boxes, score, j, kpts
    i = nms(boxes + (j[:, None] * MAX_WH), score, iou)[:max_det]
    return boxes[i], score[i], j[i], kpts[i]


class OnnxDetector:
    """``models/corners.onnx`` on onnxruntime: ``detect(frame, conf)`` -> corner indices."""

    def __init__(self, path: str | Path, *, imgsz: int = 512, threads: int = 2) -> None:
        self.path = Path(path)
        self.session = session(self.path, threads)
        self.input = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        names = ast.literal_eval(meta["names"]) if "names" in meta else None
        self.classes = tuple(names[k] for k in sorted(names)) if names else RANK_CLASSES
        self.imgsz = imgsz
        shape = self.session.get_inputs()[0].shape
        self.fixed = isinstance(shape[2], int) and isinstance(shape[3], int)
        if self.fixed:  # an export without dynamic axes takes its own square size only
            self.imgsz = int(shape[2])

    def detect(self, image_bgr: np.ndarray, conf: float = 0.25, max_det: int = 100):
        """Corner indices in one BGR frame, highest score first."""
        x, hw = letterbox(image_bgr, self.imgsz, auto=not self.fixed)
        (pred,) = self.session.run(None, {self.input: x})
        boxes, scores, cls, kpts = decode(pred[0], conf, len(self.classes), max_det)
        frame_hw = image_bgr.shape[:2]
        boxes = to_frame(boxes.reshape(-1, 2, 2), hw, frame_hw).reshape(-1, 4)
        centres = to_frame(kpts[:, :1, :2], hw, frame_hw) if kpts.shape[1] else None
        out = []
        for k in range(len(boxes)):
            centre = None if centres is None else (float(centres[k, 0, 0]), float(centres[k, 0, 1]))
            box = (float(boxes[k, 0]), float(boxes[k, 1]), float(boxes[k, 2]), float(boxes[k, 3]))
            out.append(Corner(self.classes[int(cls[k])], float(scores[k]), box, centre))
        return out


class UltraDetector:
    """``models/corners.pt`` through ultralytics (needs the ``[train]`` extra: torch)."""

    def __init__(self, path: str | Path, *, imgsz: int = 512, threads: int = 2) -> None:
        from referee.vision.ultra import ultralytics

        ul = ultralytics(threads=threads)
        import torch

        torch.set_num_threads(threads)
        self.path = Path(path)
        self.model = ul.YOLO(str(path), task="pose")
        self.imgsz = imgsz

    def detect(self, image_bgr: np.ndarray, conf: float = 0.25, max_det: int = 100):
        res = self.model.predict(
            image_bgr, imgsz=self.imgsz, conf=conf, verbose=False, device="cpu", max_det=max_det
        )[0]
        out: list[Corner] = []
        if res.boxes is None or len(res.boxes) == 0:
            return out
        boxes = res.boxes.xyxy.cpu().numpy()
        cls = res.boxes.cls.cpu().numpy().astype(int)
        confs = res.boxes.conf.cpu().numpy()
        kpts = res.keypoints.xy.cpu().numpy() if res.keypoints is not None else None
        for k in range(len(boxes)):
            centre = None
            if kpts is not None and kpts.shape[1] > 0:
                centre = (float(kpts[k, 0, 0]), float(kpts[k, 0, 1]))
            out.append(Corner(RANK_CLASSES[cls[k]], float(confs[k]),
                              tuple(float(v) for v in boxes[k]), centre))  # fmt: skip
        return out


def open_detector(path: str | Path, *, imgsz: int = 512, threads: int = 2):
    """The detector for a weights file: ``.onnx`` on onnxruntime, ``.pt`` on ultralytics."""
    p = Path(path)
    if p.suffix == ".pt":
        try:
            import torch  # noqa: F401
            import ultralytics  # noqa: F401
        except ImportError as err:
            from referee.errors import UserError

            raise UserError(
                f"{p} is a PyTorch model and needs torch and ultralytics "
                "(`pip install -e .[train]`); the runtime reads the .onnx beside it"
            ) from err
        return UltraDetector(p, imgsz=imgsz, threads=threads)
    return OnnxDetector(p, imgsz=imgsz, threads=threads)
