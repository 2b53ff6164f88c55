"""Group corner-index detections into physical cards (pure, no model needed).

The detector finds each visible *corner index* of a card (2 per card on most decks, 4 on
some) and, for each, predicts the centre of the card it belongs to. Indices whose predicted
centres fall together belong to one card, whatever their rank reads; this keeps two queens
laid side by side (or fanned) as two cards, and a card whose two corners both show as one.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Corner:
    """One detected corner index: rank class, detector confidence, box, predicted centre."""

    rank: str
    confidence: float
    box: tuple[float, float, float, float]
    centre: tuple[float, float] | None = None
    #: the rank classifier's "not an index" score for this site (0 without the classifier)
    none: float = 0.0

    @property
    def size(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1], 1.0)

    @property
    def middle(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


@dataclass
class CardGroup:
    """The corners of one physical card and the rank they vote for."""

    corners: list[Corner] = field(default_factory=list)

    @property
    def votes(self) -> dict[str, float]:
        v: dict[str, float] = defaultdict(float)
        for c in self.corners:
            v[c.rank] += c.confidence
        return dict(v)

    @property
    def rank(self) -> str:
        v = self.votes
        return max(v, key=v.__getitem__)

    @property
    def confidence(self) -> float:
        """Best corner confidence for the winning rank; halved-ish when another rank is close.

        A clear win (at least twice the runner-up's summed confidence) keeps the best corner's
        confidence; a close race scales it by the winner's share of the two.
        """
        v = self.votes
        win = self.rank
        best = max(c.confidence for c in self.corners if c.rank == win)
        second = max((x for r, x in v.items() if r != win), default=0.0)
        if v[win] >= 2 * second:
            return best
        return best * v[win] / (v[win] + second)

    @property
    def centre(self) -> tuple[float, float]:
        pts = [c.centre or c.middle for c in self.corners]
        return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Approximate card box: the corner boxes and their mirror images through the centre."""
        cx, cy = self.centre
        xs, ys = [], []
        for c in self.corners:
            for x, y in ((c.box[0], c.box[1]), (c.box[2], c.box[3])):
                xs += [x, 2 * cx - x]
                ys += [y, 2 * cy - y]
        return (min(xs), min(ys), max(xs), max(ys))


def _area(a) -> float:
    return (a[2] - a[0]) * (a[3] - a[1])


def _intersection(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def iou(a, b) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes."""
    inter = _intersection(a, b)
    ua = _area(a) + _area(b) - inter
    return inter / ua if ua > 0 else 0.0


def within(a: tuple, b: tuple) -> float:
    """How much of the smaller of two boxes lies within the other (1: one holds the other)."""
    inter = _intersection(a, b)
    smaller = min(_area(a), _area(b))
    return inter / smaller if smaller > 0 else 0.0


def _sites(corners: list[Corner], overlap: float = 0.6) -> list[list[Corner]]:
    """Detections of one printed index (several rank guesses, or a part of it): one site."""
    sites: list[list[Corner]] = []
    for c in sorted(corners, key=lambda c: -c.confidence):
        for site in sites:
            if within(site[0].box, c.box) > overlap:
                site.append(c)
                break
        else:
            sites.append([c])
    return sites


def group_corners(
    corners: list[Corner],
    centre_link: float = 1.5,
    min_apart: float = 1.6,
    equal_radius: float = 0.25,
    sure_rank: float | None = None,
    apart_radius: float = 0.75,
    close_centre: float = 0.8,
    close_radius: float = 0.45,
    rect_angle: float | None = 15.0,
    rect_centre: float = 0.9,
    rect_own: float = 0.5,
    lone_none: float | None = None,
) -> list[CardGroup]:
    """Cluster corner indices into cards.

    Two index sites can belong to one card only if they sit apart (their boxes more than
    ``min_apart`` index sizes, or ``apart_radius`` x their distance to the card centre, from
    each other: a card's indices are in different corners, while neighbouring indices in a
    fan belong to different cards; the second bound keeps together the corners of a card
    whose indices are large for it, as when one card fills the frame) and predict the same
    card centre (within ``centre_link`` index sizes) at about the same distance (within
    ``equal_radius``, relative, or ``close_radius`` when the two predicted centres are within
    ``close_centre`` index sizes of each other): a card's corners are equidistant from its
    centre, while a card hidden under another shows its indices much nearer to or farther
    from the centre predicted for both. Complete linkage, at most 4 sites per card. With
    ``sure_rank``, two sites whose ranks differ while both are at least that confident are
    never one card (a card prints one rank; for a reader whose rank scores can be trusted
    that far). A second pass (``rect_angle``, None = off) joins a lone index to a card of
    2-3 indices whose corners it completes (:func:`_complete_rectangles`). With
    ``lone_none``, a card of one index whose "not an index" score (``Corner.none``) is at
    least that is dropped while another card remains: nothing else on the card backs it up.
    The thresholds were chosen on synthetic scenes (``bench.vision.grouping``).
    """
    sites = _sites(corners)

    def pair_ok(a: list[Corner], b: list[Corner]) -> float:
        p, q = a[0], b[0]
        s = (p.size + q.size) / 2
        if p.centre is None or q.centre is None:
            return math.inf
        if (
            sure_rank is not None
            and p.rank != q.rank
            and min(p.confidence, q.confidence) >= sure_rank
        ):
            return math.inf
        apart = math.dist(p.middle, q.middle) / s
        d = math.dist(p.centre, q.centre) / s
        if d > centre_link:
            return math.inf
        # the indices of one card sit at its corners, all equally far from its centre
        mid = ((p.centre[0] + q.centre[0]) / 2, (p.centre[1] + q.centre[1]) / 2)
        rp, rq = math.dist(p.middle, mid), math.dist(q.middle, mid)
        if apart < min_apart and apart * s < apart_radius * (rp + rq) / 2:
            return math.inf
        tol = close_radius if d <= close_centre else equal_radius
        if abs(rp - rq) > tol * max(rp, rq):
            return math.inf
        return d

    n = len(sites)
    d = [[pair_ok(sites[i], sites[j]) if i != j else 0.0 for j in range(n)] for i in range(n)]
    clusters: list[list[int]] = [[i] for i in range(n)]
    while True:
        best = (math.inf, -1, -1)
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                if len(clusters[a]) + len(clusters[b]) > 4:
                    continue
                link = max(d[i][j] for i in clusters[a] for j in clusters[b])
                if link < best[0]:
                    best = (link, a, b)
        if best[1] < 0 or not math.isfinite(best[0]):
            break
        _, a, b = best
        clusters[a] = clusters[a] + clusters[b]
        del clusters[b]
    if rect_angle is not None:
        clusters = _complete_rectangles(
            sites, clusters, rect_angle, rect_centre, rect_own, min_apart, sure_rank
        )
    groups = [CardGroup([c for i in cl for c in sites[i]]) for cl in clusters]
    if lone_none is not None:
        backed = [g for g in groups if len(g.corners) > 1 or g.corners[0].none < lone_none]
        if backed:
            groups = backed
    groups.sort(key=lambda g: (g.box[0], g.box[1]))
    return groups


def _rectangle_centre(
    pts: list[tuple[float, float]], angle_tol: float
) -> tuple[float, float] | None:
    """Centre of the rectangle with these 3 or 4 points as corners, or None if there is none.

    A card's indices sit at the corners of one rectangle (inset from the card's own), so
    three of them make a right angle (within ``angle_tol`` degrees) and four make two equal
    diagonals with one midpoint (their mismatch, seen from the centre, within ``angle_tol``).
    """
    best: tuple[float, tuple[float, float]] | None = None
    if len(pts) == 3:
        for k in range(3):
            a, b, c = pts[k], pts[(k + 1) % 3], pts[(k + 2) % 3]
            u, v = (b[0] - a[0], b[1] - a[1]), (c[0] - a[0], c[1] - a[1])
            nu, nv = math.hypot(*u), math.hypot(*v)
            if nu == 0 or nv == 0:
                continue
            cos = max(-1.0, min(1.0, (u[0] * v[0] + u[1] * v[1]) / (nu * nv)))
            off = abs(math.degrees(math.acos(cos)) - 90)
            if off <= angle_tol and (best is None or off < best[0]):
                best = (off, ((b[0] + c[0]) / 2, (b[1] + c[1]) / 2))
    elif len(pts) == 4:
        for a, b, c, d in ((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2)):
            m1 = ((pts[a][0] + pts[b][0]) / 2, (pts[a][1] + pts[b][1]) / 2)
            m2 = ((pts[c][0] + pts[d][0]) / 2, (pts[c][1] + pts[d][1]) / 2)
            l1, l2 = math.dist(pts[a], pts[b]), math.dist(pts[c], pts[d])
            if min(l1, l2) == 0:
                continue
            off = math.degrees(math.atan2(math.dist(m1, m2) + abs(l1 - l2) / 2, min(l1, l2) / 2))
            if off <= angle_tol and (best is None or off < best[0]):
                best = (off, ((m1[0] + m2[0]) / 2, (m1[1] + m2[1]) / 2))
    return None if best is None else best[1]


def _complete_rectangles(
    sites: list[list[Corner]],
    clusters: list[list[int]],
    angle_tol: float,
    centre_tol: float,
    own_tol: float,
    min_apart: float,
    sure_rank: float | None,
    size_tol: float = 1.5,
) -> list[list[int]]:
    """Join a lone index to the card whose corners it completes.

    Close to the camera an index's predicted card centre can be off by more than an index
    size, so the first pass leaves it alone and the card is counted twice. A lone index
    joins a card of 2-3 indices when, together, they sit at the corners of one rectangle
    whose centre stays within ``own_tol`` index sizes of the card's own predicted centre; the
    lone index's predicted centre must lie within ``centre_tol`` x the rectangle's radius of
    that centre (it points into this card), its size match theirs (within ``size_tol``), it
    sit apart from each of them, and read the card's rank or be unsure (below ``sure_rank``).
    The least confident lone indices are placed first; each card takes the nearest fit.
    """
    clusters = [list(c) for c in clusters]
    lone = sorted(
        (k for k, c in enumerate(clusters) if len(c) == 1),
        key=lambda k: sites[clusters[k][0]][0].confidence,
    )
    gone: set[int] = set()
    for k in lone:
        s = sites[clusters[k][0]][0]
        if s.centre is None:
            continue
        best: tuple[float, int] | None = None
        for m, cl in enumerate(clusters):
            if m == k or m in gone or not 2 <= len(cl) <= 3:
                continue
            tops = [sites[i][0] for i in cl]
            if any(t.centre is None for t in tops):
                continue
            card = CardGroup([c for i in cl for c in sites[i]])
            if s.rank != card.rank and (sure_rank is None or s.confidence >= sure_rank):
                continue
            size = sum(t.size for t in tops) / len(tops)
            if not 1 / size_tol <= s.size / size <= size_tol:
                continue
            if any(math.dist(s.middle, t.middle) < min_apart * (s.size + t.size) / 2 for t in tops):
                continue
            centre = _rectangle_centre([t.middle for t in tops] + [s.middle], angle_tol)
            if centre is None or math.dist(card.centre, centre) > own_tol * size:
                continue
            radius = sum(math.dist(t.middle, centre) for t in tops) / len(tops)
            d = math.dist(s.centre, centre) / radius
            if d <= centre_tol and (best is None or d < best[0]):
                best = (d, m)
        if best is not None:
            clusters[best[1]].extend(clusters[k])
            gone.add(k)
    return [c for k, c in enumerate(clusters) if k not in gone]


# ------------------------------------------------------------------ the reveal


@dataclass(frozen=True)
class SetAside:
    """A card seen but not counted in the reveal, and why ("edge" or "apart")."""

    group: CardGroup
    why: str


def _reach(g: CardGroup) -> float:
    """How far the card's indices sit from its centre (about 0.4 x its diagonal)."""
    centre = g.centre
    return max(max(math.dist(c.middle, centre), c.size) for c in g.corners)


def cut_by_edge(g: CardGroup, width: float, height: float, margin: float = 0.25) -> bool:
    """Whether the frame's edge cuts this card: its centre, or the index mirrored through
    its centre from one it shows (where the opposite corner's index is printed), lies
    outside the frame by more than ``margin`` index sizes."""
    cx, cy = g.centre
    for c in g.corners:
        m = c.size * margin
        mx, my = c.middle
        for x, y in ((cx, cy), (2 * cx - mx, 2 * cy - my)):
            if x < -m or y < -m or x > width + m or y > height + m:
                return True
    return False


def _clusters(groups: list[CardGroup], apart: float) -> list[list[int]]:
    """Single-linkage clusters: two cards are together when their centres are at most
    ``apart`` x their mean size (2 x reach) apart."""
    n = len(groups)
    label = list(range(n))

    def root(i: int) -> int:
        while label[i] != i:
            label[i] = label[label[i]]
            i = label[i]
        return i

    reach = [_reach(g) for g in groups]
    for i in range(n):
        for j in range(i + 1, n):
            if math.dist(groups[i].centre, groups[j].centre) <= apart * (reach[i] + reach[j]):
                label[root(i)] = root(j)
    out: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        out[root(i)].append(i)
    return list(out.values())


def reveal_groups(
    groups: list[CardGroup],
    width: float,
    height: float,
    expect: int | None = None,
    *,
    apart: float = 2.0,
    margin: float = 0.25,
) -> tuple[list[CardGroup], list[SetAside]]:
    """The cards the claimer shows, and the others seen (set aside, with the reason).

    A reveal is shown whole and together. A card the frame's edge cuts (:func:`cut_by_edge`)
    is set aside while a card wholly in view remains (a close-up may fill the frame). The
    rest fall into clusters of cards at most ``apart`` x their size from each other
    (:func:`_clusters`); when there are several (the undealt deck in a corner, cards laid
    out earlier), the reveal is the one cluster holding the claim's count (``expect``) if
    exactly one does, else the one with the most cards, then the one nearest the frame's
    middle (where the claimer holds them up). With ``expect`` and all cards in view adding
    up to it, nothing is set aside.
    """
    inside = [g for g in groups if not cut_by_edge(g, width, height, margin)]
    if not inside:
        return list(groups), []
    aside = [SetAside(g, "edge") for g in groups if all(g is not k for k in inside)]
    if expect is not None and len(inside) == expect:
        return inside, aside
    clusters = _clusters(inside, apart)
    if len(clusters) > 1:
        matching = [c for c in clusters if len(c) == expect]
        if len(matching) == 1:
            best = matching[0]
        else:

            def central(c: list[int]) -> float:  # the reveal is held up to the camera
                x = sum(inside[i].centre[0] for i in c) / len(c) / width - 0.5
                y = sum(inside[i].centre[1] for i in c) / len(c) / height - 0.5
                return -math.hypot(x, y)

            best = max(clusters, key=lambda c: (len(c), central(c)))
        aside += [SetAside(inside[i], "apart") for c in clusters if c is not best for i in c]
        inside = [inside[i] for i in sorted(best)]
    return inside, aside
