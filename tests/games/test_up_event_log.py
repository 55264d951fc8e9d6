"""The Union Pacific event log (events.py): records turned into dicts when ``state.events`` is read.

Reading the events now and then, at every action, only at the end, or through a list that
watches ``append`` (as replay.py's snapshots do) must give the same dicts, and a clone made
between two reads must have the same log as its original.
"""

from __future__ import annotations

import random

from arena.games.union_pacific import default_game
from arena.games.union_pacific.state import UnionPacificState

GAME = default_game()


def _play(state: UnionPacificState, seed: int, each=None) -> None:
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        if each is not None:
            each(state)


class _Watched(list):
    """An event list that notes, at each append, how many actions the state had applied."""

    def __init__(self, items: list, state: UnionPacificState) -> None:
        super().__init__(items)
        self.state = state
        self.at: list[int] = []

    def append(self, event) -> None:
        super().append(event)
        self.at.append(len(self.state.history))


def test_reading_the_events_at_any_time_gives_the_same_dicts_in_the_same_list() -> None:
    for players, seed in ((2, 3), (4, 5), (6, 7)):
        late = GAME.new_state(players, seed)
        _play(late, seed)
        early = GAME.new_state(players, seed)
        log = early.events
        lengths: list[int] = []
        _play(early, seed, lambda s: lengths.append(len(s.events)))
        assert early.events is log  # always the same list, which only grows
        assert lengths == sorted(lengths) and lengths[-1] == len(log)
        assert log == late.events and log[-1]["type"] == "game_end"


def test_a_watched_event_list_gets_each_event_while_its_action_is_applied() -> None:
    state = GAME.new_state(4, 11)
    before = len(state.events)
    watched = _Watched(state.events, state)
    state.events = watched
    decisions: list[int] = []
    rng = random.Random(11)
    while not state.is_terminal():
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        appended = len(watched)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        decisions += [len(state.history) - 1] * (len(watched) - appended)  # appended during this action
    assert len(watched.at) > 100 and len(watched) == before + len(watched.at)
    assert watched.at == decisions  # not later, when the list is read
    state.events = list(state.events)  # a plain list again: lazy from here
    other = GAME.new_state(4, 11)
    _play(other, 11)
    assert state.events == other.events and len(state.events) > before


def test_a_clone_keeps_the_events_not_yet_read() -> None:
    state = GAME.new_state(4, 2)
    rng = random.Random(2)
    for _ in range(40):
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
    clone = state.clone()
    assert clone.events == state.events and clone.events is not state.events
    _play(clone, 9)
    assert clone.events[:len(state.events)] == state.events


def test_a_clone_sets_every_field() -> None:
    state = GAME.new_state(3, 1)
    _play(state, 1, lambda s: None)
    for original in (GAME.new_state(5, 4), state):
        clone = original.clone()
        for name in UnionPacificState.__slots__:
            assert getattr(clone, name) == getattr(original, name), name


def test_a_state_can_be_weakly_referenced() -> None:
    """A bot may key a cache on states weakly (the slotted state keeps ``__weakref__``)."""
    import weakref

    state = GAME.new_state(4, 2)
    kept = weakref.WeakKeyDictionary({state: 1})
    assert kept[state] == 1 and weakref.ref(state)() is state

