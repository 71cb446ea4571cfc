"""The dataset and the random stream of an exported release, as script steps.

* **Data** — a simulation: the simulator the page called, with its arguments and seed; a built-in
  example: its loader (plus any bounds edited on the Data page); a user's file: a ``PATH`` to fill in,
  :func:`dpcore.data.load_file`, and the declared public bounds and imputation values of the columns the
  release uses (the script never contains the data). Bounds the app filled from the data ("Fill from
  data": the column's smallest and largest values, two records' values) are never written: the script has
  the placeholder ``...`` in their place, with a comment saying why, and refuses to run (naming the column
  and the fix) until the user types bounds stated without looking at the data (issue 29, item 2). We chose
  a placeholder over refusing the export: the rest of the release (config, randomness, the call) is public
  and worth having, and the first run says exactly what is missing; the release it then makes is DP.
* **Randomness** — on public data the page draws from a stream fixed by the sidebar's seed and the
  release's public settings (:meth:`dpcore.privacy.Randomness.entropy`); the script states that 128-bit
  entropy and redraws the same numbers. On a user's data the page drew fresh OS entropy that nobody
  kept: the script draws fresh entropy too, and says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .codegen import WIDTH, Call, Code, Ref

__all__ = ["DataSource", "Stream", "simulated", "loaded", "from_dataset", "stream", "seed_stream"]


@dataclass(frozen=True)
class DataSource:
    """How the script gets its dataset: ``kind`` ("simulated", "built-in", "user") and the steps."""

    kind: str
    steps: tuple
    note: str

    def load(self) -> Any:
        """Run the source's first call (a simulator or a loader with its arguments) and return its result:
        a page that gets its data this way exports exactly the call it made."""
        first = self.steps[0]
        if not isinstance(first, Call) or isinstance(first.func, str):
            raise TypeError("only a simulated or built-in source can be loaded by the page.")
        return first.func(*first.args, **first.kwargs)

    def with_target(self, target: str) -> DataSource:
        """The same source assigned to ``target`` (e.g. ``"ds, truth"`` for a simulator returning a pair)."""
        first = self.steps[0]
        if not isinstance(first, Call):
            return self
        return DataSource(self.kind, (Call(target, first.func, first.args, first.kwargs, first.comment),
                                      *self.steps[1:]), self.note)


def simulated(func: Callable[..., Any], *args: Any, target: str = "ds", **kwargs: Any) -> DataSource:
    """The page's simulation: ``func(*args, **kwargs)`` (the seed among them) — public data, exact numbers."""
    return DataSource("simulated", (Call(target, func, args, kwargs),),
                      "Simulated data with the app's seed: the script reproduces the page's numbers exactly.")


def loaded(func: Callable[..., Any], *args: Any, target: str = "ds", **kwargs: Any) -> DataSource:
    """A built-in example read by the page's loader ``func(*args, **kwargs)``."""
    return DataSource("built-in", (Call(target, func, args, kwargs),),
                      "A built-in example (public records) and the app's seed: the script reproduces the page's "
                      "numbers exactly.")


def from_dataset(ds: Any, columns: Any) -> DataSource:
    """The Data page's dataset ``ds`` as steps, declaring the public bounds of ``columns``.

    Built-in: :func:`dpcore.data.builtin_dataset` by name, plus the bounds edited since loading.
    Anything else (an upload, a simulation made on the Data page): a ``PATH`` to the user's copy of the
    file and :func:`dpcore.data.load_file`, then each used column's declared bounds and imputation value.
    """
    from dpcore import data as dpdata

    used = [c for c in dict.fromkeys(columns) if c in ds.bounds]
    if ds.kind == "built-in":
        name = next((k for k, info in dpdata.BUILTIN_DATASETS.items() if info.label == ds.name), None)
        if name is not None:
            base = dpdata.builtin_dataset(name)
            steps: list[Any] = [Call("ds", dpdata.builtin_dataset, (name,))]
            steps += [_bounds_step(ds, c, "bounds edited on the Data page") for c in used
                      if (base.bounds.get(c), base.imputes.get(c), base.bound_sources.get(c))
                      != (ds.bounds[c], ds.imputes[c], ds.bound_sources[c])]
            return DataSource("built-in", tuple(steps), loaded(dpdata.builtin_dataset).note)
    path = ds.name if str(ds.name).lower().endswith((".csv", ".tsv", ".txt", ".xlsx")) else "your_data.csv"
    steps = [Code(f"PATH = {_quote(path)}", comment="Your data: the path of your copy of the file you loaded in "
                  "the app (the script never contains the data)."),
             Call("ds", dpdata.load_file, (Ref("PATH"),))]
    from dpcore import privacy

    derived = set(privacy.read_from_data(ds, used))        # the one provenance rule (issue 29)
    steps += [_placeholder_step(ds, c) if c in derived else _bounds_step(ds, c, "") for c in used]
    note = ("Your data: the release draws FRESH randomness from the operating system (as the app did, and the app "
            "kept none), so the script's numbers differ from the page's — each run is a new release, with the "
            "same cost.")
    return DataSource("user", tuple(steps), note)


