"""A sensible Ticket to Ride: Pennsylvania strategy: a pure function of what the bot is sent.

``choose(observation, legal_actions, board) -> int`` reads only the observation
dict, the structured legal actions (``.action``, as the engine describes them)
and the board (a :class:`BoardMap` built once from the board JSON that
``StartMatch`` sends), never the engine state.  It plays by a plan:

* **The plan.**  For each ticket it holds and has not completed, in order of
  value, the cheapest chain of routes between the ticket's cities over routes it
  owns (free) and routes still open to it (their length in trains), re-using the
  routes already planned for the tickets before it.  A ticket whose chain no
  longer exists, or that would take more trains than are left, is given up.
* **Claims.**  A planned route is claimed as soon as the hand pays it (the
  longest first; a grey route with the colour the rest of the plan needs
  least; as few locomotives as possible).  While the plan has routes left, no
  other route is claimed (a turn spent elsewhere costs tickets); once it is
  done, or the end is near, other routes for their points and shares, and on
  the last turn the claim worth most now.
* **Cards.**  A face-up card of a colour the plan still lacks, else a blind card
  (a face-up locomotive only when the plan lacks many cards and nothing useful
  shows).
* **Tickets.**  At the start and after a ticket draw it keeps the set of tickets
  whose expected value is best: a ticket counts its points with the chance of
  finishing it, which falls as the plan's trains approach the trains (and the
  time) left.  New tickets are drawn only when every ticket held is done.
* **Shares.**  When offered, it takes the share that adds most to its final
  share points (a majority won or defended) minus what it costs the rivals;
  in the two-player game it gives the neutral the share that hurts it least.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

LOCO = "locomotive"
#: The extra cost of a route in a path, per route (a turn to claim it) and per ferry locomotive.
ROUTE_OVERHEAD = 0.3
FERRY_COST = 0.7
#: What a card is worth when paying: a locomotive, a card the rest of the plan needs, a spare one.
LOCO_CARD = 2.5
NEEDED_CARD = 1.5
SPARE_CARD = 0.4
#: Weight of the rivals' mean loss in a share's value, and a share's value for future majorities.
RIVALRY = 0.5
SHARE_POTENTIAL = 0.08
#: With the plan done (or the end near), a route off the plan is claimed when its value exceeds the
#: cards' worth by this much.  While the plan has routes to claim, none is: every turn goes to the
#: plan (measured: claims off the plan cost more tickets than their points and shares bring).
OPPORTUNITY_MARGIN = 0.5
#: Trains kept back beyond the plan's needs before claiming off the plan.
RESERVE = 1
#: New tickets are drawn only with this many trains left, and while every rival has this many.
DRAW_TICKETS_TRAINS = 14
DRAW_TICKETS_RIVAL_TRAINS = 12
#: The chance of finishing a ticket: high while the plan uses little of the budget, falling after.
SURE, DOUBTFUL, SAFE_FRACTION = 0.95, 0.3, 0.45
#: Part of the globetrotter bonus credited per ticket expected to be finished.
GLOBETROTTER_SHARE = 0.1


class BoardMap:
    """The board JSON's routes, tickets and companies, indexed for planning (build it once per board)."""

    def __init__(self, board: Mapping[str, Any]) -> None:
        self.name = board.get("name", "")
        self.colours = tuple(board["train_cards"]["colours"])
        self.trains = int(board.get("players", {}).get("trains_per_player", 45))
        self.end_trigger = int(board.get("players", {}).get("end_trigger_trains", 2))
        self.route_points = {int(k): int(v) for k, v in board["route_points"].items()}
        self.globetrotter = int(board.get("globetrotter_bonus", 0) or 0)
        nodes = [city["id"] for city in board["cities"]]
        index = {node: i for i, node in enumerate(nodes)}
        self.num_nodes = len(nodes)
        places: dict[str, tuple[int, ...]] = {node: (i,) for node, i in index.items()}
        for alias, members in (board.get("locations") or {}).items():
            places[alias] = tuple(index[m] for m in members)
        routes = board["routes"]
        self.route_ids = tuple(r["id"] for r in routes)
        self.route_index = {rid: i for i, rid in enumerate(self.route_ids)}
        self.a = tuple(index[r["a"]] for r in routes)
        self.b = tuple(index[r["b"]] for r in routes)
        self.length = tuple(int(r["length"]) for r in routes)
        self.colour = tuple(None if r["colour"] == "grey" else r["colour"] for r in routes)
        self.locos = tuple(int(r.get("locomotives", 0) or 0) for r in routes)
        self.partner = tuple(-1 if not r.get("double_with") else self.route_index[r["double_with"]] for r in routes)
        self.companies = tuple(tuple(r.get("companies") or ()) for r in routes)
        self.adjacent: list[list[tuple[int, int]]] = [[] for _ in nodes]
        for r in range(len(routes)):
            self.adjacent[self.a[r]].append((r, self.b[r]))
            self.adjacent[self.b[r]].append((r, self.a[r]))
        self.tickets = {t["id"]: (places[t["a"]], places[t["b"]], int(t["points"])) for t in board["tickets"]}
        self.share_tables = {c["code"]: tuple(c["points"]) for c in board["companies"]}


