"""Determinisation: full Union Pacific states consistent with what one seat knows.

A search bot (ISMCTS, determinised rollouts) needs, at its decision, full game
states it may play on with the engine: the cards it cannot see dealt at random
from the ones it has not seen, everything it has seen left as it is.  Here:

* :class:`SeatKnowledge`: what one seat knows of the hidden cards, as counts:
  the track cards it has not seen (in the other hands and the track deck), the
  share cards it has not seen (in the other hands beyond the cards known to be
  there, in the boxes of the other seats' exchanges, in the share deck), the
  size of every hidden place, and where the share deck's dividend cards may
  still be (the deck's layout at setup is public, §3.6).
* :func:`knowledge_of`: that knowledge read from a full state (the host's side,
  and the tests'), using only what the seat may see.
* :func:`from_observation`: a *base* state and the knowledge rebuilt from the
  seat's observation and the public events it has been shown since the start
  (what a bot has: the SDK keeps the events).  The base's hidden cards are
  placeholders; only samples are meant to be played.
* :class:`Determiniser`: ``sample()`` clones the base and deals the hidden
  cards uniformly at random among all the deals consistent with the knowledge
  (known cards stay in their hands; a UP share is never in the share deck; a
  dividend card stays in the part of the deck it was shuffled into), with a
  fresh order of the track deck.  Samples are independent full states: clone
  them, apply actions, play them to the end.

What a seat knows is taken as the rules state it (§10) and as the observation
lists it (``known_shares`` is a lower bound); inferences from how the other
seats played are the bot's business.  Pure: the randomness is the caller's
generators, there is no I/O and no clock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import COMPANIES, NUM_CARD_KINDS, NUM_COMPANIES, NUM_SHARE_KINDS, SHARE_CODES, UP
from arena.games.union_pacific.state import (
    DIVIDEND,
    DRAW_SHARE,
    EXCHANGE,
    FIRST_INVEST,
    MAIN,
    UnionPacificState,
)

__all__ = ["Determiniser", "SeatKnowledge", "deck_layout", "from_observation", "knowledge_of"]

#: Dividend cards in the share deck at setup (§3.6).
DIVIDEND_CARDS = 4
_SHARE_INDEX = {code: i for i, code in enumerate(SHARE_CODES)}
_PHASES = {"first_invest": FIRST_INVEST, "main": MAIN, "draw_share": DRAW_SHARE, "exchange": EXCHANGE}


def deck_layout(company_cards: int, variant: str) -> list[tuple[int, int]]:
    """The share deck's parts at setup, top first: ``(cards, of which dividend cards)``,
    for ``company_cards`` company shares left after the deal and the display (§3.6,
    as ``UnionPacificState._lay_out_shares`` builds it)."""
    p = company_cards
    if variant == "standard":
        return [(min(p, 6), 0), (min(max(p - 6, 0), 18) + 1, 1), (max(p - 24, 0) + 3, 3)]
    out: list[tuple[int, int]] = []
    q, r = divmod(max(p - 24, 0), 4)
    sizes = [q] * (4 - r) + [q + 1] * r
    for i in range(4):
        out += [(min(max(p - 6 * i, 0), 6), 0), (sizes[i] + 1, 1)]
    return out


def _dividend_spans(initial: int, current: int, revealed: int, variant: str,
                    imaginary: bool) -> tuple[tuple[int, int, int], ...]:
    """Where the share deck's dividend cards still may be: ``(lo, hi, k)``, ``k`` of them
    among the deck list's indices ``lo..hi-1`` (index 0 is the bottom card)."""
    if imaginary:  # §9: only the dividend cards are left, in a pile of their own
        return ((0, current, current),) if current else ()
    drawn = initial - current
    spans = []
    start = before = 0
    for size, dividends in deck_layout(initial - DIVIDEND_CARDS, variant):
        left = dividends - min(max(revealed - before, 0), dividends)
        first = max(start, drawn)  # the part's topmost card still in the deck, counted from the top
        if left:
            if start + size - first < left:
                raise ValueError(f"the share deck cannot hold {left} more dividend card(s) in its part "
                                 f"of {size} cards after {drawn} drawn")
            spans.append((initial - start - size, initial - first, left))
        start += size
        before += dividends
    if start != initial:
        raise ValueError(f"a share deck of {initial} cards does not fit the {variant} layout")
    return tuple(spans)


