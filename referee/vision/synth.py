"""Synthetic reveal scenes for training the corner-index detector.

A scene is a table (wood, felt, cloth, plain, light or dark) with 1-8 cards from one
design laid out spread, fanned, in an overlapping row or as a messy pile, at any rotation
(upside down too), under a perspective tilt, lighting gradients, glare, shadows, blur,
noise and JPEG artefacts, plus distractors (card backs, hand-like blobs, phones).
:func:`make_laptop_scene` sees a reveal as a laptop's webcam does: from 25-45 cm above the
table looking across it, the cards held up in a hand (a thumb over an index) or laid on the
table far off, other cards lying around, exposure swings, motion blur and sensor noise.

Labels are YOLO pose labels, one line per *visible corner index*:
``class cx cy w h kx ky v`` where class is the rank (see :mod:`referee.vision.labels`) and
the keypoint is the centre of the card the index belongs to. The reader groups corner
indices into physical cards by that predicted centre.

``python -m referee.vision.synth FACES OUT --train 12000 --val 600 --jobs 16`` (``--laptop
0.5``: half the scenes seen from a laptop's webcam, :func:`make_laptop_scene`)
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


def _index_labels(deck: Deck, cards, owner: np.ndarray, w: int, h: int) -> list[tuple[int, tuple]]:
    """(card id, label) for every corner index at least 60% visible and inside the frame;
    ``cards`` holds (id, code, face shape, face-to-image homography), ``owner`` the id of
    the card on top at each pixel (-1: none, or a hand over it)."""
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
            if vis < 0.6:
                continue
            cx1, cy1, cx2, cy2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
            if (cx2 - cx1) * (cy2 - cy1) < 0.6 * (x2 - x1) * (y2 - y1):
                continue
            kv = 2 if (0 <= centre[0] < w and 0 <= centre[1] < h) else 0
            labels.append((i, (cls, cx1, cy1, cx2, cy2, float(centre[0]), float(centre[1]), kv)))
    return labels


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
    labels = [lb for _, lb in _index_labels(deck, cards, owner, w, h)]
    out = _photometric(rng, img)
    return out, labels


# ------------------------------------------------------------------ a laptop's view

#: a playing card's size in centimetres (poker: 6.35 x 8.89; the face's aspect sets the width)
CARD_CM = 8.89


@dataclass
class Webcam:
    """A laptop's webcam: ``height`` cm above the table, looking across it, pitched down by
    ``elevation`` degrees, ``hfov`` degrees wide, ``roll`` degrees off level."""

    w: int
    h: int
    height: float
    elevation: float
    hfov: float
    roll: float = 0.0

    @property
    def focal(self) -> float:
        return (self.w / 2) / math.tan(math.radians(self.hfov) / 2)

    def _axes(self):
        t = math.radians(self.elevation)
        fwd = np.array([0.0, math.cos(t), -math.sin(t)])
        right = np.array([1.0, 0.0, 0.0])
        down = np.cross(fwd, right)
        r = math.radians(self.roll)
        right, down = (
            math.cos(r) * right + math.sin(r) * down,
            -math.sin(r) * right + math.cos(r) * down,
        )
        return right, down, fwd

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N x 3, cm; the table is z = 0, the camera at (0, 0, height)) to
        pixels (N x 2)."""
        right, down, fwd = self._axes()
        rel = np.asarray(pts, np.float64) - np.array([0.0, 0.0, self.height])
        z = np.maximum(rel @ fwd, 1e-3)
        u = self.w / 2 + self.focal * (rel @ right) / z
        v = self.h / 2 + self.focal * (rel @ down) / z
        return np.stack([u, v], axis=1).astype(np.float32)

    def ray(self, u: float, v: float) -> np.ndarray:
        """Unit direction of the ray through pixel (u, v)."""
        right, down, fwd = self._axes()
        d = fwd * self.focal + right * (u - self.w / 2) + down * (v - self.h / 2)
        return d / np.linalg.norm(d)

    def on_table(self, u: float, v: float) -> np.ndarray | None:
        """The table point seen at pixel (u, v), or None above the horizon."""
        d = self.ray(u, v)
        if d[2] >= -1e-3:
            return None
        return np.array([0.0, 0.0, self.height]) + d * (self.height / -d[2])


