"""AppTest tier: the Data page — built-in examples, upload (CSV and .xlsx), simulation, public bounds and
imputation values, data-derived bounds marked in the dataset, non-private diagnostics, unload."""
from __future__ import annotations

import io
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.app

GOOD_CSV = b"age,income,city\n34,52000,Paris\n51,61000.5,Lyon\n29,,Nice\n62,75000,Lille\n45,48000,Metz\n"


def _texts(at) -> str:
    """Every text the session shows (markdown, captions, alerts, labels, table cells), joined."""
    parts = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                 "success", "exception"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for w in ("radio", "selectbox", "multiselect", "number_input", "checkbox", "toggle", "button"):
        for e in getattr(at, w):
            parts += [str(getattr(e, "label", "")), str(e.value)] + [str(o) for o in getattr(e, "options", [])]
    for df in at.dataframe:
        parts.append(df.value.to_csv())
    return "\n".join(parts)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _data_page(app) -> AppTest:
    app.run()
    return app.switch_page("pages/data.py").run()


def _upload(at, name: str, content: bytes, mime: str = "text/csv") -> AppTest:
    at.switch_page("pages/data.py").run()
    at.file_uploader(key="data_upload").set_value((name, content, mime))
    return at.run()


def _inputs(at, label: str) -> list:
    return [w for w in at.number_input if w.label == label]


def _declare(at) -> AppTest:
    """Submit the bounds form (issue 32 item 6: every typed bound goes in with one click, one rerun)."""
    return at.button(key="data_bounds_submit").click().run()


def _xlsx(rows) -> bytes:
    import openpyxl
    wb = openpyxl.Workbook()
    for r in rows:
        wb.active.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# -- built-in examples, unload, refresh warning -------------------------------------------
def test_builtin_example_loads_in_one_click_with_declared_bounds(app):
    at = _data_page(app)
    assert "No dataset loaded yet" in _texts(at)
    # issue 31 (was: "Refreshing or closing this browser tab ends the session"): budgets live in a workspace, said here
    assert any("live in a **workspace** on this server" in m.value and "gives nothing away" in m.value
               for m in at.markdown)
    at.button(key="data_builtin_diabetes").click().run()
    assert not at.exception and not at.error
    ds = at.session_state["dp_dataset"]
    assert ds.kind == "built-in" and ds.n_rows == 442
    assert ds.bounds["bmi"] == (10.0, 60.0) and ds.bound_source("bmi") == "declared"
    text = _unescape(_texts(at))
    assert "kg/m²" in text and "body-mass index" in text          # the rationale is shown
    assert at.multiselect(key="data_columns").value == list(ds.bounds)
    assert [w.value for w in _inputs(at, "lower")][:3] == [18.0, 1.0, 10.0]
    assert not [w for w in at.warning if "NOT differentially private" in _unescape(w.value)]
    for name in ("breast_cancer", "wine"):
        at.button(key=f"data_builtin_{name}").click().run()
        assert not at.exception and at.session_state["dp_dataset"].kind == "built-in"


def test_unload_button_clears_the_dataset(app):
    at = _data_page(app)
    at.button(key="data_builtin_wine").click().run()
    assert at.session_state["dp_dataset"] is not None
    at.button(key="data_unload").click().run()
    assert not at.exception
    assert at.session_state["dp_dataset"] is None and "No dataset loaded yet" in _texts(at)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/data.py").run()
    assert at.session_state["dp_dataset"] is None


# -- upload: CSV and xlsx ------------------------------------------------------------------
def test_xlsx_upload_is_read(app):
    raw = _xlsx([["age", "income"], [34, 52000], [51, None], [29, 48000]])
    at = _upload(app.run(), "people.xlsx", raw, XLSX_MIME)
    assert not at.exception and not at.error
    ds = at.session_state["dp_dataset"]
    assert ds.name == "people.xlsx" and ds.numeric_columns == ("age", "income") and ds.n_rows == 3
    assert list(at.dataframe[0].value.columns) == ["age", "income"]
    assert "read sheet" in _unescape(_texts(at))


