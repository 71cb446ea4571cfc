"""Save and resume a session: one JSON file with the ledger (budgets, spending, releases), the pages'
public settings and — only if the user asks — the current dataset.

Resuming never gives budget back: the ledger part is read by :func:`~dpcore.privacy.budget.ledger_from_json`
and merged by :meth:`~dpcore.privacy.ReleaseSession.restore` (entries are added, never removed; a budget
becomes the lower of the file's and the session's), matched to a loaded dataset by what the user declared
(name, n, column names). The file holds no identity, fingerprint or hash of the data: without the data it
names the dataset only by its name and n, and with the data (only when the user asks) it holds the table
itself, whose budget the server finds again from its rows.

The file is read strictly (a clear :class:`~dpcore.errors.DPValueError` naming the field; never a
traceback): JSON only (no pickle), a size cap checked before parsing, a format tag and version, settings
restricted to plain JSON values under page keys, table cells and index labels that are plain, bounded
scalars.

>>> from dpcore.privacy import ReleaseSession
>>> s = ReleaseSession()
>>> text = session_to_json(s, {"kng_eps": 1.0, "_keep::kng_eps": 1.0})
>>> back = session_from_json(text.encode())
>>> back.settings, back.dataset is None
({'_keep::kng_eps': 1.0, 'kng_eps': 1.0}, True)
"""
from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .._validation import DPValueError
from .budget import LedgerFile, json_document, ledger_from_json

__all__ = ["SESSION_FORMAT", "SESSION_VERSION", "MAX_SESSION_BYTES", "MAX_SETTINGS", "SessionFile",
           "session_to_json", "session_from_json", "public_settings", "dataset_to_dict", "dataset_from_dict"]

SESSION_FORMAT, SESSION_VERSION = "dp-mechanism-explorer session", 1
#: Largest session file read back (bytes; checked before parsing). Room for a 50 MB upload's table.
MAX_SESSION_BYTES = 80 * 2**20
#: Most settings kept, and longest list value.
MAX_SETTINGS, MAX_LIST = 500, 200
#: A setting key: a page's widget key (lower-case words), optionally behind ``_keep::`` (ui.persist's copy).
#: Keys of the app's own machinery (``dp_…``, ``_dp_…``) and of the Data page (``data_…``) are never kept.
_KEY = re.compile(r"(?:_keep::)?(?!dp_|data_)[a-z][a-z0-9_]{0,79}")
_DTYPES = ("float64", "int64", "bool", "object", "str", "string", "Int64", "Float64", "boolean")


def _bad(where: str, what: str) -> DPValueError:
    return DPValueError(f"This is not a valid session file: {where} {what}. Upload the JSON file saved with "
                        "“Download session”, unchanged.")


def _plain(v: Any) -> bool:
    if v is None or isinstance(v, (bool, str)):
        return not isinstance(v, str) or len(v) <= 1000
    if isinstance(v, int):
        return abs(v) < 2**63
    if isinstance(v, float):
        return math.isfinite(v)
    return False


def public_settings(state: Mapping[str, Any]) -> dict[str, Any]:
    """The pages' settings worth saving: keys matching a page's widget key, values plain JSON scalars or
    short lists of them (tuples become lists). Everything else (datasets, releases, buttons' states, the
    app's machinery) is left out."""
    out: dict[str, Any] = {}
    for k, v in state.items():
        if not isinstance(k, str) or not _KEY.fullmatch(k):
            continue
        if isinstance(v, (list, tuple)) and len(v) <= MAX_LIST and all(_plain(x) for x in v):
            out[k] = list(v)
        elif _plain(v) and not isinstance(v, (np.generic,)):
            out[k] = v
        elif isinstance(v, np.generic) and _plain(v.item()):
            out[k] = v.item()
        if len(out) >= MAX_SETTINGS:
            break
    return dict(sorted(out.items()))


# -- the dataset, faithfully (so that its fingerprint survives the round trip) -------------------------------
def _column_values(s: pd.Series) -> tuple[list, str]:
    """Values in JSON types; missing as null, with how the frame held them ("nan" or "none")."""
    miss = s.isna().to_numpy()
    held = "nan"
    if s.dtype == object and miss.any():
        held = "none" if all(x is None for x in s[miss]) else "nan"
    vals = s.astype(object).where(~miss, None).tolist()
    out = []
    for x in vals:
        if isinstance(x, np.generic):
            x = x.item()
        if isinstance(x, float) and not math.isfinite(x):
            x = str(x)            # ±inf kept as text ("inf"); NaN was turned into null above
        out.append(x)
    return out, held


