"""LabConfig.up_to: the Query release page's grid of n and α (issue 30)."""
from dpcore import query_release as q


def test_up_to_keeps_the_ladder_below_n_max_and_down_to_half_alpha():
    spec = q.Marginals(4, 2)
    cfg = q.LabConfig.up_to(spec, n_max=1000, alpha=0.1, dataset="uniform", methods=("gaussian",), reps=2)
    assert cfg.ns == (10, 30, 100, 300, 1000) and cfg.alphas == (0.05, 0.1, 0.2, 0.4)
    assert q.LabConfig.up_to(spec, n_max=100, alpha=1.0, methods=("gaussian",)).alphas == (1.0,)   # none ≥ 0.5
