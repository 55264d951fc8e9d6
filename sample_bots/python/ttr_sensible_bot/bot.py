"""Sample Arena bot: a sensible Ticket to Ride: Pennsylvania player (the strategy is in strategy.py).

    python bot.py --address unix:/tmp/bot.sock     (or --address 127.0.0.1:50051, or --port 50051)

``games`` tells the host (through Describe) which games the bot plays.  The board
JSON arrives with StartMatch (``match.board``); the strategy indexes it once per
board (the routes, tickets and companies), then decides from the observation and
the legal actions alone.
"""

from __future__ import annotations

import threading

from strategy import BoardMap, choose

from arena.sdk import Bot, Match, serve

GAME = "ticket_to_ride_pennsylvania"


class SensibleBot(Bot):
    name = "ttr-sensible-bot"
    version = "1.0.0"
    author = "Arena"
    games = (GAME,)

    def __init__(self) -> None:
        self._maps: dict[str, BoardMap] = {}  # board name -> its index, shared by the matches on it
        self._lock = threading.Lock()  # decisions of different matches run on different threads

    def _map(self, match: Match) -> BoardMap:
        if match.board is None:  # restarted mid-match: StartMatch (and the board) never came
            from arena.games.ticket_to_ride_pennsylvania import default_game

            board = default_game().board.data
        else:
            board = match.board
        key = str(board.get("name"))
        with self._lock:
            if key not in self._maps:
                self._maps[key] = BoardMap(board)
            return self._maps[key]

    def start_match(self, match: Match) -> None:
        match.data["board"] = self._map(match)

    def decide(self, observation: dict, legal_actions) -> int:
        board = self.match.data.get("board") or self._map(self.match)
        return choose(observation, legal_actions, board)


if __name__ == "__main__":
    serve(SensibleBot())
