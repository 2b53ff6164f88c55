"""Read a reveal from video: merge what the frames of one reveal show (pure, no model).

A laptop's camera sees a reveal over a second or two: the cards are being spread, a thumb
covers one corner, then another. One frame is a partial read; the frames together are not.
:func:`merge_reads` follows each card from frame to frame by where it lies, so a card seen
clearly in some frames and covered in others is one card whose rank is voted over every
frame that showed it. The count is the most cards seen at once (in at least ``support``
frames, so that one frame's phantom does not add a card); a card covered in the frames
that show the most is not added from other frames, as a card that moved could then count
twice. :class:`MergingVoter` feeds a camera's still frames to it and answers once the last
frames all show the merged count, so a fan being spread is read once it is spread.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.vision.reader import STILL, UNREADABLE, Reveal, SeenCard, thumbnail


def _centre(c: SeenCard) -> tuple[float, float]:
    return ((c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2)


def _size(c: SeenCard) -> float:
    return max(c.box[2] - c.box[0], c.box[3] - c.box[1], 1.0)


@dataclass
class Track:
    """One card of the anchor frame followed over the frames: its rank votes."""

    card: SeenCard
    votes: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    frames: int = 0

    def add(self, card: SeenCard) -> None:
        self.votes[card.rank] += card.confidence
        self.frames += 1

    @property
    def rank(self) -> str:
        return max(self.votes, key=self.votes.__getitem__)

    @property
    def confidence(self) -> float:
        """The winning rank's mean confidence over the frames that saw the card, scaled by
        its share of all the votes (a card read as a 6 here and a 9 there is unsure)."""
        total = sum(self.votes.values())
        win = self.votes[self.rank]
        return (win / max(1, self.frames)) * (win / total) if total > 0 else 0.0


def _match(
    base: Sequence[SeenCard], cards: Sequence[SeenCard], link: float
) -> list[tuple[int, int]]:
    """Pairs (base card, card) nearest first, each at most ``link`` card sizes apart."""
    pairs = []
    for t, b in enumerate(base):
        for k, c in enumerate(cards):
            d = math.dist(_centre(b), _centre(c)) / ((_size(b) + _size(c)) / 2)
            if d <= link:
                pairs.append((d, t, k))
    used_t, used_k, out = set(), set(), []
    for _, t, k in sorted(pairs):
        if t not in used_t and k not in used_k:
            used_t.add(t)
            used_k.add(k)
            out.append((t, k))
    return out


def _shift(base: Sequence[SeenCard], cards: Sequence[SeenCard], link: float) -> tuple[float, float]:
    """The whole reveal's move between the anchor frame and another (hands and laptops move
    the whole picture at once): of the offsets that lay one of its cards on one of the
    anchor's, the one under which the most cards match, by place and then by rank (a fan's
    cards are evenly spaced, so place alone is ambiguous), the smallest move on a tie."""
    if not base or not cards:
        return (0.0, 0.0)
    offsets = {(0.0, 0.0)}
    for b in base:
        for c in cards:
            (bx, by), (cx, cy) = _centre(b), _centre(c)
            offsets.add((bx - cx, by - cy))
    size = sum(_size(b) for b in base) / len(base)

    def score(off: tuple[float, float]) -> tuple[int, float]:
        moved = [_moved(c, *off) for c in cards]
        pairs = _match(base, moved, link)
        agree = sum(base[t].rank == moved[k].rank for t, k in pairs)
        return (len(pairs) + agree, -math.hypot(*off) / size)

    return max(sorted(offsets), key=score)


def _moved(c: SeenCard, dx: float, dy: float) -> SeenCard:
    x1, y1, x2, y2 = c.box
    return SeenCard(c.rank, c.suit, c.confidence, (x1 + dx, y1 + dy, x2 + dx, y2 + dy))


@dataclass
class Merged:
    """What the frames of one reveal show together."""

    cards: list[SeenCard]
    #: cards seen in each frame read, in order
    counts: list[int]
    #: the frame whose cards are the reveal (the most cards at once, surest)
    anchor: int | None


def merge_reads(
    reads: Sequence[Sequence[SeenCard]],
    *,
    support: int = 2,
    link: float = 0.6,
) -> Merged:
    """Merge the cards read in the frames of one reveal (see the module docstring).

    ``reads`` holds each frame's cards. The count is the largest number of cards that at
    least ``support`` frames show at once (fewer frames than that: the largest seen). The
    cards are those of the surest frame showing that many (the anchor); each is followed
    through every frame by position (nearest first, within ``link`` card sizes, after
    taking out the whole picture's move relative to the anchor, :func:`_shift`), and its
    rank is the vote of all the frames that saw it.
    """
    counts = [len(r) for r in reads]
    if not any(counts):
        return Merged([], counts, None)
    need = min(support, sum(1 for n in counts if n))
    count = max(n for n in set(counts) if sum(1 for m in counts if m >= n) >= need)
    full = [i for i, n in enumerate(counts) if n >= count]
    anchor = max(full, key=lambda i: (-abs(counts[i] - count), _mean_conf(reads[i])))
    base = list(reads[anchor])
    if len(base) > count:  # keep the surest ``count`` cards of a frame that shows more
        base = sorted(base, key=lambda c: -c.confidence)[:count]
    tracks = [Track(c) for c in base]
    for tr in tracks:
        tr.add(tr.card)
    for i, frame in enumerate(reads):
        if i == anchor or not frame:
            continue
        dx, dy = _shift(base, frame, link)
        moved = [_moved(c, dx, dy) for c in frame]
        for t, k in _match(base, moved, link):
            tracks[t].add(moved[k])
    cards = [SeenCard(tr.rank, None, tr.confidence, tr.card.box) for tr in tracks]
    cards.sort(key=lambda c: (c.box[0], c.box[1]))
    return Merged(cards, counts, anchor)


def _mean_conf(cards: Sequence[SeenCard]) -> float:
    return sum(c.confidence for c in cards) / max(1, len(cards))


def count_message(seen: int, expect: int) -> str:
    """What the referee says when it counts other than the claim: it asks again."""
    return f"I count {seen} card{'s' if seen != 1 else ''}, not {expect}: spread the cards"


def judge_count(reveal: Reveal, expect: int | None) -> Reveal:
    """A reveal whose count is not the claim's is not judged on it: unreadable, asking to
    spread the cards (the cards stay in the reveal, for the screen)."""
    if expect is None or reveal.count == expect or not reveal.cards:
        return reveal
    return Reveal(
        reveal.cards,
        readable=False,
        message=count_message(reveal.count, expect),
        set_aside=list(reveal.set_aside),
    )


class MergingVoter:
    """Frame-by-frame reading for :meth:`CardReader.read_stable`: read the still frames,
    merge them (:func:`merge_reads`), answer once the last ``votes`` reads each show the
    merged count (and, with ``expect``, that count is the claim's) with every merged card
    sure (``min_conf``); after ``max_frames`` frames, the merge so far.

    Same ``push(frame, read)`` / ``give_up()`` and still test as
    :class:`referee.vision.reader.StableVoter`. ``read`` is the one-frame reader
    (``CardReader.read``).
    """

    def __init__(
        self,
        votes: int = 3,
        max_frames: int = 30,
        still: float = STILL,
        *,
        expect: int | None = None,
        min_conf: float = 0.45,
        support: int = 2,
    ) -> None:
        self.votes, self.max_frames, self.expect = votes, max_frames, expect
        self.min_conf, self.support = min_conf, support
        self.still = still
        self.prev: np.ndarray | None = None
        self.reads: list[list[SeenCard]] = []
        self.aside: list[list[SeenCard]] = []
        self.seen = 0

    def push(self, frame: np.ndarray, read: Callable[[np.ndarray], Reveal]) -> Reveal | None:
        """Feed one frame; returns the answer, or None to keep looking."""
        self.seen += 1
        if frame is not None and getattr(frame, "size", 0) > 0:
            thumb = thumbnail(frame)
            prev, self.prev = self.prev, thumb
            if prev is not None and float(np.abs(thumb - prev).mean()) <= self.still:
                reveal = read(frame)
                self.reads.append(list(reveal.cards))
                self.aside.append(list(getattr(reveal, "set_aside", [])))
                answer = self._answer()
                if answer is not None:
                    return answer
        elif self.seen >= self.max_frames:
            return self.give_up("the camera gave an empty frame")
        return self.give_up() if self.seen >= self.max_frames else None

    def merged(self) -> Merged:
        return merge_reads(self.reads, support=self.support)

    def _reveal(self, m: Merged) -> Reveal:
        aside = self.aside[m.anchor] if m.anchor is not None else []
        if not m.cards:
            return Reveal(message=UNREADABLE + " (no cards seen)", set_aside=aside)
        sure = all(c.confidence >= self.min_conf for c in m.cards)
        reveal = Reveal(m.cards, readable=sure, message="" if sure else UNREADABLE, set_aside=aside)
        return judge_count(reveal, self.expect)

    def _answer(self) -> Reveal | None:
        if len(self.reads) < self.votes:
            return None
        m = self.merged()
        n = len(m.cards)
        if n == 0 or any(len(r) != n for r in self.reads[-self.votes :]):
            return None
        reveal = self._reveal(m)
        return reveal if reveal.readable else None

    def give_up(self, why: str | None = None) -> Reveal:
        """The merge of every still frame read so far (unreadable when there was none)."""
        if not self.reads:
            return Reveal(message=UNREADABLE if why is None else f"{why}; {UNREADABLE}")
        return self._reveal(self.merged())
