"""A deck profile: this table's own deck, as learnt by ``referee calibrate deck``.

The reader (:class:`referee.vision.reader.CardReader`) uses a profile at run time; making
one is :mod:`referee.calibration.deck`, which imports this module (never the other way).

How it adapts (profile version 2, with the rank classifier ``models/ranks.onnx``): the
detector still finds the *corner indices* (it finds index-like glyphs even on decks it
never saw, e.g. German ``B``/``D``); calibration keeps each index of the user's shots as a
labelled exemplar crop (turned upright like the classifier's input). When reading with the
profile, every index site is embedded by the classifier's feature layer and compared with
the exemplars (augmented: turned, scaled, blurred) by cosine similarity; when the best match
is at least ``min_similarity``, the nearest exemplars' ranks are mixed into the site's
scores with weight ``deck_weight``. No training: seconds on a laptop CPU, any letters.

Version 1 (made before the rank classifier, still read and used as it was): for every
corner index of the shots the profile records (a) the detector's reading against the true
rank (a remap table: on the German deck "Q" meant J 10 times and Q 8 times) and (b) a 48 px
grey crop of the index. A reading that was right most of the time stays, one that
consistently meant another rank is remapped, an ambiguous one is settled by the nearest
exemplars (HOG descriptors, cosine similarity) if the match is at least ``min_similarity``.

The profile is a folder ``NAME/`` holding ``profile.json`` (versioned, human-readable: the
ranks, the crop files, the thresholds) and ``crops/*.png`` (the exemplar crops, which
you can look at). See ``calibration/README.md`` for the format and a worked example.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.profiles import write_profile
from referee.vision.group import Corner, _sites

PROFILE_VERSION = 2
ENV_VAR = "REFEREE_DECK_DIR"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")
ANGLES = (-40, -25, -12, 0, 12, 25, 40)
CROP = 32
#: Settings of a version-2 profile (with the rank classifier); see deck-defaults.json.
V2_DEFAULTS = {"min_similarity": 0.5, "deck_weight": 0.5, "detect_conf": 0.15, "neighbours": 5}
#: Settings of a version-1 profile (detector readings + HOG exemplars).
V1_DEFAULTS = {"min_similarity": 0.55, "detect_conf": 0.08, "neighbours": 3}


def augmented(patch: np.ndarray) -> list[np.ndarray]:
    """The exemplar patch and turned, scaled and blurred copies (the bank for matching)."""
    out = [patch]
    c = (patch.shape[1] / 2 - 0.5, patch.shape[0] / 2 - 0.5)
    for ang, sc in ((-20, 1.0), (20, 1.0), (-10, 0.9), (10, 1.1), (0, 0.85), (0, 1.15)):
        m = cv2.getRotationMatrix2D(c, ang, sc)
        out.append(cv2.warpAffine(patch, m, patch.shape[::-1], borderMode=cv2.BORDER_REPLICATE))
    out.append(cv2.GaussianBlur(patch, (0, 0), 1.2))
    small = cv2.resize(patch, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA)
    out.append(cv2.resize(small, patch.shape[::-1], interpolation=cv2.INTER_LINEAR))
    return out


# ------------------------------------------------------------------ descriptors


def _hog(img: np.ndarray, cell: int = 8, bins: int = 9) -> np.ndarray:
    """A small HOG: unsigned gradient orientations, 8 px cells, 2x2-cell L2 blocks."""
    f = img.astype(np.float32)
    gx = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=1)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.arctan2(gy, gx) % np.pi) / np.pi * bins
    b0 = np.floor(ang).astype(int) % bins
    w1 = ang - np.floor(ang)
    n = img.shape[0] // cell
    hist = np.zeros((n, n, bins), np.float32)
    ys, xs = np.mgrid[0 : n * cell, 0 : n * cell]
    ci, cj = ys // cell, xs // cell
    m = mag[: n * cell, : n * cell]
    bb = b0[: n * cell, : n * cell]
    ww = w1[: n * cell, : n * cell]
    np.add.at(hist, (ci, cj, bb), m * (1 - ww))
    np.add.at(hist, (ci, cj, (bb + 1) % bins), m * ww)
    blocks = []
    for i in range(n - 1):
        for j in range(n - 1):
            v = hist[i : i + 2, j : j + 2].ravel()
            blocks.append(v / (np.linalg.norm(v) + 1e-3))
    return np.concatenate(blocks)


def index_crop(image: np.ndarray, box, size: int = 48) -> np.ndarray:
    """A square grey crop centred on an index box, 1.5x its longer side, ``size`` pixels."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = 0.75 * max(x2 - x1, y2 - y1, 4)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    m = np.float32([[size / (2 * half), 0, size / 2 - cx * size / (2 * half)],
                    [0, size / (2 * half), size / 2 - cy * size / (2 * half)]])  # fmt: skip
    return cv2.warpAffine(
        grey, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def describe(crop48: np.ndarray, angle: float = 0.0) -> np.ndarray:
    """Unit HOG vector of the centre of a (rotated) 48 px crop."""
    if angle:
        rot = cv2.getRotationMatrix2D((24, 24), angle, 1.0)
        crop48 = cv2.warpAffine(crop48, rot, (48, 48), borderMode=cv2.BORDER_REPLICATE)
    m = 9  # keep the middle 30 of 48 px: the index, little of its surroundings
    c = cv2.resize(crop48[m : 48 - m, m : 48 - m], (CROP, CROP), interpolation=cv2.INTER_AREA)
    v = _hog(c)
    return v / (np.linalg.norm(v) + 1e-6)


# ------------------------------------------------------------------ the profile


@dataclass
class DeckProfile:
    """A calibrated deck: exemplar index crops with their ranks."""

    name: str
    ranks: list[str] = field(default_factory=list)
    crops: list[np.ndarray] = field(default_factory=list)
    min_similarity: float = 0.55
    detect_conf: float = 0.08
    neighbours: int = 3
    remap: dict[str, dict[str, int]] = field(default_factory=dict)
    remap_share: float = 0.8
    created: str = ""
    source: str = ""
    version: int = PROFILE_VERSION
    deck_weight: float = 0.5
    readings: dict[str, dict[str, int]] = field(default_factory=dict)
    _bank: np.ndarray | None = None
    _bank_ranks: list[str] | None = None
    _emb: np.ndarray | None = None
    _emb_ranks: np.ndarray | None = None

    @property
    def uses_ranker(self) -> bool:
        """Version 2 profiles work with the rank classifier; version 1 with the detector."""
        return self.version >= 2

    def embeddings(self, ranker) -> tuple[np.ndarray, np.ndarray]:
        """Unit feature vectors of the exemplars and augmented copies, and their classes."""
        if self._emb is None:
            patches, cls = [], []
            for rank, crop in zip(self.ranks, self.crops, strict=True):
                for p in augmented(crop):
                    patches.append(p)
                    cls.append(RANKS.index(rank))
            self._emb = ranker.embed(np.stack(patches)) if patches else np.zeros((0, 1))
            self._emb_ranks = np.array(cls, np.int64)
        return self._emb, self._emb_ranks

    def rescore(self, emb: np.ndarray, score: np.ndarray, none: float, ranker):
        """Mix the nearest exemplars' ranks into one site's scores (see the module doc)."""
        bank, cls = self.embeddings(ranker)
        if len(cls) == 0:
            return score, none
        sims = bank @ emb
        top = np.argsort(-sims)[: max(1, self.neighbours)]
        if float(sims[top[0]]) < self.min_similarity:
            return score, none
        votes = np.zeros_like(score)
        for i in top:
            votes[cls[i]] += max(0.0, float(sims[i]))
        votes /= max(1e-6, votes.sum())
        w = self.deck_weight
        return (1 - w) * score + w * votes, none * (1 - w)

    def bank(self) -> tuple[np.ndarray, list[str]]:
        if self._bank is None:
            vecs, ranks = [], []
            for rank, crop in zip(self.ranks, self.crops, strict=True):
                for base in (crop, cv2.rotate(crop, cv2.ROTATE_180)):
                    for a in ANGLES:
                        vecs.append(describe(base, a))
                        ranks.append(rank)
            self._bank = np.stack(vecs) if vecs else np.zeros((0, 324), np.float32)
            self._bank_ranks = ranks
        return self._bank, self._bank_ranks or []

    def classify(self, crop48: np.ndarray, among=None) -> tuple[str | None, float]:
        """(rank, similarity) of the best-matching exemplars (optionally only ``among``)."""
        bank, ranks = self.bank()
        if among is not None:
            keep = [i for i, r in enumerate(ranks) if r in among]
            bank, ranks = bank[keep], [ranks[i] for i in keep]
        if len(ranks) == 0:
            return None, 0.0
        sims = bank @ describe(crop48)
        top = np.argsort(-sims)[: max(1, self.neighbours)]
        score: dict[str, float] = {}
        for i in top:
            score[ranks[i]] = score.get(ranks[i], 0.0) + float(sims[i])
        rank = max(score, key=score.__getitem__)
        best = max(float(sims[i]) for i in top if ranks[i] == rank)
        return rank, best

    def read_site(self, image: np.ndarray, site: list[Corner]) -> Corner | None:
        """The rank of one index site on this deck.

        1. What the detector said on the calibration shots of this deck decides first: a
           reading ``c`` that was right more than half the time there stays; one that meant
           another rank (at least twice, ``remap_share`` of the time) is mapped to it
           (``B`` read as ``8`` -> ``J``).
        2. Otherwise (``B`` and ``D`` both read as ``Q``) the nearest exemplars among the
           ranks ``c`` meant there decide.
        3. A reading never seen during calibration stays as it is.
        """
        top = site[0]
        table = self.remap.get(top.rank)
        if not table:
            return top if top.confidence >= 0.25 else None
        total = sum(table.values())
        if table.get(top.rank, 0) / total > 0.5:  # mostly right on this deck: trust it
            return top if top.confidence >= 0.25 else None
        best, n = max(table.items(), key=lambda kv: kv[1])
        if n >= 2 and n / total >= self.remap_share:
            return Corner(best, max(top.confidence, 0.5) * n / total, top.box, top.centre)
        rank, sim = self.classify(index_crop(image, top.box), among=set(table) | {top.rank})
        if rank is None or sim < self.min_similarity:
            return top if top.confidence >= 0.25 else None
        conf = min(1.0, max(0.0, (sim - 0.5) * 2))
        return Corner(rank, conf, top.box, top.centre)

    def adapt(self, image: np.ndarray, corners: list[Corner]) -> list[Corner]:
        """Re-read each detected index site for this deck."""
        out = []
        for site in _sites(corners):
            c = self.read_site(image, site)
            if c is not None:
                out.append(c)
        return out

    # ---------------------------------------------------------------- files
    def save(self, folder: Path) -> Path:
        if self.uses_ranker:
            return self._save(folder, {
                "method": "rank classifier; nearest exemplars in its feature space",
                "min_similarity": self.min_similarity,
                "deck_weight": self.deck_weight,
                "detect_conf": self.detect_conf,
                "neighbours": self.neighbours,
                "readings": self.readings,
            })  # fmt: skip
        return self._save(folder, {
            "method": "detector-reading remap, then HOG nearest neighbours over index crops",
            "min_similarity": self.min_similarity,
            "detect_conf": self.detect_conf,
            "neighbours": self.neighbours,
            "remap_share": self.remap_share,
            "remap": self.remap,
        })  # fmt: skip

    def _save(self, folder: Path, fields: dict) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "crops").mkdir(exist_ok=True)
        for old in (folder / "crops").glob("*.png"):
            old.unlink()
        entries = []
        for i, (rank, crop) in enumerate(zip(self.ranks, self.crops, strict=True)):
            name = f"crops/{i:03d}_{rank}.png"
            cv2.imwrite(str(folder / name), crop)
            entries.append({"rank": rank, "crop": name})
        return write_profile(folder, "referee deck profile", self, {**fields, "exemplars": entries})


