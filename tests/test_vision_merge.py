"""Reading a reveal from video: the frames of one reveal merged (pure, scripted reads)."""

from __future__ import annotations

import numpy as np

from referee.vision.merge import MergingVoter, merge_reads
from referee.vision.reader import Reveal, SeenCard


def at(rank: str, x: float, y: float = 200, conf: float = 0.9, size: float = 100) -> SeenCard:
    return SeenCard(rank, None, conf, (x, y, x + 0.7 * size, y + size))


def test_a_card_covered_in_some_frames_is_one_card():
    # a thumb over the queen in two of four frames: three cards, not four or two
    full = [at("Q", 100), at("Q", 200), at("7", 300)]
    covered = [at("Q", 100), at("7", 300)]
    m = merge_reads([covered, full, covered, full])
    assert sorted(c.rank for c in m.cards) == ["7", "Q", "Q"]


def test_the_count_is_the_most_seen_at_once_in_two_frames():
    two, three = [at("5", 100), at("5", 200)], [at("5", 100), at("5", 200), at("5", 300)]
    assert len(merge_reads([two, three, two, three]).cards) == 3
    # one frame's phantom fourth card is not a card
    four = three + [at("K", 420)]
    assert len(merge_reads([three, four, three]).cards) == 3
    # a single frame read is what it shows
    assert len(merge_reads([four]).cards) == 4


def test_a_rank_misread_under_a_finger_is_outvoted_by_the_clear_frames():
    clear = [at("8", 100), at("3", 200)]
    finger = [at("8", 100), at("9", 200, conf=0.6)]  # the 3's index half covered
    m = merge_reads([finger, clear, clear])
    assert sorted(c.rank for c in m.cards) == ["3", "8"]
    assert merge_reads([finger, clear]).cards[1].confidence < 0.9  # a split vote is unsure


def test_cards_are_followed_when_the_whole_picture_moves():
    # the hand holding the fan drifts 60 px (more than half a card) between frames
    a = [at("J", 100), at("J", 160), at("4", 220)]
    b = [at("J", 160), at("J", 220), at("2", 280, conf=0.5)]  # the 4 read badly
    c = [at("J", 220), at("J", 280), at("4", 340)]
    m = merge_reads([a, b, c])
    assert sorted(c.rank for c in m.cards) == ["4", "J", "J"]


def test_no_cards_no_reveal():
    assert merge_reads([[], []]).cards == []


# ---------------------------------------------------------------- the voter


def frame(level: int) -> np.ndarray:
    return np.full((48, 64, 3), level, np.uint8)


def reads(*frames: list[SeenCard]):
    queue = list(frames)

    def read(_f):
        cards = queue.pop(0)
        return Reveal(cards, readable=bool(cards), message="")

    return read


def test_a_fan_being_spread_is_read_once_spread():
    closed = [at("A", 100), at("A", 110)]
    spread = [at("A", 100), at("A", 180), at("A", 260)]
    voter = MergingVoter(votes=3, max_frames=20)
    read = reads(closed, closed, closed[:1], spread, spread, spread)
    answers = [voter.push(frame(100), read) for _ in range(7)]  # the first frame: no still yet
    assert answers[:6] == [None] * 6
    assert answers[6].readable and answers[6].ranks == ["A", "A", "A"]


def test_the_claims_count_is_waited_for_then_asked_again():
    two = [at("K", 100), at("K", 200)]
    voter = MergingVoter(votes=2, max_frames=6, expect=3)
    read = reads(*[two] * 5)
    answers = [voter.push(frame(100), read) for _ in range(6)]
    assert answers[:5] == [None] * 5
    assert not answers[5].readable
    assert answers[5].message == "I count 2 cards, not 3: spread the cards"
    # the same frames answer as soon as they agree when the claim was two
    voter = MergingVoter(votes=2, max_frames=6, expect=2)
    read = reads(*[two] * 5)
    assert [voter.push(frame(100), read) for _ in range(3)][2].ranks == ["K", "K"]


def test_moving_frames_are_not_read_and_nothing_seen_is_unreadable():
    voter = MergingVoter(votes=2, max_frames=4)
    read = reads()  # would fail if called
    for level in (0, 80, 160):
        assert voter.push(frame(level), read) is None
    out = voter.push(frame(240), read)
    assert out is not None and not out.readable


# ---------------------------------------------------------------- rendered frames


def test_rendered_frames_with_a_hand_covering_one_card_then_another(tmp_path):
    """Three cards no still frame shows for long: a hand covers the left card, then the right
    one, the whole row in view only for a moment twice. The merge reads all three."""
    import random

    from referee.vision.reader import CardReader
    from tests.vision_scenes import render_decks, scene

    deck = render_decks(tmp_path, n=1)[0]
    img, truth = scene(deck, ["5H", "9S", "KD"], seed=7, card_h=0.45)
    rng, noise = random.Random(1), np.random.default_rng(1)

    def covered(col: int | None) -> np.ndarray:
        out = img.astype(np.float32)
        if col is not None:  # a hand over one third of the frame
            x1, x2 = 640 * col // 3, 640 * (col + 1) // 3
            out[:, x1:x2] = (rng.uniform(90, 120), rng.uniform(130, 160), rng.uniform(180, 210))
        return np.clip(out + noise.normal(0, 2, out.shape), 0, 255).astype(np.uint8)

    states = [0] * 3 + [None] * 2 + [2] * 3 + [None] * 2 + [0] * 3
    frames = [covered(s) for s in states]
    reader = CardReader()
    assert [c.rank for c in reader.read(frames[1]).cards] != truth  # one frame: a partial read
    reveal = reader.read_stable(iter(frames), max_frames=len(frames), expect=3)
    assert reveal.readable and reveal.ranks == truth
