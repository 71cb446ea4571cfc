"""Command line: ``python -m dpcore reproduce <id> [options]`` and ``python -m dpcore reproduce --list``.

``reproduce`` runs an error-vs-n experiment (defaults: the paper's setting, 100 replicates), writes
``DIR/<id>.csv`` (the tidy frame: one row per method, n, replicate), ``DIR/<id>.html`` (the
plotly figure, self-contained) and ``DIR/<id>_slopes.csv`` (fitted slopes), shows a progress bar on stderr and prints a summary (log10 mean
error per n and method with Monte-Carlo s.e., mean log10 error, fitted slopes, elapsed time).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Sequence, TextIO

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


def _parse_ns(text: str) -> list[int]:
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            v = float(tok)
        except ValueError:
            raise DPValueError(f"--ns: {tok!r} is not a number; give sample sizes such as 100,1000,1e4.") from None
        if not math.isfinite(v) or v != int(v):
            raise DPValueError(f"--ns: {tok!r} is not a whole number of observations.")
        out.append(int(v))
    if not out:
        raise DPValueError("--ns is empty; give sample sizes such as 100,1000,1e4.")
    return out


def _parse_option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise DPValueError(f"--option {text!r} must look like KEY=VALUE (e.g. --option B=2).")
    key, val = (s.strip() for s in text.split("=", 1))
    for conv in (int, float):
        try:
            return key, conv(val)
        except ValueError:
            pass
    return key, val


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dpcore", description="DP Mechanism Explorer command line.")
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("reproduce", help="run an error-vs-n experiment (paper figure)",
                        description="Run an error-vs-n experiment; write DIR/<id>.csv and DIR/<id>.html.")
    rp.add_argument("id", nargs="?", help="experiment id (see --list)")
    rp.add_argument("--list", action="store_true", help="list the experiment ids and exit")
    rp.add_argument("--reps", type=int, default=None, help="replicates per n (default: the paper's, 100)")
    rp.add_argument("--ns", type=str, default=None, help="comma-separated sample sizes, e.g. 100,1e3,1e4")
    rp.add_argument("--epsilon", type=float, default=None, help="privacy parameter ε (default 1)")
    rp.add_argument("--seed", type=int, default=2019, help="root seed (default 2019); results depend only on it")
    rp.add_argument("--jobs", type=int, default=-1, help="worker processes (-1 = all cores, 1 = in-process)")
    rp.add_argument("--out", type=str, default="results", help="output directory (default ./results)")
    rp.add_argument("--methods", type=str, default=None, help="comma-separated subset of the methods")
    rp.add_argument("--sweeps", type=int, default=None, help="MCMC sweeps (experiments with MCMC)")
    rp.add_argument("--constants", choices=("paper", "calibrated"), default=None,
                    help="'paper' = the paper's printed constants (default for its figures); 'calibrated' = spec")
    rp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="other experiment option (e.g. B=2, block=10); repeatable")
    rp.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _list(out: TextIO) -> None:
    from dpcore.experiments import REGISTRY

    width = max(len(k) for k in REGISTRY)
    for exp in REGISTRY.values():
        out.write(f"{exp.id:<{width}}  {exp.title}\n")


def reproduce(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    from dpcore.experiments import fit_slopes, format_summary, get_experiment, run_experiment
    from dpcore.viz_experiments import error_vs_n_figure

    if args.list:
        _list(out)
        return 0
    if not args.id:
        err.write("error: give an experiment id, or --list to see them.\n")
        return 2
    exp = get_experiment(args.id)
    params = dict(_parse_option(o) for o in args.option)
    if args.sweeps is not None:
        params["sweeps"] = args.sweeps
    if args.constants is not None:
        params["constants"] = args.constants
    ns = _parse_ns(args.ns) if args.ns else None
    methods = args.methods.split(",") if args.methods else None
    bar = None if args.quiet else TextProgress(err, label=f"{exp.id} ")
    frame = run_experiment(exp, ns=ns, reps=args.reps, epsilon=args.epsilon, seed=args.seed, jobs=args.jobs,
                           progress=bar, methods=methods, **params)
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    csv_path, html_path = outdir / f"{exp.id}.csv", outdir / f"{exp.id}.html"
    slopes_path = outdir / f"{exp.id}_slopes.csv"
    frame.to_csv(csv_path, index=False)
    fit_slopes(frame).to_csv(slopes_path, index=False)
    fig = error_vs_n_figure(frame)
    if exp.paper_protocol_note:
        fig.add_annotation(text="Paper protocol: data-dependent scaling R = max|Y| and chains started at the "
                                "non-private estimate (simulation only; a real release needs a public bound).",
                           xref="paper", yref="paper", x=0, y=-0.16, xanchor="left", showarrow=False,
                           font=dict(size=11, color="#555555"))
        fig.update_layout(margin=dict(b=95))
    fig.write_html(html_path, include_plotlyjs=True, full_html=True)
    a = frame.attrs
    out.write(f"{exp.id}: {exp.title}\n")
    out.write(f"ns = {','.join(map(str, a['ns']))}; reps = {a['reps']}; epsilon = {a['epsilon']:g}; "
              f"seed = {a['seed']}; jobs = {a.get('jobs')}; options = {a['params']}\n\n")
    out.write(format_summary(frame) + "\n\n")
    if exp.paper_protocol_note:
        out.write("Note: " + exp.paper_protocol_note + "\n\n")
    out.write(f"elapsed: {a['elapsed_s']:.1f} s\nwrote {csv_path}, {html_path} and {slopes_path}\n")
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input, 130 interrupted)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    args = build_parser().parse_args(argv)
    try:
        if args.command == "reproduce":
            return reproduce(args, out, err)
    except DPValueError as exc:
        err.write(f"\nerror: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
