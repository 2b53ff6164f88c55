"""Train the rank classifier of :mod:`referee.vision.ranker` on synthetic index crops (CPU).

Two steps, both resumable (finished shards and epochs are kept):

    python -m referee.vision.train_ranker data .faces build/ranker --scenes 4000
    python -m referee.vision.train_ranker fit build/ranker --epochs 14 --out models/ranks.pt

``data`` composes synthetic reveal scenes (:func:`referee.vision.synth.make_scene`) from
the *training* designs, runs the corner detector on each, and keeps the crops the reader
will see: every detection matched to a true index (labelled with its rank), every
detection far from any index (labelled ``-``: a pip, face art, the table), plus a jittered
crop of every true index (so indices the detector finds only at low confidence are learnt
too). Crops use the detector's own boxes and predicted card centres, as at run time.
Designs in ``VAL_DESIGNS`` make the validation shards; the bench's held-out designs are
never used. ``fit`` trains with augmentation (turns, scale, shift, blur, noise, contrast).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
import zlib
from pathlib import Path

import numpy as np

from referee.vision.group import iou
from referee.vision.ranker import CLASSES, CONTEXT, NONE, PATCH, build_net, index_patch, to_grey

#: Training designs kept for the classifier's own validation (the detector did see them).
VAL_DESIGNS = ("aisleriot-simplistic", "own-37", "own-38", "own-39")
SHARD = 200


def scene_crops(rng: random.Random, img, labels, corners) -> tuple[list, list]:
    """(patches, classes) from one scene, its true labels and the detector's corners."""
    grey = to_grey(img)
    xs, ys = [], []
    boxes = [lb[1:5] for lb in labels]
    for c in corners:
        ious = [iou(c.box, b) for b in boxes]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= 0.4:
            xs.append(index_patch(grey, c.box, c.centre))
            ys.append(labels[best][0])
        elif not ious or max(ious) < 0.1:
            xs.append(index_patch(grey, c.box, c.centre))
            ys.append(NONE)
    seen_centres = set()
    for lb in labels:
        cls, x1, y1, x2, y2, kx, ky = lb[:7]
        s = max(x2 - x1, y2 - y1)
        w = (x2 - x1) * math.exp(rng.gauss(0, 0.12))
        h = (y2 - y1) * math.exp(rng.gauss(0, 0.12))
        mx = (x1 + x2) / 2 + rng.gauss(0, 0.07 * s)
        my = (y1 + y2) / 2 + rng.gauss(0, 0.07 * s)
        centre = (kx + rng.gauss(0, 0.2 * s), ky + rng.gauss(0, 0.2 * s))
        xs.append(index_patch(grey, (mx - w / 2, my - h / 2, mx + w / 2, my + h / 2), centre))
        ys.append(cls)
        key = (round(kx), round(ky))
        if key in seen_centres:
            continue
        seen_centres.add(key)
        # a negative somewhere on this card (pips, face art, the big ace pip)
        ix, iy = (x1 + x2) / 2, (y1 + y2) / 2
        u, a = rng.uniform(0.0, 0.9), rng.uniform(0, 2 * math.pi)
        vx, vy = (ix - kx) * u, (iy - ky) * u
        px = kx + vx * math.cos(a) - vy * math.sin(a)
        py = ky + vx * math.sin(a) + vy * math.cos(a)
        f = rng.uniform(0.7, 1.4)
        nb = (px - f * (x2 - x1) / 2, py - f * (y2 - y1) / 2,
              px + f * (x2 - x1) / 2, py + f * (y2 - y1) / 2)  # fmt: skip
        if max(iou(nb, b) for b in boxes) < 0.1:
            b = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(1.5, 4) * s
            xs.append(index_patch(grey, nb, (px + d * math.cos(b), py + d * math.sin(b))))
            ys.append(NONE)
    return xs, ys


