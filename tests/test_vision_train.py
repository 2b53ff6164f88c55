"""Making the models still works (``[train]`` extra): a tiny detector trained one epoch on a
handful of generated scenes, and a rank classifier, both exported to ONNX and read back by
the runtime exactly as torch reads them."""

from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import pytest

HAVE_TRAIN = all(importlib.util.find_spec(m) for m in ("torch", "ultralytics", "onnx"))
pytestmark = pytest.mark.skipif(
    not HAVE_TRAIN, reason="training and export need the [train] extra (torch, ultralytics, onnx)"
)

IMGSZ = 128


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Six training and two validation scenes from two rendered designs, in YOLO's layout."""
    from referee.vision.labels import RANK_CLASSES
    from referee.vision.synth import _write
    from tests.vision_scenes import render_decks

    root = tmp_path_factory.mktemp("train")
    render_decks(root / "faces", n=2, seed=8)
    out = root / "ds"
    for split, n, seed in (("train", 6, 1), ("val", 2, 2)):
        (out / "images" / split).mkdir(parents=True)
        (out / "labels" / split).mkdir(parents=True)
        _write((str(root / "faces"), str(out), split, 0, n, seed, None))
    names = "\n".join(f"  {i}: '{r}'" for i, r in enumerate(RANK_CLASSES))
    yaml = out / "data.yaml"
    yaml.write_text(
        f"path: {out}\ntrain: images/train\nval: images/val\n"
        f"kpt_shape: [1, 3]\nflip_idx: [0]\nnames:\n{names}\n"
    )
    return root, yaml


@pytest.mark.slow  # one epoch of YOLOv8n-pose at 128 px plus its export: ~30 s on 2 cores
def test_a_detector_trained_one_epoch_exports_and_reads_as_in_torch(dataset, monkeypatch):
    from referee.vision.detector import OnnxDetector, UltraDetector, letterbox
    from referee.vision.export import export_corners
    from referee.vision.train import train

    root, yaml = dataset
    monkeypatch.setenv("REFEREE_YOLO_CONFIG_DIR", str(root / "yolo-config"))
    pt = root / "tiny.pt"
    train(yaml, imgsz=IMGSZ, epochs=1, batch=4, workers=0, project=root / "runs", out=pt)
    assert pt.is_file()
    onnx = export_corners(pt, root / "tiny.onnx", imgsz=IMGSZ)
    img = cv2.imread(str(next((yaml.parent / "images" / "val").glob("*.jpg"))))
    # after one epoch every score is near zero and the boxes fill the frame, so NMS would
    # pick among near-ties: compare what the network gives on the runtime's own input
    import torch

    onnx_det, torch_det = OnnxDetector(onnx, imgsz=IMGSZ), UltraDetector(pt, imgsz=IMGSZ)
    x, _ = letterbox(img, IMGSZ)
    (got,) = onnx_det.session.run(None, {onnx_det.input: x})
    with torch.inference_mode():
        want = torch_det.model.model.eval()(torch.from_numpy(x))
    want = (want[0] if isinstance(want, (list, tuple)) else want).numpy()
    assert got.shape == want.shape == (1, 4 + 14 + 3, got.shape[2])
    assert np.abs(got - want).max() < 1e-2  # pixel coordinates up to a few hundred
    assert isinstance(onnx_det.detect(img, conf=0.0), list)


@pytest.mark.slow  # two epochs of YOLOv8n-pose at 128 px: ~40 s on 2 cores
def test_a_fine_tune_starts_from_the_weights_it_is_given(dataset, monkeypatch):
    """``--init`` loads its weights: ultralytics 8.4 drops a loaded checkpoint's weights when
    ``pretrained`` is False, so a fine-tune once trained from scratch. With a learning rate
    of zero the tuned network's convolutions are the ones it started from."""
    import torch

    from referee.vision.train import train

    root, yaml = dataset
    monkeypatch.setenv("REFEREE_YOLO_CONFIG_DIR", str(root / "yolo-config"))
    kw = dict(imgsz=IMGSZ, epochs=1, batch=4, workers=0, project=root / "runs")
    first, init, tuned = root / "first.pt", root / "init.pt", root / "tuned.pt"
    train(yaml, name="first", out=first, **kw)

    def convs(net):
        return [m.weight for m in net.modules() if isinstance(m, torch.nn.Conv2d)]

    # one epoch of six scenes barely moves the seeded initial weights a scratch run also
    # starts from: shift them so that only weights really loaded can match
    ckpt = torch.load(first, map_location="cpu", weights_only=False)
    torch.manual_seed(3)
    for key in ("ema", "model"):
        for w in convs(ckpt[key]) if ckpt.get(key) is not None else []:
            w.data += 0.05 * torch.randn_like(w)
    torch.save(ckpt, init)
    train(yaml, name="tuned", out=tuned, init=init, lr0=0.0, **kw)

    def conv(path):
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
        return [w.float() for w in convs(ckpt.get("ema") or ckpt["model"])]

    a, b = conv(init), conv(tuned)
    assert len(a) == len(b) > 10
    assert all(torch.allclose(x, y, atol=1e-3) for x, y in zip(a, b, strict=True))


@pytest.mark.slow  # imports torch and its ONNX exporter: ~10-30 s on these cores
def test_a_rank_classifier_exports_with_its_settings(tmp_path):
    import torch

    from referee.vision.export import export_ranks
    from referee.vision.ranker import CLASSES, Ranker, build_net

    torch.manual_seed(0)
    net = build_net(len(CLASSES), 8)
    pt = tmp_path / "ranks.pt"
    ckpt = {"model": net.state_dict(), "classes": list(CLASSES), "patch": 48, "width": 8}
    torch.save({**ckpt, "context": 1.4}, pt)
    onnx = export_ranks(pt, tmp_path / "ranks.onnx")
    a, b = Ranker(onnx), Ranker(pt)
    assert a.net is None and b.net is not None
    assert (a.classes, a.patch, a.context, a.dim) == (b.classes, b.patch, 1.4, 32)
    rng = np.random.default_rng(3)
    patches = rng.integers(0, 255, (5, 48, 48)).astype(np.uint8)
    (pa, ea), (pb, eb) = a.run(patches), b.run(patches)
    assert pa.shape == (5, len(CLASSES)) and np.allclose(pa, pb, atol=1e-5)
    assert np.allclose(ea, eb, atol=1e-4)
    assert np.allclose(np.linalg.norm(ea, axis=1), 1, atol=1e-4)
    assert a.run(patches[:0])[1].shape == (0, 32)