def choose(observation: dict[str, Any], legal_actions: Sequence[Any], board: BoardMap) -> int:
    """The index of the chosen action in ``legal_actions`` (objects with ``.action``)."""
    if len(legal_actions) == 1:
        return 0
    actions = [a.action for a in legal_actions]
    view = View(observation, board)
    kind = actions[0]["kind"]
    if kind == "keep_tickets":
        return _keep(view, actions)
    if kind == "share":
        return _share(view, actions)
    if kind == "neutral_share":
        return _neutral_share(view, actions)
    if observation.get("decision") == "second_card":
        return _draw(view, actions, second=True)
    return _turn(view, actions)


# ------------------------------------------------------------------ the view


class Plan:
    """The routes to claim for the tickets kept, and what cards they need."""

    def __init__(self, routes: list[int], tickets: list[str], lost: list[str], trains: int) -> None:
        self.routes = routes  # unclaimed routes, in the order planned
        self.tickets = tickets  # tickets the plan serves (not yet complete)
        self.lost = lost  # tickets given up (no chain, or not enough trains)
        self.trains = trains  # trains the plan still needs


class View:
    """What the observation says, with the route graph as this seat may use it."""

    def __init__(self, obs: dict[str, Any], board: BoardMap) -> None:
        self.obs = obs
        self.board = board
        self.me = obs["seat"]
        self.n = obs["num_players"]
        self.owner: list[int | None] = list(obs["routes"])
        hand = obs.get("hand") or {}
        self.hand = {kind: int(hand.get(kind, 0)) for kind in board.colours + (LOCO,)}
        players = obs["players"]
        self.trains = players[self.me]["trains"]
        self.rival_trains = min((p["trains"] for p in players if p["seat"] != self.me), default=board.trains)
        self.row = [c for c in obs.get("row") or [] if c is not None]
        self.final = obs.get("final_round") is not None
        self.mine = [r for r, o in enumerate(self.owner) if o == self.me]
        self.step_cost = [self._step_cost(r) for r in range(len(self.owner))]
        self._plan: Plan | None = None

    def _step_cost(self, r: int) -> float | None:
        """A route's cost in a path: 0 if owned, None if closed to this seat."""
        owner = self.owner[r]
        if owner == self.me:
            return 0.0
        if owner is not None:
            return None
        p = self.board.partner[r]
        if p >= 0 and (self.owner[p] == self.me or (self.n <= 3 and self.owner[p] is not None)):
            return None
        return self.board.length[r] + ROUTE_OVERHEAD + FERRY_COST * self.board.locos[r]

    def claimable(self, r: int) -> bool:
        return self.step_cost[r] not in (None, 0.0)

    # -- paths and the plan

    def path(self, sources: Sequence[int], targets: Sequence[int], free: set[int]) -> list[int] | None:
        """The cheapest chain of routes from one of ``sources`` to one of ``targets`` (``free``: cost 0)."""
        board = self.board
        dist = [float("inf")] * board.num_nodes
        via = [-1] * board.num_nodes
        heap = []
        for s in sources:
            dist[s] = 0.0
            heap.append((0.0, s))
        heapq.heapify(heap)
        goal = set(targets)
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            if u in goal:
                out = []
                while via[u] >= 0:
                    r = via[u]
                    out.append(r)
                    u = board.a[r] if board.b[r] == u else board.b[r]
                return out
            for r, v in board.adjacent[u]:
                cost = 0.0 if r in free else self.step_cost[r]
                if cost is None:
                    continue
                nd = d + cost
                if nd < dist[v]:
                    dist[v] = nd
                    via[v] = r
                    heapq.heappush(heap, (nd, v))
        return None

    def connected(self, routes: Sequence[int]) -> list[int]:
        """A component label per node for the graph of ``routes``."""
        board = self.board
        parent = list(range(board.num_nodes))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in routes:
            ra, rb = find(board.a[r]), find(board.b[r])
            if ra != rb:
                parent[ra] = rb
        return [find(x) for x in range(board.num_nodes)]

    def completed(self, ticket: str, label: list[int]) -> bool:
        ends_a, ends_b, _ = self.board.tickets[ticket]
        return bool({label[x] for x in ends_a} & {label[y] for y in ends_b})

    def make_plan(self, tickets: Sequence[str], budget: int | None = None) -> tuple[Plan, list[tuple[str, int]]]:
        """Plan ``tickets`` most valuable first; also each planned ticket's cumulative trains."""
        board = self.board
        budget = self.trains if budget is None else budget
        label = self.connected(self.mine)
        free: set[int] = set()
        order: list[int] = []
        served: list[str] = []
        lost: list[str] = []
        cumulative: list[tuple[str, int]] = []
        trains = 0
        for t in sorted(tickets, key=lambda t: (-board.tickets[t][2], t)):
            if self.completed(t, label):
                continue
            ends_a, ends_b, _ = board.tickets[t]
            chain = self.path(ends_a, ends_b, free)
            if chain is None:
                lost.append(t)
                continue
            new = [r for r in chain if self.owner[r] is None and r not in free]
            need = sum(board.length[r] for r in new)
            if trains + need > budget:
                lost.append(t)
                continue
            trains += need
            free.update(new)
            order.extend(sorted(new, key=lambda r: -board.length[r]))
            served.append(t)
            cumulative.append((t, trains))
        return Plan(order, served, lost, trains), cumulative

    @property
    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = self.make_plan(self.obs.get("tickets") or [])[0]
        return self._plan

    # -- cards

    def demand(self, routes: Sequence[int]) -> dict[str, int]:
        """Cards of each kind that ``routes`` need (grey routes take the colour with most to spare)."""
        board = self.board
        need = {kind: 0 for kind in self.hand}
        for r in routes:
            if board.colour[r] is not None:
                need[board.colour[r]] += board.length[r]
        for r in sorted((r for r in routes if board.colour[r] is None), key=lambda r: -board.length[r]):
            need[LOCO] += board.locos[r]
            rest = board.length[r] - board.locos[r]
            best = max(board.colours, key=lambda c: (self.hand[c] - need[c], self.row.count(c), c))
            need[best] += rest
        return need

    def deficit(self, routes: Sequence[int]) -> dict[str, int]:
        need = self.demand(routes)
        return {kind: max(0, need[kind] - self.hand[kind]) for kind in need}

    # -- shares

    def holdings(self) -> dict[Any, dict[str, list[int]]]:
        out: dict[Any, dict[str, list[int]]] = {p["seat"]: dict(p.get("shares") or {}) for p in self.obs["players"]}
        neutral = self.obs.get("neutral")
        if neutral:
            out["neutral"] = dict(neutral.get("shares") or {})
        return out

    def company_points(self, code: str, holdings: Mapping[Any, Mapping[str, list[int]]]) -> dict[Any, float]:
        """Each participant's points in ``code`` if the game ended now (the neutral counts half its shares)."""
        table = self.board.share_tables[code]
        ranked = []
        for who, held in holdings.items():
            numbers = held.get(code) or []
            if numbers:
                count = len(numbers) / 2 if who == "neutral" else len(numbers)
                ranked.append((-count, min(numbers), str(who), who))
        ranked.sort()
        return {who: (table[place] if place < len(table) else 0) for place, (_, _, _, who) in enumerate(ranked)}

    def share_value(self, code: str, who: Any = None) -> float:
        """What taking the next share of ``code`` (for ``who``, default this seat) is worth to this seat."""
        pile = (self.obs.get("share_piles") or {}).get(code)
        if not pile or not pile.get("left"):
            return 0.0
        who = self.me if who is None else who
        holdings = self.holdings()
        before = self.company_points(code, holdings)
        after_holdings = {p: dict(h) for p, h in holdings.items()}
        after_holdings.setdefault(who, {})
        after_holdings[who][code] = list(after_holdings[who].get(code) or []) + [pile["top"]]
        after = self.company_points(code, after_holdings)
        rivals = [s for s in holdings if s != self.me and s != "neutral"]
        mine = after.get(self.me, 0) - before.get(self.me, 0)
        theirs = sum(after.get(s, 0) - before.get(s, 0) for s in rivals) / max(1, len(rivals))
        potential = SHARE_POTENTIAL * self.board.share_tables[code][0] if who == self.me else 0.0
        return mine - RIVALRY * theirs + potential

    def route_share_value(self, r: int) -> float:
        return max((self.share_value(code) for code in self.board.companies[r]), default=0.0)