def make_data(
    faces: Path, out: Path, scenes: int, val_scenes: int, seed: int = 0, laptop: float = 0.0
) -> None:
    """Write shards ``out/{train,val}-NNN.npz`` (skipping the ones already there);
    ``laptop``: the share of scenes seen from a laptop (:func:`synth.make_laptop_scene`)."""
    import torch
    from tqdm import tqdm

    from referee.vision.reader import CardReader
    from referee.vision.synth import load_decks, make_laptop_scene, make_scene

    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    decks = load_decks(faces, held_out=False)
    train = [d for d in decks if d.name not in VAL_DESIGNS]
    val = [d for d in decks if d.name in VAL_DESIGNS]
    own = [d for d in train if d.name.startswith("own-")]
    svg = [d for d in train if not d.name.startswith("own-")]
    reader = CardReader(threads=1, conf=0.1)
    jobs = [("train", k, scenes) for k in range(math.ceil(scenes / SHARD))]
    jobs += [("val", k, val_scenes) for k in range(math.ceil(val_scenes / SHARD))]
    bar = tqdm(total=scenes + val_scenes, desc="crops", unit="scene")
    for split, k, total in jobs:
        path = out / f"{split}-{k:03d}.npz"
        n = min(SHARD, total - k * SHARD)
        if path.exists():
            bar.update(n)
            continue
        rng = random.Random(zlib.crc32(f"{seed}-{split}-{k}".encode()))
        xs, ys = [], []
        for _ in range(n):
            pool = val if split == "val" else (svg if rng.random() < 0.55 else own)
            if laptop and rng.random() < laptop:
                img, labels, _ = make_laptop_scene(rng, [rng.choice(pool)])
            else:
                img, labels = make_scene(rng, [rng.choice(pool)])
            corners = reader.corners(img, conf=0.1)
            a, b = scene_crops(rng, img, labels, corners)
            xs += a
            ys += b
            bar.update(1)
        np.savez_compressed(path, x=np.stack(xs).astype(np.uint8), y=np.array(ys, np.int64))
    bar.close()


def _load(folder: Path, split: str) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for p in sorted(folder.glob(f"{split}-*.npz")):
        d = np.load(p)
        xs.append(d["x"])
        ys.append(d["y"])
    if not xs:
        raise SystemExit(f"no {split} shards in {folder}; run the data step first")
    return np.concatenate(xs), np.concatenate(ys)


