"""What may be said now: the legal vocabulary, built from the game context.

Like a voice chess front-end that only listens for legal moves, the recognizer is told the
players, the ranks that may be claimed and the largest count; grammars, prompts and the final
check (:func:`admit`) all come from here and from :mod:`referee.intents`, so there is one
source of truth for the words of the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.game.cards import RANKS, rank_name
from referee.intents import (
    CALL_PHRASES,
    CALL_VERBS,
    CALL_WORDS,
    COMMAND_PHRASES,
    COUNT_HOMOPHONES,
    COUNT_WORDS,
    HONEST_WORDS,
    LIE_WORDS,
    LONE_RANKS,
    PASS_PHRASES,
    RANK_WORDS,
    SEAT_WORDS,
    TARGET_MARKERS,
    Intent,
    find_names,
    normalize,
    parse,
)

INTENT_TYPES = frozenset({"claim", "call", "pass", "command", "name", "count", "verdict"})
NUMBER_WORDS = {n: w for w, n in COUNT_WORDS.items() if w not in ("a", "an", "single")}
#: the calls a grammar lists (CALL_WORDS holds inflections a grammar does not need).
GRAMMAR_CALLS = ("cheat", "cheater", "bullshit", "liar", "i doubt it", "b s")
#: what may be said in each phase of a game (the live referee listens for these only: a bare
#: count during play is chatter, never a claim; a name then only completes a call said next
#: to it, "Cheat! ... Ben"). While it asks "Who called?", the next claim says no one did
#: (the engine's ``_NO_CALLER``): a call heard in the room's talk does not stop the game.
PHASE_INTENTS: dict[str, frozenset[str]] = {
    "play": frozenset({"claim", "call", "pass", "command", "name"}),
    "pairs": frozenset({"claim", "pass", "command"}),
    "who_called": frozenset({"name", "call", "command", "claim"}),
    "reveal": frozenset({"verdict", "call", "command"}),
    "timeout_card": frozenset({"command"}),
    "over": frozenset({"command"}),
}
#: what the referee has asked for in a phase: the answer it waits for, which may be said alone
PHASE_ASKS: dict[str, str] = {"who_called": "name"}


@dataclass(frozen=True)
class ListenContext:
    """What is legal to say now.

    ``legal_ranks``: ranks a claim may name (the rank due, or all of them in free-choice
    variants). ``max_count``: the most cards one claim may hold, and the largest bare count.
    ``intents``: intent types that mean something now (others are rejected as chatter).
    ``asking``: the intent type the referee has just asked for ("name": "Who called?"), if
    any: one said alone is then the answer, not a word beside a call. ``taken_back``: claims
    (count, rank) the table undid at this turn: not heard that way again (see
    :func:`admit`). ``undoing``: an undo is likely now (the table has just taken a move back
    here, or the referee has just acted on a call, its caller maybe misheard): a recognizer
    may hear one on less evidence.
    """

    players: tuple[str, ...] = ()
    legal_ranks: tuple[str, ...] = RANKS
    max_count: int = 4
    intents: frozenset[str] = field(default=INTENT_TYPES)
    asking: str | None = None
    taken_back: frozenset[tuple[int, str]] = frozenset()
    undoing: bool = False
    #: the rank of the claim just taken: a claim of it now is most likely that one said again
    last_rank: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "legal_ranks", tuple(self.legal_ranks))
        object.__setattr__(self, "intents", frozenset(self.intents))
        object.__setattr__(self, "taken_back", frozenset(self.taken_back))
        unknown = set(self.legal_ranks) - set(RANKS)
        if unknown:
            raise ValueError(f"not ranks: {sorted(unknown)}")

    @classmethod
    def for_phase(cls, phase: str, players: Iterable[str] = (), **kw) -> ListenContext:
        """What may be said in a game's ``phase`` (``PHASE_INTENTS``, ``PHASE_ASKS``)."""
        intents = PHASE_INTENTS.get(phase, PHASE_INTENTS["play"])
        return cls(players=tuple(players), intents=intents, asking=PHASE_ASKS.get(phase), **kw)

    @classmethod
    def for_rank_due(cls, rank_due: str | None, players: Iterable[str] = (), **kw) -> ListenContext:
        ranks = (rank_due,) if rank_due else RANKS
        return cls(players=tuple(players), legal_ranks=ranks, **kw)


def admit(intent: Intent, ctx: ListenContext) -> bool:
    """Whether ``intent`` is something a player may say now (chatter and the illegal are not)."""
    if intent.type not in ctx.intents:
        return False
    if intent.type == "claim":
        if (intent.count, intent.rank) in ctx.taken_back:
            return False  # the table took it back: a misreading, read the same way again
        return intent.rank in ctx.legal_ranks and 1 <= (intent.count or 0) <= ctx.max_count
    if intent.type == "count":
        return 1 <= (intent.count or 0) <= ctx.max_count
    if intent.type == "name":
        return intent.name in ctx.players
    return True


