"""The LASSO page's texts derived from a release and its config (dpcore.lasso; issue 30)."""
import numpy as np

from dpcore import lasso


def test_release_summary_counts_the_support_and_the_l1_norm_with_or_without_intercept():
    assert lasso.release_summary(np.array([0.5, 0.0, -0.25]), False, 1.0) == \
        "**Released** θ_priv: 2 non-zero coefficients of 3, ‖θ‖₁ = 0.75 ≤ r = 1."
    assert lasso.release_summary(np.array([9.0, 0.0, -0.25]), True, 2.0) == \
        "**Released** θ_priv: 1 non-zero coefficients of 2, ‖θ‖₁ = 0.25 ≤ r = 2; intercept 9 (scaled)."


def test_captions_say_what_the_intercept_changes():
    assert "forced through the centres" in lasso.units_caption(False)
    assert "forced" not in lasso.units_caption(True)
    assert "absorb the columns' offsets" in lasso.reference_fits_caption("y", False)
    assert "<i>" not in lasso.reference_fits_caption("<i>y</i>", True)       # a column name, shown literally


def test_comparison_caption_reads_the_diagnostics_and_the_config():
    values = {"constrained optimum θ*": np.array([0.0, 0.4, 0.0, -0.2]), "records touched by clipping": 7}
    cfg = lasso.LassoConfig(epsilon=2.0, delta=1e-6, intercept=True)
    text = lasso.comparison_caption(values, np.array([0.3, 0.0, -0.1]), (1000, 3), cfg)
    assert "recovered: 2 of 2" in text and "Clipped records: 7" in text and "scikit-learn" not in text
    assert f"{lasso.corollary27_rate(1000, 3, 2.0, 1e-6):.3g}." in text
