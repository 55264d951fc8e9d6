"""Errors shared across Arena's layers."""


class UserError(Exception):
    """Something the user can fix (a bad option, a missing file, an unknown name); shown as one line."""
