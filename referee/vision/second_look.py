"""A second look at small cards: a laptop's webcam sees a reveal's cards 80-260 px high,
foreshortened, while the detector was trained on cards seen from above filling 30-70% of a
frame. There it finds only about 40% of the corner indices at its usual confidence, but
most of the rest with a lower one, and more again in a crop of the reveal (bench/vision/
second_look.md). So, only when the first pass's cards are all small (a close-up or a
top-down photo is read as before): keep the first pass's hits down to a lower confidence
(the rank classifier, which reads every index again, drops what is not an index), crop the
region those hits' cards cover, stretch it upright (cards lying on the table are seen
squashed), read it again and map the hits back into the frame. Indices found twice fall
into one site (:func:`referee.vision.group._sites`) and are read once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from referee.vision.group import Corner


@dataclass(frozen=True)
class SecondLook:
    """When and how to look again. Chosen on synthetic laptop-view and top-down scenes of
    the held-out designs with seeds the bench does not use (bench/vision/second_look.md)."""

    #: cards are small when no first-pass index (at the reader's confidence) sits farther
    #: than this share of the frame's height from its card's predicted centre
    small: float = 0.35
    #: the confidence the first pass keeps when cards are small
    conf: float = 0.05
    #: the confidence kept in the crop
    crop_conf: float = 0.1
    #: the crop is stretched this much vertically (cards on the table are seen squashed)
    stretch: float = 1.3
    #: margin around the cards' region, as a share of its larger side
    margin: float = 0.15
    #: no crop when the region's larger side is this share of the frame's or more (the
    #: detector would see it at the first pass's scale); 0: never crop
    max_side: float = 0.85
    #: a hit in the crop within this many index sizes of a first-pass hit is that index
    near: float = 0.5
    #: a weak hit (below the reader's confidence) is dropped when the rank classifier
    #: calls it "not an index" with at least this (the reader's own bar: 0.5)
    weak_none: float = 0.5
    #: a weak hit within ``near`` index sizes of a strong one is dropped (a part of it)
    apart: bool = False
    #: read the crop turned upside down too (another view of the same cards)
    turn: bool = False
    #: :func:`referee.vision.group.group_corners` keywords for the cards read again (none:
    #: its defaults), e.g. ``{"equal_radius": 0.15, "close_radius": 0.3}``
    grouping: dict = field(default_factory=dict)
    #: look again also when reading with a deck profile, whose exemplars halve the
    #: classifier's "not an index" score (so it drops fewer weak hits)
    with_deck: bool = False


def reach(c: Corner) -> float:
    """How far an index sits from its card's predicted centre (0 without a centre)."""
    return 0.0 if c.centre is None else math.dist(c.middle, c.centre)


def cards_small(corners: list[Corner], height: int, look: SecondLook) -> bool:
    """Whether the cards the detector found (if any) are all small in the frame."""
    return all(reach(c) < look.small * height for c in corners)


def region(corners: list[Corner], w: int, h: int, margin: float) -> tuple[int, int, int, int]:
    """The region the indices' cards cover: each index box and its mirror image through the
    card's predicted centre, with a margin; (x1, y1, x2, y2) in frame pixels, clipped."""
    xs: list[float] = []
    ys: list[float] = []
    for c in corners:
        cx, cy = c.centre if c.centre is not None else c.middle
        for x, y in ((c.box[0], c.box[1]), (c.box[2], c.box[3])):
            xs += [x, 2 * cx - x]
            ys += [y, 2 * cy - y]
    m = margin * max(max(xs) - min(xs), max(ys) - min(ys))
    x1, y1 = max(0, math.floor(min(xs) - m)), max(0, math.floor(min(ys) - m))
    x2, y2 = min(w, math.ceil(max(xs) + m)), min(h, math.ceil(max(ys) + m))
    return x1, y1, x2, y2


def new_sites(seen: list[Corner], more: list[Corner], near: float = 0.5) -> list[Corner]:
    """The hits of ``more`` at index sites ``seen`` has none at: an index found in both
    looks, its boxes a little apart, would otherwise be two sites, and two sites close
    together are two cards to the grouping (an index read twice)."""
    return [
        c
        for c in more
        if all(math.dist(c.middle, s.middle) > near * max(c.size, s.size) for s in seen)
    ]


def look_again(detector, image_bgr: np.ndarray, corners: list[Corner], look: SecondLook):
    """The indices found in a stretched crop of the region ``corners``' cards cover, in
    frame pixels (none when the region is empty or nearly the whole frame)."""
    import cv2

    h, w = image_bgr.shape[:2]
    if not corners:
        return []
    x1, y1, x2, y2 = region(corners, w, h, look.margin)
    if x2 - x1 < 8 or y2 - y1 < 8 or max(x2 - x1, y2 - y1) >= look.max_side * max(w, h):
        return []
    crop = image_bgr[y1:y2, x1:x2]
    if look.stretch != 1.0:
        size = (x2 - x1, round((y2 - y1) * look.stretch))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_LINEAR)
    sy = crop.shape[0] / (y2 - y1)
    ch, cw = crop.shape[:2]

    def back(c: Corner, turned: bool) -> Corner:
        bx1, by1, bx2, by2 = c.box
        cx, cy = c.centre if c.centre is not None else (0.0, 0.0)
        if turned:  # the crop was read upside down
            bx1, by1, bx2, by2 = cw - bx2, ch - by2, cw - bx1, ch - by1
            cx, cy = cw - cx, ch - cy
        b = (bx1 + x1, by1 / sy + y1, bx2 + x1, by2 / sy + y1)
        centre = None if c.centre is None else (cx + x1, cy / sy + y1)
        return Corner(c.rank, c.confidence, b, centre, c.none)

    out = [back(c, False) for c in detector.detect(crop, look.crop_conf, max_det=100)]
    if look.turn:  # a card reads the same turned round; the detector may not
        turned = detector.detect(np.ascontiguousarray(crop[::-1, ::-1]), look.crop_conf, 100)
        out += new_sites(out, [back(c, True) for c in turned], look.near)
    return out