@dataclass(frozen=True)
class SeatKnowledge:
    """What one seat knows of a game's hidden cards (counts by card kind or share kind)."""

    seat: int
    #: per track card kind: the cards the seat has not seen (the other hands and the track deck)
    track_unseen: tuple[int, ...]
    #: per seat: how many track cards it holds
    track_hand_sizes: tuple[int, ...]
    #: per share kind: the cards the seat has not seen (other hands beyond their known cards,
    #: the boxes of the other seats' exchanges, the share deck or the undealt pile)
    share_unseen: tuple[int, ...]
    #: per seat: how many share cards it holds
    share_hand_sizes: tuple[int, ...]
    #: per seat, per share kind: the cards known to be in its hand (the seat's own row: its hand)
    known: tuple[tuple[int, ...], ...]
    #: per seat: cards boxed by its exchanges that this seat has not seen (0 for itself)
    boxed_unseen: tuple[int, ...]
    #: per share kind: the cards this seat boxed by its own exchanges
    boxed_own: tuple[int, ...]
    #: cards in the share deck (dividend cards included), or in the undealt pile before the
    #: first investments are made (then ``pile`` is true)
    deck_cards: int
    pile: bool
    #: where the deck's dividend cards may be: ``(lo, hi, k)``: ``k`` among indices lo..hi-1
    dividend_spans: tuple[tuple[int, int, int], ...]

    def __post_init__(self) -> None:
        others = [s for s in range(len(self.track_hand_sizes)) if s != self.seat]
        track_slots = sum(self.track_hand_sizes[s] for s in others)
        if min(self.track_unseen, default=0) < 0 or sum(self.track_unseen) < track_slots:
            raise ValueError(f"inconsistent knowledge: {sum(self.track_unseen)} unseen track cards "
                             f"for {track_slots} in the other hands")
        open_slots = self.open_share_slots()
        deck_shares = self.deck_cards - sum(k for _, _, k in self.dividend_spans)
        if min(self.share_unseen, default=0) < 0 or sum(self.share_unseen) != open_slots + deck_shares:
            raise ValueError(f"inconsistent knowledge: {sum(self.share_unseen)} unseen share cards for "
                             f"{open_slots} places in hands and boxes and {deck_shares} in the deck")
        if self.share_unseen[UP] > open_slots:
            raise ValueError(f"inconsistent knowledge: {self.share_unseen[UP]} unseen UP shares "
                             f"for {open_slots} places in hands and boxes (none is in the deck)")

    def open_share_slots(self) -> int:
        """Share cards in the other hands beyond their known cards, plus their unseen boxed cards."""
        return sum(self.share_hand_sizes[s] - sum(self.known[s]) + self.boxed_unseen[s]
                   for s in range(len(self.share_hand_sizes)) if s != self.seat)


def _initial_deck_size(events: Sequence[Mapping[str, Any]]) -> int | None:
    for event in events:
        if event["type"] == "share_deck":
            return event["cards"]
    return None


def _exchanges(events: Sequence[Mapping[str, Any]], seat: int, players: int) -> tuple[list[int], list[int]]:
    """Per seat, the exchanges made by the others; per share kind, the cards ``seat`` boxed."""
    count = [0] * players
    own = [0] * NUM_SHARE_KINDS
    for event in events:
        if event["type"] == "exchange":
            if event["seat"] == seat:
                own[_SHARE_INDEX[event["company"]]] += 1
            else:
                count[event["seat"]] += 1
    return count, own


