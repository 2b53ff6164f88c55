"""The live loop's one queue of events: the ears go on while the eyes read, an undo goes
back exactly, stopping prints the final state, the voice's progress is told.

The table speaks in tones a fake backend 'hears' as phrases (as in
tests/test_speech_recognizer.py), so the real recognizer, call assembler, session and engine
run, in seconds."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pytest

from referee.game.events import Call, Claim
from referee.game.rules import Rules
from referee.live.cli import paced
from referee.live.events import AudioChunk, Key, VoicePlayed, VoiceStarted
from referee.live.loop import LiveReferee
from referee.session import Session
from referee.speech.audio import ArraySource, Chunk
from referee.speech.recognizer import Recognizer
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import ListenContext
from tests.test_speech_recognizer import table

WORDS = {300: "cheat ben", 500: "two aces", 700: "undo", 900: "lie", 1100: "cheat cara",
         1300: "one two", 1500: "stop the game", 1700: "cheat", 1900: "two twos",
         2100: "ben"}  # fmt: skip


class Tones:
    """A backend that hears a tone's pitch as the phrase WORDS gives it."""

    name = "tones"
    streaming_cost_s = 0.0

    def set_context(self, ctx):
        return []

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        spectrum = np.abs(np.fft.rfft(audio))
        freq = np.argmax(spectrum) * SAMPLE_RATE / len(audio)
        nearest = min(WORDS, key=lambda f: abs(f - freq))
        return Hypothesis(WORDS[nearest] if abs(nearest - freq) < 60 else "", 0.9)


class Timed(Recognizer):
    """The recognizer, noting the wall-clock time each chunk reached it."""

    def __init__(self) -> None:
        super().__init__(Tones(), context=ListenContext(players=("Alice", "Ben", "Cara")))
        self.fed: list[tuple[float, float]] = []  # (wall, audio)

    def feed(self, chunk):
        self.fed.append((time.monotonic(), chunk.start))
        return super().feed(chunk)


@dataclass
class Card:
    rank: str
    suit: str
    box: tuple[float, float, float, float] = (0, 0, 10, 10)
    confidence: float = 0.99


@dataclass
class Reveal:
    cards: list[Card]
    readable: bool = True
    message: str = ""


class SlowReader:
    """Reads every reveal as ``cards``, taking ``seconds`` of wall-clock time."""

    def __init__(self, cards: list[Card], seconds: float = 0.0) -> None:
        self.cards, self.seconds = cards, seconds
        self.reads: list[tuple[float, float]] = []  # wall-clock (start, end)

    def read_stable(self, frames):
        started = time.monotonic()
        list(frames)
        time.sleep(self.seconds)
        self.reads.append((started, time.monotonic()))
        return Reveal(self.cards)


class Camera:
    """Photos per reveal: notes which reveal each look was for."""

    def __init__(self) -> None:
        self.looks: list[int] = []
        self.last_frame = None

    def frames(self, reveal: int | None = None):
        self.looks.append(reveal)
        yield np.zeros((4, 4, 3), np.uint8)


class Screen:
    def __init__(self) -> None:
        self.shown: list[float] = []  # wall-clock times

    def show(self, image) -> None:
        self.shown.append(time.monotonic())


def referee_for(tmp_path, audio: np.ndarray, reader=None, **kw) -> LiveReferee:
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    said: list = []
    referee = LiveReferee(session, Timed(), ArraySource(audio),
                          camera=Camera() if reader else None, reader=reader,
                          on_say=lambda a, at: said.append((a, at)), **kw)  # fmt: skip
    referee.said = said  # type: ignore[attr-defined]
    return referee


def texts(referee: LiveReferee) -> list[str]:
    return [a.text for a, _ in referee.said]  # type: ignore[attr-defined]


