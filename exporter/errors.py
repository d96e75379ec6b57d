"""Errors the command line reports as one line with exit status 2."""


class ConfigError(Exception):
    """A bad flag, value or configuration file."""
