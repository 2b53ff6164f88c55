"""Card faces for the synthetic data: Debian's SVG decks and a renderer of our own.

Every face is stored upright as ``FACES/DECK/CODE.jpg`` (CODE like ``QH``, ``10C``,
``JK``) next to ``FACES/DECK/deck.json`` that says where the corner index (rank glyph +
suit pip) of the top-left corner is, as a fraction of the card's width and height, and
whether the deck also prints indices in the other two corners.

``python -m referee.vision.faces OUT`` renders them all (needs ``rsvg-convert`` from
Debian's librsvg2-bin for the SVG decks; the own renderer needs only OpenCV + Pillow).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from referee.vision.labels import RANK_CLASSES

SUIT_IDS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
RANK_IDS = {
    "A": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8",
    "9": "9", "10": "10", "J": "jack", "Q": "queen", "K": "king",
}  # fmt: skip
FACE_HEIGHT = 300
DECK_DIRS = (Path("/usr/share/aisleriot/cards"), Path("/usr/share/carddecks"))

#: Designs whose corner letters are not English (R/D/V, B/D/K, Cyrillic, ...) or that have
#: no corner index: never used to train the English-index detector, but still rendered so
#: calibration can be tried on them.
NON_ENGLISH = {
    "aisleriot-ancient_french", "aisleriot-paris", "aisleriot-bellot", "aisleriot-guyenne-classic",
    "aisleriot-berlin", "aisleriot-dondorf", "aisleriot-rheinland", "aisleriot-lattmann",
    "aisleriot-atlasnye", "aisleriot-atlasnye_skat", "aisleriot-Атласные", "aisleriot-swiss-xvii",
    "aisleriot-tarocco", "aisleriot-tigullio", "aisleriot-orell", "aisleriot-slavic_costumes",
    "kde-svg-dondorf", "kde-svg-gm-paris", "kde-svg-xskat-german", "kde-svg-xskat-french",
    "kde-svg-tigullio-international",
}  # fmt: skip
#: English-index designs kept out of training, for the held-out synthetic metric.
HELD_OUT = {
    "aisleriot-anglo_modern",
    "kde-svg-oxygen-white",
    "aisleriot-tango_nuevo",
    "own-heldout",
}


def svg_decks() -> list[tuple[str, Path]]:
    """(deck name, svgz path) for every installed SVG deck."""
    out: list[tuple[str, Path]] = []
    base = DECK_DIRS[0]
    if base.is_dir():
        for p in sorted(base.glob("*.svgz")):
            if "bitmap" in p.stem:  # same art as the vector twin
                continue
            out.append((f"aisleriot-{p.stem}", p))
    base = DECK_DIRS[1]
    if base.is_dir():
        for d in sorted(base.glob("svg-*")):
            files = sorted(d.glob("*.svgz")) + sorted(d.glob("*.svg"))
            if files:
                out.append((f"kde-{d.name}", files[0]))
    return out


def _element_ids(svg_text: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', svg_text))


def _card_id(ids: set[str], code: str) -> str | None:
    if code == "JK":
        cands = ["black_joker", "joker_black", "red_joker", "joker_red", "joker"]
    else:
        rank, suit = code[:-1], SUIT_IDS[code[-1]]
        r = RANK_IDS[rank]
        cands = [f"{suit}_{r}", f"{r}_{suit}"]
    return next((c for c in cands if c in ids), None)


def _render_svg_card(svg: Path, elem: str, height: int) -> np.ndarray | None:
    res = subprocess.run(
        ["rsvg-convert", "-i", elem, "-h", str(height), str(svg)],
        capture_output=True,
        check=False,
    )
    if res.returncode != 0 or not res.stdout:
        return None
    arr = cv2.imdecode(np.frombuffer(res.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if arr is None or arr.ndim != 3 or arr.shape[2] != 4:
        return None
    return arr


def _to_bgr_on_white(rgba: np.ndarray) -> np.ndarray:
    a = rgba[:, :, 3:4].astype(np.float32) / 255.0
    rgb = rgba[:, :, :3].astype(np.float32)
    return (rgb * a + 255.0 * (1 - a)).astype(np.uint8)


def _trim(rgba: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(rgba[:, :, 3] > 20)
    if len(xs) == 0:
        return rgba
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def locate_index(faces: dict[str, np.ndarray]) -> tuple[list[float], bool] | None:
    """Find the top-left corner index box shared by a deck's number cards.

    Looks, on A..10, for the ink nearest the top-left corner (the rank glyph) and the ink
    right below it (the suit pip), and returns the union box over those cards as fractions
    of the card size, plus whether the top-right corner carries the same index.
    """
    boxes = []
    four = []
    for code, img in faces.items():
        if code[:-1] not in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10"):
            continue
        b = _index_box_one(img)
        if b is not None:
            boxes.append(b[0])
            four.append(b[1])
    if len(boxes) < 8:
        return None
    arr = np.array(boxes)
    med = np.median(arr, axis=0)
    # union over ranks, but robust to a few failures: 10th/90th percentiles
    box = [
        float(np.percentile(arr[:, 0], 10)),
        float(np.percentile(arr[:, 1], 10)),
        float(np.percentile(arr[:, 2], 90)),
        float(np.percentile(arr[:, 3], 90)),
    ]
    if med[2] - med[0] > 0.3 or med[3] - med[1] > 0.4 or box[0] > 0.2 or box[1] > 0.2:
        return None
    return box, bool(np.mean(four) > 0.5)


def _ink(img: np.ndarray) -> np.ndarray:
    """Mask of printed ink inside the card (card background and outline removed)."""
    bgr = _to_bgr_on_white(img)
    alpha = img[:, :, 3] > 128
    h, w = alpha.shape
    k = max(3, int(0.015 * w)) | 1
    inner = cv2.erode(alpha.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.int16)
    ys, xs = np.nonzero(inner)
    bg = np.median(lab[ys, xs], axis=0)
    diff = np.abs(lab - bg).sum(axis=2)
    return (diff > 60) & inner


def _index_box_one(img: np.ndarray) -> tuple[list[float], bool] | None:
    ink = _ink(img)
    h, w = ink.shape
    roi = ink[: int(0.42 * h), : int(0.30 * w)].astype(np.uint8)
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(roi, connectivity=8)
    comps = [
        (stats[i, 0], stats[i, 1], stats[i, 2], stats[i, 3], stats[i, 4])
        for i in range(1, n)
        if stats[i, 4] > 0.00015 * h * w and stats[i, 2] < 0.2 * w and stats[i, 3] < 0.2 * h
    ]
    if not comps:
        return None
    # glyph: component whose top-left is nearest the card corner
    comps.sort(key=lambda c: c[0] + c[1])
    gx, gy, gw, gh, _ = comps[0]
    x1, y1, x2, y2 = gx, gy, gx + gw, gy + gh
    # add components overlapping in x that lie just below / beside (second digit, pip)
    changed = True
    while changed:
        changed = False
        for cx, cy, cw, ch, _ in comps:
            if cx >= x1 and cy >= y1 and cx + cw <= x2 and cy + ch <= y2:
                continue
            gap_y = cy - y2
            overlap_x = min(x2, cx + cw) - max(x1, cx)
            gap_x = cx - x2
            overlap_y = min(y2, cy + ch) - max(y1, cy)
            near_below = -0.02 * h < gap_y < 0.045 * h and overlap_x > 0.3 * min(cw, x2 - x1)
            near_right = -0.01 * w < gap_x < 0.03 * w and overlap_y > 0.5 * min(ch, y2 - y1)
            if (near_below or near_right) and ch < 0.15 * h and cw < 0.2 * w:
                x1, y1 = min(x1, cx), min(y1, cy)
                x2, y2 = max(x2, cx + cw), max(y2, cy + ch)
                changed = True
    # the same ink mirrored in the top-right corner?
    tl = ink[y1:y2, x1:x2]
    tr = ink[y1:y2, w - x2 : w - x1][:, ::-1]
    four = tl.shape == tr.shape and tl.sum() > 0 and (tl & tr).sum() / max(1, (tl | tr).sum()) > 0.3
    return [x1 / w, y1 / h, x2 / w, y2 / h], bool(four)


def _sheet_layout(name: str) -> tuple[int, int, dict[str, tuple[int, int]]] | None:
    """Grid (columns, rows, code -> (col, row)) of a deck's sheet, for the known layouts."""
    cells: dict[str, tuple[int, int]] = {}
    if name.startswith("aisleriot-"):  # rows C D H S, columns A..K, then jokers and the back
        for r, s in enumerate("CDHS"):
            for c, rank in enumerate(RANK_CLASSES[:13]):
                cells[rank + s] = (c, r)
        cells["JK"] = (0, 4)
        cells["BACK"] = (2, 4)
        return 13, 5, cells
    if name == "kde-svg-standard":  # rows S H C D, columns A K Q J 10..2
        order = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
        for r, s in enumerate("SHCD"):
            for c, rank in enumerate(order):
                cells[rank + s] = (c, r)
        return 13, 4, cells
    return None