def test_the_ears_go_on_while_the_eyes_read_and_a_call_meanwhile_is_not_lost(tmp_path):
    # the game already at the reveal: Alice claimed two aces, Ben called. The reader takes
    # 2 s; at 0.6 s into it Cara calls too, and is told who called first
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    session.submit(Claim(2, "A", t=0.0))
    session.submit(Call("Ben", t=0.5))
    reader = SlowReader([Card("A", "S"), Card("A", "H")], seconds=2.0)
    audio = table((0.6, 1100, 0.5), total=3.5)
    said: list[str] = []
    screen = Screen()
    referee = LiveReferee(session, Timed(), paced(ArraySource(audio)), camera=Camera(),
                          reader=reader, live_audio=True, window=screen,
                          on_say=lambda a, at: said.append(a.text),
                          unsaid=frozenset({"resume", "reveal_request"}))  # fmt: skip
    referee.run()
    session.close()
    ((read_from, read_to),) = reader.reads
    during = [(w, t) for w, t in referee.recognizer.fed if read_from <= w <= read_to]
    # the handler took chunks all through the 2 s read (a reader holding the ears up would
    # let none through): in audio time one after another, no gap over 0.1 s, over more
    # than a second; in wall-clock time never stopped for long (the machine may be loaded)
    times = [t for _, t in during]
    assert len(during) > 50 and times[-1] - times[0] > 1.0
    assert np.diff(times).max() <= 0.1
    assert np.diff([read_from, *(w for w, _ in during), read_to]).max() < 1.0
    assert "Ben called first." in said  # Cara's call, heard while the cards were read
    assert said.index("Ben called first.") < next(
        i for i, x in enumerate(said) if "told the truth" in x
    )
    drawn = [w for w in screen.shown if read_from <= w <= read_to]
    assert len(drawn) >= 5  # the screen kept being drawn, about every 0.2 s
    assert session.state.hands[1] == 19  # Ben picked up: Alice's two aces were true


LIED = [Card("5", "H"), Card("6", "D")]


def test_an_undo_goes_back_exactly_and_the_same_call_said_again_gets_its_cards_read(tmp_path):
    # Alice claims, Ben calls, the cards are read: Alice lied. The table undoes the verdict,
    # says "lie" (the verdict again), undoes it again, undoes the call, and calls again
    lines = [(7.0, 500), (14.0, 300), (28.0, 700), (36.0, 900), (46.0, 700), (54.0, 700),
             (62.0, 300)]  # fmt: skip
    audio = table(*((t, f, 0.5) for t, f in lines), total=76.0)
    reader = SlowReader(LIED)
    referee = referee_for(tmp_path, audio, reader)
    referee.run()
    referee.session.close()
    said = texts(referee)
    lied = "Five and six: Alice lied. Alice picks up the pile, two cards."
    assert said.count(lied) == 2, said  # the first read, and the read after the last call
    assert said.count("Alice lied. Alice picks up the pile, two cards.") == 1  # the "lie"
    assert "Ben called first." not in said
    # an undo back to the reveal does not read the cards again at once: it asks
    assert len(reader.reads) == 2
    assert said.count("Say true or lie.") == 2
    assert referee.camera.looks == [0, 0]  # the same reveal: the same photo
    assert referee.session.state.hands == [18, 17, 17]


def test_a_who_called_nobody_answers_is_dropped_by_the_next_claim(tmp_path):
    """A call heard in the room's talk: "Who called?" goes unanswered, and the next player
    makes their claim. The game goes on; the referee is not left asking."""
    audio = table((7.0, 500, 0.5), (14.0, 1700, 0.4), (22.0, 1900, 0.5), total=30.0)
    referee = referee_for(tmp_path, audio)
    referee.run()
    referee.session.close()
    said = texts(referee)
    asked = said.index("Who called?")
    assert said[asked + 1 : asked + 4] == ["No one called.", "Ben: two twos.", "Cara, threes."]
    state = referee.session.state
    assert state.phase == "play" and state.pile_size == 4 and state.caller is None


