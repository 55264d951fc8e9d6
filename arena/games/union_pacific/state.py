"""The Union Pacific rules engine: one game's whole state, changed in place.

Pure and deterministic: the only randomness is the state's own seeded generator,
used for the shuffles at setup and for track reshuffles, so the same seed and the
same actions give the same game, event for event.

The state is kept in flat lists indexed by seat, company, card kind and section;
the board's side (trains, networks, frontiers, the legal builds, all kept
incrementally) is in network.py.
"""

from __future__ import annotations

import random
from itertools import compress
from typing import Any

from arena.games.base import (
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    Termination,
)
from arena.games.common import shuffle
from arena.games.union_pacific.actions import _HALF, DRAW_DECK, DRAW_UP, ActionTable
from arena.games.union_pacific.board import (
    COMPANIES,
    NUM_CARD_KINDS,
    NUM_COMPANIES,
    NUM_SHARE_KINDS,
    SHARE_CODES,
    UP,
    WILD,
    Board,
)
from arena.games.union_pacific import events as ev
from arena.games.union_pacific.dividends import Dividends
from arena.games.union_pacific.events import EventLog
from arena.games.union_pacific.network import Network
from arena.games.union_pacific.phases import (
    DIVIDEND,
    DRAW_SHARE,
    EXCHANGE,
    FIRST_INVEST,
    MAIN,
    OVER,
    PHASE_NAMES,
    RolloutStateError,
)
from arena.games.union_pacific.views import Views

VARIANTS = ("standard", "pro")
_KIND_RANGE = range(NUM_CARD_KINDS)
_SHARE_RANGE = range(NUM_SHARE_KINDS)


#: _HELD_KINDS[track hand]: the kinds of card a hand of track counts holds (a tuple), memoised by
#: _held_kinds.  A plain dict, not a subclass with __missing__: a subclass's ``[]`` goes through a
#: method lookup (about 4x the instructions of a dict's).
_HELD_KINDS: dict[tuple[int, ...], tuple[int, ...]] = {}
if NUM_CARD_KINDS != 5:  # legal_actions writes its key out for five kinds
    raise ImportError(f"the Union Pacific engine expects 5 kinds of track card, the board has {NUM_CARD_KINDS}")


def _held_kinds(hand: tuple[int, ...]) -> tuple[int, ...]:
    if len(_HELD_KINDS) >= 1 << 12:
        _HELD_KINDS.clear()
    _HELD_KINDS[hand] = held = tuple(k for k in _KIND_RANGE if hand[k])
    return held

#: _ONE_DECIDES[phase]: does one seat decide (MAIN, DRAW_SHARE, EXCHANGE), not all (FIRST_INVEST) or none (OVER)?
_ONE_DECIDES = tuple(FIRST_INVEST < phase < OVER for phase in range(OVER + 1))

#: _ONE_SEAT[seat]: ``(seat,)``, the current seats when one seat decides (made once, not per call)
_ONE_SEAT = tuple((seat,) for seat in range(8))




