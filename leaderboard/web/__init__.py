"""The read-only web pages of ``arena serve``: leaderboards, bot pages and the replay viewer."""

from leaderboard.web.app import create_app

__all__ = ["create_app"]