def render_svg_deck(name: str, svg: Path, out: Path, height: int = FACE_HEIGHT) -> dict | None:
    """Render one SVG deck's sheet, cut it into cards and write faces and deck.json."""
    layout = _sheet_layout(name)
    if layout is None:
        return None
    cols, rows, cells = layout
    res = subprocess.run(
        ["rsvg-convert", "-w", str(cols * int(height * 0.75)), str(svg)],
        capture_output=True,
        check=False,
    )
    sheet = cv2.imdecode(np.frombuffer(res.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        return None
    ch, cw = sheet.shape[0] / rows, sheet.shape[1] / cols
    faces: dict[str, np.ndarray] = {}
    for code, (c, r) in cells.items():
        cell = sheet[int(r * ch) : int((r + 1) * ch), int(c * cw) : int((c + 1) * cw)]
        card = _trim(cell)
        if card.shape[0] < 0.8 * ch or card.shape[1] < 0.8 * cw:
            continue
        scale = height / card.shape[0]
        faces[code] = cv2.resize(
            card, (round(card.shape[1] * scale), height), interpolation=cv2.INTER_AREA
        )
    if sum(1 for k in faces if k not in ("JK", "BACK")) < 52:
        return None
    found = locate_index(faces)
    if found is None:
        return None
    box, four = found
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    for code, img in faces.items():
        cv2.imwrite(str(d / f"{code}.jpg"), _to_bgr_on_white(img), [cv2.IMWRITE_JPEG_QUALITY, 90])
    meta = {"name": name, "index_box": box, "four_corners": four, "source": str(svg)}
    meta["english"] = name not in NON_ENGLISH
    meta["held_out"] = name in HELD_OUT
    (d / "deck.json").write_text(json.dumps(meta, indent=1))
    return meta


# ---------------------------------------------------------------- own renderer

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
SUIT_COLOURS = {"S": (20, 20, 20), "C": (20, 20, 20), "H": (30, 30, 200), "D": (30, 30, 200)}


def _fonts() -> list[Path]:
    return sorted(p for p in _FONT_DIR.glob("DejaVu*.ttf") if "ExtraLight" not in p.name)


def _draw_pip(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour) -> None:
    s = size / 2
    if suit == "D":
        pts = np.array([[cx, cy - s], [cx + 0.72 * s, cy], [cx, cy + s], [cx - 0.72 * s, cy]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
    elif suit == "H":
        r = s * 0.5
        cv2.circle(img, (int(cx - r * 0.95), int(cy - r * 0.4)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.95), int(cy - r * 0.4)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 1.9 * r, cy - 0.2 * r], [cx + 1.9 * r, cy - 0.2 * r], [cx, cy + s]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
    elif suit == "S":
        r = s * 0.5
        cv2.circle(img, (int(cx - r * 0.9), int(cy + r * 0.25)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.9), int(cy + r * 0.25)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array(
            [[cx - 1.85 * r, cy + 0.05 * r], [cx + 1.85 * r, cy + 0.05 * r], [cx, cy - s]]
        )
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
        stem = np.array([[cx, cy + 0.2 * s], [cx + 0.35 * s, cy + s], [cx - 0.35 * s, cy + s]])
        cv2.fillPoly(img, [stem.astype(np.int32)], colour, cv2.LINE_AA)
    else:
        r = s * 0.42
        for dx, dy in ((0, -0.55), (-0.6, 0.25), (0.6, 0.25)):
            cv2.circle(img, (int(cx + dx * s), int(cy + dy * s)), int(r), colour, -1, cv2.LINE_AA)
        stem = np.array([[cx, cy], [cx + 0.3 * s, cy + s], [cx - 0.3 * s, cy + s]])
        cv2.fillPoly(img, [stem.astype(np.int32)], colour, cv2.LINE_AA)


def render_own_card(code: str, style: dict, height: int = FACE_HEIGHT) -> tuple[np.ndarray, list]:
    """Draw one card face; return (BGR image, top-left index box as fractions)."""
    from PIL import Image, ImageDraw, ImageFont

    w, h = int(height * style["aspect"]), height
    paper = style["paper"]
    img = np.full((h, w, 3), paper, np.uint8)
    rank, suit = ("JK", "S") if code == "JK" else (code[:-1], code[-1])
    colour = SUIT_COLOURS[suit] if code != "JK" else style["joker_colour"]
    # centre art
    if rank in ("J", "Q", "K", "JK"):
        m = style["frame"]
        p1, p2 = (int(m * w), int(m * 0.8 * h)), (int((1 - m) * w), int((1 - m * 0.8) * h))
        cv2.rectangle(img, p1, p2, style["frame_colour"], max(1, int(0.01 * w)))
        rng = random.Random(zlib.crc32(f"{code}/{style['seed']}".encode()))
        for _ in range(14):
            c = tuple(rng.randrange(0, 255) for _ in range(3))
            x, y = rng.uniform(0.3, 0.7) * w, rng.uniform(0.25, 0.75) * h
            axes = (int(rng.uniform(0.05, 0.2) * w), int(rng.uniform(0.03, 0.12) * h))
            cv2.ellipse(
                img, (int(x), int(y)), axes, rng.uniform(0, 180), 0, 360, c, -1, cv2.LINE_AA
            )
    else:
        n = 1 if rank == "A" else int(rank)
        cols = 1 if n <= 3 else 2
        if n in (7, 8, 9, 10):
            cols = 3 if n >= 9 else 2
        per = int(np.ceil(n / cols))
        k = 0
        for c in range(cols):
            for r in range(per):
                if k >= n:
                    break
                cx = w * (0.5 if cols == 1 else 0.33 + 0.34 * c / max(1, cols - 1))
                cy = h * (0.5 if per == 1 else 0.25 + 0.5 * r / max(1, per - 1))
                size = (0.35 if n == 1 else 0.16) * w
                _draw_pip(img, suit, cx, cy, size, colour)
                k += 1
    # corner index, drawn with a TrueType font through Pillow
    font = ImageFont.truetype(str(style["font"]), int(style["index_h"] * h))
    text = style.get("letters", {}).get(rank, rank) if rank != "JK" else "JOKER"
    pil = Image.fromarray(img[:, :, ::-1].copy())
    draw = ImageDraw.Draw(pil)
    x0, y0 = style["margin"] * w, style["margin"] * h * 0.75
    if rank == "JK":
        fs = int(style["index_h"] * h * 0.55)
        jf = ImageFont.truetype(str(style["font"]), fs)
        y = y0
        x1, y1, x2, y2 = x0, y0, x0, y0
        for ch in "JOKER":
            bb = draw.textbbox((x0, y), ch, font=jf)
            draw.text((x0, y), ch, font=jf, fill=colour[::-1])
            x1, y1, x2, y2 = min(x1, bb[0]), min(y1, bb[1]), max(x2, bb[2]), max(y2, bb[3])
            y = bb[3] + fs * 0.08
        box = [x1, y1, x2, y2]
    elif style.get("hershey") is not None:  # OpenCV's Hershey fonts: other glyph shapes
        face_id, thick = style["hershey"], style["thick"]
        target = style["index_h"] * h
        (tw, th), _ = cv2.getTextSize(text, face_id, 1.0, 1)
        fs = target / max(th, 1)
        sx = 0.75 if (rank == "10" and style["condense10"]) else 1.0
        (tw, th), base = cv2.getTextSize(text, face_id, fs, max(1, int(thick * fs)))
        canvas = np.full((th + base + 8, tw + 8, 3), paper, np.uint8)
        cv2.putText(
            canvas, text, (4, th + 4), face_id, fs, colour, max(1, int(thick * fs)), cv2.LINE_AA
        )
        if sx != 1.0:
            canvas = cv2.resize(canvas, (max(1, int(canvas.shape[1] * sx)), canvas.shape[0]))
        x0i, y0i = int(x0), int(y0)
        ch_, cw_ = canvas.shape[:2]
        img = np.array(pil)[:, :, ::-1].copy()
        img[y0i : y0i + ch_, x0i : x0i + cw_] = canvas[: h - y0i, : w - x0i]
        pil = Image.fromarray(img[:, :, ::-1].copy())
        box = [x0i + 3, y0i + 3, x0i + cw_ - 3, y0i + th + base // 2 + 5]
    else:
        squeeze = rank == "10" and style["condense10"]
        bb = draw.textbbox((x0, y0), text, font=font)
        if squeeze:
            small = ImageFont.truetype(str(style["font"]), int(style["index_h"] * h * 0.8))
            bb = draw.textbbox((x0, y0), text, font=small)
            draw.text((x0, y0), text, font=small, fill=colour[::-1])
        else:
            draw.text((x0, y0), text, font=font, fill=colour[::-1])
        box = list(bb)
    img = np.array(pil)[:, :, ::-1].copy()
    if rank != "JK":
        pip = style["pip"] * h
        cx = (box[0] + box[2]) / 2
        cy = box[3] + style["pip_gap"] * h + pip / 2
        _draw_pip(img, suit, cx, cy, pip, colour)
        box = [min(box[0], cx - pip / 2), box[1], max(box[2], cx + pip / 2), cy + pip / 2]
    # the other corners
    rot = cv2.rotate(img, cv2.ROTATE_180)
    bx = [int(box[0]) - 1, int(box[1]) - 1, int(np.ceil(box[2])) + 1, int(np.ceil(box[3])) + 1]
    bx = [max(0, bx[0]), max(0, bx[1]), min(w, bx[2]), min(h, bx[3])]
    patch = img[bx[1] : bx[3], bx[0] : bx[2]]
    rp = cv2.rotate(patch, cv2.ROTATE_180)
    img[h - bx[3] : h - bx[1], w - bx[2] : w - bx[0]] = rp
    if style["four"]:
        img[bx[1] : bx[3], w - bx[2] : w - bx[0]] = patch
        img[h - bx[3] : h - bx[1], bx[0] : bx[2]] = rp
    del rot
    # rounded outline
    if style["outline"]:
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), (90, 90, 90), 1)
    return img, [bx[0] / w, bx[1] / h, bx[2] / w, bx[3] / h]


def own_styles(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    fonts = _fonts()
    styles = []
    for i in range(n):
        styles.append(
            {
                "seed": i,
                "aspect": rng.uniform(0.62, 0.74),
                "paper": tuple(rng.randint(225, 255) for _ in range(3)),
                "font": fonts[rng.randrange(len(fonts))],
                "index_h": rng.uniform(0.07, 0.17),
                "pip": rng.uniform(0.05, 0.1),
                "pip_gap": rng.uniform(0.0, 0.02),
                "margin": rng.uniform(0.03, 0.08),
                "frame": rng.uniform(0.15, 0.22),
                "frame_colour": (rng.randint(0, 200), rng.randint(0, 200), rng.randint(0, 200)),
                "joker_colour": rng.choice([(20, 20, 20), (30, 30, 200), (160, 40, 40)]),
                "condense10": rng.random() < 0.5,
                "four": rng.random() < 0.25,
                "outline": rng.random() < 0.5,
                "hershey": rng.choice([None, None, 0, 2, 3, 4, 1, 5]),
                "thick": rng.uniform(0.8, 2.5),
            }
        )
    return styles


def render_own_deck(name: str, style: dict, out: Path, height: int = FACE_HEIGHT) -> dict:
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    boxes = []
    codes = [r + s for r in RANK_CLASSES[:13] for s in "SHDC"] + ["JK"]
    per_card = {}
    for code in codes:
        img, box = render_own_card(code, style, height)
        cv2.imwrite(str(d / f"{code}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        boxes.append(box)
        per_card[code] = [round(v, 4) for v in box]
    arr = np.array(boxes)
    box = [
        float(arr[:, 0].min()),
        float(arr[:, 1].min()),
        float(arr[:, 2].max()),
        float(arr[:, 3].max()),
    ]
    meta = {"name": name, "index_box": box, "card_boxes": per_card, "four_corners": style["four"]}
    meta.update({"source": "own", "english": True, "held_out": name in HELD_OUT})
    (d / "deck.json").write_text(json.dumps(meta, indent=1))
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--own", type=int, default=40, help="number of own-renderer designs")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    from tqdm import tqdm

    args.out.mkdir(parents=True, exist_ok=True)
    decks = svg_decks()
    ok, bad = [], []
    with ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(render_svg_deck, n, p, args.out): n for n, p in decks}
        for f in tqdm(futs, desc="svg decks"):
            (ok if f.result() else bad).append(futs[f])
    for i, st in enumerate(tqdm(own_styles(args.own), desc="own decks")):
        name = "own-heldout" if i == 0 else f"own-{i:02d}"
        render_own_deck(name, st, args.out)
    print(f"svg decks rendered: {len(ok)}; skipped (no usable index found): {bad}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
