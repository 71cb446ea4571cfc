"""The eigenvalues page's texts and budget split from public inputs (dpcore.single_parameter; issue 30)."""
import pytest

from dpcore import single_parameter as sp


def test_budget_split_named_or_custom():
    assert sp.budget_split("quarters") == sp.BUDGET_SPLITS["quarters"]
    assert sp.budget_split("custom", 0.4) == pytest.approx((0.2, 0.2, 0.3, 0.3))
    with pytest.raises(KeyError):
        sp.budget_split("thirds")


def test_certification_outlook_is_the_predictions_in_words():
    cfg = sp.FunctionalConfig(epsilon=1.0, delta=1e-5, loss="robust", geometry="l2-ball", radius=1.0)
    lines, caption = sp.certification_outlook(cfg, 20_000, 5, 0.05, sp.public_cap(cfg, 5))
    need = sp.n_to_certify(cfg, 5, 0.05, sp.public_cap(cfg, 5))
    assert (f"from **n = {need:,}** rows" in lines[0]) if need else "no n up to" in lines[0]
    assert lines[-1].startswith("- at this n = 20,000")
    assert f"λ_c = {sp.certified_floor(cfg, 20_000, 5):.4g}" in caption


def test_preparation_note_explains_the_response_scaling_only_for_the_robust_loss():
    assert "response y is mapped" in sp.preparation_note(True)
    assert "response" not in sp.preparation_note(False) and "public bounds" in sp.preparation_note(False)
