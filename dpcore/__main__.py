"""Command line: ``python -m dpcore reproduce <id> [options]`` and ``python -m dpcore reproduce --list``.

``reproduce`` runs a figure's sweep over its axis (defaults: the paper's setting), writes
``DIR/<id>.csv`` (the tidy frame: one row per method, n, replicate), ``DIR/<id>.html`` (the
plotly figure, self-contained) and ``DIR/<id>_slopes.csv`` (fitted slopes), shows a progress bar
on stderr and prints a summary (log10 mean error per x and method with Monte-Carlo s.e., mean log10
error, fitted slopes, elapsed time). ``reproduce <id> --help`` lists the experiment's own options:
each declared option is a flag typed from its default; the axis values are ``--x`` (``--ns`` for n).
"""
from __future__ import annotations

import argparse
import contextlib
import math
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from dpcore._validation import DPValueError


class TextProgress:
    """A dependency-free progress bar drawn with carriage returns on a text stream."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30, label: str = ""):
        self.stream, self.width, self.label = stream, width, label
        self.t0 = time.perf_counter()
        self._last_len = 0

    def __call__(self, done: int, total: int) -> bool:
        frac = done / total if total else 1.0
        fill = int(round(self.width * frac))
        el = time.perf_counter() - self.t0
        eta = f"  ETA {_hms(el / frac * (1 - frac))}" if 0 < frac < 1 else ""
        line = f"{self.label}[{'#' * fill}{'.' * (self.width - fill)}] {done}/{total} tasks  {_hms(el)}{eta}"
        pad = " " * max(0, self._last_len - len(line))
        self.stream.write("\r" + line + pad)
        self._last_len = len(line)
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
        return True


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600:d}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def _parse_values(text: str, axis, flag: str) -> list:
    """Comma-separated values of ``axis`` (``1e4`` is accepted for 10 000 on an integer axis)."""
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            v = float(tok)
        except ValueError:
            raise DPValueError(f"{flag}: {tok!r} is not a number; give values of {axis.label} such as "
                               f"{','.join(str(v) for v in axis.values[:3])}.") from None
        try:
            out.append(axis.coerce(v))
        except DPValueError as exc:
            raise DPValueError(f"{flag}: {exc}") from None
    if not out:
        raise DPValueError(f"{flag} is empty; give values such as {','.join(str(v) for v in axis.values[:3])}.")
    return out


def _int(text: str) -> int:
    """An int flag that also accepts 1e4."""
    v = float(text)
    if not math.isfinite(v) or v != int(v):
        raise ValueError(text)
    return int(v)


_int.__name__ = "int"


def _describe_option(exp, name: str) -> str:
    default = exp.options[name]
    kind = type(default).__name__
    choices = exp.option_choices.get(name)
    extra = f"; one of {', '.join(choices)}" if choices else ""
    return f"--{name} ({kind}, default {default!r}{extra})"


def build_parser(experiment=None) -> argparse.ArgumentParser:
    """The command-line parser; with ``experiment``, its axis flag and its options as typed flags."""
    parser = argparse.ArgumentParser(prog="python -m dpcore", description="DP Mechanism Explorer command line.")
    sub = parser.add_subparsers(dest="command", required=True)
    from dpcore.experiments.analysis import format_number

    exp = experiment
    desc = ("Run a figure's sweep; write DIR/<id>.csv, DIR/<id>.html and DIR/<id>_slopes.csv."
            if exp is None else f"{exp.id}: {exp.title}. {exp.description}")
    rp = sub.add_parser("reproduce", help="run a figure's sweep (paper figure)", description=desc,
                        allow_abbrev=False)   # --epsilon must never abbreviate --epsilons
    rp.add_argument("id", nargs="?", help="experiment id (see --list)")
    rp.add_argument("--list", action="store_true", help="list the experiment ids and exit")
    rp.add_argument("--reps", type=_int, default=None,
                    help="replicates per x" + (f" (default {exp.default_reps})" if exp else ""))
    if exp is None:
        rp.add_argument("--x", type=str, default=None, help="comma-separated values of the experiment's axis")
    else:
        ax = exp.axis
        rp.add_argument("--x", f"--{ax.flag}", dest="x", type=str, default=None,
                        help=f"comma-separated values of {ax.label} (default "
                             f"{','.join(str(v) for v in ax.values)}; allowed {format_number(ax.lo)} … {format_number(ax.hi)})")
    if exp is None or exp.default_epsilon is not None:
        rp.add_argument("--epsilon", type=float, default=None,
                        help="privacy parameter ε" + (f" (default {exp.default_epsilon:g})" if exp else ""))
    rp.add_argument("--seed", type=_int, default=2019, help="root seed (default 2019); results depend only on it")
    rp.add_argument("--jobs", type=_int, default=-1, help="worker processes (-1 = all cores, 1 = in-process); "
                                                          "never changes the results")
    rp.add_argument("--backend", choices=("loky", "dask"), default="loky",
                    help="loky (default): local worker processes; dask: the tasks run on a Dask cluster "
                         "(same seeds, same frame as --jobs 1)")
    rp.add_argument("--scheduler", type=str, default=None,
                    help="with --backend dask: the scheduler address, e.g. tcp://10.0.0.5:8786 (started with "
                         "`dask scheduler`; workers with `dask worker ADDRESS`)")
    rp.add_argument("--out", type=str, default="results", help="output directory (default ./results)")
    rp.add_argument("--methods", type=str, default=None,
                    help="comma-separated subset of the methods" + (f": {','.join(exp.methods)}" if exp else ""))
    rp.add_argument("--quiet", action="store_true", help="no progress bar")
    if exp is not None and exp.options:
        group = rp.add_argument_group(f"options of {exp.id}")
        for name, default in exp.options.items():
            help_text = exp.option_help.get(name, "") + f" (default: {default!r})"
            if isinstance(default, bool):
                group.add_argument(f"--{name}", action=argparse.BooleanOptionalAction, default=None, help=help_text)
            else:
                kinds: dict[type, Callable[[str], Any]] = {int: _int, float: float, str: str}
                kind = kinds[type(default)]
                choices = exp.option_choices.get(name)
                metavar = "{" + ",".join(choices) + "}" if choices else type(default).__name__.upper()
                group.add_argument(f"--{name}", type=kind, default=None, help=help_text, choices=choices,
                                   metavar=metavar)
    return parser


def _find_experiment(argv: Sequence[str]):
    """The registered experiment named on the command line (None if none is)."""
    from dpcore.experiments import registry

    table = registry()
    if not argv or argv[0] != "reproduce":
        return None
    for tok in argv[1:]:
        if tok in table:
            return table[tok]
    return None


def _list(out: TextIO) -> None:
    from dpcore.experiments import registry

    table = registry()
    width = max(len(k) for k in table)
    for exp in table.values():
        out.write(f"{exp.id:<{width}}  {exp.title}   [x: {exp.axis.name}]\n")


def reproduce(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    from dpcore.experiments import fit_slopes, format_summary, get_experiment, run_experiment
    from dpcore.viz import style
    from dpcore.viz.experiments import error_vs_x_figure

    if args.list:
        _list(out)
        return 0
    if not args.id:
        err.write("error: give an experiment id, or --list to see them.\n")
        return 2
    exp = get_experiment(args.id)
    params = {k: getattr(args, k) for k in exp.options if getattr(args, k, None) is not None}
    flag = "--ns" if exp.axis.name == "n" else "--x"
    xs = _parse_values(args.x, exp.axis, flag) if args.x else None
    methods = args.methods.split(",") if args.methods else None
    bar = None if args.quiet else TextProgress(err, label=f"{exp.id} ")
    frame = run_experiment(exp, xs=xs, reps=args.reps, epsilon=getattr(args, "epsilon", None), seed=args.seed,
                           jobs=args.jobs, progress=bar, methods=methods, backend=args.backend,
                           scheduler=args.scheduler, **params)
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    csv_path, html_path = outdir / f"{exp.id}.csv", outdir / f"{exp.id}.html"
    slopes_path = outdir / f"{exp.id}_slopes.csv"
    frame.to_csv(csv_path, index=False)
    fit_slopes(frame).to_csv(slopes_path, index=False)
    fig = error_vs_x_figure(frame)
    if exp.paper_protocol_note:
        first = exp.paper_protocol_note.split(". ")[0].rstrip(".") + " (simulation only; see the summary)."
        fig.add_annotation(text="<br>".join(textwrap.wrap(first, 140)),
                           xref="paper", yref="paper", x=0, y=-0.18, xanchor="left", yanchor="top",
                           showarrow=False, align="left", font=dict(size=11, color="#555555"))
        fig.update_layout(margin=dict(b=120))
    style.themed(fig).write_html(html_path, include_plotlyjs=True, full_html=True)
    a = frame.attrs
    out.write(f"{exp.id}: {exp.title}\n")
    eps = "" if a["epsilon"] is None else f"epsilon = {a['epsilon']:g}; "
    out.write(f"{exp.axis.name} = {','.join(map(str, a['xs']))}; reps = {a['reps']}; {eps}"
              f"seed = {a['seed']}; jobs = {a.get('jobs')}; options = {a['params']}\n\n")
    out.write(format_summary(frame) + "\n\n")
    if exp.paper_protocol_note:
        out.write("Note: " + exp.paper_protocol_note + "\n\n")
    out.write(f"elapsed: {a['elapsed_s']:.1f} s\nwrote {csv_path}, {html_path} and {slopes_path}\n")
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input, 130 interrupted).

    ``reproduce ID`` builds the parser of that experiment, so ``reproduce ID --help`` lists its
    axis flag and its options (typed from their declared defaults), and a flag it does not have is
    refused with the list of those it has.
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        exp = _find_experiment(argv)
        parser = build_parser(exp)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                args, extra = parser.parse_known_args(argv)
        except SystemExit as stop:          # --help (0) or a malformed flag value (2): argparse printed why
            return int(stop.code or 0)
        if args.command != "reproduce":
            return 2
        if extra:
            if exp is None and args.id:
                from dpcore.experiments import get_experiment
                get_experiment(args.id)     # an unknown id is the error to report first
            flags = [e for e in extra if e.startswith("-")] or extra
            if exp is None:
                raise DPValueError(f"{' '.join(flags)} not understood; name an experiment first "
                                   "(python -m dpcore reproduce --list).")
            opts = "; ".join(_describe_option(exp, k) for k in exp.options) or "none"
            raise DPValueError(
                f"{' '.join(flags)}: not an option of experiment {exp.id!r}. Its options: {opts}. Every experiment "
                f"also takes --x/--{exp.axis.flag}, --reps, --seed, --jobs, --backend, --scheduler, --methods, --out, --quiet"
                + (", --epsilon" if exp.default_epsilon is not None else "")
                + f". See: python -m dpcore reproduce {exp.id} --help")
        return reproduce(args, out, err)
    except DPValueError as exc:
        err.write(f"\nerror: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