def _card_world(centre, right, up, w_cm: float, h_cm: float) -> np.ndarray:
    """A card's corners in the world, in the order of a face's (0,0) (w,0) (w,h) (0,h)."""
    c, r, u = (np.asarray(v, np.float64) for v in (centre, right, up))
    hw, hh = w_cm / 2, h_cm / 2
    return np.array([c - r * hw + u * hh, c + r * hw + u * hh, c + r * hw - u * hh,
                     c - r * hw - u * hh])  # fmt: skip


def _face_to_image(face_shape, quad_px: np.ndarray, upside: bool) -> np.ndarray:
    fh, fw = face_shape[:2]
    src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
    if upside:
        src = src[[2, 3, 0, 1]]
    return cv2.getPerspectiveTransform(src, quad_px.astype(np.float32))


def _skin(rng: random.Random) -> np.ndarray:
    tone = rng.uniform(0, 1)  # dark to light, BGR
    return np.array([40 + 150 * tone, 60 + 140 * tone, 90 + 140 * tone]) * rng.uniform(0.85, 1.1)


def _paint_blob(img, owner, mask: np.ndarray, colour, rng: random.Random) -> None:
    """Paint a shaded skin-coloured shape (a hand, a thumb) over the picture: it hides what
    is under it, so ``owner`` there becomes -1."""
    h, w = mask.shape
    m = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.2)[..., None]
    yy = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(1.0, 1.2), h, dtype=np.float32)
    shade = yy[:, None, None] * np.asarray(colour, np.float32)[None, None, :]
    img *= 1 - m
    img += shade * m
    if owner is not None:
        owner[mask > 0] = -1


def _room(rng: random.Random, w: int, h: int) -> np.ndarray:
    """What lies beyond the table: a wall, a window, people; blurred shapes of any colour."""
    nrs = np.random.default_rng(rng.randrange(1 << 30))
    small = nrs.uniform(0, 255, (rng.randint(2, 6), rng.randint(2, 8), 3)).astype(np.float32)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    grey = img.mean(axis=2, keepdims=True)
    img = grey + (img - grey) * rng.uniform(0.1, 0.6)  # rooms are mostly dull
    for _ in range(rng.randint(0, 4)):
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        ax = (int(rng.uniform(0.05, 0.3) * w), int(rng.uniform(0.1, 0.5) * h))
        cv2.ellipse(img, c, ax, rng.uniform(0, 180), 0, 360,
                    [rng.uniform(0, 255) for _ in range(3)], -1)  # fmt: skip
    return np.clip(img * rng.uniform(0.4, 1.1), 0, 255)


def _laptop_background(rng: random.Random, cam: Webcam) -> np.ndarray:
    """The table seen in perspective (its far edge 60-140 cm away), the room beyond it."""
    w, h = cam.w, cam.h
    img = _room(rng, w, h)
    tw, th = 1024, 1024
    tex = _table(rng, tw, th)
    half, near, far = rng.uniform(50, 90), 0.0, rng.uniform(60, 140)
    world = np.array([[-half, far, 0], [half, far, 0], [half, near, 0], [-half, near, 0]])
    quad = cam.project(world)
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [tw, 0], [tw, th], [0, th]]), quad)
    warped = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones((th, tw), np.float32), H, (w, h))[..., None]
    return img * (1 - mask) + warped * mask


