"""False calls per hour: table chatter with no game words, heard as the referee listens in play.

    nice -n 10 .venv/bin/python -m bench.speech.chatter --minutes 20     # ~1 min CPU a minute

A stretch of party talk is made one minute at a time (seeded): one nearby talker after
another (espeak-ng voices at random speeds and pitches, and Piper's Joe), sentences with no
game word in them (each is checked: the referee's own parser finds no claim, call, name,
count, pass or command in it), pauses of 0.2-2.5 s, over a quiet room, 10 dB babble (three
espeak talkers) or a kitchen noise bed at 15 dB, in turn. Each minute streams through the
recognizer (the default backend unless ``--backend``) as during play: players Alice, Ben,
Cara, Dev, a rank due drawn each minute, claims, calls, passes and commands legal. Every final
it yields, and every early call naming its caller, is something the referee would act on:
an invented claim, call, name or command. Counts are scaled to an hour when the stretch is
shorter (openWakeWord's target for a wake word: under 0.5 false accepts an hour).
``--phase reveal`` listens as at a reveal instead (verdicts, calls and commands legal: an
invented "undo" there takes back the call).
Results: ``bench/speech/chatter.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np

from bench.speech import add_without, turn_off
from bench.speech.corpus import (
    CHATTER,
    PITCHES,
    PLAYERS,
    SPEEDS,
    VOICES,
    SynthCache,
    babble,
    load_noise_beds,
    rms,
)
from referee.game.cards import RANKS
from referee.live.calls import acted_on_early
from referee.speech.audio import ArraySource
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import INTENT_TYPES, PHASE_INTENTS, ListenContext, interpret

HERE = Path(__file__).resolve().parent

#: more of what is said around a card table that is not the game
MORE_CHATTER = [
    "can someone pass the salt", "I need another coffee", "how was your holiday",
    "the neighbours are so loud tonight", "did anyone see my keys", "this is my favourite mug",
    "we should order food soon", "I can't believe it's December already", "look at the snow",
    "my brother is coming over later", "is the oven still on", "have you tried the cake",
    "what are you doing this weekend", "I started a new job on Monday", "the bus was packed",
    "turn the heating up a little", "where is the bathroom", "that film was terrible",
    "let's take a photo", "does anybody want tea", "my feet are freezing", "happy birthday",
    "it smells amazing in here", "put some music on", "he never listens to me",
    "honestly I'm exhausted", "we ran out of ice", "the cat knocked over the plant",
    "let me check my messages", "you look great tonight", "I'll be right back",
    "who left the door open", "this song reminds me of school", "can you hear that",
    "the traffic was awful", "I think I'm getting a cold", "the wifi is down again",
    "shall we go for a walk tomorrow", "I love your jumper", "that's hilarious",
]  # fmt: skip


def no_game_words(text: str) -> bool:
    """Whether the referee's parser finds nothing of the game in ``text`` with everything
    legal (a sentence with "ten" or "pass" in it is no chatter for this bench)."""
    from referee.intents import CALL_WORDS, COUNT_WORDS, RANK_WORDS

    every = ListenContext.for_rank_due(None, PLAYERS, max_count=9, intents=INTENT_TYPES)
    game = set(RANK_WORDS) | set(CALL_WORDS) | (set(COUNT_WORDS) - {"a", "an"})
    game |= {p.lower() for p in PLAYERS} | {"pass", "undo", "repeat", "score", "cards"}
    words = {w.strip(",.!?'").lower() for w in text.split()}
    return interpret(text, every) is None and not words & game


SENTENCES = [t for t in CHATTER + MORE_CHATTER if no_game_words(t)]
BEDS = ("quiet room", "babble 10 dB", "kitchen 15 dB")


class Voices:
    """espeak-ng voices (cached) and, when installed, Piper's Joe."""

    def __init__(self, cache: SynthCache):
        self.cache = cache
        try:
            from bench.speech.voices import Piper

            self.piper: object | None = Piper(cache.root)
        except ImportError:
            self.piper = None

    def say(self, text: str, rng: random.Random) -> np.ndarray:
        if self.piper is not None and rng.random() < 0.2:
            return self.piper.get(text, rng.choice((0.85, 1.0, 1.15)))
        return self.cache.get(text, rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES))


