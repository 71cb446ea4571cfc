"""Test-only experiments (never registered globally): an n axis and a float ε axis."""
from __future__ import annotations

from dpcore.experiments import Axis, Experiment, blocks_by_x, unit_rngs


def fake_task(config, units):
    """Sample mean of n standard normals: error |x̄| (slope −1/2); 'noisy' adds Laplace/(nε)."""
    rows = []
    for n, rep in units:
        g = unit_rngs(config, n, rep)
        xbar = g["data"].standard_normal(n).mean()
        rows.append({"method": "nonprivate", "n": n, "rep": rep, "error": abs(xbar)})
        if "noisy" in config.methods:
            z = g["noisy"].laplace() * config.params["scale"] / (n * config.epsilon)
            rows.append({"method": "noisy", "n": n, "rep": rep, "error": abs(xbar + z), "acceptance": 0.5})
    return rows


def make_fake(plan=None, **kw):
    """An error-vs-n experiment of :func:`fake_task` (n = 10 … 1000)."""
    args = dict(id="fake-mean", title="Fake", description="test double", caption="c",
                methods=("nonprivate", "noisy"), axis=Axis("n", "sample size n", values=(10, 100, 1000), lo=2),
                default_reps=12, default_epsilon=1.0, run_task=fake_task, plan=plan or blocks_by_x(3),
                options={"scale": 50.0})
    args.update(kw)
    return Experiment(**args)


def eps_task(config, units):
    """Laplace mean of 200 U(0, 1) records at privacy parameter ε (the axis): error |x̄ − 1/2| and
    |x̄ + Laplace(1/(nε)) − 1/2|; ``bins`` is carried to show an int option arrives typed."""
    rows = []
    n = config.params["records"]
    for eps, rep in units:
        g = unit_rngs(config, eps, rep)
        xbar = g["data"].random(n).mean()
        rows.append({"method": "nonprivate", "epsilon": eps, "rep": rep, "error": abs(xbar - 0.5)})
        if "laplace" in config.methods:
            noisy = xbar + g["laplace"].laplace(scale=1.0 / (n * eps))
            rows.append({"method": "laplace", "epsilon": eps, "rep": rep, "error": abs(noisy - 0.5),
                         "records_seen": float(n)})
    return rows


def make_eps(**kw):
    """A sweep over ε (a float, log axis): the private error falls like ε⁻¹ at small ε."""
    args = dict(id="fake-eps", title="Fake ε sweep", description="test double over ε", caption="c",
                methods=("nonprivate", "laplace"),
                axis=Axis("epsilon", "privacy parameter ε", values=(0.01, 0.1, 1.0), integer=False,
                          lo=1e-4, hi=1e4),
                default_epsilon=None, default_reps=6, run_task=eps_task, plan=blocks_by_x(2),
                options={"records": 200, "verbose": False, "kind": "mean"},
                option_help={"records": "records per replicate"}, option_choices={"kind": ("mean",)},
                quick={"x": (0.01, 1.0), "reps": 4}, reference_slope=-1.0, reference_label="ε⁻¹")
    args.update(kw)
    return Experiment(**args)
