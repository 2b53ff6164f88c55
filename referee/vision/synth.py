"""Synthetic reveal scenes for training the corner-index detector.

A scene is a table (wood, felt, cloth, plain, light or dark) with 1-8 cards from one
design laid out spread, fanned, in an overlapping row or as a messy pile, at any rotation
(upside down too), under a perspective tilt, lighting gradients, glare, shadows, blur,
noise and JPEG artefacts, plus distractors (card backs, hand-like blobs, phones).

Labels are YOLO pose labels, one line per *visible corner index*:
``class cx cy w h kx ky v`` where class is the rank (see :mod:`referee.vision.labels`) and
the keypoint is the centre of the card the index belongs to. The reader groups corner
indices into physical cards by that predicted centre.

``python -m referee.vision.synth FACES OUT --train 12000 --val 600 --jobs 16``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from referee.vision.labels import CLASS_OF, RANK_CLASSES


@dataclass
class Deck:
    name: str
    path: Path
    index_box: list[float]
    four: bool
    card_boxes: dict[str, list[float]]
    codes: list[str]
    back: Path | None


def load_decks(faces: Path, *, held_out: bool | None, english_only: bool = True) -> list[Deck]:
    decks = []
    for meta_path in sorted(faces.glob("*/deck.json")):
        meta = json.loads(meta_path.read_text())
        if english_only and not meta.get("english", True):
            continue
        if held_out is not None and bool(meta.get("held_out")) != held_out:
            continue
        d = meta_path.parent
        codes = sorted(p.stem for p in d.glob("*.jpg") if p.stem != "BACK")
        back = d / "BACK.jpg"
        decks.append(
            Deck(
                meta["name"],
                d,
                meta["index_box"],
                bool(meta.get("four_corners")),
                meta.get("card_boxes", {}),
                codes,
                back if back.exists() else None,
            )  # fmt: skip
        )
    return decks


# ------------------------------------------------------------------ backgrounds


def _table(rng: random.Random, w: int, h: int) -> np.ndarray:
    kind = rng.choice(["wood", "felt", "cloth", "plain", "wood", "felt", "noise"])
    nrs = np.random.default_rng(rng.randrange(1 << 30))
    if kind == "wood":
        base = np.array([rng.uniform(20, 110), rng.uniform(40, 140), rng.uniform(70, 200)])
        if rng.random() < 0.3:
            base = base * rng.uniform(0.3, 0.6)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        f = rng.uniform(0.02, 0.08)
        grain = np.sin(
            u * f + 3 * np.sin(v * rng.uniform(0.002, 0.01)) + nrs.normal(0, 0.3, (h, w))
        )
        img = base[None, None, :] * (1 + 0.18 * grain[..., None])
    elif kind == "felt":
        base = rng.choice([[40, 110, 30], [30, 60, 20], [90, 40, 20], [30, 30, 120], [50, 50, 50]])
        img = np.array(base, np.float32)[None, None, :] * rng.uniform(0.6, 1.4) + nrs.normal(
            0, 6, (h, w, 1)
        )
    elif kind == "cloth":
        g = rng.uniform(180, 250)
        img = np.full((h, w, 3), g, np.float32) + np.array([rng.uniform(-15, 15) for _ in range(3)])
        if rng.random() < 0.5:  # woven pattern
            yy, xx = np.mgrid[0:h, 0:w]
            per = rng.randint(8, 40)
            img = img - 25 * ((((xx // per) + (yy // per)) % 2)[..., None] * rng.random())
    elif kind == "plain":
        img = np.full((h, w, 3), [rng.uniform(0, 255) for _ in range(3)], np.float32)
    else:
        small = nrs.uniform(0, 255, (rng.randint(2, 12), rng.randint(2, 12), 3)).astype(np.float32)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    img = img + nrs.normal(0, rng.uniform(1, 6), (h, w, 3))
    return np.clip(img, 0, 255).astype(np.float32)


def _distractors(rng: random.Random, img: np.ndarray, decks_backs: list[Path]) -> None:
    h, w = img.shape[:2]
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        kind = rng.choice(["hand", "phone", "back", "blob", "paper"])
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if kind == "hand":
            col = [rng.uniform(60, 160), rng.uniform(100, 190), rng.uniform(150, 235)]
            ax = (int(rng.uniform(0.08, 0.25) * w), int(rng.uniform(0.05, 0.15) * w))
            cv2.ellipse(
                img, (int(cx), int(cy)), ax, rng.uniform(0, 180), 0, 360, col, -1, cv2.LINE_AA
            )
            for _ in range(rng.randint(0, 4)):
                a = rng.uniform(0, 2 * math.pi)
                fx, fy = cx + math.cos(a) * ax[0], cy + math.sin(a) * ax[0]
                cv2.line(
                    img,
                    (int(cx), int(cy)),
                    (int(fx), int(fy)),
                    col,
                    max(3, ax[1] // 3),
                    cv2.LINE_AA,
                )
        elif kind == "phone":
            pw, ph = rng.uniform(0.08, 0.18) * w, rng.uniform(0.16, 0.35) * w
            box = cv2.boxPoints(((cx, cy), (pw, ph), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillPoly(img, [box], [rng.uniform(0, 50)] * 3, cv2.LINE_AA)
            inner = cv2.boxPoints(((cx, cy), (pw * 0.85, ph * 0.85), 0)).astype(np.int32)
            if rng.random() < 0.5:
                cv2.fillPoly(img, [inner], [rng.uniform(30, 200) for _ in range(3)], cv2.LINE_AA)
        elif kind == "back" and decks_backs:
            back = cv2.imread(str(rng.choice(decks_backs)))
            if back is not None:
                s = rng.uniform(0.15, 0.5) * h / back.shape[0]
                _paste_card(
                    img, back.astype(np.float32), _card_quad(rng, cx, cy, back.shape, s), None
                )
        elif kind == "paper":
            pw, ph = rng.uniform(0.1, 0.4) * w, rng.uniform(0.1, 0.4) * w
            box = cv2.boxPoints(((cx, cy), (pw, ph), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillPoly(img, [box], [rng.uniform(200, 255)] * 3, cv2.LINE_AA)
        else:
            cv2.circle(img, (int(cx), int(cy)), int(rng.uniform(0.02, 0.1) * w),
                       [rng.uniform(0, 255) for _ in range(3)], -1, cv2.LINE_AA)  # fmt: skip


# ------------------------------------------------------------------ cards


def _card_quad(rng: random.Random, cx: float, cy: float, shape, scale: float, angle=None):
    h, w = shape[0] * scale, shape[1] * scale
    a = rng.uniform(0, 360) if angle is None else angle
    return cv2.boxPoints(((cx, cy), (w, h), a)).astype(np.float32), a


def _rounded_mask(shape) -> np.ndarray:
    h, w = shape[:2]
    m = np.zeros((h, w), np.uint8)
    r = max(2, int(0.06 * w))
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (x, y), r, 255, -1, cv2.LINE_AA)
    return m


def _face_homography(face_shape, quad_and_angle, upside: bool) -> np.ndarray:
    quad, angle = quad_and_angle
    h, w = face_shape[:2]
    # boxPoints order for a rect rotated by `angle`: bottom-left, top-left, top-right, bottom-right
    src = np.float32([[0, h], [0, 0], [w, 0], [w, h]])
    if upside:
        src = np.float32([[w, 0], [w, h], [0, h], [0, 0]])
    return cv2.getPerspectiveTransform(src, quad)


def _paste_card(img, face, quad_and_angle, owner, cid: int = 0, upside=False, hom=None):
    """Warp ``face`` onto ``img``; returns the card's homography (face -> image)."""
    H = _face_homography(face.shape, quad_and_angle, upside) if hom is None else hom
    h, w = img.shape[:2]
    warped = cv2.warpPerspective(
        face, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    mask = cv2.warpPerspective(_rounded_mask(face.shape), H, (w, h), flags=cv2.INTER_LINEAR)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    img *= 1 - a
    img += warped * a
    if owner is not None:
        owner[mask > 127] = cid
    return H


def _transform(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), H)
    return p.reshape(-1, 2)


