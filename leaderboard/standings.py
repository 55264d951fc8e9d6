"""The leaderboard: ratings fitted from the stored results of one game, joined with each
bot's match statistics, one row per participant (the game's reference participants,
such as Union Pacific's imaginary shareholder, as marked reference rows), with the likelihood of superiority between neighbours and the
cross-table.  The terminal table and the web pages both show these.

Ratings are per game: a bot's Union Pacific rating and its Ticket to Ride rating are
separate fits.  A tournament's scope is its game; the overall scope names one
(:func:`scope_game`).

A participant is a bot version, ``NAME@NUMBER``: every version is rated on its own,
in one fit over all the results (old versions are opponents like any other).  By
default the rows are each bot's newest version that has results in the scope (a
version added since shows once it has played); ``all_versions`` gives every one.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from leaderboard.crosstable import CrossTable, cross_table
from leaderboard.finishing_orders import RatedMatch, is_reference_participant
from leaderboard.ratings import RatingFit, fit
from leaderboard.result_arrays import ResultArrays
from leaderboard.result_reader import read_results
from leaderboard.rows import RatingEntry, RatingPoint, split_participant
from leaderboard.store import Store

#: The likelihood of superiority is given for each row against the next this many rows.
SUPERIORITY_WINDOW = 3


@dataclass(frozen=True)
class Standing:
    rank: int | None  # None for the reference row
    name: str  # the participant: NAME@NUMBER, or the reference row's name
    reference: bool
    elo: float
    ci_low: float | None
    ci_high: float | None
    live_elo: float
    matches: int
    wins: int
    mean_place: float | None
    mean_score: float | None  # in the game's score unit (its spec's score_name)
    forfeits: int
    faults: int
    bot: str | None = None  # the bot's name (None for the reference row)
    version: int | None = None  # the version number
    current: bool = False  # whether it is the bot's newest registered version

    @property
    def ci_half_width(self) -> float | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return (self.ci_high - self.ci_low) / 2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Superiority:
    """How sure the ranking is that ``above`` is better than ``below`` (``distance`` rows lower)."""

    above: str
    below: str
    distance: int
    p: float  # share of bootstrap resamples rating ``above`` higher (ties count half)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, eq=False)
class Leaderboard:
    """The standings of one scope with what qualifies them.

    ``players`` is the table size the scope is limited to (None: every size);
    ``table_sizes`` the sizes stored in the scope (for links to each);
    ``superiority`` each row against the next :data:`SUPERIORITY_WINDOW` rows (empty
    without bootstrap); ``resamples`` and ``method`` how the intervals were made.
    """

    standings: list[Standing]
    superiority: list[Superiority]
    cross_table: CrossTable
    players: int | None
    table_sizes: list[int]
    resamples: int
    method: str | None
    game: str | None = None  # the game rated (None: nothing stored yet)


class GameChoiceError(ValueError):
    """The overall scope of a store that holds several games, and no game named."""


def scope_game(store: Store, tournament_id: int | None, game: str | None) -> str | None:
    """The game a scope rates: a tournament's own (``game``, if given, must agree); for the
    overall scope ``game``, or the one game the store holds (None when it holds none)."""
    if tournament_id is not None:
        found = store.get_tournament(tournament_id).game
        if game is not None and game != found:
            raise GameChoiceError(f"tournament {tournament_id} plays {found}, not {game}")
        return found
    if game is not None:
        return game
    games = store.games()
    if len(games) > 1:
        raise GameChoiceError(f"the store holds results of several games ({', '.join(games)}): "
                              "ratings are per game, name one (--game)")
    return games[0] if games else None


@dataclass(frozen=True, eq=False)
class RatedScope:
    """One rating fit of a scope, before the rows shown are chosen: every participant's row
    (best Elo first, unranked), the fit (its bootstrap draws give the likelihoods of
    superiority) and the cross-table.  Which versions are shown does not change the fit:
    :meth:`board` makes either view from it (the web pages keep both from one fit)."""

    rows: list[Standing]
    ratings: RatingFit
    cross_table: CrossTable
    players: int | None
    table_sizes: list[int]
    resamples: int
    game: str | None

    def board(self, all_versions: bool = False) -> Leaderboard:
        """The leaderboard of the rows shown, ranked among themselves: each bot's newest version
        with results, or every version with ``all_versions``; the likelihood of superiority
        between those rows' neighbours.  The cross-table is the fit's, shared by both views."""
        ranked = ranked_rows(self.rows if all_versions else newest_versions(self.rows))
        superiority = []
        if self.resamples:
            for i, row in enumerate(ranked):
                for distance, other in enumerate(ranked[i + 1:i + 1 + SUPERIORITY_WINDOW], start=1):
                    p = self.ratings.superiority(row.name, other.name)
                    assert p is not None
                    superiority.append(Superiority(row.name, other.name, distance, p))
        return Leaderboard(standings=ranked, superiority=superiority, cross_table=self.cross_table,
                           players=self.players, table_sizes=self.table_sizes, resamples=self.resamples,
                           method=self.ratings.method, game=self.game)


def compute_leaderboard(store: Store, tournament_id: int | None = None, *, players: int | None = None,
                        game: str | None = None, bootstrap: int = 200, seed: int = 0, save: bool = True,
                        all_versions: bool = False, matches: list[RatedMatch] | None = None,
                        results: ResultArrays | None = None, live: np.ndarray | None = None,
                        live_now: dict[Hashable, float] | None = None) -> Leaderboard:
    """Fit the ratings of one tournament (or of every stored match), optionally of one
    table size only, and build the rows, the likelihoods of superiority and the cross-table.

    Best Elo first, ranked among the rows shown: each bot's newest version with results,
    or every version with ``all_versions`` (:meth:`RatedScope.board` of :func:`rate_scope`,
    which takes the other arguments).
    """
    return rate_scope(store, tournament_id, players=players, game=game, bootstrap=bootstrap, seed=seed,
                      save=save, matches=matches, results=results, live=live,
                      live_now=live_now).board(all_versions)


def rate_scope(store: Store, tournament_id: int | None = None, *, players: int | None = None,
               game: str | None = None, bootstrap: int = 200, seed: int = 0, save: bool = True,
               matches: list[RatedMatch] | None = None, results: ResultArrays | None = None,
               live: np.ndarray | None = None, live_now: dict[Hashable, float] | None = None) -> RatedScope:
    """Fit the ratings of one tournament (or of every stored match), optionally of one
    table size only: a row per participant (every version) and the cross-table, from which
    :meth:`RatedScope.board` makes the leaderboard of the rows shown.

    With ``save`` (and no ``players``) the
    ratings of every version and the live-Elo history are stored too (the web pages
    draw the rating charts from them).  The scope's results are read as arrays
    (:func:`leaderboard.result_reader.read_results`) unless the caller has them:
    ``results``, and ``live`` their ``live_elo()`` (or ``live_now``, its
    ``last_per_participant``: the whole ``live`` need not be held during the fit); or
    ``matches`` (``RatedMatch`` objects).
    ``game``: the game rated overall (:func:`scope_game`; a tournament rates its own).
    """
    game = scope_game(store, tournament_id, game)  # also a clear error for an unknown id
    table_sizes = store.table_sizes(tournament_id, game=game)
    if results is None:
        if matches is not None:
            results = ResultArrays.from_matches(matches)
        else:
            with store.snapshot_session() as session:
                results = read_results(session, tournament_id, table_size=players, game=game,
                                       ids=save and players is None and game is not None)
    orders = results.orders()
    result = fit(orders, bootstrap=bootstrap, seed=seed)
    if live_now is None:
        if live is None:
            live = results.live_elo()
        live_now = results.last_per_participant(live)
    from_cells = results.bot_stats()
    stats = {s.bot: s for s in (from_cells if from_cells is not None
                                else store.bot_stats(tournament_id, table_size=players, game=game))}
    reference_places = {str(name): results.places_of(name) for name in results.names
                        if is_reference_participant(name)}
    newest = {b.name: b.number for b in store.list_bots(include_removed=True)}
    rows: list[Standing] = []
    for name, rating in result.ratings.items():
        s = stats.get(name)
        parts = None if rating.reference else split_participant(name)
        ref = reference_places.get(name, [])
        rows.append(Standing(
            rank=None,
            name=name,
            reference=rating.reference,
            elo=rating.elo,
            ci_low=rating.ci_low,
            ci_high=rating.ci_high,
            live_elo=live_now.get(name, 1500.0),
            matches=s.matches if s else len(ref),
            wins=s.wins if s else ref.count(1),
            mean_place=s.mean_place if s else (sum(ref) / len(ref) if ref else None),
            mean_score=s.mean_score if s else None,
            forfeits=s.forfeits if s else 0,
            faults=s.faults if s else 0,
            bot=None if parts is None else parts[0],
            version=None if parts is None else parts[1],
            current=parts is not None and newest.get(parts[0]) == parts[1],
        ))
    rows.sort(key=lambda r: (-r.elo, r.name))
    if save and players is None and game is not None:
        store.save_ratings(
            tournament_id,
            [RatingEntry(r.name, r.elo, r.ci_low, r.ci_high, r.live_elo) for r in rows],
            [RatingPoint(key, who, elo) for key, after in results.history(live if live is not None else
                                                                          results.live_elo())
             for who, elo in after.items()],
            game=game,
        )
    return RatedScope(rows=rows, ratings=result, cross_table=cross_table(orders), players=players,
                      table_sizes=table_sizes, resamples=bootstrap, game=game)


def compute_standings(store: Store, tournament_id: int | None = None, *, players: int | None = None,
                      game: str | None = None, bootstrap: int = 200, seed: int = 0, save: bool = True,
                      all_versions: bool = False) -> list[Standing]:
    """The rows of :func:`compute_leaderboard`."""
    return compute_leaderboard(store, tournament_id, players=players, game=game, bootstrap=bootstrap, seed=seed,
                               save=save, all_versions=all_versions).standings


def newest_versions(rows: list[Standing]) -> list[Standing]:
    """Each bot's newest version among ``rows`` (and the reference row), in the same order."""
    shown: dict[str, int] = {}
    for row in rows:
        if row.bot is not None and (row.version or 0) > shown.get(row.bot, 0):
            shown[row.bot] = row.version or 0
    return [r for r in rows if r.bot is None or r.version == shown[r.bot]]


def ranked_rows(rows: list[Standing]) -> list[Standing]:
    """The rows (best Elo first) ranked 1, 2, 3... (the reference row unranked)."""
    ranked: list[Standing] = []
    rank = 0
    for row in rows:
        if not row.reference:
            rank += 1
        ranked.append(Standing(**{**asdict(row), "rank": None if row.reference else rank}))
    return ranked
