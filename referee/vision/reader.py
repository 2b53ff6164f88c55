"""Read a reveal: which cards lie face up in a frame. See :mod:`referee.vision` for the API."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from referee.paths import MODELS_DIR
from referee.vision.group import Corner, _sites, group_corners, reveal_groups
from referee.vision.labels import RANK_CLASSES
from referee.vision.second_look import SecondLook, cards_small, look_again, new_sites

#: the detector at the table: ``corners.onnx`` quantized to 8-bit integers
#: (:mod:`referee.vision.quantize`), about twice as fast on a CPU, reading as well
DEFAULT_MODEL = MODELS_DIR / "corners.int8.onnx"
#: the float export of ``corners.pt``: the same readings as the trained weights, to the pixel
MODEL_FLOAT = MODELS_DIR / "corners.onnx"
#: the trained weights ``corners.onnx`` is exported from (read with the ``[train]`` extra)
MODEL_PT = MODELS_DIR / "corners.pt"
UNREADABLE = "I can't read that, spread the cards"
#: a frame is still when its thumbnail differs from the previous one's by at most this
#: (mean absolute grey level)
STILL = 6.0


@dataclass(frozen=True)
class SeenCard:
    """One physical card: rank (A 2..10 J Q K, JK), suit (always None: suits do not matter)."""

    rank: str
    suit: str | None
    confidence: float
    box: tuple[float, float, float, float]

    def to_json(self) -> dict:
        d = asdict(self)
        d["confidence"] = round(self.confidence, 3)
        d["box"] = [round(v, 1) for v in self.box]
        return d


@dataclass
class Reveal:
    """What the reader saw: cards, their count, and whether it is sure enough to judge."""

    cards: list[SeenCard] = field(default_factory=list)
    readable: bool = False
    message: str = UNREADABLE
    #: cards seen but not counted: cut by the frame's edge or lying apart from the reveal
    set_aside: list[SeenCard] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def ranks(self) -> list[str]:
        return sorted(c.rank for c in self.cards)


class CardReader:
    """Corner-index detector + rank classifier + grouping into cards, optionally adapted to
    a deck profile.

    ``model_path`` defaults to ``models/corners.int8.onnx`` (run with onnxruntime, as is
    the float ``models/corners.onnx``; a ``.pt`` runs with ultralytics and needs the
    ``[train]`` extra); ``ranker`` to ``models/ranks.onnx``
    (the second stage that reads each index again; a ``.pt`` runs with torch; ``False``
    reads with the detector's classes alone); ``deck`` is a
    :class:`referee.vision.deck.DeckProfile` (or its name) learnt by ``referee calibrate
    deck``. The models load once, here; a reader is meant to live as long as the process.

    ``sure_rank``: two indices whose ranks differ while both score at least this are never
    one card (:func:`referee.vision.group.group_corners`). Reading with a deck profile
    (``deck_sure_rank``) the scores mix in exemplar votes, so a site's score is a softer
    claim and the bar is higher (0.8, chosen on synthetic calibrated German-letter decks,
    ``bench.vision.grouping``). The profile also halves every site's "not an index" score
    (so that exemplars can rescue letters the classifier never saw); a card of one index
    whose halved score is still ``deck_lone_none`` (0.1, same synthetic decks) is dropped
    while another card remains, as nothing else on the card backs it up.

    ``second_look``: a :class:`referee.vision.second_look.SecondLook` reads small cards (a
    laptop's view of the table) again, at a lower confidence and in a crop; off by default
    (None): it reads the laptop view and the held-out synthetic scenes better but two
    real German-index photos worse (bench/vision/second_look.md).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        deck=None,
        *,
        imgsz: int = 512,
        conf: float = 0.25,
        min_card_conf: float = 0.45,
        threads: int = 2,
        ranker: str | Path | bool | None = True,
        rank_weight: float = 0.7,
        none_drop: float = 0.5,
        sure_rank: float | None = 0.6,
        deck_sure_rank: float | None = 0.8,
        deck_lone_none: float | None = 0.1,
        second_look: SecondLook | None = None,
    ) -> None:
        from referee.vision.detector import open_detector

        path = Path(model_path) if model_path else DEFAULT_MODEL
        if not path.exists():
            from referee.errors import UserError

            raise UserError(f"card model not found: {path} (it ships in models/)")
        self.detector = open_detector(path, imgsz=imgsz, threads=threads)
        self.imgsz = imgsz
        self.conf = conf
        self.min_card_conf = min_card_conf
        if isinstance(deck, str):
            from referee.vision.deck import load_profile

            deck = load_profile(deck)
        self.deck = deck
        if ranker is True:
            from referee.vision.ranker import DEFAULT_RANKER

            ranker = DEFAULT_RANKER if DEFAULT_RANKER.exists() else None
        self.ranker = None
        if ranker:
            from referee.vision.ranker import Ranker

            self.ranker = Ranker(ranker, threads=threads)
        self.rank_weight = rank_weight
        self.none_drop = none_drop
        self.sure_rank = sure_rank
        self.deck_sure_rank = deck_sure_rank
        self.deck_lone_none = deck_lone_none
        self.second_look = second_look

    # ---------------------------------------------------------------- one frame
    def corners(self, image_bgr: np.ndarray, conf: float | None = None) -> list[Corner]:
        """Raw corner-index detections (before grouping and deck adaptation)."""
        return self.detector.detect(image_bgr, self.conf if conf is None else conf, max_det=100)

    def read(self, image_bgr: np.ndarray, expect: int | None = None) -> Reveal:
        """Read one frame; with ``expect`` (the claim's count) a count other than that is
        unreadable (:func:`referee.vision.merge.judge_count`)."""
        if image_bgr is None or not hasattr(image_bgr, "shape") or image_bgr.size == 0:
            return Reveal(message="empty frame")
        if image_bgr.ndim == 2:
            import cv2

            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        base = self.deck.detect_conf if self.deck else self.conf
        corners, small = self._look(image_bgr, base)
        reranked = False
        if self.deck is not None and not getattr(self.deck, "uses_ranker", False):
            corners = self.deck.adapt(image_bgr, corners)  # a version-1 profile
        elif self.ranker is not None:
            look = self.second_look
            if look is None:
                corners = self.rerank(image_bgr, corners)
            else:
                corners = self.rerank(image_bgr, corners, base, look.weak_none)
            reranked = True
        sure = lone = None
        if reranked:
            calibrated = getattr(self.deck, "uses_ranker", False)
            sure = self.deck_sure_rank if calibrated else self.sure_rank
            lone = self.deck_lone_none if calibrated else None
        tight = self.second_look.grouping if small and self.second_look is not None else {}
        groups = group_corners(corners, sure_rank=sure, lone_none=lone, **tight)
        h, w = image_bgr.shape[:2]
        groups, aside = reveal_groups([g for g in groups if g.confidence >= 0.2], w, h, expect)
        set_aside = [SeenCard(a.group.rank, None, a.group.confidence, _clip(a.group.box, w, h))
                     for a in aside]  # fmt: skip
        cards = [SeenCard(g.rank, None, g.confidence, _clip(g.box, w, h)) for g in groups]
        if not cards:
            return Reveal(message=UNREADABLE + " (no cards seen)", set_aside=set_aside)
        sure = all(c.confidence >= self.min_card_conf for c in cards)
        reveal = Reveal(cards, sure, "" if sure else UNREADABLE, set_aside)
        from referee.vision.merge import judge_count

        return judge_count(reveal, expect)

    def look(self, image_bgr: np.ndarray, conf: float) -> list[Corner]:
        """The corner indices to read: the detector's at ``conf``; when its cards are all
        small, with a second look (:mod:`referee.vision.second_look`; only where the rank
        classifier reads every site again, as it drops the weaker hits that are no index)."""
        return self._look(image_bgr, conf)[0]

    def _look(self, image_bgr: np.ndarray, conf: float) -> tuple[list[Corner], bool]:
        """:meth:`look`'s indices, and whether it looked again."""
        look = self.second_look
        if look is None or self.ranker is None or (self.deck is not None and not look.with_deck):
            return self.corners(image_bgr, conf=conf), False
        low = self.corners(image_bgr, conf=min(conf, look.conf))
        first = [c for c in low if c.confidence >= conf]
        if not cards_small(first, image_bgr.shape[0], look):
            return first, False
        weak = [c for c in low if c.confidence < conf]
        if look.apart:  # a weak hit beside a strong one is a part of that index
            weak = new_sites(first, weak, look.near)
        low = first + weak
        more = look_again(self.detector, image_bgr, low, look)
        return low + new_sites(low, more, look.near), True

    def rerank(
        self,
        image_bgr: np.ndarray,
        corners: list[Corner],
        weak_below: float = 0.0,
        weak_none: float = 1.0,
    ) -> list[Corner]:
        """Read each index site again with the rank classifier (and the deck, if any).

        Per site the rank scores are ``rank_weight`` x the classifier's probability plus the
        rest x the detector's confidence for that rank; a site the classifier calls "not an
        index" with at least ``none_drop`` is dropped, or with ``weak_none`` when the
        detector found it below ``weak_below`` only (a second look's weaker hit).
        """
        from referee.vision.labels import CLASS_OF

        sites = _sites(corners)
        if not sites:
            return []
        tops = [s[0] for s in sites]
        probs, emb = self.ranker.run(self.ranker.patches(image_bgr, tops))
        deck = self.deck if getattr(self.deck, "uses_ranker", False) else None
        out = []
        for k, site in enumerate(sites):
            p = probs[k]
            q = np.zeros(len(RANK_CLASSES), np.float32)
            for c in site:
                i = CLASS_OF[c.rank]
                q[i] = max(q[i], c.confidence)
            score = self.rank_weight * p[: len(q)] + (1 - self.rank_weight) * q
            none = float(p[len(q)])
            if deck is not None:
                score, none = deck.rescore(emb[k], score, none, self.ranker)
            if none >= (self.none_drop if tops[k].confidence >= weak_below else weak_none):
                continue
            best = int(np.argmax(score))
            top = tops[k]
            out.append(Corner(RANK_CLASSES[best], float(score[best]), top.box, top.centre, none))
        return out

    # ---------------------------------------------------------------- camera
    def read_stable(
        self,
        frames: Iterable[np.ndarray],
        *,
        votes: int = 3,
        max_frames: int = 30,
        still: float = STILL,
        expect: int | None = None,
    ) -> Reveal:
        """Read a reveal from a stream of frames: wait until still, then merge the frames.

        A frame counts only when it differs from the previous one by less than ``still``
        (mean absolute grey level, on a 160 px thumbnail), i.e. once hands and cards stopped
        moving. The still frames' cards are merged (:class:`referee.vision.merge.MergingVoter`:
        a card covered in some frames is one card, the count is the most seen at once); the
        answer comes once the last ``votes`` still frames all show the merged count, sure
        enough, and, with ``expect`` (the claim's count), that count; after ``max_frames``
        the merge so far (unreadable, asking to spread the cards, on a count not the claim's).
        """
        from referee.vision.merge import MergingVoter

        voter = MergingVoter(votes, max_frames, still, expect=expect, min_conf=self.min_card_conf)
        read = self.read if expect is None else lambda f: self.read(f, expect)
        for frame in frames:
            done = voter.push(frame, read)
            if done is not None:
                return done
        return voter.give_up()


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """The 160 px wide grey thumbnail (float32) that still frames are told by."""
    import cv2

    g = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = g.shape[:2]
    return cv2.resize(g, (160, max(1, round(160 * h / max(w, 1))))).astype(np.float32)


class StableVoter:
    """Frame-by-frame voting over whole frames, what :meth:`CardReader.read_stable` used
    before :class:`referee.vision.merge.MergingVoter` (reader injectable)."""

    def __init__(self, votes: int = 3, max_frames: int = 30, still: float = STILL) -> None:
        self.votes, self.max_frames, self.still = votes, max_frames, still
        self.prev: np.ndarray | None = None
        self.seen = 0
        self.tally: Counter = Counter()
        self.best: dict[tuple, Reveal] = {}

    def push(self, frame: np.ndarray, read) -> Reveal | None:
        """Feed one frame; returns the agreed reveal, or None to keep going."""
        self.seen += 1
        if frame is None or getattr(frame, "size", 0) == 0:
            return self.give_up("the camera gave an empty frame") if self._over() else None
        thumb = thumbnail(frame)
        moving = self.prev is None or float(np.abs(thumb - self.prev).mean()) > self.still
        self.prev = thumb
        if not moving:
            reveal = read(frame)
            if reveal.readable:
                key = tuple(reveal.ranks)
                self.tally[key] += 1
                old = self.best.get(key)
                if old is None or _mean_conf(reveal) > _mean_conf(old):
                    self.best[key] = reveal
                if self.tally[key] >= self.votes:
                    return self.best[key]
        return self.give_up() if self._over() else None

    def _over(self) -> bool:
        return self.seen >= self.max_frames

    def give_up(self, why: str | None = None) -> Reveal:
        if self.tally:
            key, n = self.tally.most_common(1)[0]
            if n >= max(2, self.votes - 1):
                return self.best[key]
        return Reveal(message=UNREADABLE if why is None else f"{why}; {UNREADABLE}")


def _clip(box, w: int, h: int) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (max(0.0, x1), max(0.0, y1), min(float(w), x2), min(float(h), y2))


def _mean_conf(r: Reveal) -> float:
    return sum(c.confidence for c in r.cards) / max(1, len(r.cards))


def reveal_json(path: str, reveal: Reveal) -> str:
    obj = {"image": path, "cards": [c.to_json() for c in reveal.cards], "count": reveal.count}
    if not reveal.readable and reveal.message:
        obj["message"] = reveal.message
    return json.dumps(obj)


def timed_read(reader: CardReader, image: np.ndarray) -> tuple[Reveal, float]:
    t = time.perf_counter()
    r = reader.read(image)
    return r, time.perf_counter() - t