# ------------------------------------------------------------------ decisions


def _keep(view: View, actions: list[dict[str, Any]]) -> int:
    """Keep the tickets whose set has the best expected value."""
    obs = view.obs
    offered = obs.get("offered_tickets") or []
    held = list(obs.get("tickets") or [])
    budget = min(view.trains, view.rival_trains + 5) - RESERVE
    best, best_value = 0, float("-inf")
    for i, action in enumerate(actions):
        kept = [offered[p] for p in action["positions"] if p < len(offered)]
        value = _tickets_value(view, held + kept, budget)
        if value > best_value + 1e-9:
            best, best_value = i, value
    return best


def _tickets_value(view: View, tickets: list[str], budget: int) -> float:
    board = view.board
    plan, cumulative = view.make_plan(tickets, budget)
    value = 0.0
    for ticket in plan.lost:
        value -= board.tickets[ticket][2]
    scale = max(1, budget)
    risk = 1.0 - 0.04 * (view.n - 2)  # more rivals block more routes
    for ticket, trains in cumulative:
        used = trains / scale
        p = SURE if used <= SAFE_FRACTION else SURE - (SURE - DOUBTFUL) * (used - SAFE_FRACTION) / (1 - SAFE_FRACTION)
        p *= risk
        points = board.tickets[ticket][2]
        value += (2 * p - 1) * points + p * GLOBETROTTER_SHARE * board.globetrotter
    return value


