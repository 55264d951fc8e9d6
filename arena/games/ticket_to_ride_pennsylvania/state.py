"""The Ticket to Ride: Pennsylvania rules engine: one game's whole state, changed in place.

Pure and deterministic (rules: docs/rules-ticket-to-ride-pennsylvania.md): the
only randomness is the state's own ``random.Random(seed)``, used in the order of
§15.30 (train deck, set-up refreshes, ticket deck, then reshuffles as they
happen, then the neutral's reveal), and every shuffle's result is written to the
event log, so the same seed and the same actions give the same game, event for
event.

Decisions (``decision_kind``): ``initial_tickets`` (all seats at once),
``turn``, ``second_card``, ``keep_tickets``, ``share`` and ``neutral_share``;
see :mod:`~arena.games.ticket_to_ride_pennsylvania.actions` for the action ids.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import ActionNames, GameOverError, IllegalActionError, NotYourTurnError, Outcome, Termination
from arena.games.ticket_to_ride_pennsylvania import knowledge, scoring
from arena.games.ticket_to_ride_pennsylvania.actions import (
    BLIND,
    KEEP_MASKS,
    PASS,
    SHARE_NONE,
    TAKE,
    TICKETS,
    ActionTable,
)
from arena.games.ticket_to_ride_pennsylvania.board import GREY, LOCO, MAX_PLAYERS, MIN_PLAYERS, NUM_KINDS, Board
from arena.games.common import shuffle
from arena.games.ticket_to_ride_pennsylvania.cards import EMPTY, ROW_SIZE, TrainCards
from arena.games.ticket_to_ride_pennsylvania.claims import Claims
from arena.games.ticket_to_ride_pennsylvania.phases import (
    INITIAL,
    KEEP,
    NEUTRAL,
    OVER,
    PHASE_NAMES,
    SECOND,
    SHARE,
    TURN,
)

VARIANTS = ("standard",)
#: The participant id of the two-player game's neutral shareholder (§11).
NEUTRAL_PARTICIPANT = scoring.NEUTRAL_PARTICIPANT
GAME_NAME = "ticket_to_ride_pennsylvania"
STARTING_CARDS = 4

_POPCOUNT = tuple(bin(m).count("1") for m in range(KEEP_MASKS))


def keep_masks(offered: int, at_least: int) -> list[int]:
    """The keep actions (bit masks over the ``offered`` positions) keeping ``at_least`` or more."""
    need = min(at_least, offered)
    return [m for m in range(1, 1 << offered) if _POPCOUNT[m] >= need]


class TicketToRideState(TrainCards, Claims, ActionNames):
    """One game of Ticket to Ride: Pennsylvania (see :class:`arena.games.base.GameState`)."""

    def __init__(self, board: Board, table: ActionTable, players: int, seed: int, variant: str = "standard") -> None:
        if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Ticket to Ride: Pennsylvania is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"got {players!r}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be a whole number, got {seed!r}")
        self.board = board
        self.table = table
        self.kind_names = board.kind_names
        self.n = players
        self.seed = seed
        self.variant = variant
        self.rng = random.Random(seed)
        self.events: list[dict[str, Any]] = []
        self.history: list[tuple[int, int]] = []
        #: per seat, the log's length when it last decided (its public-event window starts there)
        self.window = [0] * players
        self.events.append({"type": "setup", "players": players, "variant": variant})

        # Seats (§3.2).
        self.trains = [board.trains] * players
        self.route_points = [0] * players
        self.hands = [[0] * NUM_KINDS for _ in range(players)]
        #: per seat, the cards known to all to be in its hand (taken face up, not yet paid): a lower bound
        self.known = [[0] * NUM_KINDS for _ in range(players)]
        self.owner = [-1] * board.num_routes
        #: the route_info of the routes still open to someone (unclaimed; with 2-3 players, partner unclaimed),
        #: by colour (index LOCO: the grey routes), shortest first
        self.open_routes: list[list[tuple[int, ...]]] = [[] for _ in range(NUM_KINDS)]
        for info in sorted(table.route_info, key=lambda info: (info[1], info[0])):
            self.open_routes[LOCO if info[5] == GREY else info[5]].append(info)
        self.routes_of: list[list[int]] = [[] for _ in range(players)]
        self.tickets: list[list[int]] = [[] for _ in range(players)]
        #: shares[p][c]: the share numbers participant p holds of company c (p == n: the neutral)
        self.shares = [[[] for _ in range(board.num_companies)] for _ in range(players + (players == 2))]
        self.neutral_pile: list[tuple[int, int]] = []  # (company, number) in the order taken
        self.taken = [0] * board.num_companies  # shares taken off each pile

        # Train cards (§3.4, §3.5).
        deck = [k for k in range(len(board.colours)) for _ in range(board.per_colour)] + [LOCO] * board.locomotives
        shuffle(self.rng, deck)
        self.deck = deck
        self.events.append({"type": "shuffle", "pile": "train_cards", "order": [self.kind_names[c] for c in reversed(deck)]})
        self.discard: list[int] = []
        for seat in range(players):
            cards = [self.deck.pop() for _ in range(STARTING_CARDS)]
            for c in cards:
                self.hands[seat][c] += 1
            self.events.append({"type": "deal", "seat": seat, "cards": [self.kind_names[c] for c in cards]})
        self.row = [EMPTY] * ROW_SIZE
        for slot in range(ROW_SIZE):
            self.row[slot] = self._draw_deck()
        self.events.append({"type": "row", "row": self._row_names()})
        self._three_locomotives()

        # Tickets (§3.6).
        ticket_deck = list(range(board.num_tickets))
        shuffle(self.rng, ticket_deck)
        self.ticket_deck = ticket_deck  # top at the end
        self.events.append({"type": "shuffle", "pile": "tickets",
                            "order": [board.ticket_ids[t] for t in reversed(ticket_deck)]})
        self.offers: list[list[int]] = []  # per seat, the tickets it must choose from (empty: none)
        for seat in range(players):
            dealt = [self.ticket_deck.pop() for _ in range(board.tickets_deal)]
            self.offers.append(dealt)
            self.events.append({"type": "deal_tickets", "seat": seat, "tickets": [board.ticket_ids[t] for t in dealt]})
        self.picks: list[int | None] = [None] * players  # initial keep masks, secret until all chose

        self.phase = INITIAL
        self.current = 0
        self.turn = 0
        self.claimed = -1  # the route whose share offer is being decided
        self.final_left: int | None = None  # turns left in the final round (§9.2)
        self.trigger_seat: int | None = None
        self.passes = 0  # consecutive passes (§9.3)
        self.termination: Termination | None = None
        self.result: dict[str, Any] | None = None

    # -- the interface ------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.n

    def current_seats(self) -> tuple[int, ...]:
        if self.phase == INITIAL:
            return tuple(s for s in range(self.n) if self.picks[s] is None)
        if self.phase == OVER:
            return ()
        return (self.current,)

    def decision_kind(self, seat: int) -> str:
        return PHASE_NAMES[self.phase] if seat in self.current_seats() else "none"

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, seat: int) -> list[int]:
        phase = self.phase
        if phase == INITIAL:
            if not isinstance(seat, int) or not 0 <= seat < self.n or self.picks[seat] is not None:
                return []
            return keep_masks(len(self.offers[seat]), self.board.tickets_keep_setup)
        if phase == OVER or seat != self.current:
            return []
        if phase == TURN:
            return self._turn_actions(seat)
        if phase == SECOND:
            out = [TAKE + k for k in sorted(set(self.row)) if k != EMPTY and k != LOCO]
            if self.can_draw_blind():
                out.append(BLIND)
            return out
        if phase == KEEP:
            return keep_masks(len(self.offers[seat]), self.board.tickets_keep_draw)
        if phase == SHARE:
            return [SHARE_NONE] + [self.table.share + c for c in self.share_offer()]
        return [self.table.neutral + c for c in self.share_offer()]

    def _turn_actions(self, seat: int) -> list[int]:
        out = [TAKE + k for k in sorted(set(self.row)) if k != EMPTY]
        if self.can_draw_blind():
            out.append(BLIND)
        if self.ticket_deck:
            out.append(TICKETS)
        claims = self.claim_actions(seat)
        if not out and not claims:
            return [PASS]
        return out + claims

    def _turn_action_is_legal(self, seat: int, action: int) -> bool:
        """``action in self._turn_actions(seat)``, without enumerating the claims when it can."""
        if action >= self.table.claim:
            return self._claim_is_legal(seat, action)
        if TAKE <= action < BLIND:
            return action - TAKE in self.row
        if action == BLIND:
            return self.can_draw_blind()
        if action == TICKETS:
            return bool(self.ticket_deck)
        return action == PASS and self._turn_actions(seat) == [PASS]

    def apply_action(self, seat: int, action: int) -> None:
        if type(action) is not int or not 0 <= action < self.table.size:  # exactly an action id: not bool, float, str
            raise IllegalActionError(f"{action!r} is not an action id (0 to {self.table.size - 1})")
        phase = self.phase
        if phase == OVER:
            raise GameOverError("the game is over; no action can be applied")
        if phase == INITIAL:
            self._apply_initial(seat, action)
            self.history.append((seat, action))
            return
        if seat != self.current:
            raise NotYourTurnError(f"it is seat {self.current}'s decision, not seat {seat}'s")
        if not (self._turn_action_is_legal(seat, action) if phase == TURN else action in self.legal_actions(seat)):
            raise IllegalActionError(self._illegal(seat, action))
        self.window[seat] = len(self.events)
        table = self.table
        if phase == TURN:
            if action >= table.claim:
                self._claim(seat, action)
            elif action == TICKETS:
                self._draw_tickets(seat)
            elif action == PASS:
                self.events.append({"type": "pass", "seat": seat})
                self._end_turn(passed=True)
            else:
                self._first_card(seat, action)
        elif phase == SECOND:
            if action == BLIND:
                self._take_blind(seat)
            else:
                self._take_face_up(seat, action - TAKE, second=True)
            self._end_turn()
        elif phase == KEEP:
            self._keep_tickets(seat, action)
        elif phase == SHARE:
            self._take_share(seat, action)
        else:
            self._neutral_share(seat, action - table.neutral)
        self.history.append((seat, action))

    def _illegal(self, seat: int, action: int) -> str:
        try:
            text = repr(self.table.to_string(action))
        except IllegalActionError:
            return f"{action!r} is not an action id (0 to {self.table.size - 1})"
        kind = PHASE_NAMES[self.phase]
        if self.phase == TURN and action >= self.table.claim:
            return f"{text}: {self.claim_problem(seat, action)}"
        if action == BLIND and self.phase in (TURN, SECOND):
            return f"{text}: the deck and the discard pile are empty"
        if TAKE <= action < BLIND and self.phase in (TURN, SECOND):
            return f"{text}: no such card is face up" + (" (a face-up locomotive cannot be the second card)"
                                                         if self.phase == SECOND else "")
        return f"{text} is not legal now: seat {seat} must decide {kind!r}"

    # -- the initial ticket choice (§3.7, §15.28) ------------------------------------

    def _apply_initial(self, seat: int, action: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise NotYourTurnError(f"there is no seat {seat!r} in a {self.n}-player game")
        if self.picks[seat] is not None:
            raise NotYourTurnError(f"seat {seat} has already chosen its tickets")
        if action not in keep_masks(len(self.offers[seat]), self.board.tickets_keep_setup):
            raise IllegalActionError(
                f"{self._text(action)} is not legal now: seat {seat} must keep at least "
                f"{self.board.tickets_keep_setup} of its {len(self.offers[seat])} tickets")
        self.window[seat] = len(self.events)
        self.picks[seat] = action
        if any(p is None for p in self.picks):
            return
        ids = self.board.ticket_ids
        kept: dict[str, list[str]] = {}
        returned: dict[str, list[str]] = {}
        for s in range(self.n):
            offer, mask = self.offers[s], self.picks[s] or 0
            keep = [t for i, t in enumerate(offer) if mask >> i & 1]
            back = [t for i, t in enumerate(offer) if not mask >> i & 1]
            self.tickets[s] = keep
            self._to_bottom(back)
            kept[str(s)] = [ids[t] for t in keep]
            returned[str(s)] = [ids[t] for t in back]
            self.offers[s] = []
        self.events.append({"type": "initial_tickets", "kept": kept, "returned": returned})
        self.current = 0
        self._start_turn()

    def _text(self, action: int) -> str:
        try:
            return repr(self.table.to_string(action))
        except IllegalActionError:
            return repr(action)

    def _to_bottom(self, tickets: list[int]) -> None:
        """Returned tickets go under the deck in order: the last one becomes the bottom card."""
        for t in tickets:
            self.ticket_deck.insert(0, t)

    # -- a turn (§4) --------------------------------------------------------------

    def _start_turn(self) -> None:
        self.turn += 1
        self.phase = TURN
        self.claimed = -1
        self.events.append({"type": "turn", "turn": self.turn, "seat": self.current})

    def _end_turn(self, passed: bool = False) -> None:
        """The end of every turn, in the order of §4."""
        self._fill_row()
        seat = self.current
        if self.final_left is None:
            if self.trains[seat] <= self.board.end_trigger:
                self.final_left = self.n
                self.trigger_seat = seat
                self.events.append({"type": "final_round", "trigger_seat": seat, "trains": self.trains[seat]})
        else:
            self.final_left -= 1
            if self.final_left == 0:
                self._finish(Termination.NORMAL)
                return
        self.passes = self.passes + 1 if passed else 0
        if self.passes >= self.n:
            self.events.append({"type": "deadlock", "passes": self.passes})
            self._finish(Termination.STALEMATE)
            return
        self.current = (seat + 1) % self.n
        self._start_turn()

    def _first_card(self, seat: int, action: int) -> None:
        if action == BLIND:
            self._take_blind(seat)
        else:
            kind = action - TAKE
            self._take_face_up(seat, kind, second=False)
            if kind == LOCO:  # §5.1: a face-up locomotive is the whole draw
                self._end_turn()
                return
        if self.second_card_possible():
            self.phase = SECOND
        else:
            self.events.append({"type": "no_second_card", "seat": seat})
            self._end_turn()

    # -- tickets (§8) -------------------------------------------------------------

    def _draw_tickets(self, seat: int) -> None:
        deck = self.ticket_deck
        drawn = [deck.pop() for _ in range(min(self.board.tickets_draw, len(deck)))]
        self.offers[seat] = drawn
        self.events.append({"type": "draw_tickets", "seat": seat, "tickets": [self.board.ticket_ids[t] for t in drawn]})
        self.phase = KEEP

    def _keep_tickets(self, seat: int, mask: int) -> None:
        offer = self.offers[seat]
        keep = [t for i, t in enumerate(offer) if mask >> i & 1]
        back = [t for i, t in enumerate(offer) if not mask >> i & 1]
        self.tickets[seat].extend(keep)
        self._to_bottom(back)
        self.offers[seat] = []
        ids = self.board.ticket_ids
        self.events.append({"type": "keep_tickets", "seat": seat, "kept": [ids[t] for t in keep],
                            "returned": [ids[t] for t in back]})
        self._end_turn()

    # -- the end (§9-§11) ---------------------------------------------------------

    def _finish(self, termination: Termination) -> None:
        self.termination = termination
        self.phase = OVER
        board = self.board
        holders = [[list(numbers) for numbers in per_company] for per_company in self.shares[:self.n]]
        if self.n == 2:  # §11.3: shuffle the neutral's shares, reveal half (rounded up)
            pile = list(self.neutral_pile)
            shuffle(self.rng, pile)
            shown = pile[:(len(pile) + 1) // 2]
            revealed: list[list[int]] = [[] for _ in range(board.num_companies)]
            for c, number in shown:
                revealed[c].append(number)
            holders.append([sorted(numbers) for numbers in revealed])
            self.events.append({"type": "neutral_reveal", "order": [[board.companies[c], num] for c, num in pile],
                                "revealed": len(shown)})
        report = scoring.final_scores(board, self.route_points, self.routes_of, self.tickets, holders)
        self.result = {"totals": [s["total"] for s in report["seats"]],
                       "completed": [sum(t["completed"] for t in s["ticket_results"]) for s in report["seats"]]}
        self.events.append({"type": "scoring", **report})
        self.events.append({"type": "game_end", **self.outcome().to_json()})

    def outcome(self) -> Outcome:
        if self.phase != OVER or self.result is None or self.termination is None:
            raise GameOverError("the game is not over yet")
        totals, counts = list(self.result["totals"]), list(self.result["completed"])
        names = [str(s) for s in range(self.n)]  # §10.5: the result orders the seats; the neutral is not one
        places = scoring.places(totals, counts)
        return Outcome(cash=dict(zip(names, totals)), places=dict(zip(names, places)), termination=self.termination,
                       extra={"completed_tickets": {str(s): counts[s] for s in range(self.n)}})

    # -- views --------------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise ValueError(f"there is no seat {seat!r} in a {self.n}-player game")
        return _observe(self, seat)

    def clone(self) -> "TicketToRideState":
        other = object.__new__(TicketToRideState)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        for name in ("events", "history", "window", "trains", "route_points", "owner", "neutral_pile", "taken",
                     "deck", "discard", "row", "ticket_deck", "picks"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("hands", "known", "routes_of", "tickets", "offers", "open_routes"):
            setattr(other, name, [list(row) for row in getattr(self, name)])
        other.shares = [[list(numbers) for numbers in per] for per in self.shares]
        return other


def _counts(counts: list[int], names: tuple[str, ...]) -> dict[str, int]:
    return {names[i]: n for i, n in enumerate(counts) if n}


def _observe(state: TicketToRideState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know (§12), JSON-ready."""
    view = observation_fields(state, seat)
    view["public_events"] = [knowledge.public_event(e, seat) for e in state.events[state.window[seat]:]]
    return view


