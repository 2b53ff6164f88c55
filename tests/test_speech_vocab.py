"""The legal vocabulary: one source of truth (referee.intents) for grammars, prompts, checks."""

from __future__ import annotations

import pytest

from referee.intents import Intent, parse
from referee.speech.backends.sphinx import jsgf
from referee.speech.backends.whisper import collapse_repeats, compatible
from referee.speech.vocab import (
    ListenContext,
    admit,
    covered,
    interpret,
    max_words,
    phrases,
    prompt,
)

PLAYERS = ("Alice", "Ben")


def test_every_grammar_phrase_parses_to_an_admitted_intent():
    for ctx in (ListenContext(players=PLAYERS), ListenContext.for_rank_due("Q", PLAYERS)):
        for phrase in phrases(ctx):
            intent = parse(phrase, ctx.players)
            assert intent.type != "unknown", phrase
            assert admit(intent, ctx), phrase


def test_rank_due_narrows_the_claims():
    ctx = ListenContext.for_rank_due("7", PLAYERS)
    claims = [p for p in phrases(ctx) if parse(p, PLAYERS).type == "claim"]
    assert {parse(p).rank for p in claims} == {"7"}
    assert "two sevens" in claims and "four sevens" in claims and "five sevens" not in claims
    assert "Two sevens." in prompt(ctx)
    assert "Alice" in prompt(ctx)


@pytest.mark.parametrize(
    ("text", "legal"),
    [
        ("two sevens", True),
        ("two aces", False),  # not the rank due
        ("five sevens", False),  # more than max_count
        ("cheat", True),
        ("Ben cheat", True),
        ("Zed", False),  # not a player
        ("zero", False),
        ("the weather is nice", False),
        ("three", True),
        ("nine", False),
        ("undo", True),
    ],
)
def test_admit_checks_what_is_legal_now(text, legal):
    ctx = ListenContext.for_rank_due("7", PLAYERS)
    assert admit(parse(text, PLAYERS), ctx) is legal


def test_a_face_rank_said_alone_claims_one_card():
    ctx = ListenContext.for_rank_due("K", PLAYERS)
    assert parse("King.") == Intent("claim", count=1, rank="K")
    assert admit(parse("king"), ctx)
    assert not admit(parse("queen"), ctx)  # not the rank due
    assert "king" in phrases(ctx)
    # a number word alone stays a count: "two" is never one 2
    assert parse("two") == Intent("count", count=2)
    assert parse("the king") == Intent("unknown")


def test_zero_is_a_number_and_two_names_are_nobody():
    # "zero" is heard as the number it is (never a legal count), so it cannot be taken for
    # another word; two names with nothing else do not say who
    assert parse("zero") == Intent("count", count=0)
    assert not admit(parse("zero"), ListenContext(players=PLAYERS))
    assert parse("Ben", PLAYERS) == Intent("name", name="Ben")
    assert parse("Ben Alice", PLAYERS) == Intent("unknown")
    assert parse("Ben, Alice: cheat!", PLAYERS) == Intent("call", caller="Ben")


@pytest.mark.parametrize(
    ("free", "forced", "ok"),
    [
        ("you told me", "i doubt it", True),  # words that meant nothing: anything legal
        ("ten", "seven", True),  # a number out of range stays a number
        ("four", "four tens", True),  # ...or becomes the count of a claim
        ("zero", "liar", False),  # but never a call
        ("four", "two tens", False),
        ("two aces", "two sevens", False),  # a claim stays a claim of the rank heard
        ("to sevens", "two sevens", True),
        ("two aces", "cheat", False),
        ("Ben teet", "Ben, cheat!", True),  # a name stays the caller of a call
        ("Ben teet", "cheat, Alice!", False),  # ...the same caller
        ("Ben teet", "two tens", False),
    ],
)
def test_a_forced_reading_only_mends_what_was_misheard(free, forced, ok):
    assert compatible(parse(free, PLAYERS), parse(forced, PLAYERS)) is ok


def test_a_claims_rank_is_mended_only_on_a_near_tie_and_its_count_kept():
    heard, due = parse("two tens", PLAYERS), parse("two sevens", PLAYERS)
    assert not compatible(heard, due)
    assert compatible(heard, due, near_tie=True)
    assert not compatible(heard, parse("three sevens", PLAYERS), near_tie=True)


def test_intent_types_can_be_switched_off():
    ctx = ListenContext(players=PLAYERS, intents=frozenset({"call"}))
    assert admit(Intent("call"), ctx)
    assert not admit(parse("two aces"), ctx)
    assert all(parse(p, PLAYERS).type == "call" for p in phrases(ctx))


