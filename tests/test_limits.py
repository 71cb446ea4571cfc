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
