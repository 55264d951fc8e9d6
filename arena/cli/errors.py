"""The error a command raises for anything the user can fix; printed as one line."""

from arena.errors import UserError

__all__ = ["UserError"]
