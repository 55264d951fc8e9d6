"""The ``arena`` command line."""
