"""The greedy Union Pacific strategy: a pure function of what the bot is sent.

``choose(observation, legal_actions) -> int`` reads only the observation dict
and the structured legal actions (``.action``), never the engine state.  It
looks one decision ahead with a payout model:

* **Payout model.**  For every dividend still to come, each company pays its
  majority holders by the rules' arithmetic (value = trains + 1, the UP table
  by dividend number).  A change (an investment, a build, a share drawn) is
  worth what it adds to this seat's payouts minus ``RIVALRY`` times what it
  adds, on average, to each opponent's (the two-player game's imaginary
  shareholder is an opponent, projected from the unseen cards before it exists).
* **Timing.**  The share deck's layout is public (six cards, then a block with
  one dividend card, then the rest with three; or the pro piles), so the deck
  count and the dividends paid give the chance that the next dividend comes
  before this seat's t-th turn from now.  Investments are held back (to be made
  in batches of one company) while a build is worth more than what a delay
  risks; when the dividend nears, the hand is invested, best batch first.
* **Builds** go to the companies whose growth pays this seat most (invested
  shares, and shares in hand that it means to invest), **draws** take the
  share that brings it closest to a majority, **exchanges** box a hand share
  that cannot win anything for a UP share when that is worth more.
"""

from __future__ import annotations

from math import comb
from typing import Any, Sequence

from arena.games.union_pacific.payouts import company_payout, union_pacific_payout

COMPANIES = ("EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW")
UP = "UP"
KINDS = COMPANIES + (UP,)
#: Share cards per company (rules §1); every company card is in the share deck or dealt.
SHARE_CARDS = {"EPRG": 18, "BNL": 15, "MS": 12, "DM": 10, "SFRB": 9, "UMR": 8, "ESL": 7, "KCC": 7, "MRR": 6, "WW": 6}
ALL_COMPANY_CARDS = sum(SHARE_CARDS.values())
UP_CARDS = 20
DIVIDEND_CARDS = 4

#: Weight of an opponent's gain against this seat's own (their mean gain is subtracted).
RIVALRY = 0.6
#: Deck cards drawn per turn, on average (measured: 0.61-0.64 for random players).
DECK_CARDS_PER_TURN = 0.63
#: How much a share in hand counts, next to an invested one, when valuing builds.
HAND_WEIGHT = 0.6
#: Discount per extra card needed when valuing a share towards a majority.
STEP_DISCOUNT = 0.75
#: Minimum gain for an exchange to be worth boxing a card.
EXCHANGE_MARGIN = 0.3


def choose(observation: dict[str, Any], legal_actions: Sequence[Any]) -> int:
    """The index of the chosen action in ``legal_actions`` (objects with ``.action``)."""
    if len(legal_actions) == 1:
        return 0
    actions = [a.action for a in legal_actions]
    view = View(observation)
    kind = actions[0]["kind"]
    if kind == "first_invest":
        return _first_invest(view, actions)
    if kind == "draw":
        return _draw(view, actions)
    if kind == "exchange":
        return _exchange(view, actions)
    return _main(view, actions)


# ------------------------------------------------------------------ the view