def _flat_layout(rng: random.Random, n: int, w_cm: float, h_cm: float):
    """Cards laid on the table around (0, 0): (x, y, angle in degrees), cm."""
    kind = rng.choice(["row", "spread", "fan", "pile"]) if n > 1 else "spread"
    base = rng.uniform(-40, 40) + rng.choice([0, 0, 90, 180])
    out = []
    if kind == "row":
        step = w_cm * rng.uniform(0.35, 1.3)
        t = math.radians(base)
        for i in range(n):
            off = step * (i - (n - 1) / 2)
            out.append((off * math.cos(t), off * math.sin(t), base + rng.uniform(-6, 6)))
    elif kind == "spread":
        spread = math.sqrt(n)
        for _ in range(n):
            x, y = rng.uniform(-1.2, 1.2) * w_cm * spread, rng.uniform(-0.6, 0.6) * h_cm * spread
            out.append((x, y, rng.uniform(0, 360)))
    elif kind == "fan":
        step = rng.uniform(8, 22) * rng.choice([-1, 1])
        radius = h_cm * rng.uniform(0.5, 0.9)
        for i in range(n):
            a = base + step * (i - (n - 1) / 2)
            t = math.radians(a)
            out.append((radius * math.sin(t), -radius * math.cos(t), a))
    else:
        for _ in range(n):
            out.append((rng.gauss(0, w_cm * 0.45), rng.gauss(0, w_cm * 0.45), rng.uniform(0, 360)))
    return out


def _flat_card(cam: Webcam, at: np.ndarray, x: float, y: float, ang: float, w_cm, h_cm):
    t = math.radians(ang)
    right = np.array([math.cos(t), math.sin(t), 0.0])
    up = np.array([-math.sin(t), math.cos(t), 0.0])
    centre = at + np.array([x, y, 0.02])
    return cam.project(_card_world(centre, right, up, w_cm, h_cm))


def _held_fan(rng: random.Random, cam: Webcam, n: int, w_cm: float, h_cm: float):
    """A fan of ``n`` cards held up to the camera 25-55 cm away: one image quad per card, in
    drawing order (each card on top of the one before; their top-left indices show), and
    the pivot (where the hand holds them) in pixels."""
    u0, v0 = rng.uniform(0.3, 0.7) * cam.w, rng.uniform(0.45, 0.85) * cam.h
    dist = rng.uniform(25, 55)
    pivot = np.array([0.0, 0.0, cam.height]) + cam.ray(u0, v0) * dist
    # the cards face the camera, turned and tilted back a little
    to_cam = np.array([0.0, 0.0, cam.height]) - pivot
    normal = to_cam / np.linalg.norm(to_cam)
    yaw, pitch = math.radians(rng.uniform(-35, 35)), math.radians(rng.uniform(-30, 30))
    rz = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    rx = np.array(
        [[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]]
    )
    normal = rz @ rx @ normal
    up0 = np.array([0.0, 0.0, 1.0]) - normal * normal[2]
    up0 /= np.linalg.norm(up0)
    right0 = np.cross(up0, normal)
    roll = math.radians(rng.uniform(-25, 25))
    step = math.radians(rng.uniform(6, 18)) if n > 1 else 0.0
    radius = h_cm * rng.uniform(0.35, 0.6)
    quads = []
    for i in range(n):
        a = roll + step * (i - (n - 1) / 2)
        up = math.cos(a) * up0 + math.sin(a) * right0
        right = np.cross(up, normal)
        # each card a little in front of the one before, towards the camera
        centre = pivot + up * radius + normal * 0.05 * i
        quads.append(cam.project(_card_world(centre, right, up, w_cm, h_cm)))
    return quads, cam.project(pivot[None, :])[0], radius / h_cm