def test_after_undone_the_prompt_has_the_fields_of_any_prompt(tmp_path):
    audio = table((7.0, 500, 0.5), (14.0, 700, 0.5), total=20.0)
    referee = referee_for(tmp_path, audio)
    referee.run()
    referee.session.close()
    turns = [a for a, _ in referee.said if a.kind == "turn"]  # type: ignore[attr-defined]
    assert [a.text for a in turns] == ["Alice, aces.", "Ben, twos.", "Alice, aces."]
    assert turns[-1].data == turns[0].data == {"turn": "Alice", "legal_ranks": ["A"]}


def test_a_later_reveal_gets_its_own_photo_however_often_one_was_read(tmp_path):
    lines = [(7.0, 500), (14.0, 300), (28.0, 700), (36.0, 700), (46.0, 300), (60.0, 1300),
             (68.0, 1100)]  # fmt: skip
    audio = table(*((t, f, 0.5) for t, f in lines), total=80.0)
    referee = referee_for(tmp_path, audio, SlowReader(LIED))
    referee.run()
    referee.session.close()
    assert referee.camera.looks == [0, 0, 1]


@pytest.mark.parametrize("how", ["voice", "key"])
def test_stop_by_voice_or_key_ends_the_evening(tmp_path, how):
    audio = table((7.0, 500, 0.5), (14.0, 1500, 0.6), (22.0, 1300, 0.5), total=30.0)
    referee = referee_for(tmp_path, audio)
    if how == "key":
        audio = table((7.0, 500, 0.5), (22.0, 1300, 0.5), total=30.0)
        referee = referee_for(tmp_path, audio)
        original = referee.handle

        def handle(event):
            original(event)
            if referee.now >= 14.0 and not referee.stopped:
                original(Key("q"))

        referee.handle = handle  # type: ignore[method-assign]
    referee.run()
    referee.session.close()
    assert referee.stopped
    assert referee.now < 15.0  # nothing after it was heard
    assert [e.__class__.__name__ for e in referee.session.match.events] == ["Claim"]
    assert texts(referee)[-1].startswith("Stopping here.")


def test_each_sentence_is_told_when_the_voice_played_it(tmp_path):
    played: list[tuple[str, float | None, float]] = []
    referee = referee_for(tmp_path, table((7.0, 500, 0.5), total=9.0),
                          on_played=lambda a, s, e: played.append((a.text, s, e)))  # fmt: skip
    referee.run()
    referee.ears._audio_ahead.append(100.0)  # audio time is wall-clock time + 100 s
    referee.handle(VoiceStarted(0, "Game 1.", at=1.0))
    referee.handle(VoicePlayed(0, "Game 1.", at=2.5))
    referee.session.close()
    first = referee.said[0][0].text  # type: ignore[attr-defined]
    assert played == [(first, 101.0, 102.5)]


def test_the_journal_holds_each_event_before_it_is_announced(tmp_path):
    referee = referee_for(tmp_path, table((7.0, 500, 0.5), (14.0, 300, 0.5), total=20.0))
    journal = tmp_path / "journal.jsonl"
    on_disk: dict[str, str] = {}

    def on_say(announcement, at):
        on_disk[announcement.kind] = journal.read_text()

    referee.on_say = on_say
    referee.run()
    referee.session.close()
    assert '"event":"claim"' in on_disk["claim"]
    assert '"event":"call"' in on_disk["call"]


class CountingReader(SlowReader):
    """A reader that, told the claim's count, refuses a read of another count (as
    :meth:`referee.vision.reader.CardReader.read_stable` does); notes what it was told."""

    def __init__(self, cards: list[Card]) -> None:
        super().__init__(cards)
        self.expected: list[int | None] = []

    def read_stable(self, frames, expect: int | None = None):
        self.expected.append(expect)
        reveal = super().read_stable(frames)
        if expect is not None and len(reveal.cards) != expect:
            return Reveal(reveal.cards, readable=False, message="Spread the cards.")
        return reveal


