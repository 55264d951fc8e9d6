"""The store's saved ratings: a rating fit's table and history, per tournament or overall."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import and_, delete, insert
from sqlmodel import Session, col, select

from leaderboard.errors import UnknownMatchError
from leaderboard.models import Match, RatingHistory, RatingSnapshot, Tournament
from leaderboard.rows import RatingEntry, RatingPoint, SavedRatings
from leaderboard.store_core import StoreCore, _check_ratings, _find_tournament, _match_scope, _now, _rating_scope


class RatingStore(StoreCore):
    """Saved ratings (a part of :class:`leaderboard.store.Store`)."""

    def save_ratings(
        self,
        tournament_id: int | None,
        entries: Iterable[RatingEntry],
        history: Iterable[RatingPoint],
        *,
        computed_at: datetime | None = None,
        game: str | None = None,
    ) -> None:
        """Replace the ratings of one scope (a tournament, or overall in ``game`` for None), in
        one transaction.  Ratings are per game: the overall scope needs ``game``.

        History points must refer to stored matches of that scope.
        """
        entries = list(entries)
        history = list(history)
        _check_ratings(entries, history)
        computed_at = computed_at or _now()
        with self._write() as session:
            game = _scope_game(session, tournament_id, game)
            scope = _match_scope(tournament_id)
            if tournament_id is None:
                scope = and_(scope, col(Match.tournament_id).in_(
                    select(col(Tournament.id)).where(col(Tournament.game) == game)))
            in_scope = set(session.exec(select(col(Match.id)).where(scope)))
            unknown = sorted({p.match_id for p in history} - in_scope)
            if unknown:
                where = "overall" if tournament_id is None else f"in tournament {tournament_id}"
                raise UnknownMatchError(
                    f"rating history refers to matches not stored {where}: {', '.join(unknown[:5])}"
                    + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                )
            session.exec(delete(RatingHistory).where(_rating_scope(RatingHistory, tournament_id, game)))
            session.exec(delete(RatingSnapshot).where(_rating_scope(RatingSnapshot, tournament_id, game)))
            if entries:
                session.exec(
                    insert(RatingSnapshot),
                    params=[
                        {
                            "tournament_id": tournament_id,
                            "game": game,
                            "participant": e.participant,
                            "elo": e.elo,
                            "ci_low": e.ci_low,
                            "ci_high": e.ci_high,
                            "live_elo": e.live_elo,
                            "computed_at": computed_at,
                        }
                        for e in entries
                    ],
                )
            if history:
                session.exec(
                    insert(RatingHistory),
                    params=[
                        {
                            "tournament_id": tournament_id,
                            "game": game,
                            "match_id": p.match_id,
                            "participant": p.participant,
                            "elo": p.elo,
                        }
                        for p in history
                    ],
                )

    def load_ratings(self, tournament_id: int | None = None, *, game: str | None = None) -> SavedRatings | None:
        """The ratings last saved for the scope (a tournament, or overall in ``game``), or None if none were."""
        with self._read() as session:
            game = _scope_game(session, tournament_id, game)
            snapshots = session.exec(
                select(RatingSnapshot)
                .where(_rating_scope(RatingSnapshot, tournament_id, game))
                .order_by(col(RatingSnapshot.elo).desc(), col(RatingSnapshot.participant))
            ).all()
            points = session.exec(
                select(
                    col(RatingHistory.match_id),
                    col(RatingHistory.participant),
                    col(RatingHistory.elo),
                )
                .join(Match, col(RatingHistory.match_id) == col(Match.id))
                .where(_rating_scope(RatingHistory, tournament_id, game))
                .order_by(
                    col(Match.tournament_id),
                    col(Match.schedule_index),
                    col(RatingHistory.participant),
                )
            ).all()
        if not snapshots and not points:
            return None
        return SavedRatings(
            computed_at=max((s.computed_at for s in snapshots), default=None),
            entries=tuple(
                RatingEntry(
                    participant=s.participant,
                    elo=s.elo,
                    ci_low=s.ci_low,
                    ci_high=s.ci_high,
                    live_elo=s.live_elo,
                )
                for s in snapshots
            ),
            history=tuple(RatingPoint(match_id=m, participant=p, elo=elo) for m, p, elo in points),
        )


def _scope_game(session: Session, tournament_id: int | None, game: str | None) -> str:
    """The game of a ratings scope: the tournament's, or the one given for the overall scope."""
    if tournament_id is not None:
        found = _find_tournament(session, tournament_id).game
        if game is not None and game != found:
            raise ValueError(f"tournament {tournament_id} plays {found!r}, not {game!r}")
        return found
    if game:
        return game
    games = sorted(set(session.exec(select(col(Tournament.game))).all()))
    if len(games) != 1:
        raise ValueError("overall ratings are per game: name the game"
                         + (f" (the store holds {', '.join(games)})" if games else ""))
    return games[0]


# -- writing a match ------------------------------------------------------------
