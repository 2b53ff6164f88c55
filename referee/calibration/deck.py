"""``referee calibrate deck``: teach the card reader this table's own deck.

Calibration keeps each corner index of the user's shots as a labelled exemplar crop and
saves a deck profile; what a profile holds and how the reader uses it is
:mod:`referee.vision.deck` (this module imports vision, vision never imports calibration).

Calibration images: ``--images DIR`` with one card per photo and the rank either in a
``labels.csv`` (``path,cards`` as in the shared data: ``QH`` or ``Q``) or at the start of
the file name (``Q.jpg``, ``QH_2.png``, ``10-spades.jpg``). From the camera
(``--camera N``) the referee asks for each rank in turn.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from referee.vision.deck import RANKS, V2_DEFAULTS, DeckProfile, index_crop, profiles_dir
from referee.vision.group import _sites

# ------------------------------------------------------------------ calibrating


def rank_from_label(text: str) -> str | None:
    """``Q``, ``QH``, ``10C``, ``JK``, ``q_2``, ``10-spades`` -> rank; None if no rank."""
    t = text.strip().upper()
    suit = r"(?:SPADES?|HEARTS?|DIAMONDS?|CLUBS?|[SHDC])?"
    m = re.match(rf"^(JOKER|JK|10|[AJQK2-9]){suit}(?:$|[^A-Z0-9])", t)
    if not m:
        return None
    return "JK" if m.group(1) == "JOKER" else m.group(1)


def labelled_images(folder: Path, labels: Path | None = None) -> list[tuple[Path, str]]:
    """(image, rank) pairs from ``labels.csv`` (path,cards) or from the file names."""
    exts = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
    csv_path = labels or (folder / "labels.csv")
    out: list[tuple[Path, str]] = []
    if csv_path.is_file():
        base = csv_path.parent
        with open(csv_path, newline="") as fh:
            for row in csv.DictReader(fh):
                cards = (row.get("cards") or row.get("rank") or "").split()
                p = Path(row.get("path") or row.get("image") or "")
                full = p if p.is_absolute() else base / p
                if len(cards) != 1 or not full.is_file():
                    continue
                if labels is not None and folder.resolve() not in full.resolve().parents:
                    continue
                rank = rank_from_label(cards[0])
                if rank:
                    out.append((full, rank))
        return out
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in exts:
            rank = rank_from_label(p.stem)
            if rank:
                out.append((p, rank))
    return out


def _best_card_sites(reader, image: np.ndarray, conf: float):
    """(image at <= 640 px, index sites of the most confident card) in a one-card photo."""
    from referee.vision.group import group_corners

    h, w = image.shape[:2]
    s = 640 / max(h, w)
    if s < 1:
        image = cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    corners = reader.corners(image, conf=conf)
    if not corners:
        return image, []
    groups = group_corners(corners)
    best = max(groups, key=lambda g: sum(c.confidence for c in g.corners))
    sites = _sites(best.corners)
    sizes = sorted(s[0].size for s in sites)
    med = sizes[len(sizes) // 2]
    return image, [s for s in sites if 0.6 * med <= s[0].size <= 1.6 * med]


def exemplars_from_image(
    reader, image: np.ndarray, conf: float = 0.08
) -> list[tuple[np.ndarray, str]]:
    """(crop, detector's reading) of each corner index of the one card in a photo
    (version-1 crops: not turned)."""
    image, sites = _best_card_sites(reader, image, conf)
    return [(index_crop(image, s[0].box), s[0].rank) for s in sites]


def patches_from_image(reader, image: np.ndarray, conf: float) -> list[tuple[np.ndarray, str]]:
    """(classifier patch, classifier's reading) of each corner index of the one card."""
    image, sites = _best_card_sites(reader, image, conf)
    if not sites:
        return []
    tops = [s[0] for s in sites]
    patches = reader.ranker.patches(image, tops)
    probs = reader.ranker.probs(patches)
    names = reader.ranker.classes
    return [(p, names[int(np.argmax(q))]) for p, q in zip(patches, probs, strict=True)]


def calibrate(reader, shots: list[tuple[np.ndarray, str]], name: str, source: str = "",
              progress=None) -> tuple[DeckProfile, list[str]]:  # fmt: skip
    """Build a profile from (image, rank) shots; returns it and a list of problems.

    With the rank classifier loaded in ``reader`` the profile is version 2, else version 1.
    """
    v2 = getattr(reader, "ranker", None) is not None
    if v2:
        profile = DeckProfile(name=name, source=source, **V2_DEFAULTS)
    else:
        profile = DeckProfile(name=name, source=source, version=1)
    problems = []
    for i, (img, rank) in enumerate(shots):
        if v2:
            crops = patches_from_image(reader, img, profile.detect_conf)
        else:
            crops = exemplars_from_image(reader, img, profile.detect_conf)
        if not crops:
            problems.append(f"shot {i + 1} ({rank}): no card index found")
        for c, seen in crops:
            profile.ranks.append(rank)
            profile.crops.append(c)
            row = (profile.readings if v2 else profile.remap).setdefault(seen, {})
            row[rank] = row.get(rank, 0) + 1
        if progress:
            progress(i + 1, len(shots))
    missing = [r for r in RANKS[:13] if r not in profile.ranks]
    if missing:
        problems.append("no exemplar for " + " ".join(missing) + " (those ranks stay as read)")
    return profile, problems


def add_deck_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True, help="name of the deck profile to save")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--images", type=Path, metavar="DIR", help="photos, one card each")
    src.add_argument("--camera", type=int, default=None, metavar="N", help="camera to use")
    parser.add_argument("--labels", type=Path, help="CSV path,cards (default DIR/labels.csv)")
    parser.add_argument("--out", type=Path, help="profile folder (default: user data dir)")
    parser.add_argument("--model", type=Path, default=None, help="detector weights")


def _camera_shots(index: int, ranks=RANKS[:13]):
    """Ask for each rank in turn and take a still frame of it (voice via the screen)."""
    from referee.errors import UserError
    from referee.vision.camera import open_camera
    from referee.vision.reader import STILL, thumbnail

    cap = open_camera(index)
    try:
        for rank in ranks:
            print(f"show one card of rank {rank} to the camera and hold it still ...", flush=True)
            prev = None
            for _ in range(150):
                ok, frame = cap.read()
                if not ok or frame is None:
                    raise UserError(f"camera {index} stopped giving pictures")
                thumb = thumbnail(frame)
                if prev is not None and float(np.abs(thumb - prev).mean()) < STILL:
                    yield frame, rank
                    break
                prev = thumb
            else:
                print(f"  no still picture of {rank}; skipped", flush=True)
    finally:
        cap.release()


def run_deck(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from referee.errors import UserError
    from referee.vision.reader import CardReader

    if not re.fullmatch(r"[\w.-]+", args.name):
        raise UserError(f"deck name {args.name!r}: use letters, digits, '-', '_' or '.'")
    t0 = time.time()
    if args.images is not None:
        if not args.images.is_dir():
            raise UserError(f"no such folder: {args.images}")
        pairs = labelled_images(args.images, args.labels)
        if not pairs:
            raise UserError(f"no labelled card photos in {args.images}: name them by rank "
                            "(Q.jpg, 10H.png) or add labels.csv with path,cards")  # fmt: skip
        shots = []
        for p, rank in pairs:
            img = cv2.imread(str(p))
            if img is None:
                print(f"referee: skipped unreadable image {p}", file=sys.stderr)
                continue
            shots.append((img, rank))
        source = str(args.images)
    else:
        shots = list(_camera_shots(args.camera if args.camera is not None else 0))
        source = f"camera {args.camera or 0}"
    if not shots:
        raise UserError("no usable calibration pictures")
    reader = CardReader(args.model)
    bar = tqdm(total=len(shots), desc="deck", unit="shot")
    profile, problems = calibrate(reader, shots, args.name, source,
                                  progress=lambda i, n: bar.update(1))  # fmt: skip
    bar.close()
    if not profile.ranks:
        raise UserError("no card index was found in any picture; check the camera with "
                        "`referee calibrate camera`")  # fmt: skip
    folder = args.out or profiles_dir() / args.name
    path = profile.save(folder)
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    ranks = sorted(set(profile.ranks), key=RANKS.index)
    print(f"deck {args.name!r}: {len(profile.ranks)} exemplars of {' '.join(ranks)} from "
          f"{len(shots)} pictures in {time.time() - t0:.0f} s -> {path}")  # fmt: skip
    print(f"use it with: referee look --deck {args.name if args.out is None else folder} IMAGE")
    return 0