class UnionPacificState(EventLog, Network, Dividends, Views):
    """One game of Union Pacific (see :class:`arena.games.base.GameState`)."""

    # Slots, not an instance dict: with this many fields (more than the 30 a dict's shared keys
    # hold) CPython 3.11 would give every state a dict of its own and could not specialise
    # ``self.x`` or ``self.method()``; slots make each a fixed offset.  clone() copies them all.
    __slots__ = (
        "board", "table", "n", "seed", "variant", "_rng", "_rng_state", "_events", "_log", "_history", "end_at",
        # network.py
        "allowed", "builds", "free", "has_train", "open_mask", "_sections_of", "trains_on_board", "supply",
        "in_network", "frontier", "own",
        # cards, shares, cash
        "track_deck", "track_discard", "hand_track", "hand_shares", "invested", "cash", "up_stack",
        "hand_share_total", "_pool", "share_deck", "display", "boxed_four", "boxed_exchange",
        "dividends_revealed", "dividends_paid", "pending_dividends", "imaginary", "imaginary_cash", "termination",
        # whose decision
        "picks", "phase", "current", "turn",
        "__weakref__",  # (a bot may keep states in a WeakKeyDictionary, as it could before the slots)
    )

    def __init__(self, board: Board, table: ActionTable, players: int, seed: int, variant: str = "standard") -> None:
        if not isinstance(players, int) or not 2 <= players <= 6:
            raise ValueError(f"Union Pacific is for 2 to 6 players, got {players!r}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be a whole number, got {seed!r}")
        self.board = board
        self.table = table
        self.n = players
        self.seed = seed
        self.variant = variant
        self._rng: random.Random | None = random.Random(seed)
        self._rng_state: tuple | None = None  # the generator's state while _rng is None (see rng)
        self._events: list[dict[str, Any]] = []  # see events.py: read through ``events``
        self._log: Any = []  # the records of the events not yet read
        self._history: list[tuple[int, int]] | None = []  # read through ``history``; None: a rollout state
        self.end_at = 3 if players == 2 else 4

        # Board: starting trains (§3.1) and the bookkeeping of network.py.
        self.allowed = table.allowed
        self._set_up_board()

        # Track cards (§3.2).
        self.track_deck: list[int] = list(table.track_cards)
        shuffle(self.rng, self.track_deck)
        self.track_discard = [0] * NUM_CARD_KINDS
        self.hand_track = [[0] * NUM_CARD_KINDS for _ in range(players)]
        for seat in range(players):
            for _ in range(3):
                self.hand_track[seat][self.track_deck.pop()] += 1

        # Shares (§3.3, §3.4).
        self.hand_shares = [[0] * NUM_SHARE_KINDS for _ in range(players)]
        self.invested = [[0] * NUM_SHARE_KINDS for _ in range(players)]
        self.cash = [0] * players
        self.up_stack = board.up_shares - players
        pool = list(table.company_cards)
        shuffle(self.rng, pool)
        for seat in range(players):
            self.hand_shares[seat][UP] += 1
            for _ in range(4):
                self.hand_shares[seat][pool.pop()] += 1
        self.hand_share_total = sum(map(sum, self.hand_shares))
        self._pool = pool  # the rest, until the display and deck are laid out
        self.share_deck: list[int] = []  # top of the deck is the end of the list
        self.display: list[int] = []
        self.boxed_four = [0] * NUM_COMPANIES
        self.boxed_exchange = [0] * NUM_SHARE_KINDS
        self.dividends_revealed = 0
        self.dividends_paid = 0
        self.pending_dividends = 0
        self.imaginary: list[int] | None = None
        self.imaginary_cash = 0
        self.termination: Termination | None = None

        self.picks: list[int | None] = [None] * players
        self.phase = FIRST_INVEST
        self.current = 0
        self.turn = 0
        self._log.append((ev.setup, players, variant, tuple(map(tuple, self.hand_track)),
                          tuple(map(tuple, self.hand_shares)), self.up_stack))

    # -- the interface ------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.n

    def current_seats(self) -> tuple[int, ...]:
        phase = self.phase
        if _ONE_DECIDES[phase]:  # one seat decides
            return _ONE_SEAT[self.current]
        if phase == FIRST_INVEST:
            return tuple(s for s in range(self.n) if self.picks[s] is None)
        return ()

    @property
    def decisions(self) -> int:
        """The number of actions applied (a rollout state raises RolloutStateError: it keeps no history)."""
        return len(self.history)

    @property
    def history(self) -> list[tuple[int, int]]:
        """``(seat, action)`` of every action applied, in order (the same list every time).  A rollout
        state keeps none: reading it raises :class:`~arena.games.union_pacific.phases.RolloutStateError`."""
        history = self._history
        if history is None:
            raise RolloutStateError("history")
        return history

    @history.setter
    def history(self, history: list[tuple[int, int]]) -> None:
        if self._history is None:
            raise RolloutStateError("history")
        self._history = history

    @property
    def rollout(self) -> bool:
        """Is this a rollout state (``clone(rollout=True)``): one that keeps no event log, no history and
        no ``sections_of``?"""
        return self._history is None

    def decision_kind(self, seat: int) -> str:
        return PHASE_NAMES[self.phase] if seat in self.current_seats() else "none"

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, seat: int) -> list[int]:
        phase = self.phase
        if phase == MAIN:  # builds, then investments, each by the kind of track card discarded: sorted ids
            if seat != self.current:
                return []
            hand = self.hand_track[seat]
            key = hand[0], hand[1], hand[2], hand[3], hand[4]  # (cheaper than tuple(hand))
            try:
                held = _HELD_KINDS[key]
            except KeyError:  # a hand not met yet
                held = _held_kinds(key)
            builds = self.builds
            out: list[int] = []
            for k in held:
                out += builds[k]
            # table.invest_parts(shares), written out (a call costs about as much as its lookups)
            table, shares = self.table, self.hand_shares[seat]
            key = shares[0], shares[1], shares[2], shares[3], shares[4]
            low = table._low.get(key)
            if low is None:
                low = table._memo_singles(table._low, key, 0)
            key = shares[5], shares[6], shares[7], shares[8], shares[9], shares[10]
            high = table._high.get(key)
            if high is None:
                high = table._memo_singles(table._high, key, _HALF)
            pairs = table.pair_ids[low[1] | high[1]]
            low, high = low[0], high[0]
            for k in held:
                out += low[k]
                out += high[k]
                out += pairs[k]
            if not out:  # no build and no share in hand: discard a card
                base = table.pass_
                out = [base + k for k in held]
            return out
        if phase == DRAW_SHARE:
            if seat != self.current:
                return []
            table = self.table
            companies, bit = 0, table.company_bit
            for c in self.display:
                companies |= bit[c]
            out = [*table.display_draw_ids[companies]]
            if self.share_deck:
                out.append(table.draw_ids[DRAW_DECK])
            if self.up_stack:
                out.append(table.draw_ids[DRAW_UP])
            return out
        if phase == EXCHANGE:
            if seat != self.current:
                return []
            return [self.table.exchange, *compress(self.table.exchange_ids, self.hand_shares[seat])]
        if phase == FIRST_INVEST:
            if not 0 <= seat < self.n or self.picks[seat] is not None:
                return []
            return list(compress(_SHARE_RANGE, self.hand_shares[seat]))
        return []

    def apply_action(self, seat: int, action: int) -> None:
        if type(action) is not int:  # not bool, float or str: exactly an action id
            raise IllegalActionError(f"{action!r} is not an action id")
        phase = self.phase
        if _ONE_DECIDES[phase]:
            if seat != self.current:
                raise NotYourTurnError(f"it is seat {self.current}'s decision, not seat {seat}'s")
            table = self.table
            if phase == MAIN:  # (the kinds' ids follow each other: build, invest, pass, draw)
                if action < table.invest:
                    if action < table.build:
                        raise IllegalActionError(self._wrong_kind(action, "build, invest or pass"))
                    self._apply_build(seat, action)
                elif action < table.pass_:
                    self._apply_invest(seat, action)
                elif action < table.draw:
                    self._apply_pass(seat, action)
                else:
                    raise IllegalActionError(self._wrong_kind(action, "build, invest or pass"))
            elif phase == DRAW_SHARE:
                if not table.draw <= action < table.exchange:
                    raise IllegalActionError(self._wrong_kind(action, "draw a share"))
                self._apply_draw(seat, action - table.draw)
            else:
                if not table.exchange <= action < table.size:
                    raise IllegalActionError(self._wrong_kind(action, "exchange a share or not"))
                self._apply_exchange(seat, action - table.exchange)
        elif phase == FIRST_INVEST:
            self._apply_first_invest(seat, action)
        else:
            raise GameOverError("the game is over; no action can be applied")
        if self._history is not None:
            self._history.append((seat, action))

    def _wrong_kind(self, action: int, expected: str) -> str:
        try:
            text = repr(self.table.to_string(action))
        except IllegalActionError:
            text = repr(action)
        return f"{text} is not a {expected} action; seat {self.current} must {expected}"

    # -- first investment (§3.4) --------------------------------------------------

    def _apply_first_invest(self, seat: int, action: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise NotYourTurnError(f"there is no seat {seat!r} in a {self.n}-player game")
        if self.picks[seat] is not None:
            raise NotYourTurnError(f"seat {seat} has already chosen its first investment")
        if not isinstance(action, int) or not 0 <= action < NUM_SHARE_KINDS:
            raise IllegalActionError(self._wrong_kind(action, "first investment"))
        if not self.hand_shares[seat][action]:
            raise IllegalActionError(f"first-invest {SHARE_CODES[action]}: seat {seat} holds no {SHARE_CODES[action]} share")
        self.picks[seat] = action
        if None in self.picks:  # (a seat yet to choose)
            return
        for s, c in enumerate(self.picks):
            self.hand_shares[s][c] -= 1
            self.invested[s][c] += 1
        self.hand_share_total -= self.n
        if self._log is not None:
            self._log.append((ev.first_investment, tuple(self.picks)))
        self._lay_out_shares()
        self.current = self.n - 1  # so that seat 0 takes the first turn
        self._end_turn()

    def _lay_out_shares(self) -> None:
        """Display (§3.5) and share deck (§3.6), from the shares not dealt."""
        pool = self._pool
        self.display = [pool.pop() for _ in range(4)]
        if self._log is not None:
            self._log.append((ev.display, tuple(self.display)))
        while len(self.display) == 4 and len(set(self.display)) == 1:
            self._box_four()
            self.display = [pool.pop() for _ in range(min(4, len(pool)))]
            if self._log is not None:
                self._log.append((ev.display, tuple(self.display)))
        top_down: list[int] = []
        if self.variant == "standard":
            groups = [pool[:6], pool[6:24] + [DIVIDEND], pool[24:] + [DIVIDEND] * 3]
            for g in groups[1:]:
                shuffle(self.rng, g)
            for g in groups:
                top_down.extend(g)
        else:
            small = [pool[6 * i:6 * i + 6] for i in range(4)]
            rest = pool[24:]
            q, r = divmod(len(rest), 4)
            sizes = [q] * (4 - r) + [q + 1] * r  # the larger piles lower down
            start = 0
            for i in range(4):
                big = rest[start:start + sizes[i]] + [DIVIDEND]
                start += sizes[i]
                shuffle(self.rng, big)
                top_down.extend(small[i])
                top_down.extend(big)
        top_down.reverse()
        self.share_deck = top_down
        self._pool = []
        if self._log is not None:
            self._log.append((ev.share_deck, tuple(top_down)))

    # -- a turn (§4) --------------------------------------------------------------

    def _end_turn(self) -> None:
        """The next seat's turn starts with the top track card (§4), unless nothing can ever be
        built or invested again (§8)."""
        seat = self.current = (self.current + 1) % self.n
        if not self.hand_share_total and not self._any_placement():
            self._stalemate()
            return
        turn = self.turn = self.turn + 1
        deck = self.track_deck
        card = deck.pop()
        self.hand_track[seat][card] += 1
        self.phase = MAIN
        if self._log is not None:
            self._log.append((ev.turn, turn, seat, card))
        if not deck:
            self._reshuffle_track()

    def _reshuffle_track(self) -> None:
        """§4.1: the draw that took the last track card shuffles the discards into a new deck
        at once, so the card discarded later in this turn starts the new discard pile.  (The
        discards are never empty then: 40 cards, at most 6 hands of 3 and the drawer's 4th.)"""
        deck: list[int] = []
        for k, discarded in enumerate(self.track_discard):
            deck += [k] * discarded
        shuffle(self.rng, deck)
        self.track_deck = deck
        self.track_discard = [0] * NUM_CARD_KINDS
        if self._log is not None:
            self._log.append((ev.reshuffle, len(deck)))

    # -- build (§5) ---------------------------------------------------------------

    def _apply_build(self, seat: int, action: int) -> None:
        table = self.table
        i = action - table.build
        k, c, s = table.build_parts[i]
        hand = self.hand_track[seat]
        # legal: what builds_from_scratch asks (the frontier holds the free sections c may use, without its train)
        if not (hand[k] and self.frontier[c] & table.section_bit[s] and self.supply[c] and table.build_fits[i]):
            problem = self._build_problem(seat, k, c, s) or "not a legal build"
            raise IllegalActionError(f"{self.table.to_string(action)}: {problem}")
        hand[k] -= 1
        self.track_discard[k] += 1
        free = self.free
        free[s] -= 1
        if not free[s]:
            self._fill(s)
        self._place(c, s)
        if self._log is not None:
            self._log.append((ev.build, seat, k, c, s, self.trains_on_board[c] + 1))
        if self.display or self.share_deck or self.up_stack:
            self.phase = DRAW_SHARE
        else:
            if self._log is not None:
                self._log.append((ev.draw_skipped, seat))
            self._end_turn()  # nothing to draw; and with the UP stack empty, no exchange

    def _build_problem(self, seat: int, k: int, c: int, s: int) -> str | None:
        """What makes building ``c`` on ``s`` with a card of kind ``k`` illegal (§5.2), or None."""
        board = self.board
        if not self.hand_track[seat][k]:
            return f"seat {seat} holds no {board.card_kinds[k]} card"
        if not self.free[s]:
            return f"{board.section_names[s]} has no empty neutral space"
        if k != WILD and board.section_type[s] != k:
            return f"{board.section_names[s]} is {board.card_kinds[board.section_type[s]]} track"
        if not self.allowed[c][s]:
            return f"{COMPANIES[c]} may not use {board.card_kinds[board.section_type[s]]} track"
        if self.has_train[s] >> c & 1:
            return f"{COMPANIES[c]} already has a train on {board.section_names[s]}"
        if not self.supply[c]:
            return f"{COMPANIES[c]} has no train left"
        if not self.frontier[c] >> s & 1:
            return f"{board.section_names[s]} does not touch {COMPANIES[c]}'s network"
        return None

    def _deck_card(self) -> int | None:
        """The next share card off the deck; dividend cards on the way are set aside (§7.1)."""
        deck = self.share_deck
        while deck:
            card = deck.pop()
            if card != DIVIDEND:
                return card
            self.dividends_revealed += 1
            self.pending_dividends += 1
            if self._log is not None:
                self._log.append((ev.dividend_revealed, self.dividends_revealed))
        return None

    def _box_four(self) -> None:
        c = self.display[0]
        self.boxed_four[c] += 4
        if self._log is not None:
            self._log.append((ev.four_of_a_kind, c))

    def _four_of_a_kind(self) -> None:
        display = self.display
        while len(display) == 4 and display[0] == display[1] == display[2] == display[3]:
            self._box_four()
            display.clear()
            for _ in range(4):
                card = self._deck_card()
                if card is None:
                    break
                display.append(card)
            if self._log is not None:
                self._log.append((ev.display, tuple(display)))

    def _apply_draw(self, seat: int, what: int) -> None:
        hand = self.hand_shares[seat]
        if what == DRAW_DECK:
            if not self.share_deck:
                raise IllegalActionError("draw deck: the share deck is empty")
            card = self._deck_card()
            if card is not None:
                hand[card] += 1
                self.hand_share_total += 1
            if self._log is not None:
                self._log.append((ev.draw_deck, seat, card))
        elif what == DRAW_UP:
            if not self.up_stack:
                raise IllegalActionError("draw up: the Union Pacific stack is empty")
            self.up_stack -= 1
            hand[UP] += 1
            self.hand_share_total += 1
            if self._log is not None:
                self._log.append((ev.draw_up, seat))
        else:
            display = self.display
            try:
                slot = display.index(what)
            except ValueError:
                raise IllegalActionError(
                    f"draw display {COMPANIES[what]}: no {COMPANIES[what]} share in the display") from None
            hand[what] += 1
            self.hand_share_total += 1
            if self._log is not None:
                self._log.append((ev.draw_display, seat, what))
            card = self._deck_card()
            if card is None:
                del display[slot]
            else:
                display[slot] = card
            if self._log is not None:
                self._log.append((ev.refill, card))
            if len(display) == 4 and display[0] == display[1] == display[2] == display[3]:
                self._four_of_a_kind()
        if self.pending_dividends:
            self._pay_pending()
            if self.phase == OVER:
                return
        if self.up_stack and any(hand):
            self.phase = EXCHANGE
        else:
            self._end_turn()

    def _apply_exchange(self, seat: int, what: int) -> None:
        if what:
            c = what - 1
            hand = self.hand_shares[seat]
            if not hand[c]:
                raise IllegalActionError(f"exchange {SHARE_CODES[c]}: seat {seat} holds no {SHARE_CODES[c]} share")
            hand[c] -= 1
            hand[UP] += 1
            self.up_stack -= 1
            self.boxed_exchange[c] += 1
            if self._log is not None:
                self._log.append((ev.exchange, seat, c))
        self._end_turn()

    # -- invest and pass (§6, §4) -------------------------------------------------

    def _apply_invest(self, seat: int, action: int) -> None:
        table = self.table
        k, combo = divmod(action - table.invest, table.num_combos)
        shares = table.combos[combo]
        hand = self.hand_shares[seat]
        for c, n in shares:
            if hand[c] < n:
                raise IllegalActionError(
                    f"{table.to_string(action)}: seat {seat} holds {hand[c]} {SHARE_CODES[c]} share(s)")
        track = self.hand_track[seat]
        if not track[k]:
            raise IllegalActionError(f"{table.to_string(action)}: seat {seat} holds no {self.board.card_kinds[k]} card")
        invested = self.invested[seat]
        for c, n in shares:
            hand[c] -= n
            invested[c] += n
        self.hand_share_total -= table.combo_sizes[combo]
        track[k] -= 1
        self.track_discard[k] += 1
        if self._log is not None:
            self._log.append((ev.invest, seat, combo, k))
        self._end_turn()

    def _apply_pass(self, seat: int, action: int) -> None:
        k = action - self.table.pass_
        if not self.hand_track[seat][k]:
            raise IllegalActionError(f"pass discard {self.board.card_kinds[k]}: seat {seat} holds no such card")
        if self.legal_actions(seat)[0] < self.table.pass_:  # (MAIN, and seat is the current seat)
            raise IllegalActionError(f"pass discard {self.board.card_kinds[k]}: seat {seat} can build or invest, so may not pass")
        self.hand_track[seat][k] -= 1
        self.track_discard[k] += 1
        if self._log is not None:
            self._log.append((ev.pass_, seat, k))
        self._end_turn()

    @property
    def rng(self) -> random.Random:
        """The state's own generator (setup and track reshuffles).  A clone shares a snapshot
        of it (``_rng_state``) and makes its live copy only when it shuffles."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(0)
            rng.setstate(self._rng_state)
            self._rng_state = None
        return rng

    def clone(self, rng: random.Random | None = None, rollout: bool = False) -> "UnionPacificState":
        """An independent copy.  With ``rng``, the copy uses that generator for its later
        shuffles instead of a copy of this state's own.

        With ``rollout=True`` the copy is a *rollout state*: it plays exactly as this one would
        (the same legal actions, the same outcome), but keeps no event log, no history and no
        ``sections_of`` (only the views read it), which makes it cheaper to copy and to play on (a
        search's playouts never read them).  Reading its ``events``, ``history``, ``decisions``,
        ``sections_of`` or an ``observation`` raises
        :class:`~arena.games.union_pacific.phases.RolloutStateError`; ``rollout`` says which kind a
        state is.  A rollout state's clones are rollout states."""
        other = object.__new__(UnionPacificState)
        # the fields that are never changed in place (ints, strings, immutable tables): shared
        other.board, other.table, other.n, other.seed, other.variant = self.board, self.table, self.n, self.seed, self.variant
        other.end_at, other.allowed, other.open_mask = self.end_at, self.allowed, self.open_mask
        other.up_stack, other.hand_share_total, other.termination = self.up_stack, self.hand_share_total, self.termination
        other.dividends_revealed, other.dividends_paid = self.dividends_revealed, self.dividends_paid
        other.pending_dividends, other.imaginary_cash = self.pending_dividends, self.imaginary_cash
        other.phase, other.current, other.turn = self.phase, self.current, self.turn
        if rng is not None:
            other._rng, other._rng_state = rng, None
        else:
            if self._rng is not None:  # snapshot once; this state and its clones copy it when they shuffle
                self._rng_state = self._rng.getstate()
                self._rng = None
            other._rng, other._rng_state = None, self._rng_state
        if rollout or self._history is None:
            other._events = other._log = other._history = None
        else:
            self._copy_log_to(other)
            other._history = self._history[:]
        other.builds = [ids[:] for ids in self.builds]
        other.free = self.free[:]
        other.has_train = self.has_train[:]
        other.trains_on_board = self.trains_on_board[:]
        other.supply = self.supply[:]
        other.in_network = self.in_network[:]
        other.frontier = self.frontier[:]
        other.own = self.own[:]
        other._sections_of = self._sections_of  # (never changed in place)
        other.track_deck = self.track_deck[:]
        other.track_discard = self.track_discard[:]
        other.hand_track = [row[:] for row in self.hand_track]
        other.hand_shares = [row[:] for row in self.hand_shares]
        other.invested = [row[:] for row in self.invested]
        other.cash = self.cash[:]
        other.share_deck = self.share_deck[:]
        other.display = self.display[:]
        other.boxed_four = self.boxed_four[:]
        other.boxed_exchange = self.boxed_exchange[:]
        other.picks = self.picks[:]
        other._pool = self._pool[:]
        other.imaginary = None if self.imaginary is None else self.imaginary[:]
        return other
