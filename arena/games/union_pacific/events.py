"""A Union Pacific state's event log, written as small records and read as dicts.

The engine logs each event as a tuple, ``(maker, *values)``: what the event's dict needs,
copied at the moment the event happens (tuples and ints only, nothing the state changes
later).  ``state.events`` turns the records logged since it was last read into their
dicts, appends them to the state's list of event dicts and returns that list: always the
same list object, which only grows, so code that keeps it (or its dicts) and reads it again
sees the same objects.  A game played without reading its events (a search's rollout, a
benchmark) never builds a dict.

Assigning ``state.events`` gives the state a new list.  A plain ``list`` stays lazy as
above; any other list (a subclass that watches ``append``, as replay.py's recording does)
gets each event's dict appended the moment the event happens, as if the engine appended
the dicts itself.

Once the events of a state with a plain list are read (or :func:`records` is asked), its
records are kept after they become dicts: :func:`records` gives them all, so the host can
write its observations from them without building a dict (kit/wire_records.py).  A clone
keeps them too; a state whose list was assigned with events in it has only its later
records, and :func:`records` gives None.

The dicts are exactly those the engine used to append directly; see the makers below.
"""

from __future__ import annotations

from typing import Any

from arena.games.union_pacific.board import COMPANIES, NUM_SHARE_KINDS, SHARE_CODES, UP
from arena.games.union_pacific.payouts import company_payout, final_outcome, union_pacific_payout
from arena.games.union_pacific.phases import DIVIDEND, RolloutStateError
from arena.games.union_pacific.phases import counts as _counts

# -- the makers: maker(record, table) -> the event's dict --------------------------------


def setup(rec: tuple, table: Any) -> dict[str, Any]:
    """(setup, players, variant, track rows, share rows, up stack)"""
    _, players, variant, track, shares, up_stack = rec
    kinds = table.board.card_kinds
    return {
        "type": "setup",
        "players": players,
        "variant": variant,
        "hands": [{"seat": seat, "track": _counts(track[seat], kinds), "shares": _counts(shares[seat], SHARE_CODES)}
                  for seat in range(players)],
        "up_stack": up_stack,
    }


def first_investment(rec: tuple, table: Any) -> dict[str, Any]:
    """(first_investment, picks)"""
    return {"type": "first_investment", "picks": {str(s): SHARE_CODES[c] for s, c in enumerate(rec[1])}}


def display(rec: tuple, table: Any) -> dict[str, Any]:
    """(display, display cards)"""
    return {"type": "display", "display": [COMPANIES[c] for c in rec[1]]}


def share_deck(rec: tuple, table: Any) -> dict[str, Any]:
    """(share_deck, deck cards bottom to top)"""
    deck = rec[1]
    return {"type": "share_deck", "cards": len(deck),
            "order": ["DIVIDEND" if c == DIVIDEND else COMPANIES[c] for c in reversed(deck)]}


def turn(rec: tuple, table: Any) -> dict[str, Any]:
    """(turn, turn number, seat, track card kind)"""
    return {"type": "turn", "turn": rec[1], "seat": rec[2], "track_card": table.board.card_kinds[rec[3]]}


def reshuffle(rec: tuple, table: Any) -> dict[str, Any]:
    """(reshuffle, cards)"""
    return {"type": "reshuffle", "cards": rec[1]}


def build(rec: tuple, table: Any) -> dict[str, Any]:
    """(build, seat, card kind, company, section, value)"""
    _, seat, k, c, s, value = rec
    return {"type": "build", "seat": seat, "card": table.board.card_kinds[k], "company": COMPANIES[c],
            "section": s, "value": value}


def draw_skipped(rec: tuple, table: Any) -> dict[str, Any]:
    """(draw_skipped, seat)"""
    return {"type": "draw_skipped", "seat": rec[1]}


def dividend_revealed(rec: tuple, table: Any) -> dict[str, Any]:
    """(dividend_revealed, number)"""
    return {"type": "dividend_revealed", "number": rec[1]}


def four_of_a_kind(rec: tuple, table: Any) -> dict[str, Any]:
    """(four_of_a_kind, company)"""
    return {"type": "four_of_a_kind", "company": COMPANIES[rec[1]]}


def draw_deck(rec: tuple, table: Any) -> dict[str, Any]:
    """(draw_deck, seat, company or None)"""
    card = rec[2]
    return {"type": "draw", "seat": rec[1], "source": "deck", "company": None if card is None else COMPANIES[card]}


def draw_up(rec: tuple, table: Any) -> dict[str, Any]:
    """(draw_up, seat)"""
    return {"type": "draw", "seat": rec[1], "source": "up", "company": "UP"}


def draw_display(rec: tuple, table: Any) -> dict[str, Any]:
    """(draw_display, seat, company)"""
    return {"type": "draw", "seat": rec[1], "source": "display", "company": COMPANIES[rec[2]]}


def refill(rec: tuple, table: Any) -> dict[str, Any]:
    """(refill, company or None)"""
    card = rec[1]
    return {"type": "refill", "company": None if card is None else COMPANIES[card]}


def exchange(rec: tuple, table: Any) -> dict[str, Any]:
    """(exchange, seat, company)"""
    return {"type": "exchange", "seat": rec[1], "company": SHARE_CODES[rec[2]]}


