"""What a seat knows from the public record of a Union Pacific game (rules §10).

Computed from the engine's event log (``state.events``, which stays exactly as the
engine writes it) and the action history, never from the hidden state:

* :func:`public_event`: an event as one seat saw it.  Everything is public except
  what §10 hides: the other seats' dealt hands (a ``setup`` keeps only the table
  size, the variant and the UP stack), the order of the share deck (a
  ``share_deck`` keeps only its size), a blind deck draw's card, the card boxed by
  an exchange and the track card drawn at the start of a turn.  A seat's own deck
  draw, exchange and track card are its own to see, so its view keeps them.
* :func:`window_start` / :func:`public_events`: the events since the seat's
  previous decision, i.e. since the observation it was shown then.  Joined
  decision after decision, they are the whole public log, with no gap and nothing
  twice.
* :func:`fold_known` / :func:`known_shares`: for each seat, the share cards known
  to be in its hand, by company: a lower bound that holds whatever the hidden
  cards are.  Each seat is dealt one UP share in the open (§3.3); a display or UP
  draw adds its card; an investment of ``n`` cards of a company takes up to ``n``
  known ones away (they may have been the known ones); an exchange boxes an
  unseen card, which may have been any known one, so every known count drops by
  one, and the UP share taken is known.  Deductions from card counts (all cards
  of a company accounted for elsewhere) are left to the bots.

Event dicts are never changed here; views are new dicts.  What a state's record has
told so far (the known-shares fold, each seat's window start) is memoised per state
(the log and the history only grow: a memo is used only with the very lists it was
made from, and a clone has lists of its own),
so an observation costs what happened since the last one, not the whole log.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from arena.games.union_pacific.board import NUM_SHARE_KINDS, SHARE_CODES, UP

_SHARE_INDEX = {code: i for i, code in enumerate(SHARE_CODES)}

#: Event types whose every field is public: scalars only (copied as they are), and with nested values.
_NESTED = frozenset({"first_investment", "invest", "imaginary_shareholder", "dividend", "display"})
_FLAT = frozenset({"reshuffle", "build", "four_of_a_kind", "draw_skipped", "pass", "dividend_revealed",
                   "stalemate"})
#: Every event type the engine writes (tests check the engine writes no other).
EVENT_TYPES = frozenset({"setup", "share_deck", "turn", "draw", "refill", "exchange", "game_end"}) | _NESTED | _FLAT


def public_event(event: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as seen by ``seat``: a new dict, with what is hidden from that seat left out.

    Optional fields are left out rather than set to None: a ``draw``'s ``company``
    (absent for another seat's deck draw, and for a deck draw that found only
    dividend cards), an ``exchange``'s ``company`` (absent for another seat's), a
    ``turn``'s ``track_card`` (absent for another seat's turn), a ``refill``'s
    ``company`` (absent when the deck was empty).
    """
    kind = event["type"]
    if kind in _FLAT:
        return dict(event)
    if kind == "display":
        return {"type": kind, "display": list(event["display"])}
    if kind == "invest":
        return {"type": kind, "seat": event["seat"], "shares": dict(event["shares"]), "discard": event["discard"]}
    if kind == "first_investment":
        return {"type": kind, "picks": dict(event["picks"])}
    if kind == "imaginary_shareholder":
        return {"type": kind, "invested": dict(event["invested"])}
    if kind == "dividend":
        up = event["union_pacific"]
        return {"type": kind, "number": event["number"],
                "companies": [{"company": c["company"], "value": c["value"], "holdings": dict(c["holdings"]),
                               "payouts": dict(c["payouts"])} for c in event["companies"]],
                "union_pacific": {"holdings": dict(up["holdings"]), "payouts": dict(up["payouts"])},
                "cash": dict(event["cash"])}
    if kind == "turn":
        view = {"type": kind, "turn": event["turn"], "seat": event["seat"]}
        if event["seat"] == seat:
            view["track_card"] = event["track_card"]
        return view
    if kind == "draw":
        view = {"type": kind, "seat": event["seat"], "source": event["source"]}
        company = event["company"]
        if company is not None and (event["source"] != "deck" or event["seat"] == seat):
            view["company"] = company
        return view
    if kind == "refill":
        return {"type": kind} if event["company"] is None else {"type": kind, "company": event["company"]}
    if kind == "exchange":
        view = {"type": kind, "seat": event["seat"]}
        if event["seat"] == seat:
            view["company"] = event["company"]
        return view
    if kind == "setup":
        return {"type": kind, "players": event["players"], "variant": event["variant"], "up_stack": event["up_stack"]}
    if kind == "share_deck":
        return {"type": kind, "cards": event["cards"]}
    if kind == "game_end":
        return {"type": kind, "cash": dict(event["cash"]), "places": dict(event["places"]),
                "termination": event["termination"]}
    raise ValueError(f"unknown event type {kind!r}")


# -- the window: events since a seat's previous decision ---------------------------------------

