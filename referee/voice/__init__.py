"""Speech out. :class:`~referee.voice.tts.Voice` speaks without blocking the caller; with
``out`` set it writes everything said to one wav file instead of the speakers."""

from referee.voice.tts import Voice, speech_seconds

__all__ = ["Voice", "speech_seconds"]
