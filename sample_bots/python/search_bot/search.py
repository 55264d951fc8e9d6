"""Determinised rollouts for Union Pacific: the search sample bot's strategy.

``choose(model, budget_s, rng) -> (index, figures)`` takes a
:class:`arena.games.union_pacific.kit.forward.ForwardModel` (the SDK's samples of the full game consistent
with what the seat knows) and spends about ``budget_s`` seconds of wall-clock time:

1. **Candidates.**  The legal actions, thinned where they are many: one build per
   company and section (the section's own card kind rather than a wild card), one
   investment per share combination (discarding what the hand has most of), no pair
   investments when single ones exist; then the ``PRIOR_KEEP`` that the payout model
   (below) likes best right after the action, on one sample.
2. **Rollouts.**  Each round deals a new sample (redeterminisation) and plays every
   candidate on it with a quick playout policy for every seat, the same dice for
   every candidate (common random numbers), for ``HORIZON`` decisions (about two rounds
   of turns at four players) or until the next dividend has been paid.  Where it got is scored by the payout model: this
   seat's projected final cash minus the best other participant's.
3. **Choice.**  After the first rounds, the candidates far behind are dropped
   (successive halving), so the time goes to the close calls.  The best mean wins.

The payout model (:func:`project`) pays every dividend still to come at today's company
values to the shares invested and in hand: all of a hand by the dividends after the
next; for the next one, as much of the hand as the seat has turns to invest before the
dividend card comes up *in this sample's deck*; a batch still in hand costs a turn, a
track card in hand is worth a little (a wild card more).  The playout policy invests its
largest batch when the next dividend is near (else now and then), builds for the
companies it holds most, and draws the display shares that add to its holdings.

Both read the engine state's fields (hands, investments, the decks): sample states are
full states, so a bot may look at everything in them.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.games.union_pacific.board import NUM_CARD_KINDS, NUM_COMPANIES, UP, WILD
from arena.games.union_pacific.payouts import company_payout, union_pacific_payout
from arena.games.union_pacific.state import DIVIDEND, DRAW_SHARE, EXCHANGE, FIRST_INVEST, MAIN

#: Seconds of search per decision (build/invest/pass); draws and exchanges get half.  The
#: default clocks allow 1 s per decision and a 10 s bank.
DEFAULT_BUDGET_S = 0.2
#: Chance that the playout policy invests (when it may also build) while the next dividend is
#: more turns away than the hand has batches (else it invests, mostly).
INVEST_CHANCE = 0.15
#: Rounds every candidate gets before any is dropped.
FIRST_ROUNDS = 2
#: Most candidates kept after a round past the first ones: the best, by mean score.
KEEP = (6, 4, 3, 2)
#: Candidates kept after the payout model's first look.
PRIOR_KEEP = 8
#: What a track card in hand is worth (cash at the start, less as dividends pass); a wild card.
TRACK_VALUE = 1.0
WILD_VALUE = 2.5
#: What a turn spent investing a batch costs (the build and the draw it does not make).
TURN_COST = 6.0
#: What drawing the share of the turn is worth, when it is still to come.
DRAW_VALUE = 3.0
#: Share deck cards drawn per turn, about (random and greedy players alike).
DECK_CARDS_PER_TURN = 0.63
#: Most decisions a rollout plays before it is evaluated (it stops after the next dividend).
HORIZON = 24


class Tables:
    """Facts about action ids, computed once per action table."""

    def __init__(self, table: Any) -> None:
        self.t = table
        s = table.num_sections
        self.num_sections = s
        #: per invest id offset: (share count, the combo's companies)
        self.invest_size = []
        self.invest_single = []
        for k in range(NUM_CARD_KINDS):
            for combo in table.combos:
                self.invest_size.append(sum(n for _, n in combo))
                self.invest_single.append(len(combo) == 1)

    def build_parts(self, action: int) -> tuple[int, int, int]:
        """(card kind, company, section) of a build id."""
        kc, section = divmod(action - self.t.build, self.num_sections)
        kind, company = divmod(kc, NUM_COMPANIES)
        return kind, company, section

    def invest_parts(self, action: int) -> tuple[int, int]:
        """(discard kind, combo index) of an invest id."""
        return divmod(action - self.t.invest, self.t.num_combos)


_tables: dict[int, Tables] = {}


def tables_for(table: Any) -> Tables:
    found = _tables.get(id(table))
    if found is None or found.t is not table:
        found = _tables[id(table)] = Tables(table)
    return found


# -- the playout policy -------------------------------------------------------------------------------


#: Build ids of a wild card start at kind WILD's block: (kind * companies + company) >= this.
WILD_BUILDS = WILD * NUM_COMPANIES


def _holding(state: Any, seat: int, company: int) -> int:
    return state.invested[seat][company] + state.hand_shares[seat][company]


def playout_action(state: Any, seat: int, tab: Tables, rng: random.Random) -> int:
    """A quick, plausible action for ``seat``."""
    actions = state.legal_actions(seat)
    if len(actions) == 1:
        return actions[0]
    phase = state.phase
    t = tab.t
    if phase == MAIN:
        first_invest = first_pass = len(actions)
        for i, a in enumerate(actions):
            if a >= t.invest:
                first_invest = i
                break
        if first_invest < len(actions) and actions[first_invest] >= t.pass_:
            first_pass = first_invest
        else:
            for i in range(first_invest, len(actions)):
                if actions[i] >= t.pass_:
                    first_pass = i
                    break
        builds = first_invest
        invests = first_pass - first_invest
        if invests and not builds:
            invest_now = True
        elif invests:
            hand = state.hand_shares[seat]
            batches = sum(1 for h in hand if h)
            invest_now = rng.random() < (0.9 if _turns_to_dividend(state) <= batches + 1 else INVEST_CHANCE)
        else:
            invest_now = False
        if invest_now:
            size = tab.invest_size
            base = t.invest
            best, best_n = actions[first_invest], -1
            for a in actions[first_invest:first_pass]:
                n = size[a - base]
                if n > best_n or (n == best_n and rng.random() < 0.3):
                    best, best_n = a, n
            return best
        if builds:
            best, best_score = actions[0], -1.0
            for _ in range(6 if builds > 6 else builds):
                a = actions[int(rng.random() * builds)]
                kc = (a - t.build) // tab.num_sections
                score = _holding(state, seat, kc % NUM_COMPANIES) + rng.random() - (kc >= WILD_BUILDS)
                if score > best_score:
                    best, best_score = a, score
            return best
        return actions[int(rng.random() * len(actions))]
    if phase == DRAW_SHARE:
        best, best_score = actions[-1], 0.5 + rng.random()
        for a in actions:
            what = a - t.draw
            if what < NUM_COMPANIES:
                score = _holding(state, seat, what) + rng.random()
                if score > best_score:
                    best, best_score = a, score
        return best
    if phase == EXCHANGE:
        return actions[0] if rng.random() < 0.8 else actions[int(rng.random() * len(actions))]
    if phase == FIRST_INVEST:
        hand = state.hand_shares[seat]
        return max(actions, key=lambda c: (hand[c] if c != UP else 0) + rng.random())
    return actions[int(rng.random() * len(actions))]


def _turns_to_dividend(state: Any) -> float:
    """Each seat's turns, about, before the next dividend card comes up (in this sample's deck)."""
    deck = state.share_deck
    if state.imaginary is not None or not deck:
        return 1e9
    top = len(deck) - 1
    for i in range(top, -1, -1):
        if deck[i] == DIVIDEND:
            return (top - i) / (DECK_CARDS_PER_TURN * state.n)
    return 1e9


def project(state: Any) -> list[float]:
    """Each participant's cash at the end as the payout model sees it now: the dividends still
    to come paid at today's company values, to the shares invested and those in hand: all of a
    hand by the dividends after the next; for the next one, as much of it as the seat has turns
    to invest (one company per turn) before the dividend card comes up."""
    rows = state.invested if state.imaginary is None else state.invested + [state.imaginary]
    hands = state.hand_shares + ([[0] * len(rows[0])] if state.imaginary is not None else [])
    paid = state.dividends_paid
    left = state.end_at - paid
    out = [float(c) for c in state.cash] + ([float(state.imaginary_cash)] if state.imaginary is not None else [])
    if left <= 0:
        return out
    turns = _turns_to_dividend(state)
    weights = []
    for hand in hands:
        batches = sum(1 for h in hand if h)
        weights.append(1.0 if turns >= batches else (turns + 0.5) / batches if batches else 0.0)
    for i, hand in enumerate(hands):  # a batch in hand takes a turn to invest: a turn not building
        out[i] -= TURN_COST * sum(1 for h in hand if h)
    full = [[r[c] + h[c] for c in range(len(r))] for r, h in zip(rows, hands)]
    soon = [[r[c] + w * h[c] for c in range(len(r))] for r, h, w in zip(rows, hands, weights)]
    share = left / state.end_at
    for i, hand in enumerate(state.hand_track):  # cards in hand are builds to come
        out[i] += share * (TRACK_VALUE * (sum(hand) - hand[WILD]) + WILD_VALUE * hand[WILD])
    if state.phase == DRAW_SHARE:  # a share to draw before the turn ends
        out[state.current] += DRAW_VALUE
    trains = state.trains_on_board
    parts = range(len(out))
    for c in range(NUM_COMPANIES):
        later = [r[c] for r in full]
        if any(later):
            value = trains[c] + 1
            p_next = company_payout(value, [r[c] for r in soon])
            p_later = company_payout(value, later)
            for i in parts:
                out[i] += p_next[i] + (left - 1) * p_later[i]
    later = [r[UP] for r in full]
    if any(later):
        p_next = union_pacific_payout(paid + 1, [r[UP] for r in soon])
        for i in parts:
            out[i] += p_next[i]
        for number in range(paid + 2, state.end_at + 1):
            p_later = union_pacific_payout(number, later)
            for i in parts:
                out[i] += p_later[i]
    return out


def evaluate(state: Any, seat: int) -> float:
    """``seat``'s projected cash minus the best other participant's."""
    if state.is_terminal():
        cash = state.outcome().cash
        mine = cash[str(seat)]
        return mine - max(v for name, v in cash.items() if name != str(seat))
    out = project(state)
    mine = out[seat]
    return mine - max(v for i, v in enumerate(out) if i != seat)


def rollout(state: Any, seat: int, tab: Tables, rng: random.Random, horizon: int = HORIZON) -> float:
    """Play ``state`` (changed in place) past the next dividend (or ``horizon`` decisions);
    the evaluation of where it got for ``seat``."""
    target = state.dividends_paid + 1
    steps = 0
    while not state.is_terminal() and state.dividends_paid < target and steps < horizon:
        who = state.current_seats()[0]
        state.apply_action(who, playout_action(state, who, tab, rng))
        steps += 1
    return evaluate(state, seat)


# -- candidates and the search -------------------------------------------------------------------


def candidates(state: Any, seat: int, actions: list[int], tab: Tables) -> list[int]:
    """Indices into ``actions`` worth searching (see the module's docstring)."""
    t = tab.t
    if state.phase != MAIN or len(actions) <= 8:
        return list(range(len(actions)))
    track = state.hand_track[seat]
    builds: dict[tuple[int, int], int] = {}
    invests: dict[int, int] = {}
    passes: list[int] = []
    singles = False
    for i, a in enumerate(actions):
        if a < t.invest:
            kind, company, section = tab.build_parts(a)
            key = (company, section)
            j = builds.get(key)
            # keep the card of the section's own type over a wild card
            if j is None or (tab.build_parts(actions[j])[0] == WILD and kind != WILD):
                builds[key] = i
        elif a < t.pass_:
            discard, combo = tab.invest_parts(a)
            j = invests.get(combo)
            if j is None:
                invests[combo] = i
            else:
                old = tab.invest_parts(actions[j])[0]
                # discard what the hand has most of, a wild card last
                if (old == WILD and discard != WILD) or (discard != WILD and track[discard] > track[old]):
                    invests[combo] = i
            singles = singles or tab.invest_single[a - t.invest]
        else:
            passes.append(i)
    chosen = list(builds.values())
    for combo, i in invests.items():
        if not singles or tab.invest_single[actions[i] - t.invest]:
            chosen.append(i)
    return sorted(chosen) or passes


def budget_for(model: Any, budget_s: float) -> float:
    """The search time for this decision: ``budget_s`` for the main decision of a turn and
    the first investment, half of it for draws and exchanges (fewer, closer choices)."""
    if len(model.actions) == 1:
        return 0.0
    return budget_s if model.decision in ("main", "first_invest") else budget_s / 2


def choose(model: Any, budget_s: float, rng: random.Random, clock=time.perf_counter,
           horizon: int | None = None) -> tuple[int, dict]:
    """The index of the chosen legal action, and figures about the search."""
    actions = model.actions
    if len(actions) == 1:
        return 0, {"rounds": 0, "rollouts": 0}
    seat = model.seat
    deadline = clock() + budget_s
    first = model.sample()
    tab = tables_for(first.table)
    alive = candidates(first, seat, actions, tab)
    if len(alive) > PRIOR_KEEP and (horizon is None or horizon > 0):
        looks = {}
        for i in alive:
            state = first.clone(rng=first.rng, rollout=True)
            state.apply_action(seat, actions[i])
            looks[i] = evaluate(state, seat)
        alive = sorted(alive, key=lambda i: -looks[i])[:PRIOR_KEEP]
    totals = {i: 0.0 for i in alive}
    counts = {i: 0 for i in alive}
    rounds = rollouts = 0
    sample = first
    seed = rng.getrandbits(32)
    while True:
        for i in alive:
            state = sample.clone(rng=sample.rng, rollout=True)
            state.apply_action(seat, actions[i])
            # the same playout dice for every candidate of a round: they differ only by the action
            totals[i] += rollout(state, seat, tab, random.Random(seed), HORIZON if horizon is None else horizon)
            counts[i] += 1
            rollouts += 1
            if clock() > deadline:
                break
        else:
            rounds += 1
            if rounds >= FIRST_ROUNDS and len(alive) > 2:
                keep = KEEP[min(rounds - FIRST_ROUNDS, len(KEEP) - 1)]
                if len(alive) > keep:
                    alive = sorted(alive, key=lambda i: -totals[i] / counts[i])[:keep]
            if clock() <= deadline:
                sample = model.sample()
                seed = rng.getrandbits(32)
                continue
        break
    best = max((i for i in alive if counts[i]), key=lambda i: (totals[i] / counts[i], counts[i]))
    return best, {"rounds": rounds, "rollouts": rollouts, "candidates": len(totals)}