def action_kind(table: Any, action: int) -> str:
    """The kind of an action id of ``table`` (an ActionTable): ``first_invest``, ``build``,
    ``invest``, ``pass``, ``draw``, ``exchange`` or ``exchange_none``."""
    if action < table.build:
        return "first_invest"
    if action < table.invest:
        return "build"
    if action < table.pass_:
        return "invest"
    if action < table.draw:
        return "pass"
    if action < table.exchange:
        return "draw"
    return "exchange_none" if action == table.exchange else "exchange"


def action_start(types: Sequence[str], seats: Sequence[Any], end: int, seat: int, kind: str) -> int | None:
    """Where the events of one action begin, given that the next action's begin at ``end``;
    ``types[i]`` and ``seats[i]`` are event i's type and seat (None if it has none).

    An action's events start with its own record (``build``, ``invest``, ``pass``,
    ``draw``, ``exchange``), written by nothing else, except that a deck draw first
    writes the dividend cards it turns up (``dividend_revealed``; the build before a
    draw never writes one); the simultaneous picks of the
    first investment are recorded together by ``first_investment`` (before it is
    written, a pick has written nothing: its events begin at the log's end); an
    exchange of nothing writes nothing itself and its events begin with the next
    turn (or the stalemate), which the draw before it cannot write (a track reshuffle
    comes after the ``turn`` whose draw took the last card).
    """
    q = end - 1
    if kind == "first_invest":
        while q >= 0 and types[q] != "first_investment":
            q -= 1
        return q if q >= 0 else end
    if kind == "exchange_none":
        while q >= 0 and types[q] not in ("turn", "stalemate"):
            q -= 1
        return q if q >= 0 else None
    while q >= 0:
        if types[q] == kind and seats[q] == seat:
            if kind == "draw":  # a deck draw reveals the dividend cards on its way before its own record
                while q > 0 and types[q - 1] == "dividend_revealed":
                    q -= 1
            return q
        q -= 1
    return None


def move_window_starts(starts: list[int], history: Sequence[tuple[int, int]], decided: int,
                       types: Sequence[str], seats: Sequence[Any], table: Any) -> bool:
    """Each seat that decided in ``history[decided:]``: ``starts[seat]`` moved to the first event
    of its latest action, walking the history back from its end (events as in
    :func:`action_start`); False, with ``starts`` partly moved, if the events and the history
    disagree (never in a game the engine played)."""
    moved = set()
    end = len(types)
    for i in range(len(history) - 1, decided - 1, -1):  # the actions applied since, newest first
        who, action = history[i]
        start = action_start(types, seats, end, who, action_kind(table, action))
        if start is None:
            return False
        if who not in moved:
            starts[who] = start
            moved.add(who)
        end = start
    return True


class _Column:
    """One key of every event dict, read when asked (``events[i].get(key)``): the events as
    :func:`action_start` reads them, without building a list."""

    __slots__ = ("events", "key")

    def __init__(self, events: Sequence[Mapping[str, Any]], key: str) -> None:
        self.events, self.key = events, key

    def __getitem__(self, i: Any) -> Any:
        return self.events[i].get(self.key)

    def __len__(self) -> int:
        return len(self.events)


def window_start(events: Sequence[Mapping[str, Any]], history: Sequence[tuple[int, int]], seat: int,
                 kind_of: Callable[[int], str]) -> int:
    """The index in ``events`` of the first event since ``seat``'s previous decision: the
    log's length when that decision's action was applied (0 before its first decision).

    Walks back from the end over the actions applied since; ``kind_of`` gives an
    action id's kind (see :func:`action_kind`).
    """
    last = len(history) - 1
    while last >= 0 and history[last][0] != seat:
        last -= 1
    if last < 0:
        return 0
    end = len(events)
    types, seats = _Column(events, "type"), _Column(events, "seat")
    for i in range(len(history) - 1, last - 1, -1):
        who, action = history[i]
        start = action_start(types, seats, end, who, kind_of(action))
        if start is None:  # the log and the history disagree (never in a game the engine played)
            return 0
        end = start
    return end


# -- known shares in the other seats' hands ------------------------------------------------------

def fold_known(known: list[list[int]], event: Mapping[str, Any]) -> None:
    """Update ``known[seat][share kind]`` (cards known to be in each hand) with one event."""
    kind = event["type"]
    if kind == "draw":
        company = event["company"]
        if company is not None and event["source"] != "deck":
            known[event["seat"]][_SHARE_INDEX[company]] += 1
    elif kind == "invest":
        row = known[event["seat"]]
        for company, n in event["shares"].items():
            c = _SHARE_INDEX[company]
            row[c] = max(0, row[c] - n)
    elif kind == "exchange":
        row = known[event["seat"]]
        for c in range(NUM_SHARE_KINDS):
            if row[c]:
                row[c] -= 1
        row[UP] += 1
    elif kind == "first_investment":
        for seat, company in event["picks"].items():
            row = known[int(seat)]
            c = _SHARE_INDEX[company]
            row[c] = max(0, row[c] - 1)
    elif kind == "setup":
        known[:] = [[0] * NUM_SHARE_KINDS for _ in range(event["players"])]
        for row in known:
            row[UP] = 1  # §3.3: every seat is given one UP share in the open


