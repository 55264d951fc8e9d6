"""Union Pacific's view: the board as the web app's replay viewer draws it, and the game after
each event of a replay as the engine had it (the web app serves both; the viewer's scripts
are in ``viewer/`` beside this module and only draw what these functions give).

- :func:`board` -- the board data (cities, sections with the index ``build`` events name,
  companies) with each company's colour and train shape and each track type's line style.
- :func:`replay_view` -- one snapshot per event, taken from the engine's own state as it
  emitted the event (:func:`arena.replay.event_frames`), sent as the changes from the
  step before; and, for each dividend, which payout rule each company's holdings met and
  the positions Union Pacific paid (the amounts are the event's own).

Nothing here re-implements a rule: the numbers come from the engine's state and events.
Pure data, no I/O (tests/test_layers.py).
"""

from __future__ import annotations

from typing import Any

from arena.games.union_pacific import default_game
from arena.games.union_pacific.board import COMPANIES, NUM_COMPANIES, SHARE_CODES
from arena.games.union_pacific.state import DIVIDEND, OVER, UnionPacificState
from arena.replay import event_frames

#: The viewer's entry script and its page fragment, in ``viewer/`` beside this module.
SCRIPT = "replay.js"
FRAGMENT = "viewer.html"
#: What the caption under the viewer adds about its keys and its marks on the slider.
KEYS = ", D next dividend, + − zoom"
MARKS = "dividends (gold), "

#: Train colours per company.  The rules name EPRG green, BNL red and DM black.
COMPANY_COLOURS: dict[str, str] = {
    "EPRG": "#2e8b3e",
    "BNL": "#d62728",
    "MS": "#f28c1a",
    "DM": "#1b1b1b",
    "SFRB": "#2450c8",
    "UMR": "#8e44ad",
    "ESL": "#e3bd00",
    "KCC": "#e377c2",
    "MRR": "#8c564b",
    "WW": "#17a9b8",
    "UP": "#5b6770",
}

#: The shape of each company's trains on the board, so that a train reads without its
#: colour too (the viewer draws these names: viewer/replay-board.js).
COMPANY_SHAPES: dict[str, str] = {
    "EPRG": "circle",
    "BNL": "square",
    "MS": "triangle-up",
    "DM": "diamond",
    "SFRB": "triangle-down",
    "UMR": "star",
    "ESL": "plus",
    "KCC": "cross",
    "MRR": "triangle-right",
    "WW": "triangle-left",
}

#: How the board draws each track type: line colour and SVG dash pattern ("" = solid).
TRACK_STYLES: dict[str, dict[str, str]] = {
    "PLAIN": {"colour": "#9aa3ad", "dash": "", "label": "plain"},
    "COAST": {"colour": "#6fa8dc", "dash": "", "label": "coast"},
    "BORDER": {"colour": "#9aa3ad", "dash": "7 4", "label": "border"},
    "MOUNTAIN": {"colour": "#b08d6a", "dash": "2 3", "label": "mountain"},
}


def board() -> dict[str, Any]:
    """The board data (cities, sections with their index, companies) and how to draw it."""
    game = default_game()
    data = game.board.data
    return {
        "game": game.name,
        **game.board_info(),
        "note": data.get("note", ""),
        "cities": data["cities"],
        "sections": [{"index": i, **s} for i, s in enumerate(data["sections"])],
        "companies": [
            {"code": code, **data["companies"][code], "colour": COMPANY_COLOURS[code], "shape": COMPANY_SHAPES[code]}
            for code in COMPANY_COLOURS
            if code in data["companies"]
        ],
        "union_pacific": {"code": "UP", "shares": data["union_pacific_shares"], "colour": COMPANY_COLOURS["UP"]},
        "track_types": data["track_types"],
        "wild_cards": data["wild_cards"],
        "track_styles": TRACK_STYLES,
    }


# -- the game after each event -------------------------------------------------------------------


def _counts(counts: list[int], names: tuple[str, ...]) -> dict[str, int]:
    return {names[i]: n for i, n in enumerate(counts) if n}


