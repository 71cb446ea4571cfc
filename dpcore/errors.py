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

__all__ = ["DPValueError", "DataError", "Cancelled", "StoreUnavailable"]


class DPValueError(ValueError):
    """A user-facing parameter or data error; its message says what was received and the fix."""


class DataError(DPValueError):
    """A problem with user data (file, column or values); the message names it and gives the fix.

    A refusal read from the data of a release (e.g. a response that is not binary for the logistic loss)
    states the rule and the column only — its message is shown as public text (issue 29). The values that
    broke the rule go to ``nonprivate``: ``{what: value}``, shown only inside the labelled non-private box.

    >>> e = DataError("column 'y' is not binary", nonprivate={"values of 'y' (first 4)": [0.0, 0.4375]})
    >>> str(e), e.nonprivate
    ("column 'y' is not binary", {"values of 'y' (first 4)": [0.0, 0.4375]})
    """

    def __init__(self, *args: Any, nonprivate: Any = None) -> None:
        super().__init__(*args)
        self.nonprivate = dict(nonprivate or {})


class StoreUnavailable(RuntimeError):
    """The database that holds budgets cannot be opened, migrated or written: releases on user data fail closed.

    Its message names the fault (``fault``: ``"schema"``, ``"corrupt"``, ``"read-only"``, ``"disk-full"``,
    ``"permissions"`` or ``"unreachable"``), where (the database or folder) and the fix; a page shows it with
    ``st.error`` and refuses to release rather than falling back to budgets kept in the tab.

    >>> e = StoreUnavailable("the database is read-only: make DPX_DATA_DIR writable", fault="read-only")
    >>> e.fault, isinstance(e, RuntimeError)
    ('read-only', True)
    """

    def __init__(self, message: str, *, fault: str = "unreachable") -> None:
        super().__init__(message)
        self.fault = str(fault)


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