def _knowledge(seat: int, n: int, board: Any, *, track_discard: Sequence[int], own_track: Sequence[int],
               track_sizes: Sequence[int], share_sizes: Sequence[int], own_shares: Sequence[int],
               known_rows: Sequence[Sequence[int]], seen: Sequence[int], boxed_count: Sequence[int],
               boxed_own: Sequence[int], deck_cards: int, pile: bool,
               spans: tuple[tuple[int, int, int], ...]) -> SeatKnowledge:
    track_unseen = tuple(board.card_counts[k] - track_discard[k] - own_track[k] for k in range(NUM_CARD_KINDS))
    totals = list(board.company_shares) + [board.up_shares]
    known = tuple(tuple(own_shares) if s == seat else tuple(known_rows[s]) for s in range(n))
    share_unseen = tuple(
        totals[c] - seen[c] - own_shares[c] - boxed_own[c] - sum(known[s][c] for s in range(n) if s != seat)
        for c in range(NUM_SHARE_KINDS))
    return SeatKnowledge(
        seat=seat, track_unseen=track_unseen, track_hand_sizes=tuple(track_sizes), share_unseen=share_unseen,
        share_hand_sizes=tuple(share_sizes), known=known,
        boxed_unseen=tuple(0 if s == seat else boxed_count[s] for s in range(n)), boxed_own=tuple(boxed_own),
        deck_cards=deck_cards, pile=pile, dividend_spans=spans)


def _seen_shares(invested: Sequence[Sequence[int]], imaginary: Sequence[int] | None, display: Sequence[int],
                 boxed_four: Sequence[int], up_stack: int) -> list[int]:
    """Per share kind: the cards in plain view (invested, the imaginary holder's, the display,
    boxed four of a kind, the UP stack)."""
    seen = [sum(row[c] for row in invested) for c in range(NUM_SHARE_KINDS)]
    if imaginary is not None:
        for c in range(NUM_SHARE_KINDS):
            seen[c] += imaginary[c]
    for c in display:
        seen[c] += 1
    for c in range(NUM_COMPANIES):
        seen[c] += boxed_four[c]
    seen[UP] += up_stack
    return seen


def knowledge_of(state: UnionPacificState, seat: int) -> SeatKnowledge:
    """What ``seat`` knows of ``state``'s hidden cards, read only from what it may see."""
    if not 0 <= seat < state.n:
        raise ValueError(f"there is no seat {seat!r} in a {state.n}-player game")
    n = state.n
    boxed_count, boxed_own = _exchanges(state.events, seat, n)
    pile = state.phase == FIRST_INVEST
    if pile:
        deck_cards, spans = len(state._pool), ()
    else:
        initial = _initial_deck_size(state.events)
        assert initial is not None, "the share deck is laid out after the first investments"
        deck_cards = len(state.share_deck)
        spans = _dividend_spans(initial, deck_cards, state.dividends_revealed, state.variant,
                                state.imaginary is not None)
    return _knowledge(
        seat, n, state.board, track_discard=state.track_discard, own_track=state.hand_track[seat],
        track_sizes=[sum(h) for h in state.hand_track], share_sizes=[sum(h) for h in state.hand_shares],
        own_shares=state.hand_shares[seat], known_rows=knowledge._known_counts(state),
        seen=_seen_shares(state.invested, state.imaginary, state.display, state.boxed_four, state.up_stack),
        boxed_count=boxed_count, boxed_own=boxed_own, deck_cards=deck_cards, pile=pile, spans=spans)