def known_from_events(events: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """``known[seat][share kind]`` after the whole log (no memo)."""
    known: list[list[int]] = []
    for event in events:
        fold_known(known, event)
    return known


class _Memo:
    """What one state's record has told so far (immutable once stored): the known-shares
    fold of its first ``consumed`` events, and each seat's window start, as of ``decided``
    actions."""

    __slots__ = ("events", "history", "consumed", "last", "decided", "known", "items", "starts")

    def __init__(self, events: list, history: list, known: tuple[tuple[int, ...], ...],
                 items: tuple[tuple[tuple[str, int], ...], ...], starts: tuple[int, ...]) -> None:
        self.events = events  # the very lists: a clone has its own, and starts again
        self.history = history
        self.consumed = len(events)
        self.last = events[-1] if events else None
        self.decided = len(history)
        self.known = known
        #: per seat, the (code, count) pairs of its known cards, zero counts left out
        self.items = items
        self.starts = starts


def _items(row: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((SHARE_CODES[c], n) for c, n in enumerate(row) if n)


#: The event types that change what is known of a hand.
_FOLDED = frozenset({"setup", "first_investment", "draw", "invest", "exchange"})


#: The last memo of each state, by ``id``.  A memo holds the state's own event and history
#: lists, so it is used only for the state whose lists they are (a state made later at the
#: same address has lists of its own).  Entries are replaced, never changed, so states played
#: in different threads each use their own; past the limit the table is emptied (memos are
#: then made again from the whole log).
_MEMOS: dict[int, _Memo] = {}
_MEMO_LIMIT = 256


def _memo(state: Any) -> _Memo:
    """The state's memo, brought up to date with its log and history."""
    events, history = state.events, state.history
    memo = _MEMOS.get(id(state))
    if (memo is not None and memo.events is events and memo.history is history
            and memo.consumed <= len(events) and memo.decided <= len(history)
            and (memo.consumed == 0 or events[memo.consumed - 1] is memo.last)):
        if memo.consumed == len(events) and memo.decided == len(history):
            return memo
        rows = None
        for i in range(memo.consumed, len(events)):
            event = events[i]
            if event["type"] in _FOLDED:
                if rows is None:
                    rows = [list(row) for row in memo.known]
                fold_known(rows, event)
        if rows is None:
            known, items = memo.known, memo.items
        else:
            known = tuple(map(tuple, rows))
            items = tuple(old_items if new == old else _items(new)
                          for new, old, old_items in zip(known, memo.known, memo.items))
        starts = list(memo.starts)
        if not move_window_starts(starts, history, memo.decided, _Column(events, "type"), _Column(events, "seat"),
                                  state.table):  # the log and the history disagree
            starts = [0] * len(starts)
    else:
        known = tuple(map(tuple, known_from_events(events)))
        items = tuple(map(_items, known))
        kind_of = lambda a: action_kind(state.table, a)  # noqa: E731
        starts = [window_start(events, history, seat, kind_of) for seat in range(len(known))]
    memo = _Memo(events, history, known, items, tuple(starts))
    if len(_MEMOS) >= _MEMO_LIMIT:
        _MEMOS.clear()
    _MEMOS[id(state)] = memo
    return memo


def _known_counts(state: Any) -> tuple[tuple[int, ...], ...]:
    return _memo(state).known


def public_events(state: Any, seat: int) -> list[dict[str, Any]]:
    """The events since ``seat``'s previous decision, as ``seat`` saw them."""
    events = state.events
    return [public_event(e, seat) for e in events[_memo(state).starts[seat]:]]


def windows_and_known(state: Any) -> tuple[tuple[int, ...], tuple[tuple[tuple[str, int], ...], ...]]:
    """Per seat, where its window begins in ``state.events`` (:func:`public_events` views
    ``state.events[start:]``), and per seat the ``(code, count)`` pairs :func:`known_shares`
    shows of its hand (zero counts left out)."""
    memo = _memo(state)
    return memo.starts, memo.items


#: The event types whose view (:func:`public_event`) depends on the viewing seat, and only on
#: whether it is the event's ``seat``: every other type looks the same to every seat.  (The host
#: encodes an event once per view; a test checks this against :func:`public_event`.)
SEAT_VIEWS = frozenset({"turn", "draw", "exchange"})


def known_shares(state: Any, seat: int) -> dict[str, dict[str, int]]:
    """For every seat but ``seat``, the share cards known to be in its hand:
    ``{"<seat>": {"<company code>": n}}``, seats in order, companies in payout order
    then ``UP``, zero counts left out."""
    items = _memo(state).items
    return {_SEAT_NAMES[s]: dict(row) for s, row in enumerate(items) if s != seat}


_SEAT_NAMES = tuple(str(s) for s in range(8))


__all__ = ["EVENT_TYPES", "SEAT_VIEWS", "action_kind", "action_start", "fold_known", "known_from_events", "known_shares",
           "move_window_starts", "public_event", "public_events", "window_start", "windows_and_known"]