def _share(view: View, actions: list[dict[str, Any]]) -> int:
    """The share worth most; declining only when none is worth anything."""
    values = [view.share_value(a["company"]) if a["company"] else 0.0 for a in actions]
    return max(range(len(actions)), key=lambda i: (values[i], actions[i]["company"] is not None))


def _neutral_share(view: View, actions: list[dict[str, Any]]) -> int:
    """The neutral's share where it costs this seat least (or hurts the rival most)."""
    values = [view.share_value(a["company"], who="neutral") for a in actions]
    return max(range(len(actions)), key=lambda i: values[i])


def _claim_value(view: View, action: dict[str, Any], plan_routes: set[int],
                 deficit_after: dict[str, int] | None = None) -> tuple[float, float]:
    """(value, cost) of a claim: points, shares, tickets it completes; cards spent."""
    board = view.board
    r = board.route_index[action["route"]]
    length = board.length[r]
    value = board.route_points.get(length, 0) + view.route_share_value(r)
    label_before = view.connected(view.mine)
    label_after = view.connected(view.mine + [r])
    for ticket in view.obs.get("tickets") or []:
        if not view.completed(ticket, label_before) and view.completed(ticket, label_after):
            value += 2 * board.tickets[ticket][2]
    others = [q for q in view.plan.routes if q != r]
    need = view.demand(others)
    locos = action["locomotives"]
    cost = LOCO_CARD * locos
    colour = action["colour"]
    if colour is not None:
        spare = max(0, view.hand[colour] - need[colour])
        paid = length - locos
        cost += SPARE_CARD * min(paid, spare) + NEEDED_CARD * max(0, paid - spare)
    return value, cost