def minute(voices: Voices, beds: dict, index: int, seed: int) -> tuple[np.ndarray, str]:
    """One seeded minute of chatter over its background; (audio, background's name)."""
    rng = random.Random(seed * 1000 + index)
    total = int(60 * SAMPLE_RATE)
    talk = np.zeros(total, np.float32)
    pos = int(rng.uniform(0.2, 1.5) * SAMPLE_RATE)
    while pos < total:
        s = voices.say(rng.choice(SENTENCES), rng)
        s = s * (0.1 * rng.uniform(0.5, 1.5) / max(rms(s), 1e-6))
        end = min(total, pos + len(s))
        talk[pos:end] += s[: end - pos]
        pos = end + int(rng.uniform(0.2, 2.5) * SAMPLE_RATE)
    bed_name = BEDS[index % len(BEDS)]
    if bed_name == "babble 10 dB":
        bed = babble(voices.cache, rng, 60.0)[:total]
        bed = bed * (0.1 / max(rms(bed), 1e-9) / 10 ** (10 / 20))
    elif bed_name == "kitchen 15 dB":
        noise = beds[rng.choice(list(beds))]
        noise = np.tile(noise, total // len(noise) + 1)[:total]
        bed = noise * (0.1 / max(rms(noise), 1e-9) / 10 ** (15 / 20))
    else:
        bed = np.random.default_rng(index).normal(0, 0.001, total)
    return np.clip(talk + bed, -1, 1).astype(np.float32), bed_name


def acted_on(heard: list) -> list:
    """What the referee would act on: early calls (:func:`referee.live.calls.acted_on_early`,
    the first for each onset) and finals (the last for each onset) of words not acted on
    early (the call assembler drops those: they are the same words)."""
    early: dict[float, object] = {}
    for h in heard:
        if acted_on_early(h):
            early.setdefault(h.utterance.start, h)
    finals = {h.utterance.start: h for h in heard if not h.utterance.partial}
    return [h for t, h in finals.items() if t not in early] + list(early.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speech.chatter", description=__doc__)
    parser.add_argument("--minutes", type=int, default=20, help="minutes of chatter (60: an hour)")
    parser.add_argument("--backend", default=None, help="recognizer backend (default: default)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--first", type=int, default=0,
                        help="the first minute's index (minutes already heard are skipped: "
                        "rules made on the first stretches are checked on later ones)")  # fmt: skip
    parser.add_argument(
        "--phase",
        choices=("play", "reveal"),
        default="play",
        help="listen as in play (claims, calls, passes, commands) or at a reveal (verdicts, "
        "calls, commands: the listener's head makes only commands there)",
    )
    parser.add_argument(
        "--undoing",
        action="store_true",
        help="listen as when an undo is likely (ListenContext.undoing: just after an undo or a "
        "call): the listener makes undos on less evidence",
    )
    parser.add_argument(
        "--out", default="chatter", help="the results' name in bench/speech (.md and .json)"
    )
    parser.add_argument("--cache", type=Path, default=None)
    add_without(parser)
    args = parser.parse_args(argv)
    turn_off(parser, args.without)
    from platformdirs import user_cache_dir

    from referee.speech import make_recognizer

    cache = SynthCache(args.cache or Path(user_cache_dir("referee")) / "bench-speech")
    voices = Voices(cache)
    beds = load_noise_beds()
    recognizer = make_recognizer(args.backend)
    backend = type(recognizer.backend).__name__
    t0 = time.time()
    invented: list[dict] = []
    by_bed: Counter = Counter()
    compute = 0.0
    for n, i in enumerate(range(args.first, args.first + args.minutes)):
        audio, bed = minute(voices, beds, i, args.seed)
        by_bed[bed] += 1
        rank = random.Random(args.seed * 7 + i).choice(RANKS)
        if args.phase == "play":
            ctx = ListenContext.for_rank_due(
                rank, PLAYERS, intents=PHASE_INTENTS["play"], undoing=args.undoing
            )
        else:
            ctx = ListenContext.for_phase(
                args.phase, PLAYERS, legal_ranks=(rank,), undoing=args.undoing
            )
        recognizer.set_context(ctx)
        before = recognizer.compute_s
        heard = list(recognizer.utterances(ArraySource(audio)))
        compute += recognizer.compute_s - before
        for h in acted_on(heard):
            invented.append({"minute": i, "background": bed, "rank_due": rank, **h.to_dict()})
        print(f"minute {n + 1}/{args.minutes} (#{i}, {bed}): {len(acted_on(heard))} invented, "
              f"{time.time() - t0:.0f} s", flush=True)  # fmt: skip
        # written after every minute: a run stopped early still says what it heard
        done = n + 1
        report = summary(args, done, invented, by_bed, compute, backend, time.time() - t0)
        (HERE / f"{args.out}.json").write_text(json.dumps(report, indent=1) + "\n")
        write_markdown(report, args)
    print((HERE / f"{args.out}.md").read_text())
    return 0


def summary(args, minutes: int, invented: list, by_bed: Counter, compute: float, backend: str,
            seconds: float) -> dict:  # fmt: skip
    hours = minutes / 60
    kinds = Counter(h["intent"]["type"] for h in invented)
    return {
        "minutes": minutes,
        "seed": args.seed,
        "first_minute": args.first,
        "backend": args.backend or "default",
        "backend_class": backend,
        "phase": args.phase,
        "undoing": args.undoing,
        "sentences": len(SENTENCES),
        "minutes_by_background": dict(by_bed),
        "invented": invented,
        "per_hour": {k: round(v / hours, 2) for k, v in sorted(kinds.items())},
        "calls_per_hour": round(kinds.get("call", 0) / hours, 2),
        "all_per_hour": round(len(invented) / hours, 2),
        "real_time_factor": round(compute / (minutes * 60), 3),
        "seconds": round(seconds),
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores",
    }


def write_markdown(r: dict, args) -> None:
    scaled = "" if r["minutes"] == 60 else f" ({r['minutes']} minutes, scaled to an hour)"
    if r["minutes"] < args.minutes:
        scaled += f"; stopped after {r['minutes']} of the {args.minutes} minutes asked for"
    rerun = (
        "nice -n 10 .venv/bin/python -m bench.speech.chatter"
        + (f" --minutes {args.minutes}" if args.minutes != 20 else "")
        + (f" --backend {args.backend}" if args.backend else "")
        + (f" --phase {args.phase}" if args.phase != "play" else "")
        + (f" --first {args.first}" if args.first else "")
        + (" --undoing" if args.undoing else "")
        + (f" --out {args.out}" if args.out != "chatter" else "")
    )
    lines = [
        "# False calls per hour of table chatter",
        "",
        f"Rerun: `{rerun}`",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {r['machine']} "
        f"({r['seconds']} s). {r['minutes']} minutes of chatter (seed {r['seed']}"
        + (
            f", minutes {r['first_minute']}-{r['first_minute'] + r['minutes'] - 1}"
            if r.get("first_minute")
            else ""
        )
        + "; "
        f"{len(SENTENCES)} sentences with no game word, espeak-ng voices and Piper's Joe; "
        "backgrounds in turn: "
        + ", ".join(f"{k} {v} min" for k, v in r["minutes_by_background"].items())
        + f") through the recognizer ({r['backend']}: {r['backend_class']}) as "
        + ("in play" if r["phase"] == "play" else f"at a {r['phase']} (verdicts legal)")
        + (", an undo likely (`ListenContext.undoing`)" if r.get("undoing") else "")
        + "; "
        f"real-time factor {r['real_time_factor']}.",
        "",
        f"**Invented calls: {r['calls_per_hour']} an hour{scaled}** (target ≤ 0.5); "
        f"everything acted on: {r['all_per_hour']} an hour.",
        "",
        "| invented | per hour |",
        "|---|---|",
    ]
    for kind in ("call", "claim", "name", "pass", "command"):
        lines.append(f"| {kind} | {r['per_hour'].get(kind, 0.0)} |")
    lines += ["", "What was invented:", ""]
    for h in r["invented"]:
        where = f"minute {h['minute']} ({h['background']}, {h['rank_due']} due)"
        lines.append(f'- {where} at {h["start"]:.1f} s: "{h["text"]}" -> {json.dumps(h["intent"])}')
    if not r["invented"]:
        lines.append("- nothing")
    (HERE / f"{args.out}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