def invest(rec: tuple, table: Any) -> dict[str, Any]:
    """(invest, seat, combo, discard kind)"""
    return {"type": "invest", "seat": rec[1], "shares": dict(table.combo_shares[rec[2]]),
            "discard": table.board.card_kinds[rec[3]]}


def pass_(rec: tuple, table: Any) -> dict[str, Any]:
    """(pass_, seat, discard kind)"""
    return {"type": "pass", "seat": rec[1], "discard": table.board.card_kinds[rec[2]]}


def imaginary_shareholder(rec: tuple, table: Any) -> dict[str, Any]:
    """(imaginary_shareholder, its shares)"""
    return {"type": "imaginary_shareholder", "invested": _counts(rec[1], SHARE_CODES)}


def stalemate(rec: tuple, table: Any) -> dict[str, Any]:
    """(stalemate, dividends paid)"""
    return {"type": "stalemate", "dividends_paid": rec[1]}


def dividend(rec: tuple, table: Any) -> dict[str, Any]:
    """(dividend, number, participants' names, their invested rows, trains on the board, their cash after)

    The holdings and payouts are worked out again from the rows, as the payment did (§7.3, §7.4).
    """
    _, number, names, rows, trains, cash = rec
    companies = []
    union_pacific: dict[str, Any] = {}
    for c, holdings in enumerate(zip(*rows)):  # holdings: each participant's shares of company c
        held: dict[str, int] = {}
        payouts: dict[str, int] = {}
        value = trains[c] + 1 if c != UP else 0
        if any(holdings):
            paid = union_pacific_payout(number, holdings) if c == UP else company_payout(value, holdings)
            for i, h in enumerate(holdings):
                if h:
                    held[names[i]] = h
                    payouts[names[i]] = paid[i]
        if c == UP:
            union_pacific = {"holdings": held, "payouts": payouts}
        else:
            companies.append({"company": COMPANIES[c], "value": value, "holdings": held, "payouts": payouts})
    return {
        "type": "dividend",
        "number": number,
        "companies": companies,
        "union_pacific": union_pacific,
        "cash": dict(zip(names, cash)),
    }


def game_end(rec: tuple, table: Any) -> dict[str, Any]:
    """(game_end, seats' cash, the imaginary shareholder's cash or None, termination): the outcome's dict"""
    return {"type": "game_end", **final_outcome(rec[1], rec[2], rec[3]).to_json()}


assert NUM_SHARE_KINDS == UP + 1  # the dividend maker's columns: the companies, then UP


# -- the log ----------------------------------------------------------------------------


class _AtOnce:
    """The records log of a state whose event list is not a plain list: each record's dict
    is appended to that list the moment it is logged."""

    __slots__ = ("events", "table")

    def __init__(self, events: list, table: Any) -> None:
        self.events = events
        self.table = table

    def append(self, rec: tuple) -> None:
        self.events.append(rec[0](rec, self.table))


class _Records(list):
    """A plain-list state's records once its events have been read (or asked for by
    :func:`records`), when its list of dicts held none before them: all of them, kept after
    they are turned into dicts.  The first ``done`` of them are in the state's list of dicts."""

    __slots__ = ("done",)


def records(state: Any) -> list[tuple] | None:
    """Every record of ``state``'s events from the first, in order (the engine keeps adding to
    this very list), or None when the state does not have them all (its event list was assigned
    with events in it, or is not a plain list).  Reading them builds no dict: the host writes its
    observations from them.  A record must not be changed."""
    log = state._log
    if type(log) is list and not state._events:
        log = state._log = _Records(log)
        log.done = 0
    return log if type(log) is _Records else None


class EventLog:
    """The ``events`` of a state (see the module's docstring); the engine appends records to ``_log``."""

    __slots__ = ()  # the state's fields are its slots

    table: Any
    _events: list[dict[str, Any]]
    _log: Any  # a list of records, or an _AtOnce

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event dicts so far (the same list every time).  Reading them turns the records
        logged since into dicts, which changes the state: as with any method that changes it,
        two threads must not read one state's events at once (clones are independent).  The
        engine takes no lock: it stays pure."""
        log = self._log
        if log:
            kind = type(log)
            if kind is _Records:
                done = log.done
                if done < len(log):
                    events, table = self._events, self.table
                    for i in range(done, len(log)):
                        rec = log[i]
                        events.append(rec[0](rec, table))
                    log.done = len(log)
            elif kind is list:
                events, table = self._events, self.table
                whole = not events  # then the records are kept from now on (see records)
                for rec in log:
                    events.append(rec[0](rec, table))
                if whole:
                    kept = self._log = _Records(log)
                    kept.done = len(log)
                else:  # an assigned list with dicts in it: the records could never all be given
                    log.clear()
        elif log is None:  # a rollout state (state.py's clone) logs nothing
            raise RolloutStateError("event log")
        return self._events

    @events.setter
    def events(self, events: list[dict[str, Any]]) -> None:
        self.events  # the records so far go to the list being replaced (a rollout state raises)
        self._events = events
        self._log = [] if type(events) is list else _AtOnce(events, self.table)

    def _copy_log_to(self, other: "EventLog") -> None:
        """Give a clone its own copies of the event list and the records not yet turned into dicts."""
        other._events = self._events[:]
        log = self._log
        kind = type(log)
        if kind is _Records:
            kept = other._log = _Records(log)  # all of them, so the clone has its records too
            kept.done = log.done
        else:
            other._log = log[:] if kind is list else []
