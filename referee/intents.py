"""Turn what was heard (text) into what it means at the table (an :class:`Intent`).

Every recognizer backend and the text replay share this one pure step, so the engine only
ever sees intents. It knows the vocabulary of the game; it does not know the rules (whether
a claim is legal now is the engine's business).

>>> parse("two aces", ["Alice", "Ben"]).to_dict()
{'type': 'claim', 'count': 2, 'rank': 'A'}
>>> parse("Ben: bullshit!", ["Alice", "Ben"]).to_dict()
{'type': 'call', 'caller': 'Ben'}
>>> parse("cheat", ["Alice", "Ben"]).to_dict()
{'type': 'call', 'caller': None}
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.game.cards import RANKS

COUNT_WORDS: dict[str, int] = {
    "zero": 0, "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
#: a rank said alone is a claim of one card; only ranks whose word is not also a count
LONE_RANKS: dict[str, str] = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}
#: recognizers sometimes write a count word as its homophone; only trusted before a rank.
COUNT_HOMOPHONES: dict[str, int] = {"won": 1, "to": 2, "too": 2, "for": 4, "free": 3}

RANK_WORDS: dict[str, str] = {}
for _rank, _words in {
    "A": "ace aces ases",
    "2": "two twos deuce deuces 2s",
    "3": "three threes trey treys 3s",
    "4": "four fours 4s",
    "5": "five fives 5s",
    "6": "six sixes 6s",
    "7": "seven sevens 7s",
    "8": "eight eights 8s",
    "9": "nine nines 9s",
    "10": "ten tens 10s",
    "J": "jack jacks knave knaves",
    "Q": "queen queens",
    "K": "king kings",
}.items():
    for _word in _words.split():
        RANK_WORDS[_word] = _rank
for _rank in RANKS[1:10]:
    RANK_WORDS.setdefault(_rank, _rank)

CALL_WORDS = frozenset(
    "cheat cheater cheaters cheating cheats bullshit bs liar liars lying doubt".split()
)
CALL_PHRASES = ("bull shit", "i doubt it", "b s")
#: "doubt" followed by one of these is no call: whisper writes the table's "undo that" as
#: "I doubt that" (in the room's babble game it asked "Who called?"); the constrained
#: re-read then weighs "I doubt it" against "undo that" on the audio itself
NOT_DOUBTED = frozenset({"that", "this"})
CALL_VERBS = frozenset({"call", "calls", "calling", "called"})
TARGET_MARKERS = frozenset({"on", "against"})

COMMAND_PHRASES: tuple[tuple[str, str], ...] = (
    ("undo", "undo"), ("undo that", "undo"), ("take that back", "undo"), ("scratch that", "undo"),
    ("cancel", "undo"), ("repeat", "repeat"), ("say again", "repeat"),
    ("say that again", "repeat"), ("what's the score", "score"), ("whats the score", "score"),
    ("scores", "score"), ("score", "score"), ("standings", "score"), ("new game", "new_game"),
    ("next game", "new_game"), ("another game", "new_game"), ("how many cards", "how_many"),
    ("cards left", "how_many"), ("whose turn", "whose_turn"), ("who's turn", "whose_turn"),
    ("whos turn", "whose_turn"), ("who is next", "whose_turn"), ("who's next", "whose_turn"),
    ("new round", "new_round"), ("clear the pile", "new_round"),
    ("take the pile out", "new_round"), ("discard the pile", "new_round"),
    ("stop the game", "stop"), ("quit the game", "stop"), ("end the evening", "stop"),
)  # fmt: skip
PASS_PHRASES = ("pass", "passing", "i pass", "no play", "skip")
HONEST_WORDS = frozenset({"honest", "truth", "true", "truthful"})
LIE_WORDS = frozenset({"lie", "lied", "false", "fake"})
#: how recognizers write "player" before a seat's number ("Play for.", "Playa 4.", "Cheat!
#: Play a four.", "Cheat! Play your four.", "play it for": whisper on espeak-ng voices saying
#: "player four"; "play the four" in a 20 dB kitchen); longer forms first, so "play it for"
#: is not read as "play" + "it"
SEAT_WORDS = ("player", "playa", "play a", "play your", "play it", "play the", "play")
_PLAYER_NUMBER = re.compile(rf"\b(?:{'|'.join(SEAT_WORDS)}) (\w+)\b")
#: count words that never number a seat: "play-er" cut at a pause inside it reads "play a",
#: and Nadia's "player two." answering "Who called?" in a 20 dB kitchen, so read at that
#: pause, was acted on as player one's (bench/table, the strangers' table)
NOT_SEATS = frozenset({"a", "an"})


@dataclass(frozen=True)
class Intent:
    """What an utterance means. ``type`` is one of ``claim``, ``call``, ``pass``, ``name``,
    ``command``, ``count``, ``verdict`` or ``unknown``; the other fields belong to one type each.
    """

    type: str
    count: int | None = None
    rank: str | None = None
    caller: str | None = None
    target: str | None = None
    name: str | None = None
    command: str | None = None
    honest: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        if self.type == "claim":
            data.update(count=self.count, rank=self.rank)
        elif self.type == "call":
            data["caller"] = self.caller
            if self.target is not None:
                data["target"] = self.target
        elif self.type == "name":
            data["name"] = self.name
        elif self.type == "command":
            data["command"] = self.command
        elif self.type == "count":
            data["count"] = self.count
        elif self.type == "verdict":
            data["honest"] = self.honest
        return data


def normalize(text: str) -> str:
    """Lower-case words separated by single spaces; ``"B.S.!"`` becomes ``"bs"``."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"\bb\s*\.\s*s\b\.?", "bs", text)
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    return " ".join(text.split())