def test_max_words_bounds_the_longest_phrase():
    ctx = ListenContext(players=PLAYERS)
    assert max_words(ctx) == max(len(p.split()) for p in phrases(ctx))
    assert 3 <= max_words(ctx) <= 5


def test_bad_rank_is_refused():
    with pytest.raises(ValueError):
        ListenContext(legal_ranks=("1",))


def test_jsgf_grammar_lists_phrases_and_garbage():
    grammar = jsgf(["two aces", "cheat"], ["hello", "zero"])
    assert grammar.startswith("#JSGF V1.0;")
    assert "public <utterance> = two aces | cheat | <garbage>+;" in grammar
    assert "<garbage> = hello | zero;" in grammar


def test_decoder_loops_collapse():
    assert collapse_repeats("two two two two".split()) == ["two"]
    assert collapse_repeats("ben cheat ben cheat".split()) == ["ben", "cheat"]
    assert collapse_repeats("two aces".split()) == ["two", "aces"]


def test_every_grammar_phrase_is_covered_and_chatter_is_not():
    ctx = ListenContext(players=PLAYERS)
    assert all(covered(p, ctx) for p in phrases(ctx))
    assert covered("Oh, Ben: cheat!", ctx)
    assert covered("that's 2 aces", ctx)
    assert not covered("my sister, liar", ctx)
    assert not covered("and then Ben lied", ctx)


def test_a_player_may_be_named_by_seat_where_names_are_mixed_up():
    # the start-up check tells a table whose names the ears mix up to say "cheat, player
    # four!" and to answer "Who called?" with "player four": both must be legal phrases
    ctx = ListenContext(players=("Alice", "Ben", "Cara", "Dev"))
    legal = phrases(ctx)
    assert "player four" in legal and "cheat player four" in legal
    assert "player five" not in legal  # no fifth seat
    assert parse("player four", ctx.players) == Intent("name", name="Dev")
    assert parse("cheat player four", ctx.players).caller == "Dev"


def test_the_rank_due_said_alone_is_one_card_of_it():
    # "a two" loses its "a" in the recognizer: "two" with twos due is one two, as "King."
    # alone is one king; another number alone is still no claim, nor is it with ranks free
    from referee.speech.vocab import PHASE_INTENTS, interpret

    play = PHASE_INTENTS["play"]
    twos = ListenContext.for_rank_due("2", PLAYERS, intents=play)
    assert interpret("two", twos) == Intent("claim", count=1, rank="2")
    assert interpret("Two.", twos) == Intent("claim", count=1, rank="2")
    assert interpret("two twos", twos) == Intent("claim", count=2, rank="2")
    assert interpret("three", twos) is None
    assert "two" in phrases(twos)
    assert interpret("two", ListenContext.for_rank_due(None, PLAYERS, intents=play)) is None
    asking = ListenContext.for_phase("who_called", PLAYERS, legal_ranks=("2",))
    assert interpret("two", asking) is None
    assert interpret("twos", asking) is None  # "Ben" heard as "ten" is no claim there
    assert interpret("a two", asking) == Intent("claim", count=1, rank="2")
    assert interpret("two twos", asking) == Intent("claim", count=2, rank="2")
    assert interpret("Ben", asking) == Intent("name", name="Ben")


def test_a_claim_says_one_claim_and_nothing_more():
    # the decoder recites its prompt's counts over babble: a run of counts is no claim
    from referee.speech.vocab import PHASE_INTENTS, interpret

    twos = ListenContext.for_rank_due("2", PLAYERS, intents=PHASE_INTENTS["play"])
    for recited in ("one two three four", "three two three", "one two three"):
        assert interpret(recited, twos) is None, recited
    assert interpret("so one two", twos) == Intent("claim", count=1, rank="2")
    assert interpret("that's two of twos", twos) == Intent("claim", count=2, rank="2")
    assert interpret("Alice: two twos", twos) == Intent("claim", count=2, rank="2")
    # a name after the claim's words: a call misread ("bullshit, Ben!" under babble)
    assert interpret("two twos, Ben", twos) is None
    assert interpret("Alice, two twos, Ben", twos) is None


@pytest.mark.parametrize(
    ("heard", "intent"),
    [
        ("Play for.", Intent("name", name="Dev")),
        ("Playa 4.", Intent("name", name="Dev")),
        ("Cheat! Play a four.", Intent("call", caller="Dev")),
        ("Cheat! Playa four.", Intent("call", caller="Dev")),
        ("Cheat! Play your four.", Intent("call", caller="Dev")),
        ("cheat play it for", Intent("call", caller="Dev")),
        ("Play it for.", Intent("name", name="Dev")),
        ("play the four", Intent("name", name="Dev")),  # in a 20 dB kitchen
    ],
)
def test_a_seat_is_heard_however_the_recognizer_writes_player(heard, intent):
    # whisper's writings of espeak-ng voices saying "player four" and "cheat, player four!"
    assert parse(heard, ("Alice", "Ben", "Cara", "Dev")) == intent


