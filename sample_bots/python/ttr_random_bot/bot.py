"""Sample Arena bot for Ticket to Ride: Pennsylvania: a uniformly random legal action, seeded
per match so games reproduce.

    python bot.py --address 127.0.0.1:50051

The only difference from the Union Pacific random bot is ``games``: Describe lists
the games a bot plays, and the host refuses a bot for a game it does not list.
``observation`` is the engine's dict for the seat (docs/protocol.md); each legal
action has ``.text`` ("claim R07 allentown-philadelphia 2 red + 1 locomotive") and
``.action`` ({"kind": "claim", "route": "R07", "colour": "red", "locomotives": 1}).
"""

from __future__ import annotations

from arena.sdk import Bot, serve


class TicketToRideRandomBot(Bot):
    name = "ttr-random-bot"
    version = "1.0.0"
    author = "Arena"
    games = ("ticket_to_ride_pennsylvania",)

    def decide(self, observation: dict, legal_actions) -> int:
        # self.match.rng is seeded from the match id and seat: the same match plays the same.
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(TicketToRideRandomBot())
