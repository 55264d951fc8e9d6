"""Sample Arena bot "investor": a deliberately simple rule-of-thumb player.

It invests the most shares it can of its biggest holding whenever it may, builds
for the company it holds most of otherwise, draws from the deck, never exchanges.
A middle-of-the-road opponent between the random and the greedy bot.

    python bot.py --address unix:/tmp/bot.sock     (or --address 127.0.0.1:50051, or --port 50051)
"""

from __future__ import annotations

from arena.sdk import Bot, serve


def holding(observation: dict, company: str) -> int:
    """Shares of ``company`` this seat has invested or holds in hand."""
    me = observation["players"][observation["seat"]]
    return me["invested"].get(company, 0) + observation["hand"]["shares"].get(company, 0)


def score(observation: dict, action: dict) -> float:
    kind = action["kind"]
    if kind == "first_invest":
        return observation["hand"]["shares"].get(action["company"], 0) - (action["company"] == "UP")
    if kind == "invest":
        return 100 + sum(action["shares"].values()) * 10 + max(holding(observation, c) for c in action["shares"])
    if kind == "build":
        return 50 + holding(observation, action["company"]) + (action["card"] != "WILD")
    if kind == "draw":
        return 1 if action["source"] == "deck" else 0
    if kind == "exchange":
        return 1 if action["company"] is None else 0
    return 0  # pass: the only choice when it is offered


class InvestorBot(Bot):
    name = "investor-bot"
    version = "1.0.0"
    author = "Arena"

    def decide(self, observation: dict, legal_actions) -> int:
        best = max(range(len(legal_actions)), key=lambda i: score(observation, legal_actions[i].action))
        return best


if __name__ == "__main__":
    serve(InvestorBot())