def _turn(view: View, actions: list[dict[str, Any]]) -> int:
    board = view.board
    claims = [i for i, a in enumerate(actions) if a["kind"] == "claim"]
    plan = view.plan
    planned = set(plan.routes)

    # The final round: cards left in hand are worth nothing, so the claim worth most now.
    if view.final and claims:
        return max(claims, key=lambda i: _claim_value(view, actions[i], planned)[0])

    # A planned route, as soon as it can be paid: the longest first, the cheapest payment.
    plan_claims = [i for i in claims if board.route_index[actions[i]["route"]] in planned]
    if plan_claims:
        return max(plan_claims, key=lambda i: (board.length[board.route_index[actions[i]["route"]]],
                                               -_claim_value(view, actions[i], planned)[1]))

    # Off the plan, once it is done or the end is near: a claim that leaves the plan its trains.
    spare_trains = view.trains - plan.trains - RESERVE
    ending = view.rival_trains <= 6 or view.trains <= 6
    best, best_net = None, OPPORTUNITY_MARGIN
    for i in claims if ending or not plan.routes else ():
        r = board.route_index[actions[i]["route"]]
        length = board.length[r]
        if length > spare_trains and not ending:
            continue
        if not plan.routes and not ending and length < 3 and view.trains > 12:
            # Nothing planned and time left: short routes only for a good share.
            if view.route_share_value(r) < 4:
                continue
        net = _net(view, actions[i], planned)
        if net > best_net:
            best, best_net = i, net
    if best is not None:
        return best

    # Nothing to build towards: new tickets while there is time.
    draw_tickets = [i for i, a in enumerate(actions) if a["kind"] == "draw_tickets"]
    if (not plan.routes and draw_tickets and view.trains >= DRAW_TICKETS_TRAINS
            and view.rival_trains >= DRAW_TICKETS_RIVAL_TRAINS):
        return draw_tickets[0]

    draw = _draw(view, actions, second=False)
    if draw is not None:
        return draw
    if claims:  # no card can be drawn: claim what pays most
        return max(claims, key=lambda i: _net(view, actions[i], planned))
    return draw_tickets[0] if draw_tickets else 0


def _net(view: View, action: dict[str, Any], planned: set[int]) -> float:
    value, cost = _claim_value(view, action, planned)
    if view.board.route_index[action["route"]] in planned:
        value += 5.0
    return value - cost


def _draw(view: View, actions: list[dict[str, Any]], second: bool) -> int | None:
    """A face-up card the plan lacks, else a blind card (None: no card can be drawn)."""
    takes = {a["card"]: i for i, a in enumerate(actions) if a["kind"] == "take"}
    blind = next((i for i, a in enumerate(actions) if a["kind"] == "blind"), None)
    deficit = view.deficit(view.plan.routes)
    wanted = [c for c in takes if c != LOCO and deficit.get(c, 0) > 0]
    if wanted:
        # the colour closest to paying for its routes, then the one needed most
        return takes[min(wanted, key=lambda c: (deficit[c], -view.hand[c], c))]
    lacking = sum(deficit.values()) - view.hand[LOCO]
    if not second and LOCO in takes and (lacking >= 4 or deficit[LOCO] > 0):
        return takes[LOCO]
    if not view.plan.routes and takes:
        # no plan: gather one colour for a long route
        colours = [c for c in takes if c != LOCO]
        if colours:
            most = max(colours, key=lambda c: (view.hand[c], c))
            if view.hand[most] >= 2 or blind is None:
                return takes[most]
    if blind is not None:
        return blind
    if takes:
        colours = [c for c in takes if c != LOCO] or list(takes)
        return takes[max(colours, key=lambda c: (view.hand[c], c))]
    return None if not second else 0