def _index_boxes(deck: Deck, code: str) -> list[list[float]]:
    x1, y1, x2, y2 = deck.card_boxes.get(code, deck.index_box)
    boxes = [[x1, y1, x2, y2], [1 - x2, 1 - y2, 1 - x1, 1 - y1]]
    if deck.four:
        boxes += [[1 - x2, y1, 1 - x1, y2], [x1, 1 - y2, x2, 1 - y1]]
    return boxes


def _layout(rng: random.Random, n: int, w: int, h: int, card_h: float, aspect: float):
    """Card centres and angles (degrees) on the table plane."""
    kind = (
        rng.choice(["spread", "fan", "row", "pile", "spread", "fan", "row"]) if n > 1 else "spread"
    )
    cw = card_h * aspect
    base = rng.uniform(0, 360)
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    out = []
    if kind == "spread":
        for _ in range(n):
            out.append((rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, rng.uniform(0, 360)))
    elif kind == "fan":
        step = rng.uniform(8, 22) * rng.choice([-1, 1])
        radius = card_h * rng.uniform(0.5, 0.9)
        for i in range(n):
            a = base + step * (i - (n - 1) / 2)
            # pivot near the bottom of the cards; the card centre sits `radius` above it
            t = math.radians(a)
            out.append((cx + radius * math.sin(t), cy - radius * math.cos(t), a))
    elif kind == "row":
        dx = cw * rng.uniform(0.3, 1.1)
        t = math.radians(base)
        jitter = rng.uniform(0, 6)
        for i in range(n):
            off = dx * (i - (n - 1) / 2)
            out.append(
                (
                    cx + off * math.cos(t),
                    cy + off * math.sin(t),
                    base + rng.uniform(-jitter, jitter),
                )
            )
    else:
        for _ in range(n):
            out.append(
                (cx + rng.gauss(0, cw * 0.6), cy + rng.gauss(0, cw * 0.6), rng.uniform(0, 360))
            )
    return out


