"""dpcore.density.plots.comparison_figure and units_caption: what the density page draws, by dimension (issue 30)."""
import numpy as np

from dpcore import density
from dpcore.density import plots


def _comparison(d: int):
    x = density.mixture_dataset(300, d, rng=1)
    cols = list(x.numeric_columns)
    u = density.unit_cube_columns(x, cols)[0]
    cfg = density.CompareConfig(epsilon=1.0, delta=1e-6, bandwidth=0.1, grid=16, d=d, k=4,
                                methods=("fourier-laplace",) if d == 2 else ("gp", "fourier-laplace"))
    return density.compare_release(u, cfg, rng=2), cfg, u


def test_one_column_draws_curves_two_columns_heatmaps_with_the_nonprivate_reference_only():
    comp, cfg, u = _comparison(1)
    ref = {"truth": np.ones(16), "nonprivate": density.nonprivate_reference(u, cfg, comp.h)}
    fig, frame = plots.comparison_figure(comp, reference=ref, axis_labels=["x"], bounds=[(0.0, 10.0)])
    want, _ = plots.estimates_figure(comp, reference=ref, axis_label="x", bounds=(0.0, 10.0))
    assert fig.to_plotly_json() == want.to_plotly_json()
    comp2, cfg2, u2 = _comparison(2)
    ref2 = {"truth": np.ones((16, 16)), "nonprivate": density.nonprivate_reference(u2, cfg2, comp2.h)}
    fig2, _ = plots.comparison_figure(comp2, reference=ref2, axis_labels=["a", "b"], bounds=[(0, 1), (0, 2)])
    titles = [a["text"] for a in fig2.to_plotly_json()["layout"]["annotations"]]
    assert "Non-private KDE" in titles and "true density (simulation)" not in titles   # 2-D: the KDE only


def test_units_caption_gives_h_in_each_columns_units_literally():
    text = plots.units_caption(0.05, ["age", "<b>x</b>"], [(0.0, 100.0), (1.0, 3.0)])
    assert "h = 0.05 on [0, 1] is 5 in age, 0.1 in" in text and "<b>" not in text
