"""Laptop-view rows of the card-reader bench: reveals as a laptop's webcam sees them
(:func:`referee.vision.synth.make_laptop_scene`), from held-out designs only.

    .venv/bin/python -m bench.vision.laptop      # prints the rows (python -m bench.vision
                                                 # writes them with the others)

Scenes are still frames (slight motion blur only: the reader reads the frames that stopped
moving). Truth: the ranks of the reveal's cards that show a corner index (cards lying apart
or cut by the frame's edge are not the reveal). "With the claim's count" reads as the live referee
does, told how many cards were played: a count other than that is asked again, never judged.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACES = ROOT / ".faces"
#: the reveal's card height in pixels: held up to the camera or laid in front of it
CARD_PX = (80.0, 260.0)


def laptop_scenes(deck_names: list[str], n: int, seed: int, held: bool, cards=(1, 6)):
    """(image, truth ranks, ranks of every card shown) for ``n`` laptop-view reveals."""
    from referee.vision.synth import load_decks, make_laptop_scene

    decks = [d for d in load_decks(FACES, held_out=None) if d.name in deck_names]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = rng.choice(decks)
        k = rng.randint(*cards)
        codes = [rng.choice(d.codes) for _ in range(k)]
        img, _, info = make_laptop_scene(
            rng, [d], codes=codes, held=held, card_px=CARD_PX, still=True
        )
        shown = sorted("JK" if c == "JK" else c[:-1] for c in codes)
        out.append((img, info.reveal, shown))
    return out


def eval_claimed(reader, scenes) -> dict:
    """Read told the claim's count: judged right / asked again / judged wrong (a wrong
    judgement is the one that matters: the referee would call an honest play a lie)."""
    right = again = wrong = 0
    for img, _, shown in scenes:
        r = reader.read(img, expect=len(shown))
        if not r.readable:
            again += 1
        elif sorted(c.rank for c in r.cards) == shown:
            right += 1
        else:
            wrong += 1
    n = max(1, len(scenes))
    return {"reveals": len(scenes), "judged_right": round(right / n, 4),
            "asked_again": round(again / n, 4), "judged_wrong": round(wrong / n, 4)}  # fmt: skip


def rows(reader, n: int, designs: list[str]) -> dict:
    from bench.vision.run import Score

    out: dict = {"plain": {}, "claimed": {}, "misses": []}
    for held, label in ((True, "held up in a hand"), (False, "on the table")):
        scenes = laptop_scenes(designs, n, 31 + held, held)
        sc = Score()
        for i, (img, truth, _) in enumerate(scenes):
            sc.add(f"{label} {i}", truth, [c.rank for c in reader.read(img).cards])
        out["plain"][f"laptop view, {label}, 1-6 cards"] = sc.row()
        out["claimed"][f"laptop view, {label}, 1-6 cards"] = eval_claimed(reader, scenes)
        out["misses"] += sc.misses
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100, help="scenes per row")
    ap.add_argument("--model", type=Path, default=None, help="corner detector (default: ours)")
    a = ap.parse_args(argv)
    from bench.vision.run import HELD_OUT_ENGLISH, ensure_faces
    from referee.vision.reader import CardReader

    ensure_faces(HELD_OUT_ENGLISH)
    res = rows(CardReader(a.model), a.n, HELD_OUT_ENGLISH)
    for k in ("plain", "claimed"):
        for label, row in res[k].items():
            print(k, label, row)
    print(Counter(m.split(":")[0].rsplit(" ", 1)[0] for m in res["misses"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