def _phrase_in(words: str, phrase: str) -> bool:
    return f" {phrase} " in f" {words} "


def player_name_key(name: str) -> str:
    return normalize(name)


def find_names(words: str, players: Sequence[str]) -> list[tuple[int, str]]:
    """Player names mentioned in normalized ``words``, as (word position, name), in order."""
    found: list[tuple[int, str]] = []
    tokens = words.split()
    for name in players:
        key = player_name_key(name).split()
        if not key:
            continue
        for i in range(len(tokens) - len(key) + 1):
            if tokens[i : i + len(key)] == key:
                found.append((i, name))
    for match in _PLAYER_NUMBER.finditer(words):
        word = match.group(1)
        if word in NOT_SEATS:
            continue
        number = COUNT_WORDS.get(word) or COUNT_HOMOPHONES.get(word)
        if number is None and word.isdigit():
            number = int(word)
        if number and 1 <= number <= len(players):
            found.append((len(words[: match.start()].split()), players[number - 1]))
    return sorted(found)


def _claim(tokens: list[str]) -> tuple[int, str] | None:
    for i in range(len(tokens) - 1):
        word, rank_word = tokens[i], tokens[i + 1]
        if rank_word == "of" and i + 2 < len(tokens):
            rank_word = tokens[i + 2]
        count = COUNT_WORDS.get(word) or COUNT_HOMOPHONES.get(word)
        if count is None and word.isdigit():
            count = int(word)
        rank = RANK_WORDS.get(rank_word)
        if count is not None and rank is not None:
            return count, rank
    return None


def parse(text: str, players: Sequence[str] = ()) -> Intent:
    """Parse one utterance. ``players`` are the seated names, so calls can name their caller."""
    words = normalize(text)
    tokens = words.split()
    if not tokens:
        return Intent("unknown")
    for phrase, command in COMMAND_PHRASES:
        if _phrase_in(words, phrase):
            return Intent("command", command=command)
    names = find_names(words, players)
    is_call = any(
        t in CALL_WORDS and not (t == "doubt" and set(tokens[i + 1 : i + 2]) & NOT_DOUBTED)
        for i, t in enumerate(tokens)
    )
    is_call = is_call or any(_phrase_in(words, p) for p in CALL_PHRASES)
    claim = _claim(tokens)
    if not is_call and claim is None and any(t in CALL_VERBS for t in tokens):
        is_call = True
    if is_call:
        caller = target = None
        for pos, name in names:
            if pos > 0 and tokens[pos - 1] in TARGET_MARKERS:
                target = target or name
            elif caller is None:
                caller = name
        return Intent("call", caller=caller, target=target)
    if claim is not None:
        return Intent("claim", count=claim[0], rank=claim[1])
    if any(_phrase_in(words, p) for p in PASS_PHRASES):
        return Intent("pass")
    if any(t in HONEST_WORDS for t in tokens):
        return Intent("verdict", honest=True)
    if any(t in LIE_WORDS for t in tokens):
        return Intent("verdict", honest=False)
    if len({name for _, name in names}) == 1:  # "Dev Cara" names nobody in particular
        return Intent("name", name=names[0][1])
    if len(tokens) == 1 and (tokens[0] in COUNT_WORDS or tokens[0].isdigit()):
        count = COUNT_WORDS[tokens[0]] if tokens[0] in COUNT_WORDS else int(tokens[0])
        return Intent("count", count=count)
    if len(tokens) == 1 and tokens[0] in LONE_RANKS:
        # "King." as one card goes down; number ranks alone are counts ("two" is not a 2)
        return Intent("claim", count=1, rank=LONE_RANKS[tokens[0]])
    return Intent("unknown")