def test_a_read_of_another_count_asks_to_spread_then_the_spread_cards_are_judged(tmp_path):
    # Alice claims two aces and Ben calls; three cards are turned over. The first look is
    # told the claim's count and asks to spread the cards (a thumb may cover one); the look
    # after that judges what it reads: three cards for two is a lie
    audio = table((7.0, 500, 0.5), (14.0, 300, 0.5), total=30.0)
    reader = CountingReader([Card("A", "S"), Card("A", "H"), Card("A", "D")])
    referee = referee_for(tmp_path, audio, reader)
    referee.run()
    referee.session.close()
    said = texts(referee)
    assert reader.expected == [2, None]
    assert said.index("Spread the cards.") < next(i for i, x in enumerate(said) if "lied" in x)
    assert referee.session.state.phase == "play"
    assert referee.session.state.hands[0] > 17  # Alice picked up the pile


def test_a_sentence_begun_before_the_first_chunk_is_told_in_audio_time(tmp_path):
    # the greeting starts before the microphone's first chunk says how audio time and the
    # wall clock differ: its start is placed once that is known, not left on the wall clock
    played: list[tuple[str, float | None, float]] = []
    referee = referee_for(tmp_path, table((7.0, 500, 0.5), total=9.0),
                          on_played=lambda a, s, e: played.append((a.text, s, e)))  # fmt: skip
    referee.run()
    referee.ears._audio_ahead.clear()
    referee.handle(VoiceStarted(0, "Game 1.", at=5000.0))  # no chunk yet
    referee.clock = lambda: 5001.0  # audio time is wall-clock time - 4990 s
    referee.handle(AudioChunk(Chunk(10.9, np.zeros(1600, np.float32))))
    referee.handle(VoicePlayed(0, "Game 1.", at=5001.5))
    referee.session.close()
    assert played[-1][1:] == (10.0, 11.5)


def test_a_sentence_said_whole_before_the_first_chunk_is_told_in_audio_time(tmp_path):
    # a busy start: the microphone's first chunk came after the whole greeting was said
    # (bench/table at 3659f31 printed it on the wall clock: started 29893.96, ended 29907.46)
    played: list[tuple[str, float | None, float]] = []
    referee = referee_for(tmp_path, table((7.0, 500, 0.5), total=9.0),
                          on_played=lambda a, s, e: played.append((a.text, s, e)))  # fmt: skip
    referee.run()
    told = len(played)
    referee.ears._audio_ahead.clear()
    referee.handle(VoiceStarted(0, "Game 1.", at=5000.0))
    referee.handle(VoicePlayed(0, "Game 1.", at=5003.5))
    assert len(played) == told  # not yet: audio time is unknown
    referee.clock = lambda: 5004.0
    referee.handle(AudioChunk(Chunk(9.9, np.zeros(1600, np.float32))))  # ends at 10.0
    referee.session.close()
    assert played[-1][1:] == (6.0, 9.5)


class VoiceOf(Timed):
    """The recognizer with a voice profile that takes every bare call for ``speaker``'s."""

    def __init__(self, speaker: str) -> None:
        super().__init__()
        self.speaker = speaker

    def feed(self, chunk):
        return [replace(h, speaker=self.speaker, speaker_score=0.5) for h in super().feed(chunk)]


def voiced_game(tmp_path, speaker: str, lines, total: float) -> tuple[LiveReferee, list[str]]:
    """A game of tones ``lines`` (start, pitch) whose every bare call the voice profile takes
    for ``speaker``'s, the cards read as a lie; the referee and what it said."""
    audio = table(*((t, f, 0.5) for t, f in lines), total=total)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    said: list[str] = []
    referee = LiveReferee(session, VoiceOf(speaker), ArraySource(audio), camera=Camera(),
                          reader=SlowReader(LIED),
                          on_say=lambda a, at: said.append(a.text))  # fmt: skip
    referee.run()
    session.close()
    return referee, said


