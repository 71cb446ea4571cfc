"""One script per page: the page's dataset, its config objects and its ONE dpcore call, as code.

Each function takes what the page built — the :class:`~dpcore.export.sources.DataSource`, the frozen
config objects, the column choices, the random streams — and returns a :class:`~dpcore.export.Script`
that repeats the page's calls with those objects (rendered by :mod:`dpcore.export.codegen`, which
checks that every config round-trips). ``Script.outputs`` names the variables holding what the page
showed; the tests run each script in a subprocess and compare them with the page's.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .codegen import Assign, Call, Code, Ref, Script, Section, literal
from .sources import DataSource, Stream

__all__ = ["kng_script", "lasso_script", "histogram_script", "density_script", "functional_script",
           "marginals_script", "experiment_script", "lab_script", "imputation_script", "audit_script", "figure_script"]

def _intro(what: str, source: DataSource) -> str:
    return f"{what}\n{source.note}"


def _data_section(source: DataSource, prep: Sequence[Any], text: str = "") -> Section:
    return Section("The data", text, (*source.steps, *prep))


def _name(label: str) -> str:
    out = "".join(ch if ch.isalnum() else "_" for ch in label.lower()).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out or "release"


def _release_section(heading: str, *, config: Any, stream: Stream, func: Any, data: Any, target: str,
                     extra: Mapping[str, Any] | None = None, cfg_name: str = "config") -> Section:
    steps = (Assign(cfg_name, config, comment="The configuration the page built (validated on construction)."),
             *stream.steps(),
             Call(target, func, (data, Ref(cfg_name)), {"rng": Ref("rng"), **(extra or {})}),
             Code(f'print("{heading}: cost", {target}.cost.describe())'),
             Code(f"print({target}.calibration.statement())"),
             Code(f"print({target}.value)"))
    return Section(heading, "", steps)


# -- KNG --------------------------------------------------------------------------------------------------------------
def kng_script(source: DataSource, *, problem_data: Any, release: Any, problem: str, columns: Sequence[str], xs: Sequence[str], y_column: str | None,
               intercept: bool, configs: Mapping[str, Any], streams: Mapping[str, Stream],
               labels: Mapping[str, str]) -> Script:
    """The KNG explorer: ``problem_data`` on the public columns, then each mechanism's release (``release``: a
    function, or one per mechanism — the page's registered specs' ``release``)."""
    from dpcore import data as dpdata

    prep = (Call("cols", dpdata.public_columns, (Ref("ds"), list(columns)),
                 comment="Columns read through their public bounds (missing cells imputed, n kept)."),
            Code(f"frame = pd.DataFrame(np.asarray(cols.values), columns={literal(list(columns))})",
                 imports=("import numpy as np", "import pandas as pd")),
            Call("pdata", problem_data, (Ref("frame"), Ref("ds.bounds"), problem, list(xs)),
                 {"y_column": y_column, "intercept": bool(intercept)}))
    sections = [_data_section(source, prep)]
    outputs = []
    for m, cfg in configs.items():
        target = f"release_{_name(m)}"
        outputs.append(target)
        sections.append(_release_section(labels.get(m, m), config=cfg, stream=streams[m], func=release[m] if isinstance(release, Mapping) else release,
                                         data=Ref("pdata.data"), target=target, cfg_name=f"config_{_name(m)}"))
    return Script(f"KNG explorer: {problem.replace('_', ' ')}",
                  _intro("Reimherr & Awan (2019), the K-norm gradient mechanism and its comparisons, exported from "
                         "the app's KNG explorer.", source), tuple(sections), tuple(outputs))


# -- LASSO ------------------------------------------------------------------------------------------------------------
def lasso_script(source: DataSource, *, prepare_design: Any, release: Any, y_column: str, x_columns: Sequence[str], config: Any, stream: Stream,
                 diagnostics: bool) -> Script:
    """Private LASSO: the page's ``prepare_design`` then its ``release((X, y), config)``."""
    prep = (Call("design", prepare_design, (Ref("ds"), y_column, list(x_columns)),
                 comment="Each column mapped into [-1, 1] by its public bounds (values beyond are clipped)."),)
    rel = _release_section("Private LASSO θ (private Frank–Wolfe)", config=config, stream=stream, func=release,
                           data=Ref("(design.X, design.y)"), target="release", extra={"diagnostics": diagnostics})
    return Script("Private LASSO", _intro("Talwar, Thakurta & Zhang (2015), exported from the app's Private LASSO "
                                          "page.", source), (_data_section(source, prep), rel), ("release",))