def _hand_over(rng, img, owner, cam: Webcam, pivot, quads, card_px: float, index_pts) -> None:
    """The hand holding a fan: a palm round the pivot, fingers behind showing at the edges,
    a thumb on the front, often over a corner index (``index_pts``: their centres)."""
    h, w = owner.shape
    col = _skin(rng)
    mask = np.zeros((h, w), np.uint8)
    px, py = float(pivot[0]), float(pivot[1])
    ax = (int(card_px * rng.uniform(0.35, 0.55)), int(card_px * rng.uniform(0.3, 0.45)))
    cv2.ellipse(mask, (int(px), int(py + 0.25 * card_px)), ax, rng.uniform(-30, 30), 0, 360, 1, -1)
    # the wrist going out of the frame below
    cv2.line(mask, (int(px), int(py + 0.4 * card_px)),
             (int(px + rng.uniform(-0.5, 0.5) * card_px), h + int(card_px)), 1,
             max(3, int(card_px * 0.55)))  # fmt: skip
    for _ in range(rng.randint(0, 3)):  # fingertips over the fan's far edge
        q = quads[rng.randrange(len(quads))]
        k = rng.randrange(4)
        tip = q[k] * 0.7 + q[(k + 1) % 4] * 0.3
        cv2.circle(mask, (int(tip[0]), int(tip[1])), max(2, int(card_px * 0.07)), 1, -1)
    width = max(3, int(card_px * rng.uniform(0.13, 0.2)))
    if index_pts and rng.random() < 0.75:
        tx, ty = index_pts[rng.randrange(len(index_pts))]
        off = card_px * rng.uniform(0.0, 0.12)
        a = rng.uniform(0, 2 * math.pi)
        tx, ty = tx + off * math.cos(a), ty + off * math.sin(a)
    else:
        tx, ty = px + rng.uniform(-0.4, 0.4) * card_px, py - rng.uniform(0.1, 0.5) * card_px
    cv2.line(mask, (int(px), int(py + 0.15 * card_px)), (int(tx), int(ty)), 1, width)
    cv2.circle(mask, (int(tx), int(ty)), width // 2 + 1, 1, -1)
    _paint_blob(img, owner, mask, col, rng)


def _loose_hand(rng: random.Random, img, owner, card_px: float) -> None:
    """Another player's hand reaching in from an edge: a distractor, hiding what it covers."""
    h, w = owner.shape
    mask = np.zeros((h, w), np.uint8)
    side = rng.randrange(4)
    edge = [(rng.uniform(0, w), h + 10), (rng.uniform(0, w), -10), (-10, rng.uniform(0, h)),
            (w + 10, rng.uniform(0, h))][side]  # fmt: skip
    tip = (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h)
    thick = max(4, int(card_px * rng.uniform(0.4, 0.8)))
    cv2.line(mask, tuple(int(v) for v in edge), tuple(int(v) for v in tip), 1, thick)
    for _ in range(rng.randint(2, 5)):
        a = rng.uniform(0, 2 * math.pi)
        end = (tip[0] + math.cos(a) * thick * 1.2, tip[1] + math.sin(a) * thick * 1.2)
        cv2.line(
            mask, tuple(int(v) for v in tip), tuple(int(v) for v in end), 1, max(2, thick // 4)
        )
    _paint_blob(img, owner, mask, _skin(rng), rng)


def _webcam(rng: random.Random, img: np.ndarray, still: bool = False) -> np.ndarray:
    """A webcam's picture: auto-exposure swings, motion blur (slight when ``still``), sensor
    noise, soft optics."""
    h, w = img.shape[:2]
    nrs = np.random.default_rng(rng.randrange(1 << 30))
    gain = math.exp(rng.uniform(math.log(0.5), math.log(1.6)))  # exposure swinging
    gamma = rng.uniform(0.7, 1.4)
    img = 255.0 * np.clip(img * gain / 255.0, 0, 1) ** gamma
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.45:  # the hand or the laptop moving
        k = rng.randint(3, 5 if still else 15)
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0
        ker = cv2.warpAffine(
            ker, cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), rng.uniform(0, 180), 1), (k, k)
        )
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    if rng.random() < 0.5:  # soft lens, small sensor
        f = rng.uniform(0.45, 0.85)
        small = cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    sigma = rng.uniform(2, 14) / max(gain, 0.6)  # dim pictures are noisier
    noisy = (
        img.astype(np.float32)
        + nrs.normal(0, sigma, (h, w, 1))
        + nrs.normal(0, sigma * 0.5, (h, w, 3))
    )
    return np.clip(noisy, 0, 255).astype(np.uint8)


