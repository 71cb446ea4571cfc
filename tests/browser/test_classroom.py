"""Browser tier, the classroom: a teacher and three students, each in a Chromium context of their own (separate
cookies and storage, as four browsers), play one round end to end on a server of this module's own (its
DPX_DATA_DIR a temporary folder): create, join ×3, open, answer, close, reveal; the projected dashboard draws the
class's point; axe-core (WCAG 2.0/2.1 A and AA, as tests/browser/test_accessibility.py) finds nothing on the
Classroom page in either role, in every state the round passes through."""
from __future__ import annotations

import re
import sys

import pytest
import sqlalchemy as sa
from playwright.sync_api import expect

from tests.browser.conftest import ROOT, RUN_COUNTER_JS
from tests.browser.test_accessibility import Checker
from tests.browser.test_browser import wait_idle

sys.path.insert(0, str(ROOT / "benchmarks"))
import classroom_ws as W  # noqa: E402

from dpcore.classroom import storage as S  # noqa: E402
from dpcore.store import open_engine, transaction  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]  # the tier's Chromium
MAIN = '[data-testid="stMain"]'


@pytest.fixture(scope="module")
def classroom_server(tmp_path_factory, browser):
    """``streamlit run app.py`` with DPX_DATA_DIR a temporary folder: (base URL, its environment)."""
    folder = tmp_path_factory.mktemp("classroom")
    env = W.server_env(folder / "data")
    port = W.free_port()
    with open(folder / "server.log", "wb") as log:
        proc = W.start_server(port, env, log)
        try:
            yield f"http://127.0.0.1:{port}", env
        finally:
            W.stop_server(proc)


def _context_page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1200})
    ctx.add_init_script(RUN_COUNTER_JS)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    return ctx, pg


def _metric(pg, label: str) -> str:
    m = pg.locator('[data-testid="stMetric"]').filter(has=pg.get_by_text(label, exact=True)).first
    return m.locator('[data-testid="stMetricValue"]').inner_text().strip()


def _wait_metric(pg, label: str, value: str, timeout: float = 30_000) -> None:
    """Wait until the metric ``label`` shows ``value``: the dashboard's 2-second fragment updates it by itself, no click
    (30 s at most: a busy CI host; benchmarks/classroom_ws.py measures the delay)."""
    pg.wait_for_function(
        "([label, value]) => [...document.querySelectorAll('[data-testid=\"stMetric\"]')].some(m => "
        "m.querySelector('[data-testid=\"stMetricLabel\"]')?.innerText.trim() === label && "
        "m.querySelector('[data-testid=\"stMetricValue\"]')?.innerText.trim() === value)", arg=[label, value],
        timeout=timeout)


def test_a_round_with_a_teacher_and_three_students_in_their_own_browsers(browser, classroom_server):
    base, env = classroom_server
    contexts = []
    try:
        ctx, teacher = _context_page(browser)
        contexts.append(ctx)
        t_check = Checker(teacher, "classroom_teacher")
        teacher.goto(f"{base}/classroom")
        wait_idle(teacher)
        teacher.get_by_text("the teacher", exact=True).click()
        wait_idle(teacher)
        t_check("create form")
        teacher.get_by_role("button", name="Create the class").click()
        wait_idle(teacher)
        teacher.get_by_text("Join code", exact=True).wait_for()
        code = _metric(teacher, "Join code")
        assert re.fullmatch(r"[A-Z0-9]{6}", code), code
        t_check("new class")

        kids, k_checks = [], []
        for i, nick in enumerate(("Ada", "Bo", "<b>Cy</b>")):
            ctx, pg = _context_page(browser)
            contexts.append(ctx)
            check = Checker(pg, f"classroom_student_{i}")
            pg.goto(f"{base}/classroom?join={code}")                      # the QR code's link
            wait_idle(pg)
            expect(pg.get_by_label("Join code")).to_have_value(code, timeout=30_000)   # the link's code, pre-filled
            if i == 0:
                check("join form")
            pg.get_by_label("Nickname (no real name needed; the class sees it)").fill(nick)
            pg.get_by_role("button", name="Join").click()
            pg.get_by_text(f"Playing as {nick} in class {code}").wait_for()   # literally, even the markup
            check("joined")
            kids.append(pg)
            k_checks.append(check)
        _wait_metric(teacher, "Players", "3")                             # the dashboard counts the players

        teacher.get_by_role("button", name="Open next round").click()
        wait_idle(teacher)
        for pg, check, says in zip(kids, k_checks, ("IN", "OUT", "IN")):
            pg.get_by_role("button", name=says, exact=True).wait_for()      # the 2-second fragment shows the form
            check("round open")
            pg.get_by_role("button", name=says, exact=True).click()
            pg.get_by_text(f"Your answer: {says}.").wait_for()
            check("answered")
        _wait_metric(teacher, "Answers this round", "3")                  # within 2 s of the last guess (+ slack)
        t_check("round open with answers")
        teacher.get_by_role("button", name="Close round").click()
        teacher.get_by_text("Round 1 closed.").wait_for()
        # both truths among 3 coins: a point (the server's database: the store's, in its DPX_DATA_DIR)
        engine = open_engine(env.get("DPX_DATABASE_URL") or None, data_dir=env["DPX_DATA_DIR"])
        with transaction(engine) as conn:
            coins = conn.execute(sa.select(S.trials.c.id, S.trials.c.secret_in).order_by(S.trials.c.id)).all()
            if len({c for _, c in coins}) == 1:
                conn.execute(sa.update(S.trials).where(S.trials.c.id == coins[0][0])
                             .values(secret_in=not coins[0][1]))
        engine.dispose()
        teacher.get_by_role("button", name="Reveal the truth").click()
        teacher.get_by_text("Round 1: truth shown.").wait_for()
        teacher.locator(".js-plotly-plot .legendtext", has_text="your class").first.wait_for()
        assert teacher.locator(".js-plotly-plot .gtitle", has_text="Your class (3 answers)").count() == 1
        assert "ε lower bound" in teacher.locator(MAIN).inner_text()
        t_check("revealed dashboard")
        for pg, check in zip(kids, k_checks):
            pg.get_by_text(re.compile(r"^The truth: the target was (IN|OUT)\.$")).wait_for()
            pg.get_by_text("Your score", exact=True).wait_for()
            check("revealed")
        for check in (t_check, *k_checks):
            check.assert_clean()
    finally:
        for ctx in contexts:
            ctx.close()
