"""Ticket to Ride: Pennsylvania observations for the host, written from the game state.

Every decision sends the seat's public events since its previous one: about eight
events, each reaching every seat.  :class:`StateEncoder` (one per match) writes the
observation's other fields from the state with a
:class:`~arena.games.ticket_to_ride_pennsylvania.kit.wire_fields.FieldsWriter` (each field
encoded again only when the numbers it is made of change), and the events from
``state.events``: each event's entry is made once per view
(:func:`~arena.games.ticket_to_ride_pennsylvania.knowledge.view_key`: the same key, the
same view) when it joins the log, and kept by its place there: a seat's window is the
entries most seats see, joined, with the few it sees its own way put in.

Safety: an entry is kept under its view key, so a seat gets only an entry made for a
seat that sees the event as it does (an event's own cards and tickets only for its own
seat, ``initial_tickets`` per seat); each view passes the wire's guard
(:func:`~arena.games.ticket_to_ride_pennsylvania.kit.wire.check_own_view`) before it is
encoded.  The bytes equal the dict path's (a test checks it on every decision of whole
games for every table size).  Anything unexpected returns None: the host then encodes
``state.observation(seat)``, whose checked path names the problem.
"""

from __future__ import annotations

from typing import Any

from arena.games.ticket_to_ride_pennsylvania import knowledge
from arena.games.ticket_to_ride_pennsylvania.kit import wire
from arena.games.ticket_to_ride_pennsylvania.kit.wire_fields import FieldsWriter
from arena.games.ticket_to_ride_pennsylvania.state import TicketToRideState
from arena.protocol.event_windows import EventWindows
from arena.protocol.wire_checks import CodecError


class StateEncoder:
    """Encodes one match's observations: ``encode(state, seat)``.  One per match, used from the
    match's thread; meeting another state object (or another log) starts afresh."""

    __slots__ = ("_state", "_events", "_windows", "_fields")

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, state: Any) -> None:
        self._state = state
        self._events = state.events if state is not None else None
        #: each event's entry as most seats see it, with the other seats' apart
        self._windows = EventWindows()
        self._fields = FieldsWriter()

    def encode(self, state: Any, seat: int) -> bytes | None:
        """The bytes of ``state.observation(seat)``'s message, or None (the caller then encodes
        the observation dict)."""
        if type(state) is not TicketToRideState:
            return None
        if type(seat) is not int or not 0 <= seat < state.n:
            raise ValueError(f"there is no seat {seat!r} in a {state.n}-player game")
        if state is not self._state or state.events is not self._events:
            self._reset(state)
        try:
            return self._fields.write(state, seat, self._public_events(state, seat))
        except (CodecError, KeyError, TypeError, ValueError, IndexError):
            self._reset(state)
            return None

    def _public_events(self, state: TicketToRideState, seat: int) -> bytes:
        """The seat's window of the log: the entries most seats see, with the seat's own put in."""
        return self._windows.window(state, state.events, seat, state.window[seat], self._learn)

    def _learn(self, state: TicketToRideState, done: int) -> None:
        """Encode the log's new events, each once per view (:func:`knowledge.view_key`: seats with
        equal keys see it alike): the view most seats share is the common entry, the others are
        kept per seat.  Every view passes the wire's guard for the seat it is made for."""
        events = state.events
        seats = range(state.n)
        view_key = knowledge.view_key
        add = self._windows.add
        for i in range(done, len(events)):
            event = events[i]
            first = view_key(event, 0)
            if first is None:  # a public event: every seat sees it alike
                add(_entry(event, 0, i))
                continue
            keys = [first] + [view_key(event, s) for s in seats[1:]]
            if all(key == first for key in keys):
                add(_entry(event, 0, i))
                continue
            common_key = _common_key(keys)
            made: dict[Any, bytes] = {}
            own: dict[int, bytes] = {}
            for s, key in enumerate(keys):
                if key not in made:
                    made[key] = _entry(event, s, i)
                if key != common_key:
                    own[s] = made[key]
            add(made.get(common_key, b""), own)


_NOBODY = object()  # the common key of an event every seat sees differently: each seat has its own entry


def _common_key(keys: list[Any]) -> Any:
    """The view most seats share, never one seat's own: on a tie a non-owner's view (``False``);
    when every seat sees the event differently (``initial_tickets``, or a 2-player event seen
    as ``[True, False]`` with no ``False``), nobody's, so that no seat's secret is ever the
    default served to the others."""
    best = max(map(keys.count, keys))
    if best == 1 and False not in keys:
        return _NOBODY
    return False if keys.count(False) == best else next(key for key in keys if keys.count(key) == best)


#: The types whose view is a plain copy of the event (knowledge.FLAT) and which the wire's guard has
#: nothing to check for: their entry is written from the event itself (never changed by the writer).
_AS_IT_IS = knowledge.FLAT - wire.OWN_VIEW.keys()


def _entry(event: Any, seat: int, i: int) -> bytes:
    """The ``public_events`` entry of ``event`` as ``seat`` sees it, checked by the wire's guard."""
    if event["type"] in _AS_IT_IS:
        return wire._event_entry(event, i)
    view = knowledge.public_event(event, seat)
    wire.check_own_view([view], seat)
    return wire._event_entry(view, i)


__all__ = ["StateEncoder"]
