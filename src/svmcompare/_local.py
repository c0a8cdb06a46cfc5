"""Per-thread settings: a value seen by the code this thread runs inside a block."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def thread_setting(local, name, value):
    """Set ``local.name`` (a ``threading.local``) to ``value`` for the block,
    restoring the previous value (None if unset) after it."""
    previous = getattr(local, name, None)
    setattr(local, name, value)
    try:
        yield
    finally:
        setattr(local, name, previous)