# -- histograms -------------------------------------------------------------------------------------------------------
def histogram_script(source: DataSource, *, release: Any, dense: bool = True, column_histogram: Any = None, config: Any, stream: Stream,
                     columns: Sequence[str] | None = None, modes: Mapping[str, str] | None = None,
                     bins: Mapping[str, int] | None = None, p: int | None = None) -> Script:
    """Sparse histograms: a simulated table (``source`` assigns ``table``: the page's ``sparse_table`` call) or
    a dataset's ``column_histogram`` of ``columns``; then ``release`` — the page's call: Laplace + thresholded
    on one draw (``dense``), or the sparse sampler's thresholded release (``column_histogram``: the page's, with
    columns)."""
    if columns is None:
        data_sec = Section("The data", "", source.steps)
    else:
        data_sec = _data_section(source, (
            Call("ct", column_histogram, (Ref("ds"), list(columns)),
                 {"modes": dict(modes or {}), "bins": dict(bins or {}), "p": p}),
            Code("table = ct.counts")))
    rel = _release_section("Laplace in every cell and hard thresholding" if dense else "Hard thresholding (sparse "
                           "sampler)", config=config, stream=stream, func=release, data=Ref("table"), target="release")
    return Script("Sparse private histograms", _intro("Hall (2012), exported from the app's Sparse histograms page.",
                                                      source), (data_sec, rel), ("release",))


# -- density ----------------------------------------------------------------------------------------------------------
def density_script(source: DataSource, *, unit_cube_columns: Any, compare_release: Any, columns: Sequence[str], config: Any, stream: Stream) -> Script:
    """Private density estimation: the page's ``unit_cube_columns`` then ``compare_release`` (one release per
    method)."""
    prep = (Call("x, clipped, bounds", unit_cube_columns, (Ref("ds"), list(columns)),
                 comment="The columns rescaled to [0, 1] by their public bounds."),)
    steps = (Assign("config", config, comment="The configuration the page built."), *stream.steps(),
             Call("comparison", compare_release, (Ref("x"), Ref("config")), {"rng": Ref("rng")}),
             Code("for method, release in comparison.releases.items():\n"
                  '    print(method, "cost", release.cost.describe())\n'
                  "    print(release.value)"))
    return Script("Private density estimation",
                  _intro("Hall, Rinaldo & Wasserman (2013), exported from the app's density page.", source),
                  (_data_section(source, prep), Section("The releases", "", steps)), ("comparison",))


# -- certified eigenvalue bounds --------------------------------------------------------------------------------------
def functional_script(source: DataSource, *, prepare_xy: Any, release: Any, y_column: str, x_columns: Sequence[str], intercept: bool,
                      scale_response: bool, config: Any, stream: Stream) -> Script:
    """Certified eigenvalue bounds: ``prepare_xy`` then ``release`` — the page's call, Algorithm 5
    (propose-test-release)."""
    prep = (Call("X, y", prepare_xy, (Ref("ds"), y_column, list(x_columns)),
                 {"intercept": bool(intercept), "scale_response": bool(scale_response)}),)
    rel = _release_section("⟨v, θ⟩ by propose-test-release", config=config, stream=stream,
                           func=release, data=Ref("(X, y)"), target="release")
    return Script("Certified eigenvalue bounds and one coefficient",
                  _intro("Asi, Duchi & Talwar (2025), Algorithm 5, exported from the app's Certified eigenvalue "
                         "bounds page.", source), (_data_section(source, prep), rel), ("release",))


# -- query release ----------------------------------------------------------------------------------------------------
def marginals_script(source: DataSource, *, release: Any, rules: Sequence[Any], w: int, method: str, rho: float, alpha: float,
                     stream: Stream) -> Script:
    """Query release: w-way marginals of the dataset's columns through the declared public schema (``release``:
    the page's ``release_marginals``)."""
    steps = (Assign("rules", tuple(rules), comment="The public schema: each column → one bit."),
             *stream.steps(),
             Call("release", release, (Ref("ds.frame"), Ref("rules"), int(w), method),
                  {"rho": float(rho), "alpha": float(alpha), "rng": Ref("rng")}),
             Code('print("cost", release.cost.describe())'), Code("print(release.value)"))
    return Script("Query release: marginals", _intro("Błasiok, Bun, Nikolov & Steinke (2019), exported from the "
                                                     "app's Query release page.", source),
                  (_data_section(source, ()), Section(f"{w}-way marginals ({method})", "", steps)), ("release",))