def test_a_call_credited_to_the_wrong_voice_and_undone_is_asked_about_when_said_again(tmp_path):
    """Yuki's "liar!" was credited to Nadia's voice four times running in a quiet room game,
    each undone and said again (bench/table, strangers, --voices). Ben's bare "cheat" here
    is taken for Cara's voice; the table undoes the verdict and the call, Ben calls again:
    the referee asks who called, and Ben's name answers it."""
    lines = [(7.0, 500), (14.0, 1700), (28.0, 700), (36.0, 700), (44.0, 1700), (52.0, 300)]
    referee, said = voiced_game(tmp_path, "Cara", lines, total=66.0)
    session = referee.session
    assert said.count("Cara calls cheat on Alice. Alice, turn the cards over.") == 1, said
    asked = said.index("Who called?")
    assert said[asked + 1] == "Ben calls cheat on Alice. Alice, turn the cards over."
    assert session.state.hands == [18, 17, 17]  # Alice lied and picked up the pile
    assert referee.calls.doubted == {"Cara"}


def test_a_call_whose_voice_is_taken_for_the_claimers_is_asked_about(tmp_path):
    # Alice claims; Ben's bare "cheat" sounds like Alice to the voice profile: asked, answered
    _, said = voiced_game(tmp_path, "Alice", [(7.0, 500), (14.0, 1700), (24.0, 300)], 36.0)
    assert "Alice can't call their own play." not in said
    asked = said.index("Who called?")
    assert said[asked + 1] == "Ben calls cheat on Alice. Alice, turn the cards over.", said


class Learning(Timed):
    """The recognizer with a voice profile: notes what the loop tells it to learn."""

    def __init__(self) -> None:
        super().__init__()
        self.learned: list[tuple[str, str]] = []

    def learn_voice(self, heard, player: str) -> bool:
        self.learned.append((heard.utterance.text, player))
        return True

    def forget_voice(self, heard, player: str) -> bool:
        self.learned.remove((heard.utterance.text, player))
        return True


def test_each_claim_taken_teaches_the_voice_profile_its_players_voice(tmp_path):
    # Alice claims two aces in her turn, Ben "one two" (a claim of one two) in his; Ben's
    # bare call is no claim, and Cara's turn is not claimed: only the two claims are learned,
    # each as the player whose turn it was
    audio = table((7.0, 500, 0.5), (14.0, 1300, 0.5), (21.0, 1700, 0.5), total=30.0)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    recognizer = Learning()
    LiveReferee(session, recognizer, ArraySource(audio)).run()
    session.close()
    assert recognizer.learned == [("two aces", "Alice"), ("one two", "Ben")]


def test_what_the_table_undoes_is_taken_back_from_the_voices(tmp_path):
    # Alice's "two aces" and Ben's "one two" teach their voices; the table undoes Ben's
    # (misheard, say: babble read as his claim), and what it taught is taken back
    audio = table((7.0, 500, 0.5), (14.0, 1300, 0.5), (21.0, 700, 0.5), total=30.0)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    recognizer = Learning()
    said = _refereed(session, recognizer, audio)
    assert "Undone." in said
    assert recognizer.learned == [("two aces", "Alice")]


def _refereed(session: Session, recognizer: Recognizer, audio: np.ndarray) -> list[str]:
    """What the referee says over ``audio``, its camera showing a lie at every reveal."""
    said: list[str] = []
    referee = LiveReferee(
        session,
        recognizer,
        ArraySource(audio),
        camera=Camera(),
        reader=SlowReader(LIED),
        on_say=lambda a, at: said.append(a.text),
    )
    referee.run()
    session.close()
    return said


def test_a_bare_call_asked_about_teaches_the_named_callers_voice(tmp_path):
    # Alice claims; Ben's bare "cheat" is asked about ("Who called?") and answered "cheat
    # ben": the voice of that bare call is Ben's, and his voiceprint learns it, as Alice's
    # learns her claim
    audio = table((7.0, 500, 0.5), (14.0, 1700, 0.5), (24.0, 300, 0.5), total=36.0)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    recognizer = Learning()
    said = _refereed(session, recognizer, audio)
    assert "Who called?" in said and "Ben calls cheat on Alice. Alice, turn the cards over." in said
    assert recognizer.learned == [("two aces", "Alice"), ("cheat", "Ben")]


