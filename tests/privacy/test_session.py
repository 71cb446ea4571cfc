"""The release rules of dpcore.privacy.session (issue 8 §1, §2, §4, §6 at the dpcore level)."""
from __future__ import annotations

import numpy as np
import pytest

from dpcore.errors import Cancelled, DPValueError
from dpcore.privacy import (
    BUILTIN,
    BUILTIN_FIXED_SEED,
    SIMULATED,
    USER,
    Budget,
    PrivacyCost,
    Randomness,
    ReleaseRequest,
    ReleaseSession,
    bound_sources,
    canonical_key,
    charge_rule,
    check_bounds,
    data_kind,
    randomness_for,
    release_label,
)

DECLARED = check_bounds({"x": "declared"})
FP = "0f" * 32  # a dataset's identity (its fingerprint)


def _req(key=("fp", "mean", 1.0), kind=USER, randomness=None, bounds=DECLARED, teaching=False, label="mean of x",
         cost=PrivacyCost.pure(1.0)):
    return ReleaseRequest(key=key, label=label, kind=kind, randomness=randomness or randomness_for(kind),
                          bounds=bounds, teaching=teaching, dataset=FP if kind == USER else None, cost=cost)


def _session(max_cached=32, epsilon=1000.0):
    """A session with the dataset FP loaded under a large budget (these tests are about the other rules)."""
    s = ReleaseSession(max_cached)
    s.open_dataset(FP, n=10_000, name="people.csv", budget=Budget(epsilon, 1e-6, n=10_000))
    return s


def _draw(rng):
    return float(rng.normal())


COST = dict(cost_of=lambda r: PrivacyCost.pure(1.0))


# -- §1 randomness --------------------------------------------------------------------------
def test_release_on_user_data_uses_fresh_128_bit_os_entropy_never_a_seed():
    """Issue 8 §1: before, the default was seed 0 keyed by the data, so two sessions released the same
    value (a deterministic function of the data); now two sessions, same data and key, differ."""
    values = []
    for _ in range(3):
        s = _session()
        values.append(s.run(_req(), _draw, submitted=True, **COST).result)
    assert len(set(values)) == 3
    rng = randomness_for(USER).generator(("anything",))
    entropy = rng.bit_generator.seed_seq.entropy
    assert isinstance(entropy, int) and entropy.bit_length() > 64  # 128 random bits (P[<65 bits] = 2^-63)
    assert randomness_for(USER).seed is None and randomness_for(USER).key_part == ("fresh",)


def test_reproducible_demo_on_user_data_is_recorded_but_not_counted_as_dp():
    s = _session()
    demo = randomness_for(USER, seed=7, reproducible_demo=True)
    out = s.run(_req(randomness=demo), _draw, submitted=True, **COST)
    assert out.status == "released" and not out.charge.counted_as_dp
    (entry,) = s.ledger.entries
    assert not entry.counted_as_dp and "not private against anyone who knows the seed" in entry.reason
    t = s.ledger.totals()
    assert (t.n_releases, t.basic_epsilon, t.n_not_dp) == (0, 0.0, 1)
    # and it is reproducible: another session with the same seed gets the same value
    assert _session().run(_req(randomness=demo), _draw, submitted=True, **COST).result == out.result
    # a fresh release in the same session is counted
    s.run(_req(), _draw, submitted=True, **COST)
    assert s.ledger.totals().basic_epsilon == 1.0


def test_fixed_seeds_are_for_demo_data_only():
    assert randomness_for(SIMULATED, seed=5) == Randomness("fixed", 5)
    assert randomness_for(BUILTIN).seed == 0
    with pytest.raises(DPValueError, match="fixed seed"):
        charge_rule(USER, Randomness("fixed", 0))
    with pytest.raises(DPValueError):
        Randomness("fresh", 3)
    a = _session().run(_req(kind=SIMULATED, bounds=None), _draw, submitted=False, **COST)
    b = _session().run(_req(kind=SIMULATED, bounds=None), _draw, submitted=False, **COST)
    assert a.status == "released" and a.result == b.result  # reproducible teaching
    c = _session().run(_req(key=("fp", "mean", 2.0), kind=SIMULATED, bounds=None), _draw, submitted=False,
                             **COST)
    assert c.result != a.result  # one seed, another parameter: independent noise