def observation_fields(state: TicketToRideState, seat: int) -> dict[str, Any]:
    """The observation of ``seat`` (a seat of ``state``) but its ``public_events`` (the host
    encodes those from the log, each event once per view)."""
    board = state.board
    names = state.kind_names
    companies = board.companies
    phase = state.phase
    offer = state.offers[seat] if phase in (INITIAL, KEEP) else []
    pick = state.picks[seat] if phase == INITIAL else None

    def holdings(p: int) -> dict[str, list[int]]:
        return {companies[c]: list(nums) for c, nums in enumerate(state.shares[p]) if nums}

    return {
        "game": GAME_NAME,
        "seat": seat,
        "num_players": state.n,
        "variant": state.variant,
        "decision": state.decision_kind(seat),
        "current_seat": None if phase in (INITIAL, OVER) else state.current,
        "turn": state.turn,
        "train_deck": len(state.deck),
        "ticket_deck": len(state.ticket_deck),
        "discard": {name: state.discard.count(k) for k, name in enumerate(names)},
        "row": state._row_names(),
        "routes": [None if o == -1 else o for o in state.owner],
        "share_piles": {code: {"left": board.company_shares[c] - state.taken[c],
                               "top": state.taken[c] + 1 if state.taken[c] < board.company_shares[c] else None}
                        for c, code in enumerate(companies)},
        "share_offer": [companies[c] for c in state.share_offer()] if phase in (SHARE, NEUTRAL) else [],
        "players": [{
            "seat": s,
            "trains": state.trains[s],
            "route_points": state.route_points[s],
            "cards": sum(state.hands[s]),
            "tickets": len(state.tickets[s]),
            "shares": holdings(s),
            "known_cards": _counts(state.known[s], names),
        } for s in range(state.n)],
        "neutral": {"shares": holdings(state.n)} if state.n == 2 else None,
        "hand": _counts(state.hands[seat], names),
        "tickets": [board.ticket_ids[t] for t in state.tickets[seat]],
        "offered_tickets": [board.ticket_ids[t] for t in offer] if pick is None else [],
        "chosen_tickets": None if pick is None else [board.ticket_ids[t] for i, t in enumerate(offer) if pick >> i & 1],
        "final_round": None if state.final_left is None else {"trigger_seat": state.trigger_seat,
                                                              "turns_left": state.final_left},
        "consecutive_passes": state.passes,
    }