def dataset_to_dict(ds: Any) -> dict:
    """A :class:`~dpcore.data.Dataset` in JSON types: the table column by column (dtypes, index), its bounds,
    imputation values, bound sources, name, kind and provenance (no fingerprint or hash)."""
    cols, dtypes, values, held = [], [], [], []
    for c in ds.frame.columns:
        s = ds.frame[c]
        v, h = _column_values(s)
        cols.append(str(c))
        dtypes.append(str(s.dtype))
        values.append(v)
        held.append(h)
    idx = ds.frame.index
    index = ({"range": [int(idx.start), int(idx.stop), int(idx.step)]} if isinstance(idx, pd.RangeIndex)
             else {"values": [x.item() if isinstance(x, np.generic) else x for x in idx.tolist()]})
    index["name"] = idx.name
    return {"name": ds.name, "kind": ds.kind,
            "provenance": ds.provenance, "notes": list(ds.notes), "numeric columns": list(ds.numeric_columns),
            "bounds": {c: list(b) for c, b in ds.bounds.items()}, "imputation values": dict(ds.imputes),
            "bound sources": dict(ds.bound_sources),
            "table": {"columns": cols, "dtypes": dtypes, "missing held as": held, "values": values, "index": index}}


#: Longest text cell or index label read back.
MAX_CELL_TEXT = 10_000


def _cell(x: Any) -> bool:
    """A plain, bounded JSON scalar (``"inf"``/``"-inf"`` as text stand for infinities in numeric columns)."""
    if x is None or isinstance(x, bool):
        return True
    if isinstance(x, int):
        return abs(x) < 2**63
    if isinstance(x, float):
        return math.isfinite(x)
    return isinstance(x, str) and len(x) <= MAX_CELL_TEXT


def _series(vals: list, dtype: str, held: str, n: int, where: str) -> pd.Series:
    if not isinstance(vals, list) or len(vals) != n:
        raise _bad(where, f"does not have {n} values")
    if dtype not in _DTYPES:
        raise _bad(where, f"has the unsupported type {dtype[:20]!r}")
    if not all(_cell(x) for x in vals):
        raise _bad(where, "holds a value that is not a finite number (within ±2⁶³ if whole), a text of at most "
                          f"{MAX_CELL_TEXT} characters, true/false or null")
    if dtype == "float64":
        if any(isinstance(x, str) and x not in ("inf", "-inf") for x in vals):
            raise _bad(where, "holds text in a numeric column")
        return pd.Series([np.nan if x is None else float(x) for x in vals], dtype="float64")
    if dtype == "object":
        fill = None if held == "none" else np.nan
        return pd.Series([fill if x is None else x for x in vals], dtype=object)
    try:
        return pd.Series(vals).astype(dtype)
    except (TypeError, ValueError, OverflowError):
        raise _bad(where, f"has values that are not of type {dtype}") from None


def dataset_from_dict(d: Any) -> Any:
    """Rebuild the Dataset of :func:`dataset_to_dict`; refuses (naming the field) if anything is missing or
    out of range. An edited table is simply another table: the store finds its budget from its rows."""
    from ..data import Dataset

    where = "the dataset"
    if not isinstance(d, dict):
        raise _bad(where, "is not an object")
    t = d.get("table")
    if not isinstance(t, dict):
        raise _bad(where, "has no “table”")
    cols, dtypes, held, values = (t.get(k) for k in ("columns", "dtypes", "missing held as", "values"))
    if not (isinstance(cols, list) and isinstance(dtypes, list) and isinstance(held, list) and isinstance(values, list)
            and len(cols) == len(dtypes) == len(held) == len(values) and cols
            and all(isinstance(c, str) for c in cols) and all(isinstance(x, str) for x in dtypes + held)):
        raise _bad(where + " table", "has inconsistent “columns”, “dtypes”, “missing held as” and “values”")
    n = len(values[0]) if isinstance(values[0], list) else -1
    frame = pd.DataFrame({c: _series(v, dt, h, n, f"column {c[:40]!r}")
                          for c, dt, h, v in zip(cols, dtypes, held, values)})
    if len(set(cols)) != len(cols):
        raise _bad(where + " table", "repeats a column name")
    ix = t.get("index")
    if not isinstance(ix, dict):
        raise _bad(where + " table", "has no “index”")
    if "range" in ix:
        r = ix["range"]
        if not (isinstance(r, list) and len(r) == 3 and all(isinstance(x, int) and not isinstance(x, bool) for x in r)):
            raise _bad(where + " index", "has an invalid “range”")
        frame.index = pd.RangeIndex(*r)
    elif isinstance(ix.get("values"), list) and len(ix["values"]) == n:
        if not all(_cell(x) for x in ix["values"]):
            raise _bad(where + " index", "holds a label that is not a number, a short text, true/false or null")
        frame.index = pd.Index(ix["values"])
    else:
        raise _bad(where + " index", "has neither a “range” nor n “values”")
    if len(frame.index) != n:
        raise _bad(where + " index", f"does not have {n} rows")
    frame.index.name = ix.get("name") if isinstance(ix.get("name"), (str, type(None))) else None
    try:
        ds = Dataset(frame, tuple(d.get("numeric columns") or ()), {c: tuple(b) for c, b in (d.get("bounds") or {}).items()},
                     str(d.get("provenance", ""))[:2000], tuple(str(x)[:2000] for x in d.get("notes") or ()),
                     name=str(d.get("name", ""))[:200], imputes=dict(d.get("imputation values") or {}),
                     bound_sources=dict(d.get("bound sources") or {}), kind=str(d.get("kind", "user")))
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _bad(where, f"is inconsistent ({exc})") from None
    if ds.kind != "user" and not _is_builtin(ds.fingerprint(include_bounds=False)):
        # the kind decides what is charged: only a table identical to a built-in example stays "built-in"; anything
        # else (a simulation, or a file whose kind was edited) comes back as the user's data, charged to its budget
        ds = dataclasses.replace(ds, kind="user")
    return ds