@dataclass
class LaptopScene:
    """What a laptop scene shows: the reveal (ranks of its cards with an index in view) and
    the other cards (lying apart or cut by the edge), for a bench's truth."""

    reveal: list[str]
    held: bool
    others: list[str]
    camera: Webcam
    #: the reveal's cards' height in pixels (their mean diagonal / the diagonal of a unit-high
    #: card): how large the indices are
    card_px: float = 0.0


def make_laptop_scene(
    rng: random.Random,
    decks: list[Deck],
    size=(640, 480),
    *,
    codes: list[str] | None = None,
    held: bool | None = None,
    card_px: tuple[float, float] = (45.0, 320.0),
    still: bool = False,
):
    """One reveal as a laptop's webcam sees it: (BGR image, labels, :class:`LaptopScene`).

    The camera sits 25-45 cm above the table, pitched down 15-60 degrees, 55-80 degrees
    wide. The reveal (``codes``, else 1-6 random cards) is held up in a hand as a fan (the
    thumb often over a corner index; ``held``) or laid on the table in a row, spread, fan or
    pile, wholly in view, its cards' height (their diagonal / 1.25) within ``card_px``
    pixels when some try allows. Around it: the undealt deck or the pile face down, sometimes a card
    face up far apart or cut by the frame's edge, another hand; then webcam exposure, blur
    (``still``: only the slight blur of a frame the reader takes as still) and noise.
    Labels as :func:`make_scene` (every visible index, the reveal's or not).
    """
    w, h = size if rng.random() < 0.75 else (640, 360)
    if codes is not None:
        w, h = size
    cam = Webcam(w, h, rng.uniform(25, 45), rng.uniform(15, 60), rng.uniform(55, 80),
                 rng.uniform(-6, 6))  # fmt: skip
    img = _laptop_background(rng, cam).astype(np.float32)
    deck = rng.choice(decks)
    n = len(codes) if codes else rng.choices(range(1, 7), weights=[24, 24, 18, 16, 10, 8])[0]
    if codes is None:
        codes = [rng.choice(deck.codes) for _ in range(n)]
        if rng.random() < 0.4 and n > 1:
            rank = rng.choice(codes)[:-1] or "JK"
            same = [c for c in deck.codes if c[:-1] == rank] or codes
            codes = [rng.choice(same) for _ in range(n)]
    read = [(c, cv2.imread(str(deck.path / f"{c}.jpg"))) for c in codes]
    codes = [c for c, f in read if f is not None]
    faces = [f.astype(np.float32) for _, f in read if f is not None]
    aspect = faces[0].shape[1] / faces[0].shape[0]
    h_cm = CARD_CM * rng.uniform(0.95, 1.05)
    w_cm = h_cm * aspect
    held = rng.random() < 0.5 if held is None else held
    owner = np.full((h, w), -1, np.int32)
    backs = [d.back for d in decks if d.back is not None]
    back = cv2.imread(str(rng.choice(backs))) if backs else None
    placed: list[tuple[int, str, tuple, np.ndarray]] = []
    n_ids = 0

    def paste(face, quad, upside: bool, cid: int | None) -> np.ndarray:
        H = _face_to_image(face.shape, quad, upside)
        _paste_card(img, face, None, owner if cid is not None else None, cid or 0, hom=H)
        if cid is None:  # a back: hides what it covers
            m = cv2.warpPerspective(_rounded_mask(face.shape), H, (w, h)) > 127
            owner[m] = -1
        return H

    def in_view(quad, margin: float = 0.0) -> bool:
        x, y = quad[:, 0], quad[:, 1]
        return bool((x >= -margin).all() and (x <= w + margin).all() and (y >= -margin).all()
                    and (y <= h + margin).all())  # fmt: skip

    # the reveal, wholly in view (some tries); its size in pixels sets the scene's scale
    reveal_quads: list[np.ndarray] = []
    pivot = None
    at = None
    for _ in range(60):
        if held:
            quads, pivot, _ = _held_fan(rng, cam, len(faces), w_cm, h_cm)
        else:
            at = cam.on_table(rng.uniform(0.3, 0.7) * w, rng.uniform(0.45, 0.85) * h)
            if at is None:
                continue
            lay = _flat_layout(rng, len(faces), w_cm, h_cm)
            quads = [_flat_card(cam, at, x, y, a, w_cm, h_cm) for x, y, a in lay]
        span = float(np.mean([np.linalg.norm(q[0] - q[2]) for q in quads]))
        size_ok = card_px[0] <= span / math.hypot(1, aspect) <= card_px[1]
        if all(in_view(q) for q in quads) and size_ok:
            reveal_quads = quads
            break
    if not reveal_quads:
        reveal_quads = quads
    spans = [float(np.linalg.norm(q[0] - q[2])) for q in reveal_quads]
    card_h_px = float(np.mean(spans)) / math.hypot(1, aspect)  # a card's height in pixels
    centre_px = np.mean([q.mean(axis=0) for q in reveal_quads], axis=0)
    reveal_reach = max(float(np.linalg.norm(q.mean(axis=0) - centre_px)) for q in reveal_quads)

    # things on the table behind or beside: the undealt deck or the pile (backs), a card face up
    others: list[str] = []
    other_ids: set[int] = set()
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        kind = rng.choice(["stack", "stack", "face", "edge"])
        p = cam.on_table(rng.uniform(0.0, 1.0) * w, rng.uniform(0.35, 1.0) * h)
        if p is None:
            continue
        ang = rng.uniform(0, 360)
        if kind == "stack" and back is not None:
            for k in range(rng.randint(1, 6)):
                q = _flat_card(cam, p, rng.gauss(0, 0.3), rng.gauss(0, 0.3) + 0.05 * k,
                               ang + rng.gauss(0, 4), w_cm, h_cm)  # fmt: skip
                if not held and _overlaps(q, reveal_quads):
                    break
                paste(back.astype(np.float32), q, False, None)
            continue
        code = rng.choice(deck.codes)
        face = cv2.imread(str(deck.path / f"{code}.jpg"))
        if face is None:
            continue
        q = _flat_card(cam, p, 0, 0, ang, w_cm, h_cm)
        c = q.mean(axis=0)
        size_px = float(np.linalg.norm(q[0] - q[2])) / 2
        far = float(np.linalg.norm(c - centre_px)) - reveal_reach
        cut = _outside(q, w, h) >= 0.3
        if kind == "face" and (cut or far < 2.6 * (size_px + card_h_px * 0.6)):
            continue  # a face-up card counts as apart only when clearly apart
        if kind == "edge" and (not cut or far < 1.2 * (size_px + card_h_px * 0.6)):
            continue
        if not held and _overlaps(q, reveal_quads):
            continue
        cid = 100 + n_ids
        n_ids += 1
        H = paste(face.astype(np.float32), q, rng.random() < 0.5, cid)
        placed.append((cid, code, face.shape, H))
        others.append("JK" if code == "JK" else code[:-1])
        other_ids.add(cid)

    # the reveal on top of the table, the hand on top of a held fan
    for i, (face, q) in enumerate(zip(faces, reveal_quads, strict=True)):
        upside = rng.random() < 0.5
        if not held and rng.random() < 0.4:  # a soft shadow on the table
            sm = np.zeros((h, w), np.float32)
            off = rng.uniform(1, 5)
            cv2.fillPoly(sm, [(q + off).astype(np.int32)], 1.0)
            sm = cv2.GaussianBlur(sm, (0, 0), 3)
            img *= (1 - 0.3 * sm)[..., None]
        H = paste(face, q, upside, i)
        placed.append((i, codes[i], face.shape, H))
    if held and pivot is not None:
        tops = []
        for i, code, shape, H in placed:
            if i >= 100:
                continue
            for bx in _index_boxes(deck, code):
                fh, fw = shape[:2]
                c = _transform(
                    H, np.float32([[(bx[0] + bx[2]) / 2 * fw, (bx[1] + bx[3]) / 2 * fh]])
                )[0]
                if 0 <= c[0] < w and 0 <= c[1] < h and owner[int(c[1]), int(c[0])] == i:
                    tops.append((float(c[0]), float(c[1])))
        _hand_over(rng, img, owner, cam, pivot, reveal_quads, card_h_px, tops)
    if rng.random() < 0.3:
        _loose_hand(rng, img, owner, card_h_px)
    found = _index_labels(deck, placed, owner, w, h)
    labels = [lb for _, lb in found]
    shown = {i for i, _ in found if i not in other_ids}
    reveal = sorted("JK" if codes[i] == "JK" else codes[i][:-1] for i in shown)
    out = _webcam(rng, img, still)
    if rng.random() < 0.5:
        out = _photometric_light(rng, out)
    return out, labels, LaptopScene(reveal, held, sorted(others), cam, card_h_px)


