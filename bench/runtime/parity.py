"""The ONNX reader against the .pt pipeline on everything bench/vision reads (not a test).

    .venv/bin/python -m bench.runtime.parity       # needs the [train] extra (torch)

Reads every real photo of ``../shared/data/cards-real-dev`` and the held-out synthetic
scenes of ``bench/vision`` (same designs, seeds and counts) twice: with the runtime's
reader (``models/corners.onnx`` + ``models/ranks.onnx`` on onnxruntime) and with the
trained weights they were exported from (``corners.pt`` through ultralytics,
``ranks.pt`` through torch). Reports bench/vision's figures for both per row, and how many
images were read differently (other ranks or count, a box more than 2 px off, a confidence
more than 0.01 off). Writes ``bench/runtime/parity.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bench.vision.run import (
    HELD_OUT_ENGLISH,
    REAL,
    Score,
    _fit,
    ensure_faces,
    real_sets,
    synth_scenes,
)


def same(a, b) -> bool:
    if a.ranks != b.ranks or a.readable != b.readable:
        return False
    for x, y in zip(sorted(a.cards, key=_box), sorted(b.cards, key=_box), strict=True):
        if np.abs(np.subtract(x.box, y.box)).max() > 2 or abs(x.confidence - y.confidence) > 0.01:
            return False
    return True


def _box(card):
    return card.box


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synthetic", type=int, default=150, help="held-out scenes (as bench/vision)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    a = ap.parse_args(argv)
    import cv2

    from referee.vision.ranker import RANKER_PT
    from referee.vision.reader import MODEL_PT, CardReader

    if not REAL.is_dir():
        print(f"parity: {REAL} not found", file=sys.stderr)
        return 2
    ensure_faces(HELD_OUT_ENGLISH)
    onnx, pt = CardReader(), CardReader(MODEL_PT, ranker=RANKER_PT)
    rows: dict[str, dict] = {}
    differ: list[str] = []

    def compare(row: str, items) -> None:
        sa, sb, n = Score(), Score(), 0
        for name, img, truth in items:
            ra, rb = onnx.read(img), pt.read(img)
            sa.add(name, truth, [c.rank for c in ra.cards])
            sb.add(name, truth, [c.rank for c in rb.cards])
            if not same(ra, rb):
                differ.append(f"{row}: {name}: onnx {ra.ranks} pt {rb.ranks}")
            n += 1
        apart = sum(1 for d in differ if d.startswith(row + ":"))
        rows[row] = {"onnx": sa.row(), "pt": sb.row(), "read_differently": apart, "images": n}
        print(row, rows[row], flush=True)

    sets = real_sets()
    for key, items in sorted(sets.items()):
        compare(key, ((p.name, _fit(cv2.imread(str(p))), t) for p, t in items))
    for label, cards in (("1-2 cards", (1, 2)), ("3-6 cards", (3, 6))):
        scenes = synth_scenes(HELD_OUT_ENGLISH, a.synthetic, 5 + cards[0], cards)
        compare(f"all three designs, {label}",
                ((f"scene{i}", img, t) for i, (img, t) in enumerate(scenes)))  # fmt: skip
    for design in HELD_OUT_ENGLISH:
        scenes = synth_scenes([design], a.synthetic // 2, 21, (1, 4))
        compare(f"{design}, 1-4 cards",
                ((f"scene{i}", img, t) for i, (img, t) in enumerate(scenes)))  # fmt: skip
    res = {
        "command": " ".join(["python -m bench.runtime.parity", *(argv or sys.argv[1:])]),
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "read_differently": differ,
    }
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "parity.json").write_text(json.dumps(res, indent=1) + "\n")
    lines = [
        "# ONNX reader against the .pt pipeline",
        "",
        f"Run: `{res['command']}` on {res['date']}: every image of bench/vision's real and "
        "held-out synthetic rows read by `CardReader()` (ONNX, onnxruntime) and by "
        "`CardReader(models/corners.pt, ranker=models/ranks.pt)` (ultralytics, torch). "
        "Cards right / photos exact / count right as in bench/vision; read differently = "
        "other ranks or count, a box more than 2 px or a confidence more than 0.01 apart.",
        "",
        "| row | images | ONNX | .pt | read differently |",
        "|---|---|---|---|---|",
    ]

    def cell(r: dict) -> str:
        return f"{r['cards_right']:.1%} / {r['photos_exact']:.1%} / {r['count_right']:.1%}"

    for row, r in rows.items():
        lines.append(
            f"| {row} | {r['onnx']['photos']} | {cell(r['onnx'])} | {cell(r['pt'])} "
            f"| {r['read_differently']} |"
        )
    lines += ["", *(f"- {d}" for d in differ), ""]
    (a.out / "parity.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
