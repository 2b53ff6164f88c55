"""How well could any rule on top of whisper tiny.en read the table? Writes ceiling.md.

    .venv/bin/python -m bench.speech.ceiling          # about 4 minutes on 2 cores

Each synthetic clip is read on exactly its phrase's own stretch (known from the corpus, so no
voice activity detection), each real recording whole; the clips are the bench's own
(``python -m bench.speech``'s seed and set size). Three readings, none of them with any rule
for rejecting chatter:

- **free**: whisper's own reading with the vocabulary prompt;
- **forced**: the walk held to the legal phrases (:meth:`WhisperBackend._forced`), always
  kept: what the constrained backend would read if it trusted every mend;
- **counts scored whole** (count words only): each of the nine count words scored whole by
  the decoder, the likeliest kept.

If even **forced** reads fewer phrases than a target asks, no acceptance rule can reach it
with this model: the model is the limit, not the rules.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from bench.speech.corpus import SynthCache, real_sets, synthetic_sets
from bench.speech.run import context_for
from referee.speech.backends.whisper import ConstrainedWhisperBackend
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import interpret

HERE = Path(__file__).resolve().parent
COUNT_WORDS = "one two three four five six seven eight nine".split()
SETS = ("synth clean", "synth noise 20 dB", "synth noise 10 dB", "synth babble 10 dB")


def counts_scored_whole(backend: ConstrainedWhisperBackend, encoded) -> int:
    """The count word (1-9) the decoder finds likeliest, each scored whole with its end."""
    best = (-np.inf, 0)
    for i, word in enumerate(COUNT_WORDS):
        for written in (word, word.capitalize()):
            tokens = backend.hf.encode(" " + written, add_special_tokens=False).ids
            rows = backend._log_probs(encoded, tokens)
            end = max(rows[len(tokens), t] for t in backend.end_tokens)
            best = max(best, (sum(rows[j, t] for j, t in enumerate(tokens)) + end, i + 1))
    return best[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speech.ceiling", description=__doc__)
    parser.add_argument("--per-set", type=int, default=64, help="as in bench.speech")
    parser.add_argument("--out", type=Path, default=HERE / "ceiling.md")
    args = parser.parse_args(argv)
    from platformdirs import user_cache_dir

    started = time.perf_counter()
    cache = SynthCache(Path(user_cache_dir("referee")) / "bench-speech")
    clips = [c for c in synthetic_sets(cache, args.per_set) if c.set in SETS]
    clips = [c for c in clips if c.kind in ("claim", "call")]
    clips += [c for c in real_sets() if c.set == "real fsdd counts 1-9"]
    backend = ConstrainedWhisperBackend()
    right: Counter[tuple[str, str]] = Counter()
    total: Counter[str] = Counter()
    for clip in clips:
        backend.set_context(context_for(clip))
        stretch = clip.audio  # a real recording: its own quiet around the word
        if clip.set.startswith("synth"):  # the phrase alone, out of its noise
            end = clip.speech_end + 0.15
            stretch = clip.audio[int(0.5 * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
        encoded, free = backend._read(stretch)
        forced, _ = backend._forced(encoded, free)
        total[clip.set] += 1
        for how, text in (("free", backend._text(free)), ("forced", forced)):
            intent = interpret(text, backend.ctx)
            right[clip.set, how] += intent is not None and intent.to_dict() == clip.expected
        if clip.kind == "count":
            count = counts_scored_whole(backend, encoded)
            right[clip.set, "whole"] += {"type": "count", "count": count} == clip.expected

    def pct(name: str, how: str) -> str:
        if how == "whole" and not name.startswith("real"):
            return "-"
        return f"{100 * right[name, how] / total[name]:.1f}%"

    lines = [
        "# What tiny.en could read at best",
        "",
        f"Rerun: `python -m bench.speech.ceiling` ({time.strftime('%Y-%m-%d', time.gmtime())}, "
        f"{time.perf_counter() - started:.0f} s). Synthetic clips read on their phrase's own "
        "stretch, real ones whole; no rule rejects anything (see the module's docstring). "
        "Synthetic sets: claims and calls only, the phrases the accuracy target names.",
        "",
        "| set | n | free | forced | counts scored whole |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {total[name]} | {pct(name, 'free')} | {pct(name, 'forced')} | "
            f"{pct(name, 'whole')} |"
            for name in total
        ),
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