class Determiniser:
    """Samples full states consistent with one seat's knowledge, from a base state.

    ``base`` holds everything the seat sees (its hidden cards may be anything of the
    right sizes); ``seed`` seeds the generators (a ``random.Random`` also drives the
    samples' own later shuffles: the samples of one determiniser share it, so play
    them one after another, not in parallel threads).
    """

    def __init__(self, base: UnionPacificState, know: SeatKnowledge, seed: int | None = None) -> None:
        if know.seat >= base.n or len(know.track_hand_sizes) != base.n:
            raise ValueError("the knowledge is not of this state's table")
        self.base = base
        self.knowledge = know
        self.gen = np.random.default_rng(seed)
        self.rng = random.Random(seed)
        self.seat = know.seat
        self._others = [s for s in range(base.n) if s != know.seat]
        self._track = np.repeat(np.arange(NUM_CARD_KINDS, dtype=np.int64), know.track_unseen)
        self._companies = np.repeat(np.arange(NUM_COMPANIES, dtype=np.int64), know.share_unseen[:NUM_COMPANIES])
        self._ups = know.share_unseen[UP]
        self._open = know.open_share_slots()
        self._hand_open = [know.share_hand_sizes[s] - sum(know.known[s]) for s in range(base.n)]

    def sample(self) -> UnionPacificState:
        """A new full state: the base with the hidden cards dealt at random."""
        know = self.knowledge
        state = self.base.clone(rng=self.rng)
        gen = self.gen
        # Track cards: the other hands, then the deck.
        cards = gen.permutation(self._track).tolist()
        at = 0
        sizes = know.track_hand_sizes
        hand_track = state.hand_track
        for s in self._others:
            row = [0] * NUM_CARD_KINDS
            for k in cards[at:at + sizes[s]]:
                row[k] += 1
            hand_track[s] = row
            at += sizes[s]
        state.track_deck = cards[at:]
        # Share cards: the open places in hands and boxes take every unseen UP share and the first
        # company cards of a random order; the deck takes the rest.
        shares = gen.permutation(self._companies).tolist()
        company_places = self._open - self._ups
        places = [UP] * self._ups + shares[:company_places]
        if self._ups:
            self.rng.shuffle(places)
        at = 0
        hand_shares = state.hand_shares
        boxed = list(know.boxed_own)
        for s in self._others:
            row = list(know.known[s])
            for c in places[at:at + self._hand_open[s]]:
                row[c] += 1
            at += self._hand_open[s]
            hand_shares[s] = row
            for c in places[at:at + know.boxed_unseen[s]]:
                boxed[c] += 1
            at += know.boxed_unseen[s]
        state.boxed_exchange = boxed
        deck = shares[company_places:]
        if know.pile:
            state._pool = deck
            state.picks = [p if s == self.seat else None for s, p in enumerate(state.picks)]
        else:
            spots: list[int] = []
            for lo, hi, k in know.dividend_spans:
                spots += [lo + i for i in self.rng.sample(range(hi - lo), k)] if k < hi - lo else range(lo, hi)
            spots.sort()  # inserted bottom up, each lands at its final index
            for i in spots:
                deck.insert(i, DIVIDEND)
            state.share_deck = deck
        return state


# -- a bot's side: the observation and the public events -----------------------------------------

def _full_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """A public event in the engine's own shape (hidden fields as None), so that the engine's
    views and folds read it as they read their own."""
    out = dict(event)
    kind = out["type"]
    if kind in ("draw", "exchange", "refill"):
        out.setdefault("company", None)
    elif kind == "turn":
        out.setdefault("track_card", None)
    elif kind == "setup":
        out.setdefault("hands", [])
    elif kind == "share_deck":
        out.setdefault("order", None)
    return out