class View:
    """What the observation says, with the payout model and the dividend clock."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.obs = obs
        self.n = obs["num_players"]
        self.me = obs["seat"]
        self.paid = obs["dividends_paid"]
        self.end = obs["dividends_to_end"]
        self.future = list(range(self.paid + 1, self.end + 1))
        self.values = {c["code"]: c["value"] for c in obs["companies"]}
        self.supply = {c["code"]: c["supply"] for c in obs["companies"]}
        self.invested = [p["invested"] for p in obs["players"]]
        self.mine = self.invested[self.me]
        self.hand: dict[str, int] = dict(obs["hand"]["shares"])
        self.track: dict[str, int] = dict(obs["hand"]["track"])
        rows = list(self.invested)
        if obs["imaginary"] is not None:
            rows.append(obs["imaginary"]["invested"])
        self.rows = rows
        self._projected_rows: list[dict[str, int]] | None = None
        self._memo: dict[tuple[str, int, int, int], float] = {}
        self._hazard = _next_dividend_cdf(obs)

    # -- participants and payouts --------------------------------------------------

    def rows_for(self, number: int) -> list[dict[str, int]]:
        """Holdings of every participant at dividend ``number`` (the imaginary one projected)."""
        if self.n == 2 and number == 3 and self.obs["imaginary"] is None:
            if self._projected_rows is None:
                self._projected_rows = self.rows + [self._projected_imaginary()]
            return self._projected_rows
        return self.rows

    def _projected_imaginary(self) -> dict[str, int]:
        """The imaginary shareholder's expected holdings when it appears (two players, 3rd dividend)."""
        obs = self.obs
        unseen = self.unseen()
        total_unseen = sum(unseen.values()) or 1
        # Of the unseen cards, those still in the deck when the 3rd dividend card comes up.
        left = _expected_deck_left_at(obs, 3)
        fraction = min(1.0, max(0.0, left) / total_unseen)
        projected = {c: round(obs["display"].count(c) + unseen[c] * fraction) for c in COMPANIES}
        projected[UP] = round(obs["up_stack"] * 0.5)
        return projected

    def unseen(self) -> dict[str, int]:
        """Company cards this seat has not seen: in the deck, in other hands or boxed by exchanges."""
        obs = self.obs
        boxed = obs["boxed_four_of_a_kind"]
        out = {}
        for c in COMPANIES:
            seen = sum(row.get(c, 0) for row in self.rows) + self.hand.get(c, 0) + obs["display"].count(c)
            out[c] = max(0, SHARE_CARDS[c] - seen - boxed.get(c, 0))
        return out

    def relative(self, kind: str, count: int, number: int, bonus: int = 0) -> float:
        """This seat's payout minus the rivals' weighted mean, for ``kind`` at dividend ``number``,
        if it held ``count`` shares (and the company's value were ``bonus`` higher)."""
        key = (kind, count, number, bonus)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        rows = self.rows_for(number)
        holdings = [row.get(kind, 0) for row in rows]
        holdings[self.me] = count
        if kind == UP:
            paid = union_pacific_payout(number, holdings)
        else:
            paid = company_payout(self.values[kind] + bonus, holdings)
        others = len(paid) - 1
        value = paid[self.me] - RIVALRY * (sum(paid) - paid[self.me]) / others
        self._memo[key] = value
        return value

    def gain(self, kind: str, before: int, after: int, number: int) -> float:
        return self.relative(kind, after, number) - self.relative(kind, before, number)

    def gains(self, kind: str, before: int, after: int) -> list[float]:
        """The gain of holding ``after`` instead of ``before`` at each dividend still to come."""
        return [self.gain(kind, before, after, d) for d in self.future]

    def build_gains(self, company: str) -> list[float]:
        """What one more train of ``company`` is worth at each dividend to come."""
        invested = self.mine.get(company, 0)
        held = invested + self.hand.get(company, 0)
        out = []
        for d in self.future:
            now = self.relative(company, invested, d, 1) - self.relative(company, invested, d)
            if held != invested:
                later = self.relative(company, held, d, 1) - self.relative(company, held, d)
                now = (1 - HAND_WEIGHT) * now + HAND_WEIGHT * later
            out.append(now)
        return out

    # -- the dividend clock ----------------------------------------------------------

    def risk(self, turn: int) -> float:
        """Chance that the next dividend is paid before this seat's ``turn``-th turn from now (1 = now)."""
        if turn <= 1:
            return 0.0
        return self._hazard((turn - 1) * self.n * DECK_CARDS_PER_TURN)

    # -- hand shares -------------------------------------------------------------

    def card_value(self, kind: str, extra: int = 1) -> float:
        """What one more share of ``kind`` in hand is worth: the best gain per card towards a
        better majority, a step needing ``j`` cards discounted by ``STEP_DISCOUNT**(j-1)``."""
        held = self.mine.get(kind, 0) + self.hand.get(kind, 0) + extra - 1
        weights = [0.5] + [1.0] * (len(self.future) - 1)
        best = 0.0
        for j in range(1, 4):
            total = sum(w * g for w, g in zip(weights, self.gains(kind, held, held + j)))
            best = max(best, total / j * STEP_DISCOUNT ** (j - 1))
        return best


