"""What the listener's head says about an utterance: its kind and, per kind, its parts.

Shared by the data generator (labels of generated clips), training and the backend (reading
the posteriors), so the three agree on the class order. Which player is named is left to
whisper's own name scoring (names are per table), the head only says whether one is.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.game.cards import RANKS
from referee.speech.types import SAMPLE_RATE

KINDS = ("none", "claim", "call", "pass", "command", "name", "count")
COUNTS = (1, 2, 3, 4)
COMMANDS = ("undo", "repeat", "score", "new_game", "how_many", "whose_turn", "new_round", "stop")
#: the call words a grammar lists (referee.speech.vocab.GRAMMAR_CALLS), in that order
CALL_WORDS = ("cheat", "cheater", "bullshit", "liar", "i doubt it", "b s")
#: head name -> number of classes, in the ONNX model's output order
HEADS: dict[str, int] = {
    "kind": len(KINDS),
    "count": len(COUNTS),
    "rank": len(RANKS),
    "command": len(COMMANDS),
    "call_word": len(CALL_WORDS),
    "named": 2,
}
#: the first names the head learned as names (the data generator's, :mod:`.data`): of a
#: table's names, only these does it know to be a name and not some other word
FIRST_NAMES = """
alice ben cara dev adam amir anna arjun ava bella bob carl carlos chloe chris claire dan
daniel dave diana ella emma eric eva felix finn frank freya gary george grace hannah harry
helen henry ian isla ivan jack jade james jane jason jen jess jim joe john josh julia kate
kevin kim laura leo liam lily lisa lucy luke maria mark mary matt max mia mike molly nadia
nick nina noah olga olivia omar oscar owen paul peter priya rachel raj ravi rosa ruby ryan
sam sara sean sophie steve tom tara theo tina tony uma victor wendy will yusuf zara zoe
aisha bruno chen dmitri elena farah gus hugo ingrid jonas kai lars marta nora pablo quinn
rita sven tariq ulla vera wes xavier yara zeke abby amy beth cole dora evan fay gil hank
iris joel kurt lena mona ned pam rex sid ted val walt
""".split()
IGNORE = -1  # a part that does not apply to the kind (no loss on it)
#: whisper's encoder frames a second, and the frames kept after a clip's own (the window's
#: zero padding the head also sees): the head's input, the same in training and at the table
FRAMES_PER_S = 50
MARGIN_FRAMES = 25


def kept_frames(n_samples: int, total: int) -> int:
    """The encoder frames (of ``total``) that cover ``n_samples`` of audio, margin included."""
    return min(total, -(-n_samples * FRAMES_PER_S // SAMPLE_RATE) + MARGIN_FRAMES)


@dataclass(frozen=True)
class Label:
    """The head's targets for one clip; parts that do not apply are None."""

    kind: str
    count: int | None = None
    rank: str | None = None
    command: str | None = None
    call_word: str | None = None
    named: bool | None = None

    def targets(self) -> dict[str, int]:
        """Class indices per head (IGNORE where the part does not apply)."""
        return {
            "kind": KINDS.index(self.kind),
            "count": COUNTS.index(self.count) if self.count in COUNTS else IGNORE,
            "rank": RANKS.index(self.rank) if self.rank in RANKS else IGNORE,
            "command": COMMANDS.index(self.command) if self.command else IGNORE,
            "call_word": CALL_WORDS.index(self.call_word) if self.call_word else IGNORE,
            "named": IGNORE if self.named is None else int(self.named),
        }