def _is_builtin(fingerprint: str) -> bool:
    from ..data import BUILTIN_DATASETS, builtin_dataset

    return any(builtin_dataset(name).fingerprint(include_bounds=False) == fingerprint for name in BUILTIN_DATASETS)


# -- the file ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionFile:
    """A session file read back: the ledger, the settings and (if it was saved) the dataset."""

    ledger: LedgerFile
    settings: Mapping[str, Any]
    dataset: Any
    dataset_name: str
    dataset_n: int | None
    saved: str


def session_to_json(session: Any, settings: Mapping[str, Any], dataset: Any = None, *,
                    include_data: bool = False) -> str:
    """The session file: the ledger of ``session`` (a ReleaseSession), :func:`public_settings` of
    ``settings`` and, only with ``include_data``, the current ``dataset`` (otherwise only its name and n: what
    the user declared; loading the same data again continues its budget)."""
    current = None
    if dataset is not None:
        current = (dataset_to_dict(dataset) if include_data else
                   {"name": dataset.name, "n": int(dataset.n_rows), "table": None})
    doc = {"format": SESSION_FORMAT, "version": SESSION_VERSION,
           "saved": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "includes the data": bool(include_data and dataset is not None),
           "ledger": json.loads(session.to_json()), "settings": public_settings(settings), "current dataset": current}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False)


def session_from_json(data: bytes | str) -> SessionFile:
    """Read and check a session file (see the module docstring). Raises DPValueError naming what is wrong."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > MAX_SESSION_BYTES:
        raise DPValueError(f"The session file is {len(data) / 2**20:.1f} MB; at most {MAX_SESSION_BYTES // 2**20} MB "
                           "is read. Upload the JSON file saved with “Download session”.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad("the file", "is not UTF-8 text") from None
    doc = json_document(text, SESSION_FORMAT, SESSION_VERSION, _bad)
    if not isinstance(doc.get("ledger"), dict):
        raise _bad("the file", "has no “ledger”")
    ledger = ledger_from_json(json.dumps(doc["ledger"]))
    settings = doc.get("settings", {})
    if not isinstance(settings, dict) or len(settings) > MAX_SETTINGS:
        raise _bad("“settings”", f"is not an object of at most {MAX_SETTINGS} entries")
    for k, v in settings.items():
        if not _KEY.fullmatch(k):
            raise _bad(f"setting {k[:40]!r}", "is not a page's setting")
        if not (_plain(v) or (isinstance(v, list) and len(v) <= MAX_LIST and all(_plain(x) for x in v))):
            raise _bad(f"setting {k[:40]!r}", "is not a number, text, true/false, null or a short list of them")
    cur = doc.get("current dataset")
    ds, name, n = None, "", None
    if cur is not None:
        if not isinstance(cur, dict):
            raise _bad("“current dataset”", "is not an object")
        name = cur.get("name", "")
        if not isinstance(name, str) or len(name) > 200:
            raise _bad("“current dataset”", "has a “name” that is not a text of at most 200 characters")
        n = cur.get("n")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10**9):
            raise _bad("“current dataset”", "has an “n” that is not a whole number in 1 … 10⁹")
        if cur.get("table") is not None:
            ds = dataset_from_dict(cur)
            n = ds.n_rows
    saved = doc.get("saved", "")
    return SessionFile(ledger, dict(settings), ds, name, n, saved[:40] if isinstance(saved, str) else "")