class ProfileError(Exception):
    """A deck profile that cannot be used (missing, corrupt, newer version)."""


def profiles_dir() -> Path:
    """``$REFEREE_DECK_DIR``, else ``decks/`` in the referee's data folder."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    from referee.paths import data_dir

    return data_dir() / "calibration" / "decks"


def profile_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".json":
        return p
    if p.is_dir() or "/" in str(name_or_path):
        return p / "profile.json"
    if not re.fullmatch(r"[\w.-]+", str(name_or_path)):
        raise ProfileError(f"deck name {name_or_path!r}: use letters, digits, '-', '_' or '.'")
    return profiles_dir() / str(name_or_path) / "profile.json"


def _counts(table) -> dict[str, dict[str, int]]:
    """A profile's reading -> true rank -> times table, as read from JSON."""
    return {str(k): {str(r): int(n) for r, n in v.items()} for k, v in dict(table).items()}


def read_profile(name_or_path: str | Path) -> DeckProfile:
    """Load a profile; raises :class:`ProfileError` with a message a user can act on."""
    path = profile_path(name_or_path)
    if not path.is_file():
        raise ProfileError(f"no deck profile {str(name_or_path)!r} (looked at {path}); "
                           "make one with `referee calibrate deck`")  # fmt: skip
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        version = int(data.get("version", 1))
        if version > PROFILE_VERSION:
            raise ProfileError(f"deck profile {path} is version {version}, newer than this "
                               f"referee understands ({PROFILE_VERSION}); recalibrate")  # fmt: skip
        ranks, crops = [], []
        for e in data["exemplars"]:
            if e["rank"] not in RANKS:
                raise ValueError(f"unknown rank {e['rank']!r}")
            crop = cv2.imread(str(path.parent / e["crop"]), cv2.IMREAD_GRAYSCALE)
            if crop is None or crop.shape != (48, 48):
                raise ValueError(f"missing or damaged crop {e['crop']}")
            ranks.append(e["rank"])
            crops.append(crop)
        defaults = V2_DEFAULTS if version >= 2 else V1_DEFAULTS
        common = {
            "name": str(data.get("name", path.parent.name)),
            "ranks": ranks,
            "crops": crops,
            "version": version if version >= 2 else 1,
            "min_similarity": float(data.get("min_similarity", defaults["min_similarity"])),
            "detect_conf": float(data.get("detect_conf", defaults["detect_conf"])),
            "neighbours": int(data.get("neighbours", defaults["neighbours"])),
            "created": str(data.get("created", "")),
            "source": str(data.get("source", "")),
        }
        if version >= 2:
            return DeckProfile(
                **common,
                deck_weight=float(data.get("deck_weight", V2_DEFAULTS["deck_weight"])),
                readings=_counts(data.get("readings", {})),
            )
        return DeckProfile(
            **common,
            remap=_counts(data.get("remap", {})),
            remap_share=float(data.get("remap_share", 0.8)),
        )
    except ProfileError:
        raise
    except (ValueError, KeyError, TypeError, OSError) as err:
        raise ProfileError(f"deck profile {path} is damaged ({err}); recalibrate") from err


def load_profile(name_or_path: str | Path, *, warn=None) -> DeckProfile | None:
    """The profile, or None (plain reader) after a clear warning when it cannot be used."""
    warn = warn or (lambda m: print(f"referee: {m}; reading cards without it", file=sys.stderr))
    try:
        return read_profile(name_or_path)
    except ProfileError as err:
        warn(str(err))
        return None
