"""Speech benchmark: ``python -m bench.speech`` (see run.py)."""


def turn_off(rules: list[str]) -> None:
    """Turn off each named bool rule of the recognizer or the listener backend
    (``--without RULE``: e.g. NAMED_AT_PAUSE, RANK_DUE_MEND). Raises ValueError for a name
    that is neither's."""
    from referee.speech import recognizer
    from referee.speech.listener import backend

    for rule in rules:
        owner = next((m for m in (recognizer, backend) if isinstance(getattr(m, rule, None), bool)),
                     None)  # fmt: skip
        if owner is None:
            raise ValueError(f"{rule} is not one of the recognizer's or the listener's rules")
        setattr(owner, rule, False)
