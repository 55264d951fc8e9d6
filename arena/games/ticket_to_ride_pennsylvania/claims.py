"""Claiming routes and taking shares (rules §6, §7, §11.2).

A mixin of :class:`~arena.games.ticket_to_ride_pennsylvania.state.TicketToRideState`
(it uses the state's fields: ``hands``, ``known``, ``trains``, ``owner``,
``open_routes`` grouped by colour, ``shares``, ``taken``, ``claimed``, ...).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.ticket_to_ride_pennsylvania.actions import NO_COLOUR, SHARE_NONE, ActionTable
from arena.games.ticket_to_ride_pennsylvania.board import LOCO, Board
from arena.games.ticket_to_ride_pennsylvania.phases import NEUTRAL, SHARE


class Claims:
    """Legal claims, their payment and the share step that follows (mixed into the state)."""

    board: Board
    table: ActionTable
    n: int
    rng: random.Random
    events: list[dict[str, Any]]
    kind_names: tuple[str, ...]
    hands: list[list[int]]
    known: list[list[int]]
    trains: list[int]
    route_points: list[int]
    owner: list[int]
    routes_of: list[list[int]]
    open_routes: list[list[tuple[int, ...]]]
    shares: list[list[list[int]]]
    neutral_pile: list[tuple[int, int]]
    taken: list[int]
    claimed: int
    discard: list[int]
    phase: int

    def _end_turn(self, passed: bool = False) -> None:
        raise NotImplementedError  # the state's

    def claim_actions(self, seat: int) -> list[int]:
        """The legal claim ids of ``seat`` (§6), sorted.

        Routes are visited by colour, shortest first, and a colour's visit stops at
        the first route longer than the seat could pay (or has trains for)."""
        hand = self.hands[seat]
        locos = hand[LOCO]
        trains = self.trains[seat]
        owner = self.owner
        per_seat_doubles = self.n > 3  # with 2 or 3 players a claimed partner closes the route for all
        out: list[int] = []
        groups = self.open_routes
        for colour in range(LOCO):  # coloured routes (never ferries)
            have = hand[colour]
            cap = have + locos if have + locos < trains else trains
            for _, length, partner, _, base, _, _, all_locos in groups[colour]:
                if length > cap:
                    break
                if per_seat_doubles and partner >= 0 and owner[partner] == seat:
                    continue
                low = length - have if have < length else 0
                top = length - 1 if locos >= length - 1 else locos
                if low <= top:
                    out.extend(range(base + low, base + top + 1))
                if locos >= length:
                    out.append(all_locos)
        held = [(c, hand[c]) for c in range(LOCO) if hand[c]]
        most = max((have for _, have in held), default=0)
        cap = most + locos if most + locos < trains else trains
        for _, length, partner, m, base, _, block, all_locos in groups[LOCO]:  # grey routes, ferries among them
            if length > cap:
                break
            if per_seat_doubles and partner >= 0 and owner[partner] == seat:
                continue
            top = (length - 1 if locos >= length - 1 else locos) - m  # highest payment index in a colour block
            if top >= 0:
                for c, have in held:
                    low = length - have if have < length else 0
                    low = low - m if low > m else 0
                    if low <= top:
                        start = base + c * block
                        out.extend(range(start + low, start + top + 1))
            if locos >= length:
                out.append(all_locos)
        out.sort()
        return out

    def _claim_is_legal(self, seat: int, action: int) -> bool:
        """One claim's legality (§6.1, §6.2), checked directly."""
        r, colour, k = self.table.claims[action - self.table.claim]
        board = self.board
        length, partner = board.route_length[r], board.route_partner[r]
        if self.owner[r] != -1 or self.trains[seat] < length:
            return False
        if partner >= 0 and (self.owner[partner] != -1 if self.n <= 3 else self.owner[partner] == seat):
            return False
        hand = self.hands[seat]
        return hand[LOCO] >= k and (colour == NO_COLOUR or hand[colour] >= length - k)

    def share_offer(self) -> list[int]:
        """§7.2: the companies pictured beside the route just claimed whose pile is not empty."""
        if self.claimed < 0:
            return []
        shares = self.board.company_shares
        return [c for c in self.board.route_companies[self.claimed] if self.taken[c] < shares[c]]

    def claim_problem(self, seat: int, action: int) -> str:
        """Why claiming is illegal (§6.1, §6.2), in words."""
        board = self.board
        r, colour, k = self.table.claims[action - self.table.claim]
        length, p = board.route_length[r], board.route_partner[r]
        if self.owner[r] != -1:
            return f"route {board.route_ids[r]} is already claimed by seat {self.owner[r]}"
        if p >= 0 and self.n <= 3 and self.owner[p] != -1:
            return f"with {self.n} players only one route of a double may be used, and {board.route_ids[p]} is claimed"
        if p >= 0 and self.owner[p] == seat:
            return f"seat {seat} owns the other route of the double, {board.route_ids[p]}"
        if self.trains[seat] < length:
            return f"seat {seat} has {self.trains[seat]} trains left, the route needs {length}"
        hand = self.hands[seat]
        if hand[LOCO] < k:
            return f"seat {seat} holds {hand[LOCO]} locomotives, the payment needs {k}"
        return f"seat {seat} holds {hand[colour]} {board.colours[colour]} cards, the payment needs {length - k}"

    def _claim(self, seat: int, action: int) -> None:
        board = self.board
        r, colour, k = self.table.claims[action - self.table.claim]
        length = board.route_length[r]
        hand, known = self.hands[seat], self.known[seat]
        paid: list[int] = []
        if colour != NO_COLOUR:
            hand[colour] -= length - k
            known[colour] = max(0, known[colour] - (length - k))
            paid += [colour] * (length - k)
        hand[LOCO] -= k
        known[LOCO] = max(0, known[LOCO] - k)
        paid += [LOCO] * k
        self.discard.extend(paid)
        self.trains[seat] -= length
        points = board.route_points[length]
        self.route_points[seat] += points
        self.owner[r] = seat
        self.routes_of[seat].append(r)
        partner = board.route_partner[r]
        closed = (r, partner) if self.n <= 3 else (r,)
        self.open_routes = [[info for info in group if info[0] not in closed] for group in self.open_routes]
        self.events.append({
            "type": "claim", "seat": seat, "route": board.route_ids[r],
            "colour": None if colour == NO_COLOUR else board.colours[colour], "locomotives": k,
            "cards": [self.kind_names[c] for c in paid], "points": points, "trains_left": self.trains[seat],
        })
        self.claimed = r
        if self.share_offer():
            self.phase = SHARE
        else:
            self._end_turn()

    def _take_share(self, seat: int, action: int) -> None:
        if action == SHARE_NONE:
            self.events.append({"type": "share", "seat": seat, "company": None, "number": None})
            self._end_turn()
            return
        c = action - self.table.share
        self.taken[c] += 1
        number = self.taken[c]
        self.shares[seat][c].append(number)
        self.events.append({"type": "share", "seat": seat, "company": self.board.companies[c], "number": number})
        if self.n == 2 and self.share_offer():  # §11.2: then a share for the neutral
            self.phase = NEUTRAL
        else:
            self._end_turn()

    def _neutral_share(self, seat: int, c: int) -> None:
        self.taken[c] += 1
        number = self.taken[c]
        self.shares[self.n][c].append(number)
        self.neutral_pile.append((c, number))
        self.events.append({"type": "neutral_share", "seat": seat, "company": self.board.companies[c], "number": number})
        self._end_turn()