def test_demo_data_are_not_charged_and_say_so():
    s = _session()
    out = s.run(_req(kind=SIMULATED, bounds=None), _draw, submitted=False, **COST)
    assert out.status == "released" and not out.charge.charged and "not charged" in out.charge.reason
    assert len(s.ledger) == 0


def test_builtin_real_data_releases_need_a_click_and_are_recorded_but_not_counted_as_dp():
    """Built-in examples are real people's records released with a known seed: the ledger shows the
    entry and its cost, apart from every DP total; their teaching view stays free."""
    s = _session()
    assert s.run(_req(kind=BUILTIN, bounds=None), _draw, submitted=False, **COST).status == "needs submit"
    out = s.run(_req(kind=BUILTIN, bounds=None), _draw, submitted=True, **COST)
    (entry,) = s.ledger.entries
    assert out.status == "released" and not entry.counted_as_dp and entry.reason == BUILTIN_FIXED_SEED
    assert s.ledger.totals().basic_epsilon == 0.0
    teach = s.run(_req(kind=BUILTIN, bounds=None, teaching=True), _draw, submitted=False, **COST)
    assert teach.status == "released" and not teach.charge.charged and len(s.ledger) == 1


# -- §2 bounds ------------------------------------------------------------------------------
def test_bounds_from_the_data_are_never_counted_as_dp():
    """Issue 8 §2: before, min/max bounds were charged as pure ε-DP; now the entry says not DP."""
    s = _session()
    leaky = check_bounds({"age": "declared", "income": "from data"})
    s.run(_req(bounds=leaky), _draw, submitted=True, **COST)
    (entry,) = s.ledger.entries
    assert not entry.counted_as_dp and entry.reason == "not DP: bounds taken from the data (income)"
    assert s.ledger.totals().n_releases == 0 and s.ledger.totals().basic_epsilon == 0.0


def test_every_column_needs_bounds_and_user_releases_must_check_them():
    with pytest.raises(DPValueError, match="'y'.*no bounds"):
        check_bounds({"x": "declared", "y": None})
    with pytest.raises(DPValueError, match="bounds"):
        _req(bounds=None)
    with pytest.raises(DPValueError):
        check_bounds({})


def test_bound_sources_reads_the_dataset():
    class Old:  # a dataset that does not record sources: bounds count as declared
        bounds = {"a": (0, 1)}

    class New:
        bounds = {"a": (0, 1), "b": (0, 2)}

        def bound_source(self, c):
            return {"a": "declared", "b": "from data"}[c]

    assert bound_sources(Old(), ["a", "z"]) == {"a": "declared", "z": None}
    assert bound_sources(New(), ["a", "b"]) == {"a": "declared", "b": "from data"}


# -- §6 explicit submit, caching, charging -----------------------------------------------------
def test_user_data_needs_a_submit_and_reruns_are_cached_not_charged():
    """Issue 8 §6: before, any rerun after the first click released again; now only a submit does."""
    s = _session()
    calls = []

    def compute(rng):
        calls.append(1)
        return _draw(rng)

    assert s.run(_req(), compute, submitted=False, **COST).status == "needs submit" and not calls
    first = s.run(_req(), compute, submitted=True, **COST)
    for submitted in (False, True):  # a rerun, and a second click with the same settings
        again = s.run(_req(), compute, submitted=submitted, **COST)
        assert again.status == "cached" and again.result == first.result
    assert len(calls) == 1 and len(s.ledger) == 1
    # a widget change (new key) without a click: nothing computed, nothing charged
    assert s.run(_req(key=("fp", "median", 1.0)), compute, submitted=False, **COST).status == "needs submit"
    assert len(calls) == 1 and len(s.ledger) == 1
    # a new draw of the same settings needs a click and is charged
    s.new_draw()
    assert s.run(_req(), compute, submitted=False, **COST).status == "needs submit"
    assert s.run(_req(), compute, submitted=True, **COST).result != first.result
    assert len(s.ledger) == 2


