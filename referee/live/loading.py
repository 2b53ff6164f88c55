"""Load slow parts (the recognizer's model, the card reader's) while the referee greets.

``Loading(build)`` starts ``build()`` in a thread at once (or, with ``start=False``, at
:meth:`Loading.begin` or first use) and stands for its result: any attribute asked for
waits until it is built (and raises what building raised), so the greeting is said while
the models load and the loop only waits when it first needs them. Begun only once the
greeting is on its way, the loading does not slow the greeting itself down (its imports
hold the interpreter's lock): ``referee play`` starts them from its first announcement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Loading:
    """A part being built in the background; use it as the part itself."""

    def __init__(self, build: Callable[[], Any], name: str = "loading", start: bool = True) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._build, args=(build,), name=name, daemon=True)
        self._begun = threading.Lock()
        if start:
            self.begin()

    def begin(self) -> None:
        """Start building, if not yet begun."""
        if self._begun.acquire(blocking=False):
            self._thread.start()

    def _build(self, build: Callable[[], Any]) -> None:
        try:
            self._value = build()
        except BaseException as err:  # noqa: BLE001 - handed to whoever first uses it
            self._error = err
        finally:
            self._done.set()

    def loaded(self) -> Any:
        """The part, once built (re-raises what building it raised)."""
        self.begin()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


def begin(*parts: Any) -> None:
    """Start building those of ``parts`` that are :class:`Loading`."""
    for part in parts:
        if isinstance(part, Loading):
            part.begin()


def loaded(part: Any) -> Any:
    """``part`` itself, or what a :class:`Loading` stands for once built."""
    return part.loaded() if isinstance(part, Loading) else part
