"""The histogram figures: the repeated-release box plot keeps a readable log axis when some errors are 0."""
from __future__ import annotations

import math

import pandas as pd

from dpcore.histograms.plots import error_box_figure


def test_zero_errors_leave_the_log_axis_readable_and_are_counted():
    """Seen in Chromium on the wine table: thresholded releases with ℓ1 error 0 made plotly's log autorange
    run to 1e+188; the axis now spans the positive values and the title says how many zeros are not drawn."""
    frame = pd.DataFrame({"method": ["laplace"] * 3 + ["threshold"] * 3, "error": [18.0, 20.0, 15.0, 0.0, 0.0, 9.0]})
    fig = error_box_figure(frame, n=178, bounds={"p/ε": 18.0})
    lo, hi = fig.layout.yaxis.range
    assert math.log10(9.0) - 0.3 < lo < math.log10(9.0) and math.log10(178) < hi < math.log10(178) + 0.3
    assert "2 releases with error 0" in fig.layout.title.text
    assert all(min(t.y) > 0 for t in fig.data)