#: small words a player may wrap around a game phrase ("oh, cheat!", "that's two aces")
FILLER_WORDS = frozenset("of the i it um uh oh okay ok so that thats that's you player".split())
GAME_WORDS = frozenset(
    [*COUNT_WORDS, *COUNT_HOMOPHONES, *RANK_WORDS, *CALL_WORDS, *CALL_VERBS, *TARGET_MARKERS,
     *HONEST_WORDS, *LIE_WORDS, *FILLER_WORDS]
    + [w for p in CALL_PHRASES for w in p.split()]
    + [w for p, _ in COMMAND_PHRASES for w in normalize(p).split()]
    + [w for p in PASS_PHRASES for w in p.split()]
    + [w for p in SEAT_WORDS for w in p.split()]
)  # fmt: skip


#: words a player wraps their name in when the referee asks "Who called?" ("Me, Rob!", "It
#: was Rob.", "Rob did."), heard only then. Whisper writes them too around a name said alone
#: under babble: Rob's "Rob." answering the question in a babble room game was read "and
#: rob" (the head: a name 0.86) and went unheard (bench/table, strangers)
ANSWER_WORDS = frozenset("me was did and here mine yes yeah its it's".split())


def covered(text: str, ctx: ListenContext) -> bool:
    """Whether every word heard is a word of the game (or a player's name, or a word of an
    answer when the referee asked for a name: ``ANSWER_WORDS``).

    A legal phrase inside chatter ("my sister, liar") is chatter: a recognizer that heard
    other words too was not hearing a call.
    """
    names = {w for name in name_words(ctx) for w in name.split()}
    answer = ANSWER_WORDS if ctx.asking == "name" else frozenset()
    return all(
        w in GAME_WORDS or w in names or w in answer or w.isdigit() for w in normalize(text).split()
    )


def interpret(text: str, ctx: ListenContext) -> Intent | None:
    """The intent of ``text`` if it is legal now (every word a word of the game, and the
    intent one the phase admits), else None."""
    if not covered(text, ctx):
        return None
    intent = parse(text, ctx.players)
    lone = lone_due_rank(ctx)
    if intent.type == "count" and lone is not None and normalize(text) == rank_name(lone, 1):
        intent = Intent("claim", count=1, rank=lone)
    if intent.type == "claim" and not admit(intent, ctx):
        seat = seat_named(text, ctx.players)
        if seat is not None:  # "play a four": whisper's "player four", not one four
            intent = Intent("name", name=seat)
    if intent.type == "claim" and not claim_shaped(text, ctx):
        return None
    return intent if admit(intent, ctx) else None


def seat_named(text: str, players: Sequence[str]) -> str | None:
    """The one player ``text`` names by seat ("player four", however written), if any."""
    words = normalize(text)
    seats = {
        name
        for _, name in find_names(words, players)
        if not any(w in words.split() for w in normalize(name).split())
    }
    return seats.pop() if len(seats) == 1 else None


def claim_shaped(text: str, ctx: ListenContext) -> bool:
    """Whether ``text`` says one claim and nothing more: a count and a rank ("two aces",
    "that's two of aces", "Alice: two aces") or a rank alone, small words and names aside.
    A run of counts around a rank ("one two three four", "three two three") is the decoder
    reciting its prompt over babble, never a claim: 10 of the 32 claims an hour invented
    from table chatter (bench/speech/chatter.md, 2026-12-02) were such runs. A name may come
    first (the claimer's own), never after: under 15 dB babble "bullshit, Ben!" was read
    "four eights ben", and the referee took a claim where a call was made."""
    names = {w for name in name_words(ctx) for w in name.split()}
    words = [w for w in normalize(text).split() if w not in FILLER_WORDS]
    while words and words[0] in names:
        words.pop(0)
    fewest = 2 if ctx.asking else 1  # see lone_due_rank
    return fewest <= len(words) <= 2 and not names & set(words)


def lone_due_rank(ctx: ListenContext) -> str | None:
    """The rank due when it is the only one a claim may name and its word is also a count
    ("two" when twos are due): then that word alone is a claim of one card of it, as "King."
    alone is one king. The table says "a two" and recognizers drop the "a" (the room heard
    "a two" as "two" four times running); "two twos" is how two of them are said. Not while
    the referee asks for something else ("Who called?"): a claim then says no one called, and
    "Ben" is heard "ten"; a claim said then names its count ("a king", "two kings")."""
    if "claim" not in ctx.intents or len(ctx.legal_ranks) != 1 or ctx.asking:
        return None
    rank = ctx.legal_ranks[0]
    return rank if rank_name(rank, 1) in COUNT_WORDS else None


