"""referee: an offline laptop referee for the card game Cheat.

Layers (each a folder): ``game`` is the pure rules engine; ``speech`` turns audio into
utterances and intents; ``vision`` reads revealed cards; ``voice`` speaks; ``store`` keeps
the journal and the match history; ``live`` joins them into the running referee.
"""

__version__ = "0.1.0"