def imputation_script(source: DataSource, *, release: Any, column: str, bounds: tuple[float, float], epsilon: float,
                      stream: Stream) -> Script:
    """The Data page's private mean of a column's observed cells, to fill its missing cells (``release``: the
    page's ``dpcore.data.impute.release_mean_imputation``, on all n cells of the column as read)."""
    prep = (Code(f"values = ds.frame[{literal(str(column))}].to_numpy(dtype=float)  # all n cells, NaN = missing"),)
    steps = (*stream.steps(),
             Call("release", release, (Ref("values"), tuple(map(float, bounds)), float(epsilon)), {"rng": Ref("rng")}),
             Code('print("cost", release.cost.describe())'), Code("print(release.calibration.statement())"),
             Code("print(release.value)"))
    return Script("Private mean to fill missing cells", _intro("Laplace on the observed count and sum (Δ₁ = 3/2), "
                                                               "exported from the app's Data page.", source),
                  (_data_section(source, prep), Section("The private mean", "", steps)), ("release",))


def audit_script(audit_id: str, *, preset: str, edited: Any = None, n: int, mutant: bool, epsilon: float, delta: float,
                 seed: int, chunks: int) -> Script:
    """The audit page's run: the registered audit ``audit_id`` on its neighbouring pair (the preset named ``preset``,
    or the ``edited`` pair when the user changed it), ``dpcore.audit.explore.run`` with the page's seed and chunks
    (they fix the numbers), then ``summarize``."""
    from dpcore import registry
    from dpcore.audit import explore

    pair = (Assign("datasets", edited, comment="The neighbouring pair as edited on the page.") if edited is not None
            else Code(f"datasets = explore.presets(audit_)[{literal(preset)}]  # the page's preset pair",
                      imports=("from dpcore.audit import explore",)))
    steps = (Call("audits", registry.audits, ()), Code(f"audit_ = audits[{literal(audit_id)}]"), pair,
             Call("audit_run", explore.run, (Ref("audit_"),), {"n": int(n), "mutant": bool(mutant), "epsilon": float(epsilon),
                                                        "delta": float(delta), "datasets": Ref("datasets"),
                                                        "rng": int(seed), "chunks": int(chunks)},
                  comment="The same samples as the page: its seed, split in the same chunks."),
             Call("summary", explore.summarize, (Ref("audit_run"),), {"datasets": Ref("datasets")}),
             Code("print(summary.result)"), Code("print(summary.events)"))
    return Script(f"Privacy audit of {audit_id}", "Synthetic neighbouring datasets with the app's seed: the script "
                  "reproduces the page's numbers exactly.", (Section("The audit", "", steps),), ("summary",))


def lab_script(run_lab: Any, config: Any, seed: int) -> Script:
    """The query release lab's simulation (public synthetic data): the page's ``run_lab(config, rng=seed)``."""
    steps = (Assign("config", config, comment="The lab's configuration (workload, dataset, budgets, methods)."),
             Call("result", run_lab, (Ref("config"),), {"rng": int(seed)}),
             Code("print(result.errors)"))
    return Script("Query release lab (simulation)", "A simulation on public synthetic data with the app's seed: "
                  "the script reproduces the page's numbers exactly.",
                  (Section("The simulation", "", steps),), ("result",))


# -- figures ----------------------------------------------------------------------------------------------------------
def experiment_script(experiment_id: str, **run_kwargs: Any) -> Script:
    """A declared figure's sweep: ``dpcore.experiments.run_experiment(experiment_id, **run_kwargs)`` with the
    arguments the page passed (its progress bar and time cap left out: they never change the numbers)."""
    from dpcore import experiments

    kwargs = {k: v for k, v in run_kwargs.items() if k not in ("progress", "max_seconds")}
    steps = (Call("frame", experiments.run_experiment, (experiment_id,), kwargs,
                  comment="The same sweep as the page: per-unit seeds, so the numbers do not depend on jobs."),
             Code("print(experiments.describe(frame))"),
             Code('print(frame.drop(columns=[c for c in frame.columns if c.startswith("time")]))'),
             Code(f'frame.to_csv("{_name(experiment_id)}.csv", index=False)'))
    return Script(f"Figure {experiment_id}", "A simulation on synthetic data with the app's seed: the script "
                  f"reproduces the page's numbers exactly. The full figure: `python -m dpcore reproduce "
                  f"{experiment_id}`.", (Section("The sweep", "", steps),), ("frame",))


def figure_script(title: str, func: Any, *args: Any, show: str = "print(result)", **kwargs: Any) -> Script:
    """A page figure computed by ONE public dpcore function on synthetic data or public constants (the density
    page's SVM demo, the certified-bounds coverage study, the LASSO Gaussian-width curves): ``result =
    func(*args, **kwargs)`` with the page's arguments and seed, then ``show`` (code printing what the figure
    draws). Its numbers are the page's exactly."""
    steps = (Call("result", func, tuple(args), dict(kwargs), comment="The page's call, with its arguments and seed."),
             Code(show))
    return Script(title, "A simulation on synthetic data (or a computation on public constants) with the app's "
                  "seed: the script reproduces the page's numbers exactly.",
                  (Section("The figure's numbers", "", steps),), ("result",))