def count_words(ctx: ListenContext) -> list[str]:
    return [NUMBER_WORDS[n] for n in range(1, ctx.max_count + 1) if n in NUMBER_WORDS]


def claim_phrases(ctx: ListenContext) -> list[str]:
    """Canonical spoken claims: "two aces", "a king", "one king"..."""
    out: list[str] = []
    for rank in ctx.legal_ranks:
        for n in range(1, ctx.max_count + 1):
            word = NUMBER_WORDS.get(n)
            if word is None or (n, rank) in ctx.taken_back:
                continue
            out.append(f"{word} {rank_name(rank, n)}")
            if n == 1:
                out.append(f"a{'n' if rank == 'A' else ''} {rank_name(rank, 1)}")
                if rank_name(rank, 1) in LONE_RANKS or rank == lone_due_rank(ctx):
                    out.append(rank_name(rank, 1))
    return out


def command_phrases(ctx: ListenContext) -> list[str]:
    return [phrase for phrase, _command in COMMAND_PHRASES if "'" not in phrase]


def name_words(ctx: ListenContext) -> list[str]:
    return [normalize(p) for p in ctx.players if normalize(p)]


def seat_words(ctx: ListenContext) -> list[str]:
    """Seats as names ("player one", "player two"...): how the table names a player whose
    name the ears mix up with another's (the start-up check says "cheat, player four!")."""
    return [f"player {NUMBER_WORDS[n]}" for n in range(1, len(ctx.players) + 1)
            if n in NUMBER_WORDS]  # fmt: skip


def phrases(ctx: ListenContext) -> list[str]:
    """Every legal phrase, normalized; what a grammar-mode recognizer may output."""
    out: list[str] = []
    if "claim" in ctx.intents:
        out += claim_phrases(ctx)
    if "call" in ctx.intents:
        out += list(GRAMMAR_CALLS)
        for name in name_words(ctx) + seat_words(ctx):
            out += [f"{name} {call}" for call in GRAMMAR_CALLS[:3]]
            out += [f"{call} {name}" for call in GRAMMAR_CALLS[:3]]
    if "pass" in ctx.intents:
        out += list(PASS_PHRASES[:2])
    if "command" in ctx.intents:
        out += command_phrases(ctx)
    if "name" in ctx.intents:
        out += name_words(ctx) + seat_words(ctx)
    if "count" in ctx.intents:
        out += count_words(ctx)
    if "verdict" in ctx.intents:
        out += ["honest", "lie"]
    return list(dict.fromkeys(normalize(p) for p in out))


def max_words(ctx: ListenContext) -> int:
    """The longest legal phrase, in words (anything longer heard is chatter)."""
    return max((len(p.split()) for p in phrases(ctx)), default=1)


def prompt(ctx: ListenContext) -> str:
    """A whisper prompt: a sample of the table's talk, so the decoder expects these words."""
    parts: list[str] = []
    if "count" in ctx.intents or "claim" in ctx.intents:
        parts.append(", ".join(w.capitalize() for w in count_words(ctx)) + ".")
    if "claim" in ctx.intents:
        if len(ctx.legal_ranks) <= 2:  # the rank due is known: every claim it allows
            for rank in ctx.legal_ranks:
                for n in range(1, ctx.max_count + 1):
                    if (n, rank) not in ctx.taken_back:
                        parts.append(f"{NUMBER_WORDS[n].capitalize()} {rank_name(rank, n)}.")
        else:
            ranks = ("A", "K", "7", "Q", "J", "10", "3", "9")
            counts = [n for n in (2, 1, 3, 4) if n <= ctx.max_count]
            for i, rank in enumerate(ranks):
                n = counts[i % len(counts)]
                parts.append(f"{NUMBER_WORDS[n].capitalize()} {rank_name(rank, n)}.")
    if "call" in ctx.intents:
        parts.append("Cheat! Bullshit! Liar! I doubt it!")
    if "pass" in ctx.intents:
        parts.append("Pass.")
    if "command" in ctx.intents:
        parts.append("Undo. Repeat. Score. New game. How many cards? Whose turn?")
    if ctx.players and ("name" in ctx.intents or "call" in ctx.intents):
        parts.append(", ".join(ctx.players) + ".")
    return " ".join(parts)


def call_word_list() -> list[str]:
    return sorted(CALL_WORDS) + list(CALL_PHRASES)


#: common words that are not the game's: grammar backends get them as an escape route, so
#: off-list speech lands on a word that parses to nothing instead of on a legal phrase.
GARBAGE_WORDS: tuple[str, ...] = tuple(
    """zero oh yes no yeah okay well so the and it is was that this what you we they he she
    go going come get got have had do did not now then there here when where why who
    good great nice right left up down out in off over time day night way man hand
    tree free three's tea see sea me my mine your yours our just like know think want
    look hey hi hello thanks thank please sorry wait stop start play played card table
    drink beer music game money water more less much many some any all none""".split()
)
