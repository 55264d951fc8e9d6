"""Ticket to Ride: Pennsylvania observations for the host, the public events taken from the log.

Every decision sends the seat's public events since its previous one: about eight
events, each reaching every seat.  :class:`StateEncoder` (one per match) builds the
observation's other fields with the engine (:func:`observation_fields`) and encodes
them with the kit's :class:`~arena.games.ticket_to_ride_pennsylvania.kit.wire.ObservationEncoder`,
and writes the events from ``state.events`` itself: each event's entry is made once per
view (:func:`~arena.games.ticket_to_ride_pennsylvania.knowledge.view_key`: the same key,
the same view) and kept by its place in the log, so no seat's view is built again.

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
from arena.games.ticket_to_ride_pennsylvania.state import TicketToRideState, observation_fields
from arena.protocol.wire_checks import CodecError


class StateEncoder:
    """Encodes one match's observations: ``encode(state, seat)``.  One per match, used from the
    match's thread; meeting another state object (or another log) starts afresh."""

    __slots__ = ("_state", "_events", "_views", "_last", "_fields")

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, state: Any) -> None:
        self._state = state
        self._events = state.events if state is not None else None
        #: _views[i]: {view key: public_events entry} of state.events[i]; _last: the last event seen
        self._views: list[dict[Any, bytes]] = []
        self._last: Any = None
        self._fields = wire.ObservationEncoder()

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
            events = self._public_events(state, seat)
        except (CodecError, KeyError, TypeError, ValueError):
            self._reset(state)
            return None
        return self._fields.encode_fields(observation_fields(state, seat), events)

    def _public_events(self, state: TicketToRideState, seat: int) -> bytes:
        events = state.events
        views = self._views
        if len(views) > len(events) or (views and events[len(views) - 1] is not self._last):
            views = self._views = []  # the log changed other than by growing (never the engine's)
        views.extend({} for _ in range(len(events) - len(views)))
        if events:
            self._last = events[-1]
        start = state.window[seat]
        view_key = knowledge.view_key
        parts = []
        for i in range(start, len(events)):
            event = events[i]
            key = view_key(event, seat)
            entry = views[i].get(key)
            if entry is None:
                view = knowledge.public_event(event, seat)
                wire.check_own_view([view], seat)
                entry = views[i][key] = wire._event_entry(view, i - start)
            parts.append(entry)
        return b"".join(parts)


__all__ = ["StateEncoder"]