def test_a_call_naming_its_caller_teaches_that_callers_voice(tmp_path):
    # Ben's "cheat ben" names its caller in its own words: his voiceprint learns its voice
    audio = table((7.0, 500, 0.5), (14.0, 300, 0.5), total=26.0)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    recognizer = Learning()
    referee = LiveReferee(
        session, recognizer, ArraySource(audio), camera=Camera(), reader=SlowReader(LIED)
    )
    referee.run()
    session.close()
    assert recognizer.learned == [("two aces", "Alice"), ("cheat ben", "Ben")]


class Misreads(Tones):
    """Tones, but Alice's 'two aces' (500 Hz) is read 'three aces' while that is legal: a
    recognizer's likeliest reading, and its next one when the table took the first back."""

    def set_context(self, ctx):
        self.ctx = ctx
        return []

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        heard = super().decode(audio, final=final)
        if heard.text == "two aces" and (3, "A") not in self.ctx.taken_back:
            return Hypothesis("three aces", 0.5)
        return heard


def test_a_claim_said_again_after_its_undo_is_not_misread_the_same_way(tmp_path):
    """Under babble Marco's "two fives" was read "three fives", undone, and read so again
    each time it was said, until the table gave the game up (bench/table, strangers)."""
    audio = table((7.0, 500, 0.5), (14.0, 700, 0.5), (21.0, 500, 0.5), (28.0, 1900, 0.5),
                  total=34.0)  # fmt: skip
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    said: list = []
    recognizer = Recognizer(Misreads(), context=ListenContext(players=session.players))
    referee = LiveReferee(session, recognizer, ArraySource(audio),
                          on_say=lambda a, at: said.append(a.text))  # fmt: skip
    referee.run()
    session.close()
    assert said[said.index("Alice: three aces.") :] == [
        "Alice: three aces.", "Ben, twos.", "Undone.", "Alice, aces.",
        "Alice: two aces.", "Ben, twos.", "Ben: two twos.", "Cara, threes.",
    ]  # fmt: skip
    assert recognizer.context.taken_back == frozenset()  # Cara's turn: nothing taken back


class Expecting(Tones):
    """Tones, noting for each phrase read whether the referee listened for an undo as likely
    (``ListenContext.undoing``)."""

    def __init__(self) -> None:
        self.undoing: list[tuple[str, bool]] = []

    def set_context(self, ctx):
        self.ctx = ctx
        return []

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        heard = super().decode(audio, final=final)
        noted = (heard.text, self.ctx.undoing)
        if heard.text and self.undoing[-1:] != [noted]:  # once for words read alike in a row
            self.undoing.append(noted)
        return heard


def test_an_undo_is_listened_for_after_a_call_and_after_an_undo(tmp_path):
    """A misheard answer to "Who called?" costs two undos (the verdict, the answer): the
    referee listens for them as likely after a call (the listener then makes one on less
    evidence) until the table moves on (bench/table, strangers, 008f5b5)."""
    lines = [(7.0, 500), (14.0, 1700), (24.0, 2100), (38.0, 700), (46.0, 700), (54.0, 700),
             (62.0, 1700), (72.0, 2100), (86.0, 1300)]  # fmt: skip
    audio = table(*[(t, f, 0.5) for t, f in lines], total=94.0)
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    backend = Expecting()
    recognizer = Recognizer(backend, context=ListenContext(players=session.players))
    said = _refereed(session, recognizer, audio)
    assert said.count("Undone.") == 3 and said.count("Who called?") == 3
    assert backend.undoing == [
        ("two aces", False),  # Alice claims
        ("cheat", False),  # a bare call: "Who called?"
        ("ben", True),  # the answer: Ben's call; the cards read, Alice lied
        # the verdict undone (back at the reveal), the answer ("Who called?" again), the call
        # (Ben's turn, as before it): each listened for as likely
        ("undo", True),
        ("cheat", True),  # the call said again where it was taken back
        ("ben", True),  # its answer
        ("one two", True),  # Alice lied again; Ben claims
    ]
    assert recognizer.context.undoing is False  # Cara's turn: the table moved on