def test_a_seat_written_as_a_claim_not_due_is_the_seat():
    from referee.speech.vocab import PHASE_INTENTS, interpret

    # whisper wrote espeak Dev's "player four" (after "cheat,") as "play a four", with sixes
    # due: not a claim of one four but Dev's seat; with fours due it is not taken for the seat
    sixes = ListenContext.for_rank_due("6", ("Alice", "Ben", "Cara", "Dev"),
                                       intents=PHASE_INTENTS["play"])  # fmt: skip
    assert interpret("play a four", sixes) == Intent("name", name="Dev")
    fours = ListenContext.for_rank_due("4", ("Alice", "Ben", "Cara", "Dev"),
                                       intents=PHASE_INTENTS["play"])  # fmt: skip
    assert interpret("play a four", fours) is None  # (nor as a claim: not claim-shaped)
    assert interpret("Alice: two aces", sixes) is None  # a name with a claim not due: no seat


def test_undo_that_is_a_legal_phrase_and_i_doubt_that_no_call():
    # whisper writes the table's "undo that" as "I doubt that" (bench/speech/undo.md): taken
    # as a bare call, it asked "Who called?" in the room's babble game. Not a call as heard,
    # the constrained re-read weighs "undo that" against "I doubt it" on the audio itself
    ctx = ListenContext.for_rank_due("K", PLAYERS)
    assert "undo that" in phrases(ctx)
    assert parse("I doubt that", PLAYERS) == Intent("unknown")
    assert parse("I doubt this", PLAYERS) == Intent("unknown")
    assert parse("I doubt it", PLAYERS) == Intent("call", caller=None)
    assert parse("Doubt!", PLAYERS) == Intent("call", caller=None)
    assert parse("Ben, I doubt it", PLAYERS) == Intent("call", caller="Ben")
    assert parse("undo that", PLAYERS) == Intent("command", command="undo")


def test_a_seat_cut_inside_player_names_nobody():
    from referee.speech.vocab import PHASE_INTENTS, interpret

    # "player two." answering "Who called?", read at the pause inside "play-er" in a 20 dB
    # kitchen: "play a", acted on as player one's call (bench/table, the strangers' table)
    players = ("Marco", "Nadia", "Rob", "Yuki")
    asking = ListenContext.for_phase("who_called", players)
    assert interpret("play a", asking) is None
    assert interpret("playa two", asking) == Intent("name", name="Nadia")
    assert parse("cheat play a", players) == Intent("call", caller=None)
    assert parse("cheat play a four", players) == Intent("call", caller="Yuki")
    play = ListenContext.for_rank_due("6", players, intents=PHASE_INTENTS["play"])
    assert interpret("cheat player one", play) == Intent("call", caller="Marco")


@pytest.mark.parametrize(
    "heard, name",
    [("Me, Rob!", "Rob"), ("It was Rob.", "Rob"), ("Rob did.", "Rob"), ("and rob", "Rob"),
     ("It's me, Yuki.", "Yuki"), ("yes, player two", "Nadia"), ("it was me", None),
     ("rob what", None), ("and two kings", None)],
)  # fmt: skip
def test_an_answer_to_who_called_may_wrap_the_name(heard, name):
    from referee.speech.vocab import PHASE_INTENTS, interpret

    players = ("Marco", "Nadia", "Rob", "Yuki")
    asking = ListenContext.for_phase("who_called", players)
    got = interpret(heard, asking)
    assert got == (Intent("name", name=name) if name else None)
    # during play the same words are chatter: a name alone only pairs with a call
    play = ListenContext.for_rank_due("6", players, intents=PHASE_INTENTS["play"])
    assert not covered(heard, play) or interpret(heard, play) != Intent("name", name=name)


def test_a_claim_the_table_took_back_is_not_heard_that_way_again():
    ctx = ListenContext.for_rank_due("5", PLAYERS, taken_back={(3, "5"), (1, "5")})
    claims = [p for p in phrases(ctx) if parse(p, PLAYERS).type == "claim"]
    assert sorted(claims) == ["four fives", "two fives"]
    assert interpret("three fives", ctx) is None and interpret("a five", ctx) is None
    assert interpret("two fives", ctx) == parse("two fives")
    assert "Three fives." not in prompt(ctx) and "Two fives." in prompt(ctx)
