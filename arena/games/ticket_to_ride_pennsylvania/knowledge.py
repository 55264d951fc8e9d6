"""What a seat may see of the engine's event log (rules §12).

The engine writes one omniscient log (``state.events``, used by replays);
:func:`public_event` gives one event as a seat saw it, as a new dict.  Hidden,
and so left out for the other seats: the order of a shuffled or reshuffled pile
(only its size shows), the cards and tickets dealt to a seat, a blind draw's
card, the tickets a seat draws and which it keeps or returns (only their
numbers show).  Everything else is public: face-up takes, the row, claims with
their exact payment, every share taken (the seats' and the neutral's), passes,
the final round, and at the end the neutral's reveal and the whole scoring.
"""

from __future__ import annotations

from typing import Any, Mapping

#: Event types whose every field is public and a scalar: their view is a copy of the dict.
FLAT = frozenset({"setup", "refill", "turn", "take", "no_second_card", "share", "neutral_share", "pass",
                  "final_round", "deadlock"})
#: Event types whose every field is public; their view is a deep copy.
PUBLIC = FLAT | {"row", "refresh", "claim", "neutral_reveal", "scoring", "game_end"}
#: Every event type the engine writes (tests check it writes no other).
EVENT_TYPES = PUBLIC | {"shuffle", "reshuffle", "deal", "deal_tickets", "initial_tickets", "blind", "draw_tickets",
                        "keep_tickets"}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def public_event(event: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as seen by ``seat``: a new dict, with what is hidden from that seat left out."""
    kind = event["type"]
    if kind in FLAT:
        return dict(event)
    if kind == "claim":
        return {**event, "cards": list(event["cards"])}
    if kind in PUBLIC:
        return _copy(event)
    mine = event.get("seat") == seat
    if kind in ("shuffle", "reshuffle"):
        view = {"type": kind, "cards": len(event["order"])}
        if kind == "shuffle":
            view["pile"] = event["pile"]
        return view
    if kind == "deal":
        view = {"type": kind, "seat": event["seat"], "count": len(event["cards"])}
        if mine:
            view["cards"] = list(event["cards"])
        return view
    if kind in ("deal_tickets", "draw_tickets"):
        view = {"type": kind, "seat": event["seat"], "count": len(event["tickets"])}
        if mine:
            view["tickets"] = list(event["tickets"])
        return view
    if kind == "blind":
        view = {"type": kind, "seat": event["seat"]}
        if mine:
            view["card"] = event["card"]
        return view
    if kind == "keep_tickets":
        view = {"type": kind, "seat": event["seat"], "kept_count": len(event["kept"]),
                "returned_count": len(event["returned"])}
        if mine:
            view["kept"] = list(event["kept"])
            view["returned"] = list(event["returned"])
        return view
    if kind == "initial_tickets":
        own = str(seat)
        return {"type": kind, "kept_counts": {s: len(ids) for s, ids in event["kept"].items()},
                "kept": list(event["kept"].get(own, [])), "returned": list(event["returned"].get(own, []))}
    raise ValueError(f"unknown event type {kind!r}")


def view_key(event: Mapping[str, Any], seat: int) -> Any:
    """Which view of ``event`` :func:`public_event` gives ``seat``: equal keys, equal views (the
    host encodes an event once per key; a test checks this against :func:`public_event`).
    None: every seat sees it alike; a bool: whether ``seat`` is the event's own seat;
    ``("seat", seat)`` for ``initial_tickets`` (each seat sees its own tickets)."""
    kind = event["type"]
    if kind in PUBLIC or kind in ("shuffle", "reshuffle"):
        return None
    if kind == "initial_tickets":
        return ("seat", seat)
    return event.get("seat") == seat


__all__ = ["EVENT_TYPES", "FLAT", "PUBLIC", "public_event", "view_key"]
