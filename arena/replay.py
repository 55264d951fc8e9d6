"""Replays: the JSON record of a finished game, and their verification.

A replay holds what is needed to re-play the game (game, seed, variant, players,
board hash, the actions in text form) and what the game produced (the event log and
the result).  :func:`verify_replay` re-plays it and says whether it reproduces the
same events and result.  The format is documented in docs/replay-format.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from arena.games import get_game
from arena.games.base import Game, GameState, IllegalActionError, ReplayError

FORMAT = "arena-replay"
VERSION = 1


def build_replay(
    game: Game,
    state: GameState,
    *,
    seed: int,
    variant: str,
    seats: Sequence[str] | None = None,
    match: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The replay of a finished ``state`` (JSON-ready).

    ``seats`` names who sat where (bot names); ``match`` holds what the host adds
    (match id, faults, forfeits, the match's own result).
    """
    if not state.is_terminal():
        raise ValueError("a replay is made of a finished game")
    names = list(seats) if seats is not None else [f"seat {s}" for s in range(state.num_players)]
    replay: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.name,
        "rules": game.spec.rules_revision,
        "seed": seed,
        "variant": variant,
        "players": state.num_players,
        "board": game.board_info(),
        "seats": [{"seat": s, "name": name} for s, name in enumerate(names)],
        "actions": [{"seat": seat, "action": state.action_to_string(a)} for seat, a in state.history],
        "events": list(state.events),
        "result": state.outcome().to_json(),
    }
    if match is not None:
        replay["match"] = match
    return replay


@dataclass(frozen=True)
class Verification:
    ok: bool
    message: str
    actions: int
    events: int


