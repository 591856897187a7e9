"""What the ``hf-bpe`` command's exits mean: the usage error (exit 2) its modules raise, and the exit statuses."""

from __future__ import annotations


class UsageError(Exception):
    """A mistake in the command line or the config file (exit status 2)."""


#: What the exit statuses mean, for every command's help.
EXIT_STATUSES = "exit status: 0 ok, 1 runtime error, 2 usage error, 130 interrupted (Ctrl-C), 143 terminated"