def _expected_deck_left_at(obs: dict[str, Any], number: int) -> float:
    """Expected share-deck cards (dividend cards excluded) left when dividend ``number`` is revealed."""
    segments = _deck_segments(obs)
    drawn = _cards_drawn(obs, segments)
    # Walk the segments to the one holding dividend `number`; assume it sits at the
    # expected order-statistic position inside that segment.
    start = 0
    before = 0
    for size, dividends in segments:
        if before + dividends >= number:
            j = number - before
            position = start + j * (size + 1) / (dividends + 1)
            position = max(position, drawn + 1)
            total = sum(s for s, _ in segments)
            left_cards = total - position
            dividends_left = sum(d for _, d in segments) - number
            return max(0.0, left_cards - dividends_left)
        start += size
        before += dividends
    return 0.0


def _deck_segments(obs: dict[str, Any]) -> list[tuple[int, int]]:
    """The share deck's layout at setup, top first: (cards, of which dividend cards)."""
    pool = ALL_COMPANY_CARDS - 4 * obs["num_players"] - 4  # after dealing and the display
    if obs["variant"] == "pro":
        q, r = divmod(max(0, pool - 24), 4)
        sizes = [q] * (4 - r) + [q + 1] * r
        segments = []
        for size in sizes:
            segments += [(6, 0), (size + 1, 1)]
        return segments
    return [(6, 0), (19, 1), (max(3, pool - 24 + 3), 3)]


def _cards_drawn(obs: dict[str, Any], segments: list[tuple[int, int]]) -> int:
    return max(0, sum(s for s, _ in segments) - obs["share_deck"])


def _next_dividend_cdf(obs: dict[str, Any]):
    """``F(x)``: the chance that the next dividend card is among the next ``x`` deck cards."""
    deck = obs["share_deck"]
    revealed = obs["dividends_paid"]
    segments = _deck_segments(obs)
    drawn = _cards_drawn(obs, segments)
    start = 0
    before = 0
    offset, length, k = 0, deck, 1
    for size, dividends in segments:
        if before + dividends > revealed:
            k = before + dividends - revealed  # unrevealed dividend cards in this segment
            consumed = max(0, drawn - start)
            offset = max(0, start - drawn)
            length = max(k, size - consumed)
            break
        start += size
        before += dividends
    length = max(k, min(length, deck - offset)) if deck > offset else k

    def cdf(x: float) -> float:
        y = x - offset
        if y <= 0:
            return 0.0
        if y >= length - k + 1:
            return 1.0
        lo = int(y)
        frac = y - lo
        survive_lo = comb(length - lo, k) / comb(length, k)
        survive_hi = comb(length - lo - 1, k) / comb(length, k) if length - lo - 1 >= k else 0.0
        return 1.0 - (survive_lo * (1 - frac) + survive_hi * frac)

    return cdf


# ------------------------------------------------------------------ decisions


def _first_invest(view: View, actions: list[dict[str, Any]]) -> int:
    """Invest in the company held most (the rest of the hand can follow), valued by its dividends."""
    def score(action: dict[str, Any]) -> float:
        kind = action["company"]
        held = view.hand.get(kind, 0)
        if kind == UP:
            return 2.0 * held + 1.0
        return 3.0 * held + view.values[kind] - SHARE_CARDS[kind] / 6
    return max(range(len(actions)), key=lambda i: score(actions[i]))


def _draw(view: View, actions: list[dict[str, Any]]) -> int:
    """The share worth most in hand; a blind draw is worth the average of the unseen cards."""
    unseen = view.unseen()
    total = sum(unseen.values())

    def score(action: dict[str, Any]) -> float:
        source = action["source"]
        if source == "display":
            return view.card_value(action["company"])
        if source == "up":
            return view.card_value(UP)
        if not total:
            return 0.0
        return sum(unseen[c] * view.card_value(c) for c in COMPANIES if unseen[c]) / total
    return max(range(len(actions)), key=lambda i: score(actions[i]))


