"""Sample Arena bot: determinised rollouts on the SDK's forward model (the search is in search.py).

    python bot.py --address unix:/tmp/bot.sock     (or --address 127.0.0.1:50051, or --port 50051)

At each decision it asks the SDK for samples of the full game consistent with what its seat
knows (``self.match.forward_model(...)``) and plays them on with the engine for about
``SEARCH_BUDGET_S`` seconds (0.2 by default; half for draws and exchanges).
"""

from __future__ import annotations

import os
import sys
import time

from search import DEFAULT_BUDGET_S, budget_for, choose

from arena.sdk import Bot, Match, serve


class SearchBot(Bot):
    name = "search-bot"
    version = "1.0.0"
    author = "Arena"

    def __init__(self, budget_s: float = DEFAULT_BUDGET_S) -> None:
        self.budget_s = budget_s

    def start_match(self, match: Match) -> None:
        # Build the game for this board (and load numpy) before the first decision's clock runs.
        from arena.forward_model import prepare

        prepare(match.game, match.board)

    def decide(self, observation: dict, legal_actions) -> tuple[int, str]:
        if len(legal_actions) == 1:
            return 0, ""
        started = time.perf_counter()
        try:
            model = self.match.forward_model(observation, legal_actions)
        except ValueError as exc:  # e.g. this process was restarted mid-match: the events before are lost
            print(f"search-bot: no forward model ({exc}); a random move", file=sys.stderr)
            return self.match.rng.randrange(len(legal_actions)), "no forward model"
        budget = budget_for(model, self.budget_s)
        if self.match.decision_time_ms:  # never more than 40 % of the decision's own time
            budget = min(budget, 0.4 * self.match.decision_time_ms / 1000)
        budget -= time.perf_counter() - started
        index, figures = choose(model, max(budget, 0.0), self.match.rng)
        return index, f"{figures['rollouts']} rollouts, {figures['rounds']} rounds"


if __name__ == "__main__":
    serve(SearchBot(float(os.environ.get("SEARCH_BUDGET_S", DEFAULT_BUDGET_S))))
