"""Rebuild ``calibration/decks/example-german-letters`` from synthetic German-letter cards.

Run from the repository root: ``.venv/bin/python calibration/make_deck_example.py``.
No real photos are used (their licences keep them out of the repository).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.cli import main  # noqa: E402
from tests.vision_scenes import render_decks, scene  # noqa: E402

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def build() -> int:
    root = Path(tempfile.mkdtemp())
    (deck,) = render_decks(root / "faces", n=1, seed=5, letters={"J": "B", "Q": "D"})
    shots = root / "shots"
    shots.mkdir()
    for i, rank in enumerate(RANKS):  # one photo per rank, named by its rank
        img, _ = scene(deck, [rank + "SHDC"[i % 4]], seed=300 + i, card_h=0.6)
        cv2.imwrite(str(shots / f"{rank}.jpg"), img)
    out = Path(__file__).resolve().parent / "decks" / "example-german-letters"
    rc = main(["calibrate", "deck", "--images", str(shots), "--name", out.name,
               "--out", str(out)])  # fmt: skip
    if rc == 0:  # say where the shots came from, not the temporary folder they were in
        path = out / "profile.json"
        data = json.loads(path.read_text())
        data["source"] = f"{len(RANKS)} synthetic photos from calibration/make_deck_example.py"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(build())
