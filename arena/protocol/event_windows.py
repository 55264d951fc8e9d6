"""A match's public events as each seat's window of them: each event's bytes made once per view.

Every decision sends the seat its public events since its previous one (``public_events``).
Most events look alike to every seat; a few show their own seat more (its cards, its
tickets).  :class:`EventWindows` keeps, per place in the log, the entry most seats get
(:attr:`EventWindows.common`) and, for the seats that see an event their own way, their
own entries; a seat's window is the common entries from its start, joined, with its own put
in.  A game's kit says how an event is seen (its ``learn`` adds the new events with
:meth:`add`); this module knows nothing of any game.

Safety rests on the kit: the common entry must be one that every seat without an entry of
its own may see (never one seat's own view), and each seat's own entry only its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class EventWindows:
    """One match's log as encoded entries (see the module's docstring).  One per match, used
    from the match's thread."""

    __slots__ = ("common", "_own_at", "_own_bytes", "_last")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        #: common[i]: the entry of event i that the seats without their own get
        self.common: list[bytes] = []
        #: _own_at[seat]: the places (ascending) of the events the seat sees its own way;
        #: _own_bytes[seat][i]: its entry of event i
        self._own_at: dict[int, list[int]] = {}
        self._own_bytes: dict[int, dict[int, bytes]] = {}
        self._last: Any = None  # the last event learnt (the log must only grow)

    def add(self, common: bytes, own: dict[int, bytes] | None = None) -> None:
        """The next event's entries: ``common`` for most seats, ``own[seat]`` for the others."""
        i = len(self.common)
        self.common.append(common)
        if own:
            for seat, data in own.items():
                self._own_bytes.setdefault(seat, {})[i] = data
                self._own_at.setdefault(seat, []).append(i)

    def window(self, state: Any, events: Sequence[Any], seat: int, start: int,
               learn: Callable[[Any, int], None]) -> bytes:
        """The seat's entries of ``events[start:]`` (``state.events``), joined; first
        ``learn(state, done)`` :meth:`add`\\ s the events from place ``done`` on, not encoded yet."""
        common = self.common
        done = len(common)
        if done > len(events) or (done and events[done - 1] is not self._last):
            # the log changed other than by growing (never the engine's): start afresh
            self.reset()
            common, done = self.common, 0
        if done < len(events):
            learn(state, done)
            self._last = events[-1]
        own = self._own_at.get(seat)
        if not own or own[-1] < start:
            return b"".join(common[start:])
        parts = common[start:]
        own_bytes = self._own_bytes[seat]
        for i in reversed(own):
            if i < start:
                break
            parts[i - start] = own_bytes[i]
        return b"".join(parts)


__all__ = ["EventWindows"]
