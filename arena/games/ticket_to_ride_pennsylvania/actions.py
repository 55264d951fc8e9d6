"""Ticket to Ride: Pennsylvania actions: int ids, their structured form and their text form.

Every action of every decision has a fixed id in one dense range.  The fixed
blocks come first; the claims, whose number depends on the board, come last:

==============  =========================================  ==========================================
block           id                                         text
==============  =========================================  ==========================================
keep tickets    ``mask`` (0-31: bit i keeps offered i)     ``keep 0 2 3``
take face-up    ``TAKE + kind`` (8 colours, locomotive)    ``take red`` / ``take locomotive``
blind draw      ``BLIND``                                  ``draw blind``
draw tickets    ``TICKETS``                                ``draw tickets``
pass            ``PASS``                                   ``pass``
share           ``SHARE_NONE`` / ``SHARE + company``       ``share none`` / ``share PRR``
neutral share   ``NEUTRAL + company``                      ``neutral share PRR``
claim           ``claim_base[route] + payment``            ``claim R07 allentown-philadelphia 2 red + 1 locomotive``
==============  =========================================  ==========================================

A claim's payment is a pair (colour, locomotives): ``L - k`` cards of one colour
plus ``k`` locomotives, or ``L`` locomotives and no colour.  A route's payments
are numbered colour by colour (the route's own colour, or the 8 colours of a grey
route), ``k`` ascending from the route's locomotive symbols to ``L - 1``, then
the all-locomotive payment last; so enumerating routes in order, and each
route's payments in that order, gives sorted ids.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import IllegalActionError
from arena.games.common import ActionTexts
from arena.games.ticket_to_ride_pennsylvania.board import GREY, LOCO, NUM_COLOURS, NUM_KINDS, Board

KEEP = 0
KEEP_MASKS = 32
TAKE = KEEP + KEEP_MASKS
BLIND = TAKE + NUM_KINDS
TICKETS = BLIND + 1
PASS = TICKETS + 1
SHARE_NONE = PASS + 1
SHARE = SHARE_NONE + 1
#: The payment colour of an all-locomotive claim.
NO_COLOUR = -1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ActionTable(ActionTexts):
    """The id layout for one board (its companies and routes set the last blocks)."""

    game_title = "Ticket to Ride: Pennsylvania"

    def __init__(self, board: Board) -> None:
        self.board = board
        c = board.num_companies
        self.share = SHARE
        self.neutral = SHARE + c
        self.claim = self.neutral + c
        #: claim_base[r]: the id of route r's first payment; payments[r]: its (colour, k) pairs in id order
        self.claim_base: list[int] = []
        self.payments: list[tuple[tuple[int, int], ...]] = []
        #: per claim id (minus self.claim): (route, colour, locomotives)
        self.claims: list[tuple[int, int, int]] = []
        for r in range(board.num_routes):
            length, m = board.route_length[r], board.route_locos[r]
            colours = range(NUM_COLOURS) if board.route_colour[r] == GREY else (board.route_colour[r],)
            pays = [(col, k) for col in colours for k in range(m, length)] + [(NO_COLOUR, length)]
            self.claim_base.append(self.claim + len(self.claims))
            self.payments.append(tuple(pays))
            self.claims.extend((r, col, k) for col, k in pays)
        #: per route, the number of payments of one colour (L - m): a grey route's colour block size
        self.colour_block = tuple(board.route_length[r] - board.route_locos[r] for r in range(board.num_routes))
        self.size = self.claim + len(self.claims)
        #: per route, what enumerating its claims needs:
        #: (route, length, partner, locomotive symbols, first id, colour, colour block size, all-locomotive id)
        self.route_info = tuple(
            (r, board.route_length[r], board.route_partner[r], board.route_locos[r], self.claim_base[r],
             board.route_colour[r], self.colour_block[r], self.claim_base[r] + len(self.payments[r]) - 1)
            for r in range(board.num_routes))

    def claim_id(self, route: int, colour: int, locomotives: int) -> int:
        """The id of claiming ``route`` with ``length - k`` cards of ``colour`` and ``k`` locomotives."""
        board = self.board
        length, m = board.route_length[route], board.route_locos[route]
        base = self.claim_base[route]
        if locomotives == length:
            return base + len(self.payments[route]) - 1
        block = 0 if board.route_colour[route] != GREY else colour
        return base + block * (length - m) + (locomotives - m)

    # -- structured form ---------------------------------------------------------

    def describe(self, action: int) -> dict[str, Any]:
        """The structured form of an action id (JSON-ready)."""
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < self.size:
            raise IllegalActionError(f"{action!r} is not an action id (0 to {self.size - 1})")
        board = self.board
        if action < TAKE:
            return {"kind": "keep_tickets", "positions": [i for i in range(5) if action >> i & 1]}
        if action < BLIND:
            return {"kind": "take", "card": board.kind_names[action - TAKE]}
        if action == BLIND:
            return {"kind": "blind"}
        if action == TICKETS:
            return {"kind": "draw_tickets"}
        if action == PASS:
            return {"kind": "pass"}
        if action < self.neutral:
            return {"kind": "share", "company": None if action == SHARE_NONE else board.companies[action - SHARE]}
        if action < self.claim:
            return {"kind": "neutral_share", "company": board.companies[action - self.neutral]}
        route, colour, k = self.claims[action - self.claim]
        return {"kind": "claim", "route": board.route_ids[route],
                "colour": None if colour == NO_COLOUR else board.colours[colour], "locomotives": k}

    # -- text form -----------------------------------------------------------------

    def to_string(self, action: int) -> str:
        d = self.describe(action)
        kind = d["kind"]
        if kind == "keep_tickets":
            return "keep " + (" ".join(map(str, d["positions"])) or "none")
        if kind == "take":
            return f"take {d['card']}"
        if kind == "blind":
            return "draw blind"
        if kind == "draw_tickets":
            return "draw tickets"
        if kind == "pass":
            return "pass"
        if kind == "share":
            return f"share {d['company'] or 'none'}"
        if kind == "neutral_share":
            return f"neutral share {d['company']}"
        board = self.board
        route, colour, k = self.claims[action - self.claim]
        length = board.route_length[route]
        where = f"{board.nodes[board.route_a[route]]}-{board.nodes[board.route_b[route]]}"
        if colour == NO_COLOUR:
            paid = _plural(k, "locomotive")
        else:
            paid = f"{length - k} {board.colours[colour]}" + (f" + {_plural(k, 'locomotive')}" if k else "")
        return f"claim {d['route']} {where} {paid}"



def action_kind(table: ActionTable, action: int) -> str:
    """The ``kind`` of :meth:`ActionTable.describe`, without building the dict."""
    if action < TAKE:
        return "keep_tickets"
    if action < BLIND:
        return "take"
    if action >= table.claim:
        return "claim"
    if action < table.neutral:
        return {BLIND: "blind", TICKETS: "draw_tickets", PASS: "pass"}.get(action, "share")
    return "neutral_share"


__all__ = ["ActionTable", "BLIND", "KEEP", "KEEP_MASKS", "LOCO", "NO_COLOUR", "PASS", "SHARE", "SHARE_NONE", "TAKE",
           "TICKETS", "action_kind"]
