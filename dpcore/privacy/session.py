"""Release rules of an interactive session: keys, the release cache, what is charged, the seeds.

Why this module is long: every rule a click goes through (key, cache, budget check before computing,
seed or OS entropy, what is charged and booked, data-derived bounds, imputation) is decided in one
place, so that no page can skip one; the budget itself is in :mod:`.budget`, the ledger in :mod:`.ledger`.

A page (Streamlit or any other front end) never decides these itself; it builds a
:class:`ReleaseRequest` and calls :meth:`ReleaseSession.run` once. The rules:

* **Randomness.** A release on a user's data draws 128 bits of OS entropy
  (``np.random.SeedSequence()`` with no argument); the entropy is never kept or shown, so nobody
  can recompute the noise. A fixed seed on a user's data is only an explicit *reproducible demo*:
  anyone who knows the seed recomputes the release under every candidate dataset and finds the
  true one, so its ledger entry says "not private against anyone who knows the seed" and its cost
  is **not** counted as ε-DP. Simulated and built-in demo data keep fixed seeds (reproducible
  teaching). A simulation holds no person's record: nothing is charged. The built-in examples are
  real people's (published) records: each release is recorded with its cost, but — the seed being
  known — as not counted as DP.
* **Bounds.** Every column a release uses must have bounds; bounds taken from the data make the
  release "not DP: bounds taken from the data" (recorded apart, never counted as ε-DP).
* **Explicit submit.** On a user's data a release is computed only when the caller says it was
  submitted (a button/form); any other rerun gets the cached result of the same key, or the
  status ``"needs submit"`` (the same on built-in data). Simulations are computed at once (free).
* **Charging.** A new key on a user's data is recorded in the ledger once; a rerun of the same key
  returns the cached result and records nothing. A release that raised (bad parameters, a work cap,
  :class:`~dpcore.errors.Cancelled`) is neither cached nor recorded: nothing was shown.
* **Budget.** A user's dataset is opened with a total (ε, δ) (:meth:`ReleaseSession.open_dataset`,
  :mod:`dpcore.privacy.budget`); a release on it counted as DP declares its cost up front
  (``ReleaseRequest.cost``, from the calibration: public) and is refused with
  :class:`~dpcore.privacy.budget.BudgetExceeded` before ``compute`` is called if that cost does not
  fit what remains. Spending is kept per dataset identity: clearing the ledger's list gives nothing
  back, and opening the same data again finds it. With a :mod:`dpcore.store` workspace
  (``ReleaseSession(workspace=…)``) the accounts are the workspace's: shared by its tabs and server
  processes, kept across restarts, and a click's check and spending are one database transaction.

Everything here is plain Python (no Streamlit); a session object lives in the front end's
per-user state, never at module level.

>>> s = ReleaseSession()
>>> fp = "ab" * 32  # the dataset's identity: Dataset.fingerprint(include_bounds=False)
>>> s.open_dataset(fp, n=500, name="people.csv").budget.describe()
'ε = 3, δ = 1e-05'
>>> req = ReleaseRequest(key=(fp, "demo mean", 1.0), label="mean of x, ε = 1", kind=USER,
...                      randomness=randomness_for(USER), bounds=check_bounds({"x": "declared"}),
...                      dataset=fp, cost=PrivacyCost.pure(1.0))
>>> s.run(req, lambda rng: 0.5, cost_of=lambda r: PrivacyCost.pure(1.0), submitted=False).status
'needs submit'
>>> s.run(req, lambda rng: 0.5, cost_of=lambda r: PrivacyCost.pure(1.0), submitted=True).status
'released'
>>> s.run(req, lambda rng: 0.7, cost_of=lambda r: PrivacyCost.pure(1.0), submitted=False).result
0.5
>>> len(s.ledger), s.account(fp).remaining()
(1, (2.0, 1e-05))
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ..errors import DPValueError
from ..numbers import number
from .accounting import PrivacyCost
from .budget import (
    Budget,
    DatasetAccount,
    LedgerFile,
    ledger_to_json,
    released_value,
)
from .notions import click_cost, costs_more
from ._accounts import MemoryBook, StoreBook, declares, same_release
from .ledger import LedgerEntry, PrivacyLedger

if TYPE_CHECKING:    # dpcore.store imports dpcore.privacy: the name is for the type checker only
    from ..store import Workspace

__all__ = [
    "BUILTIN",
    "BUILTIN_FIXED_SEED",
    "DATA_KINDS",
    "ENTROPY_BITS",
    "NOT_DP_BOUNDS",
    "NOT_PRIVATE_SEED",
    "SIMULATED",
    "TEACHING_VIEW",
    "USER",
    "BoundsCheck",
    "Charge",
    "Outcome",
    "Randomness",
    "ReleaseRequest",
    "ReleaseSession",
    "bound_sources",
    "canonical_key",
    "charge_rule",
    "check_bounds",
    "read_from_data",
    "shareable",
    "data_kind",
    "randomness_for",
    "release_label",
]

USER, BUILTIN, SIMULATED = "user", "built-in", "simulated"
#: Why a release on built-in (real, public) data is recorded but not counted as DP.
BUILTIN_FIXED_SEED = ("built-in public data released with the sidebar's seed (reproducible teaching): "
                      "not private against anyone who knows the seed")
#: What a dataset can be: a user's data (upload) or public demo data (built-in real example, simulation).
DATA_KINDS = (USER, BUILTIN, SIMULATED)
#: Bits of OS entropy behind every release on a user's data (what ``SeedSequence()`` draws).
ENTROPY_BITS = 128
NOT_PRIVATE_SEED = "not private against anyone who knows the seed"
NOT_DP_BOUNDS = "not DP: bounds taken from the data"
TEACHING_VIEW = "non-private teaching view: computed from the data and shown as is"


# -- what the data are -------------------------------------------------------------------
def data_kind(dataset: Any) -> str:
    """``"user"``, ``"built-in"`` or ``"simulated"`` for a dataset.

    A dataset is public demo data only if it says so: ``origin`` (``dpcore.data.Dataset``:
    ``"simulated"`` or ``"builtin"``) or ``kind`` with one of :data:`DATA_KINDS`. Anything else is
    a user's data (the safe default).

    >>> class D: origin = "builtin"
    >>> data_kind(D()), data_kind(object())
    ('built-in', 'user')
    """
    for attr in ("origin", "kind"):
        value = getattr(dataset, attr, None)
        if value == "builtin":
            return BUILTIN
        if isinstance(value, str) and value in DATA_KINDS:
            return value
    return USER


def _check_kind(kind: str) -> str:
    if kind not in DATA_KINDS:
        raise DPValueError(f"data kind = {kind!r} is unknown; use one of {DATA_KINDS}.")
    return kind


# -- randomness ------------------------------------------------------------------------
@dataclass(frozen=True)
class Randomness:
    """How a release's noise is seeded.

    Attributes
    ----------
    mode : {"fresh", "reproducible demo", "fixed"}
        ``"fresh"``: 128 bits of OS entropy per release, never kept (user data, the default).
        ``"reproducible demo"``: a seed fixed on purpose on a user's data (not private against
        anyone who knows it). ``"fixed"``: the seed of public demo data.
    seed : int or None
        The seed (None for fresh randomness).
    """

    mode: str
    seed: int | None = None

    def __post_init__(self):
        if self.mode not in ("fresh", "reproducible demo", "fixed"):
            raise DPValueError(f"randomness mode = {self.mode!r} is unknown.")
        if (self.mode == "fresh") != (self.seed is None):
            raise DPValueError("fresh randomness has no seed; a fixed or demo seed needs one.")
        if self.seed is not None:
            if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
                raise DPValueError(f"seed = {self.seed!r} must be a whole number >= 0.")
            object.__setattr__(self, "seed", int(self.seed))

    @property
    def key_part(self) -> tuple:
        """What the randomness adds to a release key (never the fresh entropy)."""
        return (self.mode,) if self.seed is None else (self.mode, self.seed)

    def generator(self, key: Hashable) -> np.random.Generator:
        """The Generator for the release ``key``.

        Fresh: ``default_rng(SeedSequence())`` — 128 bits of OS entropy, independent of ``key``.
        Fixed seeds: a stream determined by the seed *and* the whole key, so two releases that
        share a seed but differ in a parameter do not share their noise (f + b₁Z and f + b₂Z
        would reveal f).
        """
        entropy = self.entropy(key)
        return np.random.default_rng(np.random.SeedSequence(entropy))

    def entropy(self, key: Hashable) -> int | None:
        """The 128-bit entropy of the release ``key``'s stream under a fixed seed (None when fresh: OS
        entropy, drawn at release time and never kept). An exported script states it to redraw the
        same numbers (``default_rng(SeedSequence(entropy))``).

        The data's identity (a 64-hex-digit digest in the key, e.g. ``Dataset.fingerprint()``) is left out of the
        entropy: an exported script states it, and a downloaded file must not carry a function of the data. Two
        datasets released with the same seed and settings then share their noise — a reproducible demo is not
        private against anyone who knows the seed anyway (it is recorded as not DP).

        >>> r = Randomness("reproducible demo", 3)
        >>> r.entropy(("a" * 64, "kng/median", 1.0)) == r.entropy(("b" * 64, "kng/median", 1.0))
        True
        >>> r.entropy(("a" * 64, "kng/median", 1.0)) == r.entropy(("a" * 64, "kng/median", 2.0))
        False
        """
        if self.mode == "fresh":
            return None
        digest = hashlib.sha256(repr((self.seed, _without_data(canonical_key(key)))).encode("utf-8")).digest()
        return int.from_bytes(digest[:16], "little")


_DIGEST = re.compile(r"[0-9a-f]{64}")


def _without_data(key: Any) -> Any:
    """``key`` with every 64-hex-digit string (a digest of the data) replaced by a placeholder."""
    if isinstance(key, str):
        return "<data>" if _DIGEST.fullmatch(key) else key
    if isinstance(key, tuple):
        return tuple(_without_data(k) for k in key)
    return key


def randomness_for(kind: str, *, seed: int = 0, reproducible_demo: bool = False) -> Randomness:
    """The randomness rule: fresh OS entropy on a user's data unless a reproducible demo is
    chosen explicitly; the fixed ``seed`` on public demo data.

    >>> randomness_for(USER).mode, randomness_for(USER, seed=3, reproducible_demo=True).mode
    ('fresh', 'reproducible demo')
    >>> randomness_for(SIMULATED, seed=3)
    Randomness(mode='fixed', seed=3)
    """
    if _check_kind(kind) == USER:
        return Randomness("reproducible demo", seed) if reproducible_demo else Randomness("fresh")
    return Randomness("fixed", seed)


# -- bounds ----------------------------------------------------------------------------
def bound_sources(dataset: Any, columns: Sequence[str]) -> dict[str, str | None]:
    """Where each column's bounds came from: ``"declared"``, ``"codebook"``, ``"from data"`` or None (no bounds).

    Uses ``dataset.bound_source(column)`` when the dataset records it; otherwise a column with
    bounds counts as declared.
    """
    getter = getattr(dataset, "bound_source", None)
    bounds = getattr(dataset, "bounds", {})
    out: dict[str, str | None] = {}
    for c in columns:
        if c not in bounds:
            out[str(c)] = None
        elif callable(getter):
            out[str(c)] = getter(c)
        else:
            out[str(c)] = "declared"
    return out


@dataclass(frozen=True)
class BoundsCheck:
    """The bounds of the columns a release uses. ``dp`` is False if any came from the data."""

    columns: tuple[str, ...]
    from_data: tuple[str, ...] = ()

    @property
    def dp(self) -> bool:
        return not self.from_data

    @property
    def reason(self) -> str:
        if self.dp:
            return ""
        return f"{NOT_DP_BOUNDS} ({', '.join(self.from_data)})"


def read_from_data(dataset: Any, columns: Sequence[str] | None = None, *, settings: Sequence[str] = ()
                   ) -> tuple[str, ...]:
    """THE provenance rule (issue 29): which inputs of a release on ``dataset`` were read from the data.

    ``columns`` (default: every bounded column) whose bounds were filled from the data are named as they are;
    ``settings`` are the other inputs the caller derived from the data, each in words ("colour: categories
    read from the data" — then p, the number of cells, is a count of the data; any size read from the data).
    An empty answer means every input of the release is public. A non-empty one is consulted, in one place
    each, by everything that would show or share such an input as public:

    * the ledger: the release is recorded as not DP (:class:`BoundsCheck`, built from this answer);
    * the accuracy preview: computed in the session only — never keyed in a cache shared by sessions — and
      shown inside the labelled non-private box (:func:`shareable`);
    * an export (:func:`dpcore.export.from_dataset`): a placeholder the user must fill instead of any bound
      read from the data.

    >>> import pandas as pd
    >>> from dpcore.data import Dataset
    >>> ds = Dataset(pd.DataFrame({"a": [1.0, 3.0], "b": [0.0, 2.0]}), ("a", "b"), {"a": (0, 5)}, "t")
    >>> read_from_data(ds.with_bounds_from_data("b")), read_from_data(ds, ["a"], settings=["c: categories"])
    (('b',), ('c: categories',))
    """
    sources = bound_sources(dataset, list(getattr(dataset, "bounds", {})) if columns is None else columns)
    return tuple(c for c, src in sources.items() if src == "from data") + tuple(str(x) for x in settings)


def shareable(requests: Any = None, *, dataset: Any = None) -> bool:
    """True when no input of the release(s) was read from the data (:func:`read_from_data`): only then may what
    is computed from their settings (the accuracy preview) be cached across sessions or shown as public.

    ``requests``: a :class:`ReleaseRequest` or several (their :class:`BoundsCheck` holds the answer of
    :func:`read_from_data`); when None, the loaded ``dataset`` decides (any bound filled from its data), and
    with neither, nothing was read from data."""
    if requests is None:
        return dataset is None or not read_from_data(dataset)
    reqs = [requests] if isinstance(requests, ReleaseRequest) else list(requests)
    return not any(r.bounds is not None and r.bounds.from_data for r in reqs)


def check_bounds(sources: Mapping[str, str | None]) -> BoundsCheck:
    """Check every column a release uses (``{column: bound source}``, see :func:`bound_sources`).

    Raises
    ------
    DPValueError
        If a column has no bounds (naming it and the fix), or an unknown source.

    >>> check_bounds({"age": "declared", "bmi": "from data"}).reason
    'not DP: bounds taken from the data (bmi)'
    """
    if not sources:
        raise DPValueError("a release must name the columns it uses (none given).")
    missing = [c for c, s in sources.items() if s is None]
    if missing:
        raise DPValueError(f"column(s) {', '.join(map(repr, missing))} have no bounds; declare public bounds "
                           "on the Data page (a range fixed without looking at the data).")
    unknown = {c: s for c, s in sources.items() if s not in ("declared", "codebook", "from data")}
    if unknown:
        raise DPValueError(f"bound source(s) {unknown!r} unknown; use 'declared', 'codebook' (a codebook's "
                           "documented range, also a declaration) or 'from data'.")
    return BoundsCheck(tuple(sources), tuple(c for c, s in sources.items() if s == "from data"))


# -- charging --------------------------------------------------------------------------
@dataclass(frozen=True)
class Charge:
    """What the ledger records for a new release.

    ``charged``: it gets a ledger entry (user data only). ``counted_as_dp``: its cost enters the
    totals. ``reason``: why not (shown in the ledger and beside the release).
    """

    charged: bool
    counted_as_dp: bool
    reason: str = ""


def charge_rule(kind: str, randomness: Randomness, bounds: BoundsCheck | None = None, *,
                teaching: bool = False) -> Charge:
    """The charging rule for a new release.

    >>> charge_rule(USER, randomness_for(USER)).counted_as_dp
    True
    >>> charge_rule(USER, randomness_for(USER, seed=7, reproducible_demo=True)).reason
    'reproducible demo with seed 7: not private against anyone who knows the seed'
    >>> charge_rule(SIMULATED, randomness_for(SIMULATED)).charged
    False
    """
    if _check_kind(kind) == SIMULATED:
        return Charge(False, False, "simulated data: no person's record, not charged")
    if kind == BUILTIN and teaching:
        return Charge(False, False, "built-in public data: the teaching view is free")
    if kind == BUILTIN:
        # Real people's records, published with scikit-learn. Releases use the sidebar's fixed seed
        # (reproducible teaching), so they are recorded with their cost but not counted as DP.
        return Charge(True, False, BUILTIN_FIXED_SEED)
    if kind == USER and randomness.mode == "fixed":
        raise DPValueError("a user's data cannot use a plain fixed seed; use fresh randomness or an explicit "
                           "reproducible demo.")
    reasons = []
    if teaching:
        reasons.append(TEACHING_VIEW)
    if bounds is not None and not bounds.dp:
        reasons.append(bounds.reason)
    if randomness.mode == "reproducible demo":
        reasons.append(f"reproducible demo with seed {randomness.seed}: {NOT_PRIVATE_SEED}")
    return Charge(True, not reasons, "; ".join(reasons))


# -- keys ------------------------------------------------------------------------------
def canonical_key(obj: Any) -> Any:
    """Plain-Python, repr-stable, hashable form of a key (numpy scalars → numbers, arrays and
    frames → digests, dataclasses → field tuples, -0.0 → 0.0).

    >>> canonical_key((np.float64(1.5), [1, 2], {"b": 1, "a": -0.0}))
    (1.5, (1, 2), (("'a'", 0.0), ("'b'", 1)))
    """
    if isinstance(obj, np.generic):
        return canonical_key(obj.item())
    if isinstance(obj, (list, tuple)):
        return tuple(canonical_key(o) for o in obj)
    if isinstance(obj, Mapping):
        return tuple(sorted((repr(canonical_key(k)), canonical_key(v)) for k, v in obj.items()))
    if isinstance(obj, (set, frozenset)):
        return tuple(sorted(repr(canonical_key(o)) for o in obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__,) + tuple(
            (f.name, canonical_key(getattr(obj, f.name))) for f in dataclasses.fields(obj))
    if isinstance(obj, np.ndarray):
        return ("ndarray", str(obj.dtype), obj.shape,
                hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        digest = hashlib.sha256(pd.util.hash_pandas_object(obj, index=True).to_numpy().tobytes()).hexdigest()
        cols = tuple(map(str, obj.columns)) if isinstance(obj, pd.DataFrame) else (str(obj.name),)
        return (type(obj).__name__, obj.shape, cols, digest)
    if isinstance(obj, float) and obj == 0.0:
        return 0.0
    return obj


def release_label(what: str, *, data: str, columns: Sequence[str] = (), epsilon: float | None = None,
                  draws: int = 1, details: Mapping[str, Any] | None = None, response: str | None = None) -> str:
    """A ledger label in words: what, on which data (the name the user gave it: the file's name) and EVERY column —
    with ``response``, a regression's response and then all its covariates (issue 32: labels cut after five
    columns made two different releases look alike) —, ε, further parameters (None: left out), draws.

    >>> release_label("KNG median", data="diabetes (built-in)", columns=["bmi"], epsilon=1,
    ...               draws=1, details={"τ": 0.5, "norm": "ℓ2"})
    'KNG median of bmi — diabetes (built-in); ε = 1, τ = 0.5, norm ℓ2; 1 draw'
    >>> release_label("LASSO θ", data="survey.csv", response="y", columns=["a", "b"], epsilon=0.5)
    'LASSO θ of y on a, b — survey.csv; ε = 0.5; 1 draw'
    """
    cols = ", ".join(map(str, columns))
    head = (f"{what} of {response} on {cols or '(no covariate)'}" if response is not None else
            f"{what} of {cols}" if columns else str(what))
    parts = [] if epsilon is None else [f"ε = {number(float(epsilon), 6)}"]
    for k, v in (details or {}).items():
        if v is None:  # not applicable to this release
            continue
        if isinstance(v, float):
            parts.append(f"{k} = {number(v, 6)}")
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            parts.append(f"{k} = {int(v)}")
        else:
            parts.append(f"{k} {v}")
    tail = f"{int(draws)} draw" + ("" if int(draws) == 1 else "s")
    return f"{head} — {data}; " + ", ".join(parts) + ("; " if parts else "") + tail


# -- the session -----------------------------------------------------------------------
@dataclass(frozen=True)
class ReleaseRequest:
    """One release a page asks for.

    Attributes
    ----------
    key : tuple
        The public identity of the release: data fingerprint, mechanism, every parameter (not the
        seed: that comes from ``randomness``).
    label : str
        The ledger label in words (see :func:`release_label`).
    kind : str
        The data's kind (:func:`data_kind`).
    randomness : Randomness
        From :func:`randomness_for`.
    bounds : BoundsCheck or None
        From :func:`check_bounds` over every column used (required on a user's data).
    teaching : bool
        A non-private teaching view on the data (recorded, not counted as DP).
    dataset : str or None
        The identity of the user's dataset the release is charged to (its content fingerprint
        without bounds); required on a user's data.
    cost : PrivacyCost, sequence of PrivacyCost, or None
        The cost declared before computing (from the public calibration); required for a release on
        a user's data counted as DP (the budget is checked against it). A sequence (e.g. one per
        method of one click) is recorded as one entry (:func:`~dpcore.privacy.notions.click_cost`: no δ assumed).
    """

    key: tuple
    label: str
    kind: str
    randomness: Randomness
    bounds: BoundsCheck | None = None
    teaching: bool = False
    dataset: str | None = None
    cost: PrivacyCost | None = None

    def __post_init__(self):
        _check_kind(self.kind)
        if self.kind == USER and self.bounds is None:
            raise DPValueError("a release on a user's data must check its columns' bounds (bounds=check_bounds(...)).")
        if self.kind == USER and not self.dataset:
            raise DPValueError("a release on a user's data must name its dataset (dataset=its fingerprint), "
                               "whose budget it is charged to.")
        given: Any = self.cost          # a PrivacyCost, or a sequence of them (composed here)
        if given is not None and not isinstance(given, PrivacyCost):
            costs = list(given)
            if not costs or not all(isinstance(c, PrivacyCost) for c in costs):
                raise DPValueError("cost must be a PrivacyCost or a non-empty sequence of them.")
            object.__setattr__(self, "cost", click_cost(costs))

    @property
    def charge(self) -> Charge:
        return charge_rule(self.kind, self.randomness, self.bounds, teaching=self.teaching)


@dataclass(frozen=True)
class Outcome:
    """The answer to :meth:`ReleaseSession.run`.

    ``status``: ``"released"`` (computed now; charged per ``charge``), ``"cached"`` (the same
    release as before, nothing charged) or ``"needs submit"`` (user data, no click yet: nothing
    computed). ``result`` is None for ``"needs submit"``.
    """

    status: str
    result: Any
    charge: Charge

    @property
    def ready(self) -> bool:
        return self.status != "needs submit"


class ReleaseSession:
    """One user's release cache (bounded, most recent kept) and privacy ledger.

    Mutable, one per user session (a Streamlit app keeps it in ``st.session_state``).

    Parameters
    ----------
    max_cached : int
        Releases kept for redisplay. An evicted release on a user's data is not recomputed on a
        rerun: it needs a new submit and is charged again (honest: it is a new draw).
    workspace : dpcore.store.Workspace, optional
        Where the budgets live. Given: every account, its spending and the ledger are the workspace's (shared by
        all its tabs and server processes, kept across restarts; a click's budget check and spending are one
        database transaction). None: this object's memory (gone with it). The release cache stays per object.
    """

    def __init__(self, max_cached: int = 32, *, workspace: Workspace | None = None):
        if int(max_cached) < 1:
            raise DPValueError(f"max_cached = {max_cached!r} must be >= 1.")
        self.max_cached = int(max_cached)
        self.ledger = PrivacyLedger()   # the list shown (may be cleared: a display)
        self.workspace = workspace
        self._book: MemoryBook | StoreBook = MemoryBook() if workspace is None else StoreBook(workspace)
        self.pending: list[DatasetAccount] = []   # accounts of an uploaded ledger whose data is not loaded yet
        self._cache: OrderedDict = OrderedDict()
        self._draw = 0

    def attach(self, workspace: Workspace) -> None:
        """Move this session's budgets into ``workspace`` (made lazily, e.g. at the first data load): its
        accounts, their spending and the demo data's releases are added to the workspace (an import: spending is
        only ever added), and from now on every account is the workspace's. The release cache, the ledger's list
        and the draw number stay. Raises DPValueError if the session already has a workspace."""
        if self.workspace is not None:
            raise DPValueError("this session already has a workspace; start a new session for another one.")
        old, book = self._book, StoreBook(workspace)
        for a in old.all():
            book.open(a.fingerprint, a.n, a.name, a.budget, a.columns)
            for e in a.entries:
                book.add(a.fingerprint, e)
        for e in old.demo_entries():
            book.add(None, e)
        self.workspace, self._book = workspace, book

    def hold_reads(self) -> None:
        """Read the workspace once now; the calling thread's later reads (accounts, ledger) reuse that read until
        this session writes to it or calls this again (a script run reads its workspace once, not once per panel).
        Other threads still see every change at once. Without a workspace: nothing to read."""
        hold = getattr(self._book, "hold", None)
        if hold is not None:
            hold()

    @property
    def accounts(self) -> dict[str, DatasetAccount]:
        """Spending per user dataset (never cleared): identity -> account (a fresh read from the store)."""
        return {a.fingerprint: a for a in self._book.all()}

    @property
    def demo_entries(self) -> list[LedgerEntry]:
        """Releases on public demo data (never cleared), in the order recorded."""
        return self._book.demo_entries()

    # -- budgets ---------------------------------------------------------------------------
    def open_dataset(self, fingerprint: str, n: int, name: str = "", budget: Budget | None = None,
                     columns: Sequence[str] = ()) -> DatasetAccount:
        """A user's dataset was loaded: its account (created with ``budget`` or :func:`default_budget`;
        if the same data was loaded before, its spending is kept and its total may be raised again
        until the next release). ``fingerprint``: the identity the caller keys it by (with a store, prefer
        :meth:`open_data`, which finds near copies)."""
        if not isinstance(fingerprint, str) or not fingerprint:
            raise DPValueError("a dataset's identity (fingerprint) must be a non-empty string.")
        acct = self._book.open(fingerprint, int(n), str(name or ""), budget, tuple(map(str, columns)))
        return self._apply_pending(acct)

    def open_data(self, dataset: Any, budget: Budget | None = None) -> tuple[DatasetAccount, Any]:
        """A user's :class:`~dpcore.data.Dataset` was loaded: ``(account, match)``. With a store the account is
        found by the data's keyed identity — the same rows in any order, or a near copy (≥ 90 % of rows, same
        columns or more) of a dataset of the workspace — and ``match`` (:class:`dpcore.store.Match`) says which
        and why; without a store ``match`` is None and the identity is the content fingerprint. A release on
        this data names ``account.fingerprint`` (= :meth:`identity`) as its dataset."""
        acct, match = self._book.open_data(dataset, budget)
        return self._apply_pending(acct), match

    def set_budget(self, fingerprint: str, budget: Budget) -> DatasetAccount:
        """Set a dataset's total (:func:`~dpcore.privacy.budget.checked_budget`'s rules: any value until its
        first release after loading, then only lower, never below what was spent). With a store this is the way
        to change a total: an account returned by :meth:`account` is a snapshot."""
        return self._book.set_budget(fingerprint, budget)

    def identity(self, dataset: Any) -> str:
        """The identity a release on ``dataset`` is charged to (:meth:`open_data`'s ``account.fingerprint``)."""
        return self._book.identity(dataset)

    def account(self, fingerprint: str | None) -> DatasetAccount | None:
        """The account of a user's dataset, or None if it was never opened."""
        return self._book.get(fingerprint) if fingerprint else None

    def check_budget(self, requests: Sequence[ReleaseRequest]) -> None:
        """Raise :class:`~dpcore.privacy.budget.BudgetExceeded` if the requests of one click (the ones
        not cached yet, counted as DP) do not fit their datasets' budgets together (advisory with a store:
        :meth:`run` checks and spends in one transaction)."""
        by_data: dict[str, list[PrivacyCost]] = {}
        for r in requests:
            if self._budgeted(r) and self.full_key(r) not in self._cache:
                by_data.setdefault(cast(str, r.dataset), []).append(self._declared(r))
        for fp, costs in by_data.items():
            self._account_for(fp).check(costs)

    @staticmethod
    def _budgeted(request: ReleaseRequest) -> bool:
        return request.kind == USER and request.charge.counted_as_dp

    @staticmethod
    def _declared(request: ReleaseRequest) -> PrivacyCost:
        if request.cost is None:
            raise DPValueError("a release on a user's data must declare its cost before computing (cost=...); "
                               "its dataset's budget is checked against it.")
        return request.cost

    def _account_for(self, fingerprint: str) -> DatasetAccount:
        acct = self._book.get(fingerprint)
        if acct is None:
            raise DPValueError("this dataset has no privacy budget yet: load it on the Data page, where its "
                               "budget is set.")
        return acct

    def restore(self, ledger_file: LedgerFile) -> list[str]:
        """Add a ledger file's spending (a user's record, e.g. from another server) to the matching datasets.

        A dataset of the file is matched by what the user declared — name, n and column names
        (:func:`~dpcore.privacy._accounts.declares`) — to an account here, or kept until such data is loaded
        (:attr:`pending`). The file's entries not already present (same time, label, cost and value) are ADDED, and
        a total becomes the lower of the two in each of ε and δ; n, the δ ≥ 1/n guard and its override stay the
        loaded data's. An upload never gives budget back nor lifts a rule. Returns the file's datasets' names.
        """
        names = []
        for a in ledger_file.accounts:
            target = next((acct for acct in self._book.all() if declares(a, acct)), None)
            if target is None:
                self.pending = [p for p in self.pending if not (p.name, p.n) == (a.name, a.n)] + [a]
            else:
                self.ledger.entries.extend(self._book.import_into(target.fingerprint, a))
            names.append(a.name)
        have = {same_release(e) for e in self._book.demo_entries()}
        for e in ledger_file.other:
            if same_release(e) not in have:
                self._book.add(None, e)
                self.ledger.entries.append(e)
        return names

    def _apply_pending(self, acct: DatasetAccount) -> DatasetAccount:
        match = [p for p in self.pending if declares(p, acct)]
        if not match:
            return acct
        for p in match:
            self.ledger.entries.extend(self._book.import_into(acct.fingerprint, p))
        self.pending = [p for p in self.pending if p not in match]
        return cast(DatasetAccount, self._book.get(acct.fingerprint))

    def to_json(self) -> str:
        """The ledger file of this session (:func:`~dpcore.privacy.budget.ledger_to_json`): no identity or hash."""
        return ledger_to_json(self._book.all(), self._book.demo_entries())

    def all_entries(self) -> list[LedgerEntry]:
        """Every release of the session (the user's datasets' and the demo data's), in time order; the
        ledger's list may have been cleared, this is not."""
        entries = [e for a in self._book.all() for e in a.entries] + self._book.demo_entries()
        return sorted(entries, key=lambda e: e.time)

    def ledger_frame(self) -> pd.DataFrame:
        """:meth:`all_entries` as the ledger CSV's table, datasets named by their names (never an identity)."""
        names = {a.fingerprint: a.name for a in self._book.all()}
        return PrivacyLedger(self.all_entries()).to_frame(names)

    def _book_entry(self, request: ReleaseRequest, key: tuple, charge: Charge, result: Any, cost: PrivacyCost,
                    value_of: Callable[[Any], Any], token: Any) -> None:
        value = released_value(value_of(result))
        # a new entry even if an evicted release had this key (a new submit is a new draw: charged again)
        entry = LedgerEntry(request.label, cost, key, charge.counted_as_dp, charge.reason,
                            datetime.now(timezone.utc).isoformat(timespec="seconds"), value,
                            request.dataset if request.kind == USER else None)
        self.ledger.entries.append(entry)
        if self._budgeted(request):
            self._book.finish(token, cast(str, request.dataset), entry)
            if costs_more(cost, cast(PrivacyCost, request.cost)):
                raise RuntimeError(f"the release cost {cost.describe()} is more than it declared "
                                   f"({cast(PrivacyCost, request.cost).describe()}): recorded, not shown. "
                                   "Please report it.")
        else:
            self._book.add(request.dataset if request.kind == USER else None, entry)

    def full_key(self, request: ReleaseRequest) -> tuple:
        """The cache/ledger key: public identity, randomness, teaching flag and (fresh only) the draw number."""
        extra = (self._draw,) if request.randomness.mode == "fresh" else ()
        key = canonical_key((request.key, request.kind, request.randomness.key_part, request.teaching, extra))
        hash(key)  # a TypeError here means the key holds an unhashable value
        return key

    def new_draw(self) -> None:
        """The next fresh release of every key is a new draw (needs a submit; charged)."""
        self._draw += 1

    def cached(self, request: ReleaseRequest) -> Any:
        """The cached result of this request, or None."""
        return self._cache.get(self.full_key(request))

    def __len__(self) -> int:
        return len(self._cache)

    def run(self, request: ReleaseRequest, compute: Callable[[np.random.Generator], Any], *,
            submitted: bool, cost_of: Callable[[Any], PrivacyCost] = lambda r: r.cost,
            value_of: Callable[[Any], Any] = lambda r: getattr(r, "value", r)) -> Outcome:
        """Return the cached release, compute it (charging per the rules), or say a submit is needed.

        Parameters
        ----------
        request : ReleaseRequest
        compute : callable
            ``compute(rng)`` does the ONE dpcore call with the Generator it is given.
        submitted : bool
            True only on the run right after the user's explicit click.
        cost_of : callable
            The result's :class:`PrivacyCost` (default ``result.cost``).
        value_of : callable
            The released value kept in the ledger (default ``result.value``; never diagnostics).

        Raises
        ------
        BudgetExceeded
            Before ``compute`` is called, if the declared cost does not fit the dataset's budget.
        DPValueError
            Before ``compute``, if a release on a user's data counted as DP declares no cost or its
            dataset has no budget.
        Whatever ``compute`` raises (DPValueError, Cancelled, ...): nothing is cached or recorded.
        """
        charge = request.charge
        key = self.full_key(request)
        if key in self._cache:
            self._cache.move_to_end(key)
            return Outcome("cached", self._cache[key], charge)
        if (request.kind == USER or charge.charged) and not submitted:
            return Outcome("needs submit", None, charge)
        token, budgeted = None, self._budgeted(request)
        if budgeted:  # the budget, before anything is computed (with a store: checked AND spent, one transaction)
            token = self._book.reserve(cast(str, request.dataset), self._declared(request), request.label)
        done = False
        try:
            result = compute(request.randomness.generator(key))
            cost = cost_of(result)
            if not isinstance(cost, PrivacyCost):
                raise TypeError(f"cost_of must return a PrivacyCost; got {type(cost).__name__}.")
            done = True
        finally:
            if not done:          # raised (or a rerun interrupted it): nothing shown, the spending is given back
                self._book.cancel(token)
        if charge.charged:
            self._book_entry(request, key, charge, result, cost, value_of, token)
        self._cache[key] = result
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)
        return Outcome("released", result, charge)

