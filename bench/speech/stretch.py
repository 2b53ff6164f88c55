"""A/B of reading a long empty utterance's loudest words again (not a test).

    nice -n 10 .venv/bin/python -m bench.speech.stretch            # ~15 min on 2 cores

Every synthetic set of bench/speech (``--per-set`` clips, the same seed), heard by the
constrained whisper recognizer twice: as it is, and with ``LONG_UTTERANCE_S`` out of reach
(no utterance is read again from its loudest stretch). Prints each set's count for both and
every clip read differently; writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from bench.speech.corpus import SynthCache, synthetic_sets
from bench.speech.run import score_clip
from referee.speech import recognizer as R


def run(clips, stretch: bool) -> tuple[dict, list]:
    saved = R.LONG_UTTERANCE_S
    R.LONG_UTTERANCE_S = saved if stretch else float("inf")
    try:
        rec = R.Recognizer(backend_name="whisper-constrained", warn=lambda m: None)
        counts: dict = defaultdict(lambda: [0, 0])
        rows = []
        for clip in clips:
            r = score_clip(rec, clip)
            ok = bool(r["accepted"]) if clip.expected is None else bool(r.get("correct"))
            counts[clip.set][0] += ok
            counts[clip.set][1] += 1
            rows.append((clip.set, clip.label, ok, [h.get("text") for h in r["heard"]]))
        return counts, rows
    finally:
        R.LONG_UTTERANCE_S = saved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-set", type=int, default=64)
    a = ap.parse_args(argv)
    from platformdirs import user_cache_dir

    clips = synthetic_sets(SynthCache(Path(user_cache_dir("referee")) / "bench-speech"), a.per_set)
    before, rows_before = run(clips, stretch=False)
    after, rows_after = run(clips, stretch=True)
    print("| set | without | with |\n|---|---|---|")
    for k in before:
        print(f"| {k} | {before[k][0]}/{before[k][1]} | {after[k][0]}/{after[k][1]} |")
    print("\n(for the chatter and short-word sets the count is what was taken: false accepts)\n")
    for x, y in zip(rows_before, rows_after, strict=True):
        if x[2:] != y[2:]:
            print(f"- {x[0]}: {x[1]}: {x[3]} -> {y[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