def _outside(quad: np.ndarray, w: int, h: int) -> float:
    """The share of a card's area outside the frame."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [(quad - [x0, y0]).astype(np.int32)], 1)
    total = m.sum()
    ys, xs = np.nonzero(m)
    xs, ys = xs + x0, ys + y0
    inside = ((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)).sum()
    return 1.0 - inside / max(1, total)


def _overlaps(quad: np.ndarray, quads: list[np.ndarray]) -> bool:
    box = (quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max())
    for q in quads:
        b = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
        if box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]:
            return True
    return False


def _photometric_light(rng: random.Random, img: np.ndarray) -> np.ndarray:
    """A lighting gradient and colour cast (room light), lighter than :func:`_photometric`."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    g = (xx * math.cos(a) + yy * math.sin(a)) / max(w, h)
    out = img.astype(np.float32) * (rng.uniform(0.8, 1.1) + rng.uniform(-0.35, 0.35) * g)[..., None]
    out = out * np.array([rng.uniform(0.85, 1.12) for _ in range(3)])[None, None, :]
    return np.clip(out, 0, 255).astype(np.uint8)


def _write(job) -> int:
    faces, out_dir, split, start, count, seed, held_out = job[:7]
    laptop = job[7] if len(job) > 7 else 0.0
    decks = load_decks(Path(faces), held_out=held_out)
    img_dir = Path(out_dir) / "images" / split
    lbl_dir = Path(out_dir) / "labels" / split
    for k in range(start, start + count):
        rng = random.Random(seed * 1_000_003 + k)
        if laptop and rng.random() < laptop:
            img, labels, _ = make_laptop_scene(rng, decks)
        else:
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


def generate(
    faces: Path, out: Path, n_train: int, n_val: int, jobs: int, seed: int = 0, laptop: float = 0.0
) -> Path:
    """Write a YOLO pose dataset (train on training designs, val on held-out designs);
    ``laptop``: the share of scenes seen from a laptop (:func:`make_laptop_scene`)."""
    from tqdm import tqdm

    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    chunk = 50
    work = [(str(faces), str(out), "train", s, min(chunk, n_train - s), seed, False, laptop)
            for s in range(0, n_train, chunk)]  # fmt: skip
    work += [(str(faces), str(out), "val", s, min(chunk, n_val - s), seed + 7, True, laptop)
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
    ap.add_argument("--laptop", type=float, default=0.0, help="share of laptop-view scenes")
    a = ap.parse_args(argv)
    print(generate(a.faces, a.out, a.train, a.val, a.jobs, a.seed, a.laptop))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