def _exchange(view: View, actions: list[dict[str, Any]]) -> int:
    """Box the hand share worth least for a UP share, when the UP share is worth clearly more."""
    best, best_gain = 0, EXCHANGE_MARGIN
    for i, action in enumerate(actions):
        kind = action["company"]
        if kind is None or kind == UP:
            continue
        lost = view.card_value(kind, extra=0)  # what this card adds to the hand now
        won = view.card_value(UP)
        if won - lost > best_gain:
            best, best_gain = i, won - lost
    return best


def _card_costs(view: View, build_values: dict[str, float]) -> dict[str, float]:
    """What keeping each kind of track card in hand is worth (what playing or discarding it costs)."""
    costs = {}
    for kind, count in view.track.items():
        if kind == "WILD":
            costs[kind] = 1.0 + max(build_values.values(), default=0.0) * 0.3
        else:
            costs[kind] = max(0.0, build_values.get(kind, 0.0)) * 0.3 / count
    return costs


def _main(view: View, actions: list[dict[str, Any]]) -> int:
    """Build now and invest the hand's batches later, or invest one now: whichever plan
    keeps more of its value when the next dividend may come before the later turns."""
    builds = [i for i, a in enumerate(actions) if a["kind"] == "build"]
    invests = [i for i, a in enumerate(actions) if a["kind"] == "invest"]
    if not builds and not invests:  # pass: throw the least useful card
        costs = _card_costs(view, {})
        return min(range(len(actions)), key=lambda i: costs.get(actions[i]["discard"], 0.0))

    build_gain = {c: view.build_gains(c) for c in {actions[i]["company"] for i in builds}}
    best_by_card: dict[str, float] = {}
    for i in builds:
        a = actions[i]
        best_by_card[a["card"]] = max(best_by_card.get(a["card"], -1e9), sum(build_gain[a["company"]]))
    costs = _card_costs(view, best_by_card)

    # The batches the hand holds: all its shares of one kind, if investing them gains.
    batches = {}
    for kind, count in view.hand.items():
        g = view.gains(kind, view.mine.get(kind, 0), view.mine.get(kind, 0) + count)
        if sum(g) > 0:
            batches[kind] = g

    def deferred(pending: list[list[float]], first_turn: int) -> float:
        """Value of investing ``pending`` batches at turns first_turn, first_turn+1, ... (best first)."""
        order = sorted(pending, key=lambda g: (-g[0], -sum(g)))
        return sum(sum(g) - g[0] * view.risk(first_turn + j) for j, g in enumerate(order))

    # Building now: the batches wait one turn each.
    best_build, best_build_score = -1, -1e9
    if builds:
        for i in builds:
            a = actions[i]
            s = sum(build_gain[a["company"]]) - costs.get(a["card"], 0.0)
            if s > best_build_score:
                best_build, best_build_score = i, s
        build_now = best_build_score + deferred(list(batches.values()), 2)
        build_next = build_gain[actions[best_build]["company"]][0]
    else:
        build_now = -1e9
        build_next = 0.0
        best_build_score = 0.0

    best_invest, best_invest_score = -1, -1e9
    for i in invests:
        a = actions[i]
        shares = a["shares"]
        now = [0.0] * len(view.future)
        rest = dict(batches)
        for kind, n in shares.items():
            have = view.mine.get(kind, 0)
            now = [x + y for x, y in zip(now, view.gains(kind, have, have + n))]
            left = view.hand.get(kind, 0) - n
            rest.pop(kind, None)
            if left:
                g = view.gains(kind, have + n, have + n + left)
                if sum(g) > 0:
                    rest[kind] = g
        later_build = max(best_build_score, 0.0) - max(build_next, 0.0) * view.risk(len(rest) + 2)
        s = sum(now) + deferred(list(rest.values()), 2) + later_build - costs.get(a["discard"], 0.0)
        if s > best_invest_score:
            best_invest, best_invest_score = i, s
    if best_invest >= 0 and (best_build < 0 or best_invest_score > build_now):
        return best_invest
    return best_build