def augment(x, gen):
    """Random turn (+-20 deg), scale, shift, blur, contrast, gamma and noise on a batch."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    ang = (torch.rand(n, generator=gen) - 0.5) * math.radians(40)
    sc = torch.exp((torch.rand(n, generator=gen) - 0.5) * 0.4)
    tx, ty = (torch.rand(2, n, generator=gen) - 0.5) * 0.16
    cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # blur a third of them
    blur = torch.rand(n, generator=gen) < 0.33
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :] / 16).view(1, 1, 3, 3)
        xb = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k)
        x = x.clone()
        x[blur] = xb
    # down-up sampling (low resolution) for a quarter
    low = torch.rand(n, generator=gen) < 0.25
    if low.any():
        f = float(torch.empty(1).uniform_(0.3, 0.7, generator=gen))
        small = F.interpolate(x[low], scale_factor=f, mode="area")
        x = x.clone()
        x[low] = F.interpolate(small, size=x.shape[-2:], mode="bilinear", align_corners=False)
    xn = x / 255.0
    gamma = torch.exp((torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.8)
    xn = xn.clamp(1e-4, 1) ** gamma
    contrast = 0.5 + torch.rand(n, 1, 1, 1, generator=gen)
    bright = (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.3
    xn = (xn - 0.5) * contrast + 0.5 + bright
    xn = xn + torch.randn(x.shape, generator=gen) * torch.rand(n, 1, 1, 1, generator=gen) * 0.06
    return xn.clamp(0, 1) * 255.0


def evaluate(net, x: np.ndarray, y: np.ndarray, batch: int = 512) -> dict:
    import torch

    net.eval()
    pred = []
    with torch.inference_mode():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(x[i : i + batch].astype(np.float32)[:, None])
            pred.append(net(xb).argmax(1).numpy())
    p = np.concatenate(pred)
    idx = y != NONE
    return {
        "top1": round(float((p == y).mean()), 4),
        "ranks_top1": round(float((p[idx] == y[idx]).mean()), 4),
        "none_recall": round(float((p[~idx] == NONE).mean()), 4) if (~idx).any() else None,
        "index_as_none": round(float((p[idx] == NONE).mean()), 4),
    }


def fit(data: Path, out: Path, epochs: int, batch: int = 128, lr: float = 3e-3,
        threads: int = 1, width: int = 24, seed: int = 0,
        init: Path | None = None) -> dict:  # fmt: skip
    """Train (or resume from ``data/last.pt``); writes the best validation weights to ``out``.

    ``init``: start from these weights (a fine-tune) instead of from scratch.
    """
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    xtr, ytr = _load(data, "train")
    xva, yva = _load(data, "val")
    print(f"train {len(xtr)} crops, val {len(xva)}; classes {np.bincount(ytr).tolist()}")
    net = build_net(len(CLASSES), width)
    if init is not None:
        net.load_state_dict(torch.load(init, map_location="cpu", weights_only=False)["model"])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    steps = epochs * math.ceil(len(xtr) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    start, best, history, spent = 0, -1.0, [], 0.0
    last = data / "last.pt"
    if last.exists():
        ck = torch.load(last, map_location="cpu", weights_only=False)
        if ck.get("epochs") == epochs and ck.get("width") == width:
            net.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            sched.load_state_dict(ck["sched"])
            start, best, history, spent = ck["epoch"] + 1, ck["best"], ck["history"], ck["spent"]
            gen.set_state(ck["gen"])
            print(f"resuming at epoch {start + 1}")
    xt = torch.from_numpy(xtr)
    yt = torch.from_numpy(ytr)
    for ep in range(start, epochs):
        t0 = time.time()
        net.train()
        order = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for i in range(0, len(order), batch):
            j = order[i : i + batch]
            xb = augment(xt[j].float()[:, None], gen)
            loss = F.cross_entropy(net(xb), yt[j], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(j)
        m = evaluate(net, xva, yva)
        spent += time.time() - t0
        m.update(epoch=ep + 1, loss=round(total / len(xt), 4), seconds=round(spent))
        history.append(m)
        print(json.dumps(m), flush=True)
        ckpt = {"model": net.state_dict(), "classes": CLASSES, "patch": PATCH,
                "context": CONTEXT, "width": width, "metrics": m}  # fmt: skip
        if m["top1"] >= best:
            best = m["top1"]
            out.parent.mkdir(parents=True, exist_ok=True)
            torch.save(ckpt, out)
        torch.save({**ckpt, "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": ep,
                    "epochs": epochs, "best": best, "history": history, "spent": spent,
                    "gen": gen.get_state()}, last)  # fmt: skip
    return {"best_top1": best, "history": history, "train_crops": len(xtr), "val_crops": len(xva)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("data", help="make synthetic index crops")
    d.add_argument("faces", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--scenes", type=int, default=4000)
    d.add_argument("--val-scenes", type=int, default=400)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--laptop", type=float, default=0.0, help="share of laptop-view scenes")
    f = sub.add_parser("fit", help="train the classifier on the crops")
    f.add_argument("data", type=Path)
    f.add_argument("--epochs", type=int, default=14)
    f.add_argument("--batch", type=int, default=128)
    f.add_argument("--lr", type=float, default=3e-3)
    f.add_argument("--threads", type=int, default=1)
    f.add_argument("--width", type=int, default=24)
    f.add_argument("--out", type=Path, default=Path("models/ranks.pt"))
    f.add_argument("--init", type=Path, help="start from these weights (fine-tune)")
    a = ap.parse_args(argv)
    if a.step == "data":
        make_data(a.faces, a.out, a.scenes, a.val_scenes, a.seed, a.laptop)
    else:
        r = fit(a.data, a.out, a.epochs, a.batch, a.lr, a.threads, a.width, init=a.init)
        print(json.dumps({k: v for k, v in r.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
