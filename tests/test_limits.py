"""dpcore.limits: the shared work caps (issue 18) — the product, its factors, the cap and the fix in one message."""
import pytest

from dpcore.errors import DPValueError
from dpcore.limits import BUDGET_BYTES, FLOAT_BYTES, check_bytes, check_work, work


def test_work_is_the_exact_product_and_never_overflows():
    assert work({"a": 3, "b": 7}) == 21 and isinstance(work({"a": 3, "b": 7}), int)
    assert work({"a": 10**200, "b": 10**200}) == 10**400              # whole numbers: exact
    assert work({"a": 1e300, "b": 1e300}) == float("inf")               # floats: inf, refused below, no error


def test_at_the_cap_passes_and_above_is_refused_naming_everything():
    assert check_work("cells", {"k1": 4096, "k2": 4096}, 2**24, fix="use fewer bins") == 2**24
    with pytest.raises(DPValueError) as e:
        check_work("cells of the crossed table", {"k1": 4097, "k2": 4096}, 2**24, fix="use fewer bins")
    msg = str(e.value)
    assert msg.startswith("cells of the crossed table = k1 4,097 × k2 4,096 = 16,781,312 exceeds the cap of "
                          "16,777,216") and msg.endswith("use fewer bins.") and "30 s and 1 GB" in msg
    with pytest.raises(DPValueError, match="exceeds the cap"):
        check_work("x", {"a": 1e300, "b": 1e300}, 1e12, fix="f")


def test_memory_caps_count_bytes():
    assert BUDGET_BYTES == 2**30
    check_bytes("the draws", {"draws": 64, "values": 2**20, "bytes": FLOAT_BYTES}, fix="fewer draws")
    with pytest.raises(DPValueError, match=r"memory of the draws = .* bytes exceeds the cap of 536,870,912 bytes"):
        check_bytes("the draws", {"draws": 65, "values": 2**20, "bytes": FLOAT_BYTES}, fix="fewer draws")


def test_certify_prediction_refuses_a_tiny_epsilon_before_its_recursion(monkeypatch):
    """Issue 18 (found by the limits benchmark's eigenvalues sweep): at ε = 1e-6 the "what would certify" panel ran
    the recursion (10) ~5.8·10⁷ times per prediction, for tens of minutes. The step count is a public function of
    (ε, δ, the split) and is capped before the first step."""
    from dpcore.single_parameter import FunctionalConfig, n_to_certify, predict, public_cap
    from dpcore.single_parameter import _certify

    def boom(*a, **k):
        raise AssertionError("the recursion ran")

    cfg = FunctionalConfig(epsilon=1e-6, delta=1e-5, coordinate=0, loss="robust", radius=1.0, geometry="l2-ball")
    monkeypatch.setattr(_certify, "_iterate_R", boom)
    with pytest.raises(DPValueError) as exc:
        n_to_certify(cfg, 5, 0.01, public_cap(cfg, 5))
    msg = str(exc.value)
    assert "steps of the recursion (10) in the prediction" in msg and "exceeds the cap of 100,000" in msg
    assert "raise ε or δ" in msg
    monkeypatch.undo()
    ok = FunctionalConfig(epsilon=1e-3, delta=1e-5, coordinate=0, loss="robust", radius=1.0, geometry="l2-ball")
    assert predict(ok, 20_000, 5, 0.01).lam_min == 0.01          # ε = 1e-3 (5.8·10⁴ steps) still predicts