def _need(data: dict[str, Any], key: str, kind: type, where: str = "replay") -> Any:
    if key not in data:
        raise ReplayError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReplayError(f"{where}: field {key!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def load_replay(path: str | Path) -> dict[str, Any]:
    """Read a replay file; a missing, unreadable or non-JSON file raises ReplayError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{p}: cannot read it: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                          "the file is corrupt or truncated") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{p}: a replay is a JSON object, this file holds a {type(data).__name__}")
    return data


def replay_game(data: dict[str, Any]) -> tuple[Game, GameState]:
    """Re-play a replay's actions from its seed; raises ReplayError if they cannot be played."""
    played = None
    for played in _replaying(data):
        pass
    assert played is not None  # the set-up is always yielded
    return played


def action_event_spans(data: dict[str, Any]) -> list[tuple[int, int]]:
    """For each action of a replay, the events it produced: ``(first, end)``, end exclusive.

    The game itself says so, by re-playing the actions (an action may produce no event,
    then ``first == end``: the index of the next event).  Raises :class:`ReplayError` when
    the replay cannot be re-played or does not reproduce its stored events.
    """
    stored = _need(data, "events", list)
    counts: list[int] = []
    state: GameState | None = None
    for _, state in _replaying(data):
        counts.append(len(state.events))
    if state is None or list(state.events) != stored:
        raise ReplayError("replay: re-playing its actions does not reproduce its stored events")
    return list(zip(counts, counts[1:]))


class _Recording(list):  # type: ignore[type-arg]
    """An event log that calls ``seen(event)`` as the engine appends each event."""

    def __init__(self, items: list[Any], seen: Callable[[Any], None]) -> None:
        super().__init__(items)
        self._seen = seen

    def append(self, event: Any) -> None:
        super().append(event)
        self._seen(event)


def event_snapshots(data: dict[str, Any], snapshot: Callable[[GameState, dict[str, Any] | None], Any]) -> list[Any]:
    """Re-play a replay with its game's engine and take ``snapshot(state, event)`` at each event
    the engine emits, the moment it emits it: one per stored event, in order.

    This is how a game's view (its kit's ``view`` module) shows the game after each event
    without a second copy of its rules: the state is the engine's own.  The events the
    engine emits while it sets a game up come before any action; they share one snapshot,
    taken after the set-up (``event`` is None then).  An engine must add its events with
    ``append`` (both do); one that added them otherwise would leave events without a
    snapshot, which is refused.  Raises :class:`ReplayError` when the replay cannot be
    re-played or does not reproduce its stored events.
    """
    stored = _need(data, "events", list)
    shots: list[Any] = []
    state: GameState | None = None
    try:
        for i, (_, state) in enumerate(_replaying(data)):
            if i == 0:
                first = snapshot(state, None)
                shots.extend(first for _ in state.events)
                watched = state
                state.events = _Recording(  # type: ignore[misc]  # the engines keep their log in a plain list
                    list(state.events), lambda event: shots.append(snapshot(watched, event)))
    finally:
        if state is not None:
            state.events = list(state.events)  # type: ignore[misc]  # the engine's plain list again
    if state is None or state.events != stored:
        raise ReplayError("replay: re-playing its actions does not reproduce its stored events")
    if len(shots) != len(stored):
        raise ReplayError(f"replay: {len(stored)} events but {len(shots)} snapshots (the engine added events "
                          "other than by append)")
    return shots


def frame_changes(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """What changed from snapshot ``before`` to ``after`` (``after`` whole when ``before`` is None):
    each changed key's new value, except that a list of lists or objects that kept its length
    (seats, sections) is sent as ``{"@": {index: item}}`` of its changed items.  The web app's
    viewer (leaderboard/web/static/replay-core.js) puts the steps back together."""
    if before is None:
        return after
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if value == old:
            continue
        if isinstance(value, list) and isinstance(old, list) and len(value) == len(old) and value \
                and isinstance(value[0], (list, dict)):
            out[key] = {"@": {str(i): item for i, item in enumerate(value) if item != old[i]}}
        else:
            out[key] = value
    return out


def event_frames(data: dict[str, Any], snapshot: Callable[[GameState, dict[str, Any] | None], dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """:func:`event_snapshots`, each sent as the changes from the one before (:func:`frame_changes`)."""
    shots = event_snapshots(data, snapshot)
    return [frame_changes(before, after) for before, after in zip([None, *shots], shots)]


def _replaying(data: dict[str, Any]) -> Iterator[tuple[Game, GameState]]:
    """The game after its set-up, then after each action of ``data`` (one state, updated in place)."""
    if data.get("format") != FORMAT:
        raise ReplayError(f"replay: field 'format' must be {FORMAT!r}, got {data.get('format')!r}")
    version = _need(data, "version", int)
    if version != VERSION:
        raise ReplayError(f"replay: format version {version} is not supported (this Arena reads version {VERSION})")
    name = _need(data, "game", str)
    try:
        game = get_game(name)
    except ValueError as exc:
        raise ReplayError(f"replay: {exc}") from None
    rules = data.get("rules", 1)  # absent: recorded before replays named their rules revision
    if not isinstance(rules, int) or isinstance(rules, bool) or rules < 1:
        raise ReplayError(f"replay: field 'rules' must be a whole number from 1, got {rules!r}")
    if rules > game.spec.rules_revision:
        raise ReplayError(f"replay: it was recorded under revision {rules} of the {game.spec.title} rules; this "
                          f"Arena plays revision {game.spec.rules_revision}: re-play it with a newer Arena")
    seed = _need(data, "seed", int)
    variant = _need(data, "variant", str)
    players = _need(data, "players", int)
    board = _need(data, "board", dict)
    if board.get("sha256") != game.board_info()["sha256"]:
        raise ReplayError(
            f"replay: it was played on board {board.get('name')!r} ({str(board.get('sha256'))[:12]}…), "
            f"not on this Arena's board {game.board_info()['name']!r} ({game.board_info()['sha256'][:12]}…)")
    actions = _need(data, "actions", list)
    try:
        state = game.new_state(players, seed, variant)
    except ValueError as exc:
        raise ReplayError(f"replay: {exc}") from None
    yield game, state
    for i, entry in enumerate(actions):
        where = f"replay: action #{i}"
        if not isinstance(entry, dict):
            raise ReplayError(f"{where}: expected an object, got {type(entry).__name__}")
        seat = _need(entry, "seat", int, where)
        text = _need(entry, "action", str, where)
        if state.is_terminal():
            raise ReplayError(f"{where} ({text!r}): the game was already over")
        try:
            state.apply_action(seat, state.string_to_action(text))
        except IllegalActionError as exc:
            raise ReplayError(f"{where}: seat {seat} cannot play {text!r}: {exc}") from None
        yield game, state


def verify_replay(data: dict[str, Any]) -> Verification:
    """Re-play ``data`` and compare its events and result with the stored ones.

    A structurally broken replay raises :class:`ReplayError`; a well-formed one
    that does not reproduce returns ``ok=False`` with the first difference.
    """
    if not isinstance(data, dict):
        raise ReplayError(f"replay: expected a JSON object, got {type(data).__name__}")
    stored_events = _need(data, "events", list)
    stored_result = _need(data, "result", dict)
    try:
        _, state = replay_game(data)
    except ReplayError as exc:
        note = _older_rules(data) if isinstance(data.get("game"), str) else ""
        raise ReplayError(f"{exc}; {note}" if note else str(exc)) from None
    n_actions = len(data["actions"])
    if not state.is_terminal():
        verdict = Verification(False, f"the {n_actions} actions do not finish the game", n_actions,
                               len(stored_events))
    else:
        verdict = _compare(data, state, stored_events, stored_result, n_actions)
    if not verdict.ok:
        note = _older_rules(data)
        if note:
            return Verification(False, f"{verdict.message}; {note}", verdict.actions, verdict.events)
    return verdict


def _older_rules(data: dict[str, Any]) -> str:
    """Why a replay recorded under an earlier revision of its game's rules may not re-play ('' if it was not)."""
    try:
        spec = get_game(data["game"]).spec
    except ValueError:
        return ""
    recorded = data.get("rules", 1)
    if not isinstance(recorded, int) or isinstance(recorded, bool) or recorded >= spec.rules_revision:
        return ""
    changes = "; ".join(spec.rules_changes[max(recorded - 1, 0):])
    return (f"it was recorded under revision {recorded} of the {spec.title} rules and this Arena plays revision "
            f"{spec.rules_revision}, which changed: {changes}. Its stored events and result still stand; "
            "only the re-play differs")


def _compare(data: dict[str, Any], state: GameState, stored_events: list[Any], stored_result: dict[str, Any],
             n_actions: int) -> Verification:
    events = list(state.events)
    for i, (mine, theirs) in enumerate(zip(events, stored_events)):
        if mine != theirs:
            return Verification(False, f"event #{i} differs: replayed {_short(mine)}, stored {_short(theirs)}",
                                n_actions, len(stored_events))
    if len(events) != len(stored_events):
        return Verification(False, f"the replay stores {len(stored_events)} events, re-playing gives {len(events)}",
                            n_actions, len(stored_events))
    result = state.outcome().to_json()
    if result != stored_result:
        return Verification(False, f"result differs: replayed {_short(result)}, stored {_short(stored_result)}",
                            n_actions, len(stored_events))
    return Verification(True, f"reproduced {n_actions} actions, {len(events)} events and the result", n_actions,
                        len(events))


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_replay(path: str | Path, replay: dict[str, Any]) -> Path:
    """Write a replay atomically (a temporary file renamed into place)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(replay, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(p)
    return p