def from_observation(game: Any, observation: Mapping[str, Any],
                     events: Sequence[Mapping[str, Any]]) -> tuple[UnionPacificState, SeatKnowledge]:
    """A base state and the seat's knowledge, from its observation at a decision and the public
    events it has been shown since the start of the match (every ``public_events`` so far, in order).

    The base holds everything the seat sees; its hidden cards are placeholders (sample it with
    :class:`Determiniser` before playing on).  Its event log is the public one and its action
    history is empty, so its own observations show the whole log as ``public_events``.
    """
    obs = observation
    seat, n, variant = obs["seat"], obs["num_players"], obs["variant"]
    phase = _PHASES.get(obs["decision"])
    if phase is None:
        raise ValueError(f"seat {seat} has no decision to make (decision {obs['decision']!r})")
    board = game.board
    kinds = {name: k for k, name in enumerate(board.card_kinds)}
    state = game.new_state(n, 0, variant)  # the board's set-up; everything else is overwritten
    # The board: trains and free spaces.
    for company in obs["companies"]:
        c = COMPANIES.index(company["code"])
        for s in company["sections"]:
            if not state.has_train[s] >> c & 1:
                state.free[s] -= 1
                if not state.free[s]:
                    state._fill(s)
                state._place(c, s)
    if list(state.free) != list(obs["free_spaces"]):
        raise ValueError("the observation's free spaces do not match its trains on this board")
    players = obs["players"]
    state.cash = [p["cash"] for p in players]
    state.invested = [[p["invested"].get(code, 0) for code in SHARE_CODES] for p in players]
    imaginary = obs["imaginary"]
    if imaginary is not None:
        state.imaginary = [imaginary["invested"].get(code, 0) for code in SHARE_CODES]
        state.imaginary_cash = imaginary["cash"]
    state.display = [COMPANIES.index(code) for code in obs["display"]]
    state.up_stack = obs["up_stack"]
    state.track_discard = [obs["track_discards"].get(name, 0) for name in board.card_kinds]
    state.boxed_four = [obs["boxed_four_of_a_kind"].get(code, 0) for code in COMPANIES]
    # Hands: the seat's own; placeholders of the right sizes for the others.
    own_track = [0] * NUM_CARD_KINDS
    for name, count in obs["hand"]["track"].items():
        own_track[kinds[name]] = count
    own_shares = [obs["hand"]["shares"].get(code, 0) for code in SHARE_CODES]
    track_sizes = [p["hand_track"] for p in players]
    share_sizes = [p["hand_shares"] for p in players]
    state.hand_track = [own_track if s == seat else [0] * (NUM_CARD_KINDS - 1) + [track_sizes[s]]
                        for s in range(n)]
    state.hand_shares = [own_shares if s == seat else [0] * NUM_COMPANIES + [share_sizes[s]] for s in range(n)]
    state.hand_share_total = sum(share_sizes)
    known_rows = [[0] * NUM_SHARE_KINDS for _ in range(n)]
    for who, row in obs["known_shares"].items():
        for code, count in row.items():
            known_rows[int(who)][_SHARE_INDEX[code]] = count
    # The decks (placeholders: sampled) and the dividend clock.
    log = [_full_event(e) for e in events]
    revealed = sum(1 for e in log if e["type"] == "dividend_revealed")
    pile = phase == FIRST_INVEST
    state.track_deck = [0] * obs["track_deck"]
    if pile:
        seen = _seen_shares(state.invested, state.imaginary, state.display, state.boxed_four, state.up_stack)
        totals = list(board.company_shares) + [board.up_shares]
        hidden = sum(totals) - sum(seen) - sum(share_sizes)
        deck_cards, spans = hidden, ()
        state.share_deck = []
        state._pool = [0] * hidden
        pick = obs["pending_first_investment"]
        state.picks = [(_SHARE_INDEX[pick] if pick is not None and s == seat else None) for s in range(n)]
    else:
        initial = _initial_deck_size(log)
        if initial is None:
            raise ValueError("the public events do not include the share deck's set-up (event 'share_deck'); "
                             "pass every public event since the start of the match")
        deck_cards = obs["share_deck"]
        spans = _dividend_spans(initial, deck_cards, max(revealed, obs["dividends_paid"]), variant,
                                imaginary is not None)
        state.share_deck = [0] * deck_cards
        state._pool = []
        state.picks = [None] * n
    state.dividends_paid = obs["dividends_paid"]
    state.dividends_revealed = max(revealed, obs["dividends_paid"])
    state.pending_dividends = 0
    state.phase = phase
    state.current = seat if obs["current_seat"] is None else obs["current_seat"]
    state.turn = obs["turn"]
    state.termination = None
    state.events = log
    state.history = []
    boxed_count, boxed_own = _exchanges(log, seat, n)
    know = _knowledge(
        seat, n, board, track_discard=state.track_discard, own_track=own_track, track_sizes=track_sizes,
        share_sizes=share_sizes, own_shares=own_shares, known_rows=known_rows,
        seen=_seen_shares(state.invested, state.imaginary, state.display, state.boxed_four, state.up_stack),
        boxed_count=boxed_count, boxed_own=boxed_own, deck_cards=deck_cards, pile=pile, spans=spans)
    return state, know
