"""The error a command raises for anything the user can fix; printed as one line."""


class UserError(Exception):
    """Bad input from the user: a bad option value, a missing file, an unknown name."""