def _perspective(rng: random.Random, w: int, h: int) -> np.ndarray:
    s = rng.uniform(0, 0.18)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jit = lambda: rng.uniform(-s, s)  # noqa: E731
    dst = np.float32([[jit() * w, jit() * h], [w + jit() * w, jit() * h],
                      [w + jit() * w, h + jit() * h], [jit() * w, h + jit() * h]])  # fmt: skip
    return cv2.getPerspectiveTransform(src, dst)


def _photometric(rng: random.Random, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    nrs = np.random.default_rng(rng.randrange(1 << 30))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # lighting gradient
    a = rng.uniform(0, 2 * math.pi)
    g = (xx * math.cos(a) + yy * math.sin(a)) / max(w, h)
    img = img * (rng.uniform(0.45, 1.25) + rng.uniform(-0.5, 0.5) * g)[..., None]
    # colour cast
    img = img * np.array([rng.uniform(0.8, 1.15) for _ in range(3)])[None, None, :]
    # shadow
    if rng.random() < 0.35:
        pts = np.array(
            [[rng.uniform(0, w), rng.uniform(0, h)] for _ in range(rng.randint(3, 6))], np.int32
        )
        m = np.zeros((h, w), np.float32)
        cv2.fillPoly(m, [cv2.convexHull(pts)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(3, 25))
        img = img * (1 - rng.uniform(0.2, 0.6) * m)[..., None]
    # glare
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.03, 0.2) * max(w, h)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        img = img + rng.uniform(60, 200) * blob[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    # blur
    r = rng.random()
    if r < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))
    elif r < 0.35:
        k = rng.randint(3, 9)
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        ker = cv2.warpAffine(
            ker, cv2.getRotationMatrix2D((k / 2, k / 2), rng.uniform(0, 180), 1), (k, k)
        )
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    # resolution loss
    if rng.random() < 0.3:
        f = rng.uniform(0.35, 0.8)
        small = cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    # noise
    img = np.clip(img.astype(np.float32) + nrs.normal(0, rng.uniform(0, 9), img.shape), 0, 255)
    img = img.astype(np.uint8)
    if rng.random() < 0.15:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return img


