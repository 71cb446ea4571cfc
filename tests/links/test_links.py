"""dpcore.links: a page's public settings to URL query parameters and back; unknown names and bad values refused
with a message naming them (issue 22: shareable links)."""
from __future__ import annotations

import pytest

from dpcore import links
from ui.links import PAGES

KNG = PAGES["kng"]


def test_round_trip_of_every_param_kind():
    values = {"kng_eps": 0.5, "kng_eps_typed": 0.4, "kng_sim_n": 100, "kng_intercept": False,
              "kng_mechs_t": ["exponential", "kng"], "kng_tau": 0.25, "kng_draws_r": 7, "kng_problem": "quantile"}
    q = links.encode(KNG, values)
    assert all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in q.values())
    assert links.decode(KNG, q) == values
    assert links.decode(KNG, {**q, "session": ["abc-123"]}) == values      # the restart token is not a setting


def test_encode_leaves_out_what_the_page_does_not_link():
    assert links.encode(KNG, {"kng_eps": 1.0, "dp_dataset": object(), "kng_y": "age"}) == {"kng_eps": ["1.0"]}


@pytest.mark.parametrize("query, named", [
    ({"zzz": ["1"]}, "'zzz'"),
    ({"kng_draws_r": ["5000"]}, "kng_draws_r = '5000' is outside the allowed range [1, 2000]"),
    ({"kng_draws_r": ["1.5"]}, "kng_draws_r = '1.5' is not an integer"),
    ({"kng_tau": ["nan"]}, "kng_tau = 'nan'"),
    ({"kng_tau": ["inf"]}, "kng_tau = 'inf'"),
    ({"kng_eps": ["0.4"]}, "kng_eps = '0.4' is not one of the choices"),
    ({"kng_intercept": ["yes"]}, "kng_intercept = 'yes' is not 0 or 1"),
    ({"kng_mechs_t": ["kng", "kng"]}, "repeats a value"),
    ({"kng_norm": ["l2", "l1"]}, "2 values"),
    ({"kng_norm": ["x" * 500]}, "too long"),
])
def test_bad_links_are_refused_naming_the_parameter(query, named):
    with pytest.raises(links.LinkProblem) as err:
        links.decode(KNG, query)
    assert named in str(err.value)


def test_query_string_is_url_encoded():
    s = links.query_string({"a": ["x y", "é&"], "b": ["1"]})
    assert s == "?a=x+y&a=%C3%A9%26&b=1" and links.query_string({}) == ""


def test_every_linked_page_is_a_page_and_keys_are_unique():
    from ui import nav as _nav

    stems = {p.split("/")[-1][:-3] for p in (e.path for e in _nav.discover())}
    assert set(PAGES) <= stems
    keys = [p.key for ps in PAGES.values() for p in ps]
    assert len(keys) == len(set(keys)) and not set(keys) & links.RESERVED


def test_a_range_round_trips_and_is_refused_backwards_or_half_given():
    import numpy as np

    p = links.Param("evn_x", "range", (10, 100, 1000))
    assert p.format((np.int64(10), np.int64(1000))) == ["10", "1000"]        # NumPy scalars: their Python text
    assert p.parse(["10", "1000"]) == (10, 1000) and p.parse(["100", "100"]) == (100, 100)
    for raw, says in ((["1000", "10"], "runs backwards"), (["10"], "takes two"), (["10", "7"], "not one of")):
        with pytest.raises(links.LinkProblem, match=says):
            p.parse(raw)
    assert links.Param("x", "float").format(np.float64(0.5)) == ["0.5"]
