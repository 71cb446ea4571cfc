"""Issue 34 review of the projected dashboard (a 1920×1080 screenshot): what a class at the back of a lecture room
could not read. Streamlit's chart theme restyles axes that only inherit ``layout.font`` (11 px grey ticks on the
screenshot), so each axis sets its own black fonts; the aspect lock stretched the x axis to −50 %…150 % on a wide
screen, so the square is kept at [0, 1] by shrinking its domain; the class's points at a rate of 0 or 1 were cut
in half by the axes."""
from __future__ import annotations

from dpcore.classroom import scoring as K
from dpcore.classroom.figures import FONT_SIZE, INK, dashboard_figure
from dpcore.classroom.scenarios import check_setting

from .test_scoring import _class


def test_issue34_every_axis_carries_its_own_large_black_type_and_stays_on_the_unit_square():
    fig = dashboard_figure(check_setting("mean", "noise/laplace", False, 1.0), _class(False, 40, 3))
    for ax in (fig.layout.xaxis, fig.layout.yaxis):
        assert ax.title.font.size >= FONT_SIZE >= 24 and ax.title.font.color == INK == "#000000"
        assert ax.tickfont.size >= 22 and ax.tickfont.color == INK and ax.linecolor == INK
        assert ax.constrain == "domain" and ax.tickformat == ".0%" and ax.fixedrange
    assert tuple(fig.layout.xaxis.range) == (0, 1) and fig.layout.yaxis.scaleanchor == "x"
    assert fig.layout.legend.font.size >= 22 and fig.layout.title.font.size > FONT_SIZE
    assert next(t for t in fig.data if t.name == "your class").cliponaxis is False


def test_issue34_the_figure_without_answers_keeps_the_same_axes():
    fig = dashboard_figure(check_setting("mean", "noise/laplace", True, 2.0), K.class_score([], 2.0))
    assert tuple(fig.layout.xaxis.range) == (0, 1) and fig.layout.xaxis.tickfont.size >= 22