def make_scene(
    rng: random.Random,
    decks: list[Deck],
    size=(640, 480),
    *,
    codes: list[str] | None = None,
    card_range: tuple[float, float] | None = None,
):
    """One scene: (BGR image, list of (class, x1, y1, x2, y2, kx, ky, kv)), pixels.

    ``codes`` fixes the cards shown (else 1-8 random ones); ``card_range`` the card height
    as a fraction of the shorter image side (else a wide, log-uniform range).
    """
    w, h = size if rng.random() < 0.7 else (size[1], size[0]) if rng.random() < 0.5 else (640, 360)
    if codes is not None:
        w, h = size
    img = _table(rng, w, h)
    backs = [d.back for d in decks if d.back is not None]
    _distractors(rng, img, backs)
    deck = rng.choice(decks)
    n = len(codes) if codes else rng.choices(range(1, 9), weights=[22, 20, 16, 14, 10, 8, 5, 5])[0]
    lo, hi = card_range or (0.14, 0.95 if n <= 2 else 0.6)
    card_h = math.exp(rng.uniform(math.log(lo), math.log(hi))) * min(w, h) * 1.2
    if n > 4:
        card_h = min(card_h, 0.55 * min(w, h))
    if codes is None:
        codes = [rng.choice(deck.codes) for _ in range(n)]
        if rng.random() < 0.4 and n > 1:  # truthful plays: the same rank several times
            rank = rng.choice(codes)[:-1] or "JK"
            same = [c for c in deck.codes if c[:-1] == rank] or codes
            codes = [rng.choice(same) for _ in range(n)]
    face0 = cv2.imread(str(deck.path / f"{codes[0]}.jpg"))
    aspect = face0.shape[1] / face0.shape[0]
    places = _layout(rng, n, w, h, card_h, aspect)
    # close-up: one card filling the frame (phone photo)
    if n == 1 and card_range is None and rng.random() < 0.15:
        card_h = (
            min(w, h) / max(aspect, 1e-3) * rng.uniform(0.75, 1.05)
            if w > h
            else h * rng.uniform(0.85, 1.1)
        )
        card_h = min(card_h, 1.1 * h)
        places = [(w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h,
                   rng.choice([0, 180]) + rng.uniform(-8, 8))]  # fmt: skip
    P = _perspective(rng, w, h)
    owner = np.full((h, w), -1, np.int32)
    cards = []
    for i, (code, (cx, cy, ang)) in enumerate(zip(codes, places, strict=True)):
        face = cv2.imread(str(deck.path / f"{code}.jpg"))
        if face is None:
            continue
        face = face.astype(np.float32)
        scale = card_h / face.shape[0]
        quad, _ = _card_quad(rng, cx, cy, face.shape, scale, angle=ang)
        quad = _transform(P, quad)
        upside = rng.random() < 0.5
        Hc = _face_homography(face.shape, (quad, ang), upside)
        # drop-shadow under the card
        if rng.random() < 0.4:
            sm = np.zeros((h, w), np.float32)
            off = rng.uniform(1, 6)
            cv2.fillPoly(sm, [(quad + off).astype(np.int32)], 1.0)
            sm = cv2.GaussianBlur(sm, (0, 0), 3)
            img *= (1 - 0.35 * sm)[..., None]
        _paste_card(img, face, None, owner, i, hom=Hc)
        cards.append((i, code, face.shape, Hc))
    labels = []
    for i, code, shape, Hc in cards:
        fh, fw = shape[:2]
        centre = _transform(Hc, np.float32([[fw / 2, fh / 2]]))[0]
        cls = CLASS_OF["JK" if code == "JK" else code[:-1]]
        for bx in _index_boxes(deck, code):
            corners = np.float32([[bx[0] * fw, bx[1] * fh], [bx[2] * fw, bx[1] * fh],
                                  [bx[2] * fw, bx[3] * fh], [bx[0] * fw, bx[3] * fh]])  # fmt: skip
            q = _transform(Hc, corners)
            x1, y1 = q.min(axis=0)
            x2, y2 = q.max(axis=0)
            if x2 - x1 < 3 or y2 - y1 < 3:
                continue
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [q.astype(np.int32)], 1)
            area = m.sum()
            if area < 8:
                continue
            vis = ((owner == i) & (m > 0)).sum() / area
            inside = m.sum() / max(1.0, (x2 - x1) * (y2 - y1))  # noqa: F841
            if vis < 0.6:
                continue
            cx1, cy1, cx2, cy2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
            if (cx2 - cx1) * (cy2 - cy1) < 0.6 * (x2 - x1) * (y2 - y1):
                continue
            kv = 2 if (0 <= centre[0] < w and 0 <= centre[1] < h) else 0
            labels.append((cls, cx1, cy1, cx2, cy2, float(centre[0]), float(centre[1]), kv))
    out = _photometric(rng, img)
    return out, labels