class _Layout:
    """Where the viewer draws each train: the starting trains on their home side, the built
    ones in the order they came (the engine knows which companies are on a section, not where
    on it: that is the drawing's choice); and the seats' parts of the snapshots."""

    def __init__(self, state: UnionPacificState) -> None:
        b = state.board
        self.slots: list[list[str | None]] = [[None] * n for n in b.section_spaces]
        self.start: list[list[bool]] = [[False] * n for n in b.section_spaces]
        for c in range(NUM_COMPANIES):
            for s in b.company_start[c]:
                slot = 0 if b.section_a[s] == b.company_home[c] else len(self.slots[s]) - 1
                self.slots[s][slot] = COMPANIES[c]
                self.start[s][slot] = True

        self.seats: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}

    def seat(self, state: UnionPacificState, s: int) -> dict[str, Any]:
        """Seat ``s``'s part of a snapshot, made again only when it changed (an unchanged seat is
        the same object, which the frames compare at once)."""
        key = (state.cash[s], tuple(state.hand_shares[s]), tuple(state.hand_track[s]), tuple(state.invested[s]))
        found = self.seats.get(s)
        if found is not None and found[0] == key:
            return found[1]
        made = {"cash": state.cash[s], "hand": _counts(state.hand_shares[s], SHARE_CODES),
                "track": _counts(state.hand_track[s], state.board.card_kinds),
                "invested": _counts(state.invested[s], SHARE_CODES)}
        self.seats[s] = (key, made)
        return made

    def build(self, section: int, company: str) -> None:
        slots = list(self.slots[section])  # a new list: the snapshots share the ones they hold
        slots[slots.index(None)] = company
        self.slots[section] = slots


def _snapshot(state: UnionPacificState, layout: _Layout, event: dict[str, Any] | None) -> dict[str, Any]:
    kinds = state.board.card_kinds
    if event is not None and event.get("type") == "build":
        layout.build(event["section"], event["company"])
    players = [layout.seat(state, s) for s in range(state.n)]
    return {
        "turn": state.turn,
        "seat": None if state.phase == OVER or not state.turn else state.current,
        "players": players,
        "imaginary": None if state.imaginary is None else {
            "invested": _counts(state.imaginary, SHARE_CODES), "cash": state.imaginary_cash},
        "display": [COMPANIES[c] for c in state.display],
        "deck": len(state.share_deck),
        "deck_dividends": state.share_deck.count(DIVIDEND),
        "track_deck": len(state.track_deck),
        "discards": _counts(state.track_discard, kinds),
        "up": state.up_stack,
        "boxed": _counts(state.boxed_four, COMPANIES),
        "paid": state.dividends_paid,
        "dividends_to_end": state.end_at,
        "trains": {COMPANIES[c]: state.trains_on_board[c] for c in range(NUM_COMPANIES)},
        # A company's value, as the engine states it in every observation and build event.
        "values": {COMPANIES[c]: state.trains_on_board[c] + 1 for c in range(NUM_COMPANIES)},
        "sections": list(layout.slots),  # each section's list is replaced, never changed (_Layout.build)
        "last_section": event["section"] if event is not None and event.get("type") == "build" else None,
    }


def _ranks(holdings: dict[str, int]) -> list[dict[str, Any]]:
    """Participants grouped by share count, most first."""
    groups: dict[int, list[str]] = {}
    for who, count in holdings.items():
        groups.setdefault(count, []).append(who)
    return [{"count": count, "ids": groups[count]} for count in sorted(groups, reverse=True)]


def _company_rule(row: dict[str, Any]) -> dict[str, Any]:
    """Which case of the rules' §7.3 the holdings met (docs/rules.md), with the groups by count."""
    groups = _ranks(row["holdings"])
    rule = ("none" if not groups else "tie" if len(groups[0]["ids"]) > 1
            else "only" if len(groups) == 1 else "leader")
    return {"company": row["company"], "rule": rule, "groups": groups}


def _up_positions(event: dict[str, Any]) -> list[dict[str, Any]]:
    """The positions each group of equal Union Pacific holdings took (§7.4) and what each was paid."""
    up = event["union_pacific"]
    positions, first = [], 1
    for group in _ranks(up["holdings"]):
        last = first + len(group["ids"]) - 1
        positions.append({"first": first, "last": last, **group, "each": up["payouts"][group["ids"][0]]})
        first = last + 1
    return positions


def replay_view(replay: dict[str, Any]) -> dict[str, Any]:
    """The viewer's steps: ``frames[i]`` holds what changed at event ``i`` (frame 0: the whole
    snapshot), ``dividends`` the payout rules of each dividend event (by event index).
    Raises :class:`arena.games.base.ReplayError` when the replay does not re-play."""
    layouts: list[_Layout] = []

    def snapshot(state: Any, event: dict[str, Any] | None) -> dict[str, Any]:
        if not layouts:
            layouts.append(_Layout(state))
        return _snapshot(state, layouts[0], event)

    frames = event_frames(replay, snapshot)
    dividends = {str(i): {"companies": [_company_rule(row) for row in e["companies"]], "up": _up_positions(e)}
                 for i, e in enumerate(replay["events"]) if e.get("type") == "dividend"}
    starts = [[i for i, flag in enumerate(row) if flag] for row in layouts[0].start] if layouts else []
    return {"frames": frames, "dividends": dividends, "starts": starts}
