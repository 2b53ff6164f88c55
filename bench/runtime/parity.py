"""The ONNX reader against the .pt pipeline on everything bench/vision reads (not a test).

    .venv/bin/python -m bench.runtime.parity       # needs the [train] extra (torch)

Reads every real photo of ``../shared/data/cards-real-dev`` and the held-out synthetic
scenes of ``bench/vision`` (same designs, seeds and counts) three times: with the runtime's
float export (``models/corners.onnx`` + ``models/ranks.onnx`` on onnxruntime), with
the default 8-bit detector (``models/corners.int8.onnx``: its readings may differ, its
figures should not fall) and with the trained weights they were exported from
(``corners.pt`` through ultralytics, ``ranks.pt`` through torch). Reports bench/vision's
figures for each per row, and how many images were read differently (other ranks or
count, a box more than 2 px off, a confidence more than 0.01 off). Writes
``bench/runtime/parity.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.vision.run import (
    HELD_OUT_ENGLISH,
    HELD_OUT_FOREIGN,
    REAL,
    Score,
    _fit,
    calibration_german,
    calibration_synthetic,
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
    ap.add_argument(
        "--imgsz", type=int, nargs="+", default=[512], help="the ONNX reader's input sizes"
    )
    ap.add_argument("--pairs", type=int, default=40, help="synthetic calibration pairs")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    a = ap.parse_args(argv)
    from functools import partial

    import cv2

    from referee.vision.ranker import RANKER_PT
    from referee.vision.reader import DEFAULT_MODEL, MODEL_FLOAT, MODEL_PT, CardReader

    if not REAL.is_dir():
        print(f"parity: {REAL} not found", file=sys.stderr)
        return 2
    ensure_faces(HELD_OUT_ENGLISH + [HELD_OUT_FOREIGN])
    makers = {f"onnx {n}": partial(CardReader, MODEL_FLOAT, imgsz=n) for n in a.imgsz}
    makers[f"int8 {a.imgsz[0]}"] = partial(CardReader, DEFAULT_MODEL, imgsz=a.imgsz[0])
    makers["pt 512"] = partial(CardReader, MODEL_PT, ranker=RANKER_PT)  # as trained
    readers = {k: make() for k, make in makers.items()}
    rows: dict[str, dict] = {}
    differ: list[str] = []

    def compare(row: str, items) -> None:
        scores = {k: Score() for k in readers}
        apart = dict.fromkeys(readers, 0)
        n = 0
        for name, img, truth in items:
            ref = readers["pt 512"].read(img)
            for k, reader in readers.items():
                got = ref if k == "pt 512" else reader.read(img)
                scores[k].add(name, truth, [c.rank for c in got.cards])
                if not same(got, ref):
                    apart[k] += 1
                    if k == f"onnx {a.imgsz[0]}":
                        differ.append(f"{row}: {name}: {k} {got.ranks}, pt {ref.ranks}")
            n += 1
        rows[row] = {k: sc.row() for k, sc in scores.items()}
        rows[row]["images"], rows[row]["read_differently"] = n, apart
        print(row, rows[row], flush=True)

    for key, items in sorted(real_sets().items()):
        compare(key, ((p.name, _fit(cv2.imread(str(p))), t) for p, t in items))
    for label, cards in (("1-2 cards", (1, 2)), ("3-6 cards", (3, 6))):
        scenes = synth_scenes(HELD_OUT_ENGLISH, a.synthetic, 5 + cards[0], cards)
        compare(f"all three designs, {label}",
                ((f"scene{i}", img, t) for i, (img, t) in enumerate(scenes)))  # fmt: skip
    for design in HELD_OUT_ENGLISH:
        scenes = synth_scenes([design], a.synthetic // 2, 21, (1, 4))
        compare(f"{design}, 1-4 cards",
                ((f"scene{i}", img, t) for i, (img, t) in enumerate(scenes)))  # fmt: skip
    titles = {"german": "German-index pairs, calibrated on its singles",
              "synthetic": f"{HELD_OUT_FOREIGN} pairs, calibrated on 13 shots"}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for key, run in (("german", calibration_german), ("synthetic", calibration_synthetic)):
            args = () if key == "german" else (a.pairs,)
            for when in ("before", "after"):
                rows[f"{titles[key]}: {when}"] = {}
            for k, make in makers.items():
                folder = Path(tmp) / k.replace(" ", "-") / key
                folder.mkdir(parents=True)
                got = run(make, folder, *args)
                for when in ("before", "after"):
                    rows[f"{titles[key]}: {when}"][k] = got[when]
            print(key, rows[f"{titles[key]}: after"], flush=True)
    res = {
        "command": " ".join(["python -m bench.runtime.parity", *(argv or sys.argv[1:])]),
        "date": time.strftime("%Y-%m-%d"),
        "readers": list(readers),
        "rows": rows,
        "read_differently": differ,
    }
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "parity.json").write_text(json.dumps(res, indent=1) + "\n")
    write_md(res, a.out / "parity.md")
    print((a.out / "parity.md").read_text())
    return 0


def write_md(res: dict, path: Path) -> None:
    names = res["readers"]
    lines = [
        "# ONNX reader against the .pt pipeline",
        "",
        f"Run: `{res['command']}` on {res['date']}: every image of bench/vision's real and "
        "held-out synthetic rows, and its two deck calibrations, read by the runtime's "
        "`CardReader(models/corners.onnx, imgsz=N)` (`models/*.onnx` on onnxruntime, "
        "`onnx N`), by the default 8-bit detector `models/corners.int8.onnx` (`int8 512`: "
        "quantized, its readings are not expected to be the same to the pixel) and by "
        "`CardReader(models/corners.pt, ranker=models/ranks.pt)` (ultralytics and torch at "
        "512 px, as trained: `pt 512`). Each cell: cards right / photos exact / count right, "
        "as in bench/vision. Read differently: images whose reading differs from the .pt "
        "pipeline's (other ranks or count, a box more than 2 px or a confidence more than "
        "0.01 apart); with deck calibration each reader makes its own profile.",
        "",
        "| row | images | " + " | ".join(names) + " | read differently |",
        "|---" * (len(names) + 3) + "|",
    ]

    def cell(r: dict) -> str:
        return f"{r['cards_right']:.1%} / {r['photos_exact']:.1%} / {r['count_right']:.1%}"

    for row, r in res["rows"].items():
        apart = r.get("read_differently")
        diff = ", ".join(f"{k}: {v}" for k, v in apart.items() if k != "pt 512") if apart else "-"
        n = r.get("images", r[names[0]]["photos"])
        lines.append(f"| {row} | {n} | " + " | ".join(cell(r[k]) for k in names) + f" | {diff} |")
    if res["read_differently"]:
        lines += ["", f"Read differently by `{names[0]}`:", ""]
        lines += [f"- {d}" for d in res["read_differently"]]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