def _write(job) -> int:
    faces, out_dir, split, start, count, seed, held_out = job
    decks = load_decks(Path(faces), held_out=held_out)
    img_dir = Path(out_dir) / "images" / split
    lbl_dir = Path(out_dir) / "labels" / split
    for k in range(start, start + count):
        rng = random.Random(seed * 1_000_003 + k)
        img, labels = make_scene(rng, decks)
        h, w = img.shape[:2]
        name = f"{split}_{k:06d}"
        q = rng.randint(35, 95)
        cv2.imwrite(str(img_dir / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, q])
        lines = []
        for cls, x1, y1, x2, y2, kx, ky, kv in labels:
            kx, ky = (min(max(kx / w, 0), 1), min(max(ky / h, 0), 1)) if kv else (0.0, 0.0)
            lines.append(
                f"{cls} {(x1 + x2) / 2 / w:.5f} {(y1 + y2) / 2 / h:.5f} {(x2 - x1) / w:.5f} "
                f"{(y2 - y1) / h:.5f} {kx:.5f} {ky:.5f} {kv}"
            )
        (lbl_dir / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return count


def generate(faces: Path, out: Path, n_train: int, n_val: int, jobs: int, seed: int = 0) -> Path:
    """Write a YOLO pose dataset (train on training designs, val on held-out designs)."""
    from tqdm import tqdm

    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    chunk = 50
    work = [(str(faces), str(out), "train", s, min(chunk, n_train - s), seed, False)
            for s in range(0, n_train, chunk)]  # fmt: skip
    work += [(str(faces), str(out), "val", s, min(chunk, n_val - s), seed + 7, True)
             for s in range(0, n_val, chunk)]  # fmt: skip
    with Pool(jobs) as pool, tqdm(total=n_train + n_val, desc="scenes") as bar:
        for done in pool.imap_unordered(_write, work):
            bar.update(done)
    yaml = out / "data.yaml"
    names = "\n".join(f"  {i}: '{r}'" for i, r in enumerate(RANK_CLASSES))
    yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"kpt_shape: [1, 3]\nflip_idx: [0]\nnames:\n{names}\n"
    )
    return yaml


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("faces", type=Path, help="folder written by referee.vision.faces")
    ap.add_argument("out", type=Path)
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--val", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    print(generate(a.faces, a.out, a.train, a.val, a.jobs, a.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
