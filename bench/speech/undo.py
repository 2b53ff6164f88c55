"""Undo and named calls in the table's own voices, clean and under babble (issue 19).

In the room's babble game (bench/table, 15 dB) Dev's "undo", "undo that", "scratch that"
went unheard or were taken for a call after a misheard claim, and the game never recovered;
in the quiet room espeak Cara's "Cara, cheat!" was read "cara m teed". This replays those
phrases offline: each of the four table voices (tests/table.py: piper "joe" at two pitches,
two espeak-ng voices) says them, clean and mixed with babble (bench/speech/corpus.py's three
espeak talkers) at 15 dB, and the recognizer hears them as the live referee does right after
a claim was confirmed: phase "play", the next rank due, the four players; what the referee
would act on is what :class:`referee.live.calls.CallAssembler` lets through (a named call
read early at once, a bare call after its wait, anything else at its final).

Short non-game words in the same voices are heard too: a falsely heard undo costs the game
a step as surely as a missed one. ``--undoing`` listens as when an undo is likely (just
after one, or after a call: ``ListenContext.undoing``).

    nice -n 10 .venv/bin/python -m bench.speech.undo            # writes bench/speech/undo.md
    nice -n 10 .venv/bin/python -m bench.speech.undo --seeds 2 --no-chatter --out /tmp/u.md
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from bench.speech.corpus import SHORT_WORDS, SynthCache, babble, mix, place
from referee.speech.audio import ArraySource
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import PHASE_INTENTS, ListenContext

HERE = Path(__file__).resolve().parent
PLAYERS = ("Alice", "Ben", "Cara", "Dev")
#: (what is said, what it should be taken as: "undo" or the call's caller)
UNDO_PHRASES = ("undo", "undo that", "take that back", "scratch that", "cancel")
CALL_PHRASES = {"Cara, cheat!": "Cara", "cheat, Dev!": "Dev", "cheat, player four!": "Dev"}
#: words like an undo that are not one, said at a table
NEAR_UNDO = (
    "and you", "I do", "into", "thank you", "you too", "oh dear", "and that", "hang on",
    "that's it", "nice one that", "undone", "in two",
)  # fmt: skip
#: the rank due after the claim just confirmed, one per seed
RANKS_DUE = ("K", "2", "7", "A")
SNR_DB = 15


def taken(heard_list, phase: str = "play") -> list[dict]:
    """What the live referee would act on, in order (the call assembler's output)."""
    from referee.live.calls import CallAssembler

    calls = CallAssembler(lambda: phase)
    out = []
    for heard in heard_list:
        out += [h.intent.to_dict() for h in calls.hear(heard)]
    out += [h.intent.to_dict() for h in calls.flush()]
    return out


def describe(intent: dict) -> str:
    kind = intent["type"]
    if kind == "command":
        return intent["command"]
    if kind == "call":
        return f"call({intent.get('caller')})"
    if kind == "claim":
        return f"claim {intent['count']} {intent['rank']}"
    if kind == "name":
        return f"name {intent['name']}"
    return kind


def outcome(acts: list[dict], want: str | None) -> str:
    """Right, "nothing", or what it was taken as instead."""
    if not acts:
        return "nothing"
    names = [describe(a) for a in acts]
    if want is not None and names == [want]:
        return "right"
    return " + ".join(names)


def said(voice, text: str, cache: SynthCache) -> np.ndarray:
    """``text`` in a table voice, kept on disk: piper draws its own noise each time it
    speaks, so a rerun hears the very clips the last run did."""
    from tests.table import speak

    path = cache.root / f"table-{voice.engine}-{voice.name}-{voice.speed}-{voice.pitch}-{text}.npy"
    if not path.is_file():
        np.save(path, speak(voice, text))
    return np.load(path)


def clips(seeds: int, chatter: bool, cache: SynthCache):
    """(set, phrase, voice, seed, audio, want) for every clip."""
    from tests.table import TALK_LEVEL, VOICES

    items = [(p, "undo", "undo") for p in UNDO_PHRASES]
    items += [(p, f"call({who})", "call") for p, who in CALL_PHRASES.items()]
    if chatter:
        items += [(w, None, "chatter") for w in (*SHORT_WORDS, *NEAR_UNDO)]
    for text, want, kind in items:
        for voice_name, voice in VOICES.items():
            audio, _end = place(said(voice, text, cache), level=TALK_LEVEL)
            yield f"{kind} clean", text, voice_name, 0, audio, want
            for seed in range(seeds if kind != "chatter" else min(seeds, 1)):
                rng = random.Random(1000 + seed)
                bed = babble(cache, rng, len(audio) / SAMPLE_RATE + 1)
                noisy = mix(audio, bed, SNR_DB, TALK_LEVEL, np.random.default_rng(seed))
                yield f"{kind} babble {SNR_DB} dB", text, voice_name, seed, noisy, want


def run(args) -> dict:
    from platformdirs import user_cache_dir

    from referee.speech.recognizer import Recognizer

    cache = SynthCache(Path(user_cache_dir("referee")) / "bench-speech")
    recognizer = Recognizer(backend_name=args.backend, warn=lambda m: None)
    backend = recognizer.backend
    readings: list[str] = []
    decode = backend.decode

    def logged(audio, *, final=True):
        hyp = decode(audio, final=final)
        last = getattr(backend, "_last", None)
        if final and last is not None:
            free = backend._text(last[2])
            readings.append(f"{free!r} {last[2].scores[0]:.2f} -> {hyp.text!r}")
        return hyp

    backend.decode = logged
    rows = []
    started = time.perf_counter()
    for n, (set_name, text, voice, seed, audio, want) in enumerate(
        clips(args.seeds, not args.no_chatter, cache)
    ):
        rank_due = RANKS_DUE[seed % len(RANKS_DUE)]
        recognizer.set_context(
            ListenContext.for_phase(
                args.phase, PLAYERS, legal_ranks=(rank_due,), undoing=args.undoing
            )
        )
        readings.clear()
        heard = list(recognizer.utterances(ArraySource(audio)))
        acts = taken(heard, args.phase)
        rows.append({
            "set": set_name, "text": text, "voice": voice, "seed": seed, "rank_due": rank_due,
            "want": want, "outcome": outcome(acts, want), "readings": list(readings),
        })  # fmt: skip
        if (n + 1) % 50 == 0:
            print(f"  {n + 1} clips, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return {
        "rows": rows,
        "seconds": time.perf_counter() - started,
        "phase": args.phase,
        "undoing": args.undoing,
    }


def report(result: dict, command: str) -> str:
    rows = result["rows"]
    lines = [
        "# Undo and named calls in the table's voices (issue 19)",
        "",
        f"Rerun: `nice -n 10 .venv/bin/python -m bench.speech.undo {command}`".replace("  ", " "),
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{result['seconds']:.0f} s on 2 shared cores. Voices: tests/table.py (Alice, Ben: "
        "piper joe; Cara: espeak-ng en-us+f3; Dev: espeak-ng en-gb-x-rp); babble: "
        f"bench/speech/corpus.py at {SNR_DB} dB, one mix per seed; heard in phase "
        f"{result['phase']}{', an undo likely' if result['undoing'] else ''} (rank due "
        f"{', '.join(RANKS_DUE)} by seed), players "
        f"{', '.join(PLAYERS)}; an outcome is what the live referee would act on "
        "(CallAssembler).",
        "",
        "## Undo and calls: right / taken as something else / nothing",
        "",
        "| phrase | set | n | right | other | nothing | taken instead |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["text"], r["set"])].append(r)
    totals: dict[str, Counter] = defaultdict(Counter)
    for (text, set_name), items in groups.items():
        if items[0]["want"] is None:
            continue
        count = Counter(
            r["outcome"] if r["outcome"] in ("right", "nothing") else "other" for r in items
        )
        kind = set_name.split()[0]
        totals[set_name].update(count | {"n": len(items)})
        others = Counter(r["outcome"] for r in items if r["outcome"] not in ("right", "nothing"))
        instead = ", ".join(f"{o} ×{c}" for o, c in others.most_common())
        lines.append(
            f"| {text} | {set_name.removeprefix(kind + ' ')} | {len(items)} | {count['right']} | "
            f"{count['other']} | {count['nothing']} | {instead} |"
        )
    lines += ["", "| set | n | right | other | nothing |", "|---|---|---|---|---|"]
    for set_name, c in totals.items():
        lines.append(f"| {set_name} | {c['n']} | {c['right']} | {c['other']} | {c['nothing']} |")
    chatter = [r for r in rows if r["want"] is None]
    if chatter:
        lines += [
            "",
            "## Short non-game words: taken as anything (an undo above all)",
            "",
            "| set | n | taken as undo | taken as anything | what |",
            "|---|---|---|---|---|",
        ]
        by_set: dict[str, list[dict]] = defaultdict(list)
        for r in chatter:
            by_set[r["set"]].append(r)
        for set_name, items in by_set.items():
            bad = [r for r in items if r["outcome"] != "nothing"]
            undo = sum("undo" in r["outcome"] for r in bad)
            what = ", ".join(f"{r['text']!r} [{r['voice']}]: {r['outcome']}" for r in bad)
            lines.append(f"| {set_name} | {len(items)} | {undo} | {len(bad)} | {what} |")
    lines += ["", "## Undo and calls missed: what the decoder read (free → kept)", ""]
    for r in rows:
        if r["want"] is not None and r["outcome"] != "right":
            lines.append(
                f"- {r['text']!r} [{r['voice']}, {r['set']}, seed {r['seed']}, due "
                f"{r['rank_due']}]: {r['outcome']}; {'; '.join(r['readings']) or '(no speech)'}"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speech.undo", description=__doc__)
    parser.add_argument("--backend", default="whisper-constrained")
    parser.add_argument("--seeds", type=int, default=4, help="babble mixes per phrase and voice")
    parser.add_argument("--phase", default="play", choices=sorted(PHASE_INTENTS))
    parser.add_argument("--no-chatter", action="store_true", help="skip the short words")
    parser.add_argument(
        "--undoing",
        action="store_true",
        help="listen as when an undo is likely (ListenContext.undoing: after an undo or a "
        "call; the listener then makes undos on less evidence)",
    )
    parser.add_argument("--out", type=Path, default=HERE / "undo.md")
    args = parser.parse_args(argv)
    result = run(args)
    command = " ".join(argv if argv is not None else sys.argv[1:])
    args.out.write_text(report(result, command))
    args.out.with_suffix(".json").write_text(json.dumps(result["rows"], indent=0))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