@pytest.mark.parametrize("name, content, expected", [
    ("old.xls", bytes.fromhex("D0CF11E0A1B11AE1") + bytes(64), "legacy Excel"),
    ("broken.xlsx", b"PK\x03\x04" + b"xl/workbook.xml" + bytes(64), "could not be read as an Excel workbook"),
    ("report.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "PDF document"),
    ("empty.csv", b"", "empty"),
    ("header.csv", b"a,b\n", "no data rows"),
    ("image.csv", b"\x89PNG\r\n\x1a\n" + bytes(64), "PNG"),
    ("book.csv", b"PK\x03\x04" + bytes(64), "ZIP archive"),
    ("nul.csv", b"a,b\n1,\x002\n", "NUL"),
])
def test_bad_file_shows_a_visible_message_not_an_exception(app, name, content, expected):
    at = _upload(app.run(), name, content, "application/octet-stream")
    assert not at.exception
    assert len(at.error) == 1
    assert expected.lower() in _unescape(at.error[0].value).lower()
    assert at.session_state["dp_dataset"] is None


def test_upload_csv_shows_preview_columns_and_notes(app):
    at = _upload(app.run(), "people.csv", GOOD_CSV)
    assert not at.exception and not at.error
    preview = at.dataframe[0].value
    assert list(preview.columns) == ["age", "income", "city"] and len(preview) == 5
    ms = at.multiselect(key="data_columns")
    assert ms.options == ["age", "income"]  # the text column is not offered
    assert ms.value == ["age"]
    info = _unescape(" ".join(i.value for i in at.info))
    assert "read 5 row(s)" in info and "missing" in info
    ms.set_value(["age", "income"]).run()
    assert [w.label for w in at.number_input if w.label in ("lower", "upper")] == ["lower", "upper"] * 2


def test_upload_replaces_the_dataset_and_an_error_keeps_the_previous_one(app):
    at = _data_page(app)
    at.button(key="data_builtin_wine").click().run()
    at = _upload(at, "people.csv", GOOD_CSV)
    assert at.session_state["dp_dataset"].name == "people.csv"
    at.file_uploader(key="data_upload").set_value(("bad.csv", b"", "text/csv"))
    at.run()
    assert len(at.error) == 1
    assert at.session_state["dp_dataset"].name == "people.csv"  # the old dataset stays


def test_non_numeric_chosen_column_and_html_names_are_inert(app):
    csv = b'<b>bold</b>,**name**,[link](http://x)\n1,x,3\n2,y,4\n'
    at = _upload(app.run(), "html.csv", csv)
    assert not at.exception and not at.error
    assert at.multiselect(key="data_columns").options == ["<b>bold</b>", "[link](http://x)"]
    at.multiselect(key="data_columns").set_value(["<b>bold</b>", "[link](http://x)"]).run()
    names = [m.value for m in at.markdown if "bold" in m.value or "link" in m.value]
    assert names and all("<b>" not in m and "](" not in m for m in names)  # escaped Markdown


# -- bounds, imputation values, non-private diagnostics --------------------------------------
def test_bounds_imputation_and_non_private_diagnostics(app):
    at = _upload(app.run(), "people.csv", GOOD_CSV)
    at.multiselect(key="data_columns").set_value(["age", "income"]).run()
    lo, hi = _inputs(at, "lower"), _inputs(at, "upper")
    lo[0].set_value(30.0)
    hi[0].set_value(50.0)
    lo[1].set_value(0.0)
    hi[1].set_value(100_000.0)
    _declare(at)
    assert not at.exception and not at.error
    ds = at.session_state["dp_dataset"]
    assert ds.bounds["age"] == (30.0, 50.0) and ds.impute_value("income") == 50_000.0
    # the counts are shown apart, in a table labelled non-private, never beside a release
    assert any(m.value.startswith("**Non-private diagnostics**") for m in at.markdown)
    (diag,) = [d.value.set_index("column") for d in at.dataframe if "column" in d.value.columns
               and "clipped below" in d.value.columns]
    assert diag.loc["age", "clipped below"] == 1 and diag.loc["age", "clipped above"] == 2
    assert diag.loc["income", "missing → imputed"] == 1 and (diag["rows (n)"] == 5).all()
    # a declared imputation value; one outside the bounds is refused with a message
    _inputs(at, "impute missing with")[1].set_value(40_000.0)
    _declare(at)
    assert at.session_state["dp_dataset"].impute_value("income") == 40_000.0
    _inputs(at, "impute missing with")[1].set_value(-1.0)
    _declare(at)
    assert not at.exception and any("outside its bounds" in _unescape(e.value) for e in at.error)
    assert at.session_state["dp_dataset"].impute_value("income") == 40_000.0
    # invalid bounds are refused; a cleared bound is no bound
    _inputs(at, "lower")[0].set_value(70.0)
    _declare(at)
    assert any("must be smaller than upper" in _unescape(e.value) for e in at.error)
    assert at.session_state["dp_dataset"].bounds["age"] == (30.0, 50.0)  # unchanged
    _inputs(at, "impute missing with")[1].set_value(None)
    _inputs(at, "lower")[0].set_value(None)
    _declare(at)
    assert not at.exception and "age" not in at.session_state["dp_dataset"].bounds
    assert [list(d.value["column"]) for d in at.dataframe if "clipped below" in d.value.columns] == [["income"]]


def test_filling_bounds_from_data_is_opt_in_marks_the_dataset_and_warns(app):
    at = _upload(app.run(), "people.csv", GOOD_CSV)
    assert not [b for b in at.button if b.label == "Fill from data"]
    [c for c in at.checkbox if "leaks" in c.label][0].check().run()
    assert any("not** differentially private" in w.value for w in at.warning)
    [b for b in at.button if b.label == "Fill from data"][0].click().run()
    assert not at.exception
    ds = at.session_state["dp_dataset"]
    assert ds.bounds["age"] == (29.0, 62.0) and ds.bound_source("age") == "from data"
    assert any("NOT differentially private" in _unescape(w.value) for w in at.warning)
    # survives navigation (the mark is in the dataset, not in page state) ...
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/data.py").run()
    assert at.session_state["dp_dataset"].bound_source("age") == "from data"
    assert any("NOT differentially private" in _unescape(w.value) for w in at.warning)
    # ... and declaring other bounds makes them declared
    _inputs(at, "upper")[0].set_value(120.0)
    _declare(at)
    assert at.session_state["dp_dataset"].bound_source("age") == "declared"
    assert not any("NOT differentially private" in _unescape(w.value) for w in at.warning)


def test_dataset_and_bounds_survive_switching_pages(app):
    at = _upload(app.run(), "people.csv", GOOD_CSV)
    _inputs(at, "lower")[0].set_value(18.0)
    _inputs(at, "upper")[0].set_value(60.0)
    _inputs(at, "impute missing with")[0].set_value(30.0)
    _declare(at)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    ds = at.session_state["dp_dataset"]
    assert ds.name == "people.csv" and ds.bounds["age"] == (18.0, 60.0) and ds.impute_value("age") == 30.0
    assert at.multiselect(key="data_columns").value == ["age"]
    assert [w.value for w in at.number_input if w.label in ("lower", "upper", "impute missing with")] == [
        18.0, 60.0, 30.0]


# -- simulate -------------------------------------------------------------------------------
def test_simulate_and_changing_widgets_changes_the_data(app):
    at = _data_page(app)
    at.radio(key="data_source").set_value("Simulate a dataset").run()
    at.button(key="data_sim_go").click().run()
    assert not at.exception and not at.error
    first = at.dataframe[0].value.copy()
    assert list(first.columns) == ["x"] and len(first) == 200
    ds = at.session_state["dp_dataset"]
    assert ds.n_rows == 1000 and ds.kind == "simulated"
    assert ds.bounds["x"] == (-4.0, 4.0)  # design bounds of N(0, 1)
    # the same seed reproduces the data; another seed changes it
    at.button(key="data_sim_go").click().run()
    assert at.dataframe[0].value.equals(first)
    at.number_input(key="dp_seed").set_value(1).run()
    at.button(key="data_sim_go").click().run()
    assert not np.allclose(at.dataframe[0].value["x"], first["x"])
    # n and the simulator change the dataset
    at.number_input(key="data_sim_n").set_value(300).run()
    at.button(key="data_sim_go").click().run()
    assert at.session_state["dp_dataset"].n_rows == 300
    at.selectbox(key="data_sim_kind").set_value("linear_regression").run()
    at.button(key="data_sim_go").click().run()
    assert not at.exception
    ds = at.session_state["dp_dataset"]
    assert "y" in ds.numeric_columns and ds.bounds["x1"] == (-1.0, 1.0)
    assert "y" in list(at.dataframe[0].value.columns)


def test_simulator_parameter_error_is_shown_not_raised(app):
    at = _data_page(app)
    at.radio(key="data_source").set_value("Simulate a dataset").run()
    at.number_input(key="data_sim_normal_scale").set_value(-1.0).run()
    at.button(key="data_sim_go").click().run()
    assert not at.exception
    assert any("scale" in e.value and "must be" in _unescape(e.value) for e in at.error)


def test_missing_cells_midpoint_or_a_charged_private_mean_and_their_effect(app):
    """Issue 20 item 3: 6 of 200 cells missing, bounds [0, 5000], values near 1000. Before: only the counts of
    filled cells were shown. After: the labelled non-private view shows the mean without the filled cells and
    with the midpoint (≈ 4 % higher); a private mean costs ε = 1 — named on the button before the click — is
    booked in the dataset's budget, and becomes the column's imputation value."""
    g = np.random.default_rng(5)
    income = g.normal(1000, 200, 200).clip(0, 5000).round(1)
    cells = [f"{i}," + ("" if i < 6 else f"{v}") for i, v in enumerate(income)]
    csv = ("id,income\n" + "\n".join(cells) + "\n").encode()
    at = _upload(app.run(), "survey.csv", csv)
    at.multiselect(key="data_columns").set_value(["income"]).run()
    _inputs(at, "lower")[0].set_value(0.0)
    _inputs(at, "upper")[0].set_value(5000.0)
    _declare(at)
    assert not at.exception and not at.error
    observed = float(income[6:].mean())
    effect = next(d.value for d in at.dataframe if "shift of the mean" in d.value.columns)
    assert effect["mean"].iloc[0] == pytest.approx(observed)
    assert effect["shift of the mean"].iloc[1] / observed == pytest.approx(0.04, abs=0.01)     # the midpoint: +4 %
    button = at.button(key="data_imp_go")
    assert button.label == "Release the private mean — ε = 1, δ = 0"                        # the cost, before
    from tests.app.pagetest import ledger
    assert ledger(at).totals().n_releases == 0
    at.session_state["data_imp_eps_typed"] = 1.0
    button.click().run()
    assert not at.exception
    assert ledger(at).totals().n_releases == 1 and ledger(at).totals().basic_epsilon == 1.0
    assert not any("not charged again" in c.value for c in at.caption)         # shown as released, not "cached"
    ds = at.session_state["dp_dataset"]
    filled = ds.impute_value("income")
    assert filled != 2500.0 and 0.0 <= filled <= 5000.0
    assert _inputs(at, "impute missing with")[0].value == filled
    import ui
    session = at.session_state[ui.SESSION_KEY]
    acct = session.account(session.identity(ds))
    assert acct.spent()[0] == pytest.approx(1.0)                              # booked in the dataset's budget
    at.run()                                                                   # a rerun: cached, not charged again
    assert ledger(at).totals().n_releases == 1
