"""Public exception types of dpcore.

Every user-facing error is a :class:`DPValueError` (a ``ValueError``) whose message names the
parameter, column or file, the value received, and the fix; the app shows it with ``st.error``,
never as a traceback. :class:`Cancelled` is the one type for "a long computation was stopped by
its progress callback" (a newer Streamlit rerun, or a user), whatever the computation.

>>> from dpcore.errors import DPValueError, DataError
>>> issubclass(DataError, DPValueError) and issubclass(DPValueError, ValueError)
True
"""
from __future__ import annotations

from typing import Any

__all__ = ["DPValueError", "DataError", "Cancelled"]


class DPValueError(ValueError):
    """A user-facing parameter or data error; its message says what was received and the fix."""


class DataError(DPValueError):
    """A problem with user data (file, column or values); the message names it and gives the fix."""


class Cancelled(RuntimeError):
    """A computation stopped because its progress callback returned ``False``.

    Attributes
    ----------
    done, total : int
        Units of work finished and planned when it stopped.
    partial : Any
        What was finished (e.g. a partial frame of a sweep), or None. ``frame`` is an alias kept
        for the sweep runner's callers.
    """

    def __init__(self, message: str = "cancelled", *, done: int = 0, total: int = 0, partial: Any = None):
        super().__init__(message)
        self.done = int(done)
        self.total = int(total)
        self.partial = partial

    @property
    def frame(self) -> Any:
        return self.partial