def test_errors_and_cancellation_are_neither_cached_nor_charged():
    s = _session()

    def cancelled(rng):
        raise Cancelled(done=3, total=10)

    with pytest.raises(Cancelled):
        s.run(_req(), cancelled, submitted=True, **COST)
    with pytest.raises(DPValueError):
        s.run(_req(), lambda rng: (_ for _ in ()).throw(DPValueError("work cap")), submitted=True, **COST)
    assert len(s.ledger) == 0 and len(s) == 0
    with pytest.raises(TypeError, match="PrivacyCost"):
        s.run(_req(), _draw, submitted=True, cost_of=lambda r: 1.0)


def test_cache_is_bounded_and_evicted_user_releases_need_a_new_submit():
    s = _session(max_cached=2)
    for k in range(3):
        s.run(_req(key=("fp", k)), _draw, submitted=True, **COST)
    assert len(s) == 2 and len(s.ledger) == 3
    assert s.run(_req(key=("fp", 0)), _draw, submitted=False, **COST).status == "needs submit"
    assert s.run(_req(key=("fp", 2)), _draw, submitted=False, **COST).status == "cached"


def test_teaching_view_is_recorded_as_not_dp():
    s = _session()
    s.run(_req(teaching=True), _draw, submitted=True, **COST)
    (entry,) = s.ledger.entries
    assert not entry.counted_as_dp and "teaching view" in entry.reason
    # a teaching view and a release of the same settings are two different things
    assert s.run(_req(), _draw, submitted=False, **COST).status == "needs submit"


# -- §4 per-draw costs in the ledger ----------------------------------------------------------
def test_page_defaults_two_mechanisms_times_100_draws_give_rho_100():
    """Issue 8 §4: 2 mechanisms × 100 draws at ε = 1 is ρ = 2·100·½ = 100 (it was (100ε)²/2 × 2 = 10 000)."""
    s = _session()
    for mech in ("kng", "exponential"):
        s.run(_req(key=("fp", mech), cost=PrivacyCost.pure(1.0, count=100)), _draw, submitted=True,
              cost_of=lambda r: PrivacyCost.pure(1.0, count=100))
    t = s.ledger.totals()
    assert t.zcdp_rho == pytest.approx(100.0) and t.basic_epsilon == pytest.approx(200.0)


# -- keys and labels --------------------------------------------------------------------------
def test_canonical_keys_are_stable_and_hashable():
    import pandas as pd

    a = canonical_key((np.float64(1.0), np.array([1.0, 2.0]), pd.DataFrame({"x": [1, 2]}), {"b": 1, "a": 2}))
    b = canonical_key((1.0, np.array([1.0, 2.0]), pd.DataFrame({"x": [1, 2]}), {"a": 2, "b": 1}))
    assert a == b and hash(a) == hash(b)
    assert canonical_key(-0.0) == canonical_key(0.0)
    assert canonical_key(np.array([1.0, 3.0])) != canonical_key(np.array([1.0, 2.0]))


def test_labels_are_words():
    label = release_label("KNG quantile", data="people.csv", columns=["age"], epsilon=0.5, draws=100,
                          details={"τ": 0.9, "norm": "ℓ∞"})
    assert label == "KNG quantile of age — people.csv; ε = 0.5, τ = 0.9, norm ℓ∞; 100 draws"
    assert "_" not in label


def test_data_kind_defaults_to_user():
    class Sim:
        kind = "simulated"

    class Demo:
        origin = "builtin"

    assert (data_kind(Sim()), data_kind(Demo()), data_kind(object())) == (SIMULATED, BUILTIN, USER)


def test_an_interrupted_release_is_neither_cached_nor_charged():
    """A newer Streamlit rerun stops the computation at a progress update (a BaseException raised
    inside compute): nothing was shown, so nothing is cached or recorded."""
    class Interrupted(BaseException):
        pass

    s = _session()

    def compute(rng):
        raise Interrupted

    with pytest.raises(Interrupted):
        s.run(_req(), compute, submitted=True, **COST)
    assert len(s) == 0 and len(s.ledger) == 0
    assert s.run(_req(), _draw, submitted=False, **COST).status == "needs submit"