def _quote(s: str) -> str:
    from .codegen import literal
    return literal(str(s))


def _bounds_step(ds: Any, column: str, why: str) -> Call:
    lo, hi = ds.bounds[column]
    kw: dict[str, Any] = {}
    if ds.bound_sources[column] != "declared":
        kw["source"] = ds.bound_sources[column]
    if ds.imputes[column] != lo + (hi - lo) / 2:
        kw["impute"] = ds.imputes[column]
    comment = why or (f"public bounds of {column!r}" + (" (taken FROM THE DATA in the app: not DP)"
                                                        if kw.get("source") == "from data" else ", as declared"))
    return Call("ds", "ds.with_bounds", (column, lo, hi), kw, comment=comment)


def _placeholder_step(ds: Any, column: str) -> Call:
    """``ds.with_bounds(column, ..., ...)``: the bounds the app read from the data are left out of the script."""
    lo, hi = ds.bounds[column]
    kw = {"impute": ds.imputes[column]} if ds.imputes[column] != lo + (hi - lo) / 2 else {}
    comment = (f"FILL IN the public bounds of {column!r}: the app filled them from the data (the column's smallest "
               "and largest values, two records' values, not public), so the script does not contain them. Replace "
               "each ... with a bound stated without looking at the data (a codebook, domain knowledge); until then "
               "the script stops here, naming the column.")
    return Call("ds", "ds.with_bounds", (column, Ref("..."), Ref("...")), kw, comment=comment)


@dataclass(frozen=True)
class Stream:
    """The random stream of one release: ``mode`` "entropy" (a fixed seed's stream), "seed" (an int
    seed passed as is) or "fresh" (OS entropy); ``value``: the entropy or seed; ``seed``: the app's seed."""

    mode: str
    value: int | None = None
    seed: int | None = None

    def steps(self, target: str = "rng") -> tuple:
        """``target = …`` with a comment saying what the stream is."""
        if self.mode == "seed":
            return (Code(f"{target} = {self.value}", comment=f"The app's seed ({self.value}), as the page used it."),)
        if self.mode == "entropy":
            line = f"{target} = np.random.default_rng(np.random.SeedSequence({self.value}))"
            if len(line) > WIDTH:
                line = f"{target} = np.random.default_rng(\n    np.random.SeedSequence({self.value})\n)"
            return (Code(line,
                         imports=("import numpy as np",),
                         comment=f"The stream the app drew this release from: fixed by its seed ({self.seed}) and "
                                 "the release's public settings (dpcore.privacy.Randomness.entropy)."),)
        return (Code(f"{target} = np.random.default_rng()", imports=("import numpy as np",),
                     comment="FRESH OS entropy (as in the app, which kept none): a new draw at each run, not the "
                             "page's numbers."),)


def stream(randomness: Any, key: Any) -> Stream:
    """The :class:`Stream` of a release made with ``randomness`` (a :class:`dpcore.privacy.Randomness`)
    under its full release ``key`` (:meth:`dpcore.privacy.ReleaseSession.full_key`)."""
    entropy = randomness.entropy(key)
    return Stream("fresh") if entropy is None else Stream("entropy", entropy, randomness.seed)


def seed_stream(seed: int) -> Stream:
    """A page that passes the sidebar's seed straight to dpcore (``rng=seed``)."""
    return Stream("seed", int(seed), int(seed))
