"""The store's saved ratings: a rating fit's table and history, per tournament or overall."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, insert
from sqlmodel import col, select

from leaderboard.errors import UnknownMatchError
from leaderboard.models import Match, RatingHistory, RatingSnapshot
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
    ) -> None:
        """Replace the ratings of one scope (a tournament, or overall for None), in one transaction.

        History points must refer to stored matches of that scope.
        """
        entries = list(entries)
        history = list(history)
        _check_ratings(entries, history)
        computed_at = computed_at or _now()
        with self._write() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            in_scope = set(session.exec(select(col(Match.id)).where(_match_scope(tournament_id))))
            unknown = sorted({p.match_id for p in history} - in_scope)
            if unknown:
                where = "overall" if tournament_id is None else f"in tournament {tournament_id}"
                raise UnknownMatchError(
                    f"rating history refers to matches not stored {where}: {', '.join(unknown[:5])}"
                    + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                )
            session.exec(delete(RatingHistory).where(_rating_scope(RatingHistory, tournament_id)))
            session.exec(delete(RatingSnapshot).where(_rating_scope(RatingSnapshot, tournament_id)))
            if entries:
                session.exec(
                    insert(RatingSnapshot),
                    params=[
                        {
                            "tournament_id": tournament_id,
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
                            "match_id": p.match_id,
                            "participant": p.participant,
                            "elo": p.elo,
                        }
                        for p in history
                    ],
                )

    def load_ratings(self, tournament_id: int | None = None) -> SavedRatings | None:
        """The ratings last saved for the scope, or None if none were."""
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            snapshots = session.exec(
                select(RatingSnapshot)
                .where(_rating_scope(RatingSnapshot, tournament_id))
                .order_by(col(RatingSnapshot.elo).desc(), col(RatingSnapshot.participant))
            ).all()
            points = session.exec(
                select(
                    col(RatingHistory.match_id),
                    col(RatingHistory.participant),
                    col(RatingHistory.elo),
                )
                .join(Match, col(RatingHistory.match_id) == col(Match.id))
                .where(_rating_scope(RatingHistory, tournament_id))
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


# -- writing a match ------------------------------------------------------------
