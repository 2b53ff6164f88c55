"""Speech benchmark: ``python -m bench.speech`` (see run.py)."""


def add_without(parser) -> None:
    """The ``--without RULE`` option (see :func:`turn_off`)."""
    parser.add_argument("--without", action="append", default=[], metavar="RULE",
                        help="turn off a bool rule of the recognizer or the listener backend "
                        "(e.g. NAMED_AT_PAUSE, RANK_DUE_MEND)")  # fmt: skip


def turn_off(parser, rules: list[str]) -> None:
    """Turn off each named bool rule of the recognizer or the listener backend (the parsed
    ``--without``); a name that is neither's is the ``parser``'s error."""
    from referee.speech import recognizer
    from referee.speech.listener import backend

    for rule in rules:
        owner = next((m for m in (recognizer, backend) if isinstance(getattr(m, rule, None), bool)),
                     None)  # fmt: skip
        if owner is None:
            parser.error(f"{rule} is not one of the recognizer's or the listener's rules")
        setattr(owner, rule, False)
