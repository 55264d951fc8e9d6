"""Golden "playthrough" transcripts (in the manner of OpenSpiel's): a seeded random
game per table size written out decision by decision, with every event.

Re-run and diff: ``tests/test_golden.py`` fails on any change.  After a deliberate
change of behaviour, regenerate with ``python -m tests.golden_transcript`` and
review the diff like code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arena.games.union_pacific import default_game
from arena.policies import RandomPolicy

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = [(2, 11, "standard"), (3, 12, "standard"), (4, 13, "standard"), (5, 14, "pro"), (6, 15, "standard")]


def golden_path(players: int, seed: int, variant: str) -> Path:
    return GOLDEN_DIR / f"union_pacific-{players}p-seed{seed}-{variant}.txt"


def transcript(players: int, seed: int, variant: str) -> str:
    game = default_game()
    state = game.new_state(players, seed, variant)
    policies = [RandomPolicy(seed * 10 + s) for s in range(players)]
    lines = [f"game union_pacific players {players} seed {seed} variant {variant} board {game.board_info()['sha256']}"]
    seen = 0

    def flush_events() -> None:
        nonlocal seen
        for event in state.events[seen:]:
            lines.append("  " + json.dumps(event, sort_keys=True, separators=(",", ":")))
        seen = len(state.events)

    flush_events()
    while not state.is_terminal():
        for seat in state.current_seats():
            legal = state.legal_actions(seat)
            action = policies[seat](state, seat, legal)
            lines.append(f"seat {seat} {state.decision_kind(seat)} ({len(legal)} legal): {state.action_to_string(action)}")
            state.apply_action(seat, action)
            flush_events()
    lines.append("result " + json.dumps(state.outcome().to_json(), sort_keys=True))
    return "\n".join(lines) + "\n"


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for case in CASES:
        path = golden_path(*case)
        path.write_text(transcript(*case))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
