"""Classroom "in or out?": the teacher's class, QR code, dashboard and controls; students join and answer. Thin page
over dpcore.classroom (state in the database: DPX_DATABASE_URL, or SQLite in DPX_DATA_DIR, default .dpx-data/). The
secret coin never reaches it: a student's screen is views.student_view's elements; nothing is cached per class."""
# nav: title="Classroom: in or out?" icon=":material/school:" order=220 workspace="false"
import time

import streamlit as st

from dpcore.classroom import codes, storage as S, scenarios as SC, views as V
from dpcore.classroom.figures import dashboard_figure
from dpcore.data import literal
from dpcore.errors import DPValueError
from dpcore.registry import audits
import ui

AUDITS = audits()
CONTROLS = (("Open next round", "Round {} is open.", S.open_round), ("Close round", "Round {} closed.", S.close_round),
            ("Reveal the truth", "Round {}: truth shown.", S.reveal_round), ("End the class", "Ended.", S.end_class))

E = ui.database_engine()   # the server's one database and pool (the store's; classes are its v6 tables), no class data


def act(done: str, fn, *args):
    """Run a storage action (a button's callback); its result or refusal becomes the page's message."""
    try:
        res = fn(E, *args, now=time.time())
        st.session_state["cls_msg"] = ("success", res if isinstance(res, str) else done.format(res))
        if fn in (S.delete_class, S.create_class):   # the key of a new class; none after a deletion
            st.session_state["cls_key"] = getattr(res, "teacher_key", None)
    except DPValueError as e:
        st.session_state["cls_msg"] = ("error", literal(str(e)))


def call(fn, *args):
    """``fn(E, *args, now=…)``, or None after showing its refusal (a ClassroomError: never the coin)."""
    try:
        return fn(E, *args, now=time.time())
    except DPValueError as e:
        st.error(literal(str(e)))


def message():
    kind, text = st.session_state.pop("cls_msg", (None, None))
    return getattr(st, kind)(text) if kind and text else None


def setting_form(prefix: str, current=None) -> SC.Setting:
    sk = current.scenario if current else st.selectbox("Scenario", [s.key for s in SC.scenarios()], key=f"{prefix}_sc",
                                                       format_func=lambda k: SC.scenario(k).title)
    ids = list(SC.scenario(sk).audits)
    aid = st.selectbox("Mechanism", ids, key=f"{prefix}_aud", format_func=lambda i: AUDITS[i].title,
                       index=ids.index(current.audit_id) if current else 0)
    mut = st.checkbox(f"Broken on purpose: {AUDITS[aid].mutant.name}", key=f"{prefix}_mut",
                      value=bool(current and current.mutant))
    eps = st.number_input("ε", 0.01, SC.MAX_EPSILON, current.epsilon if current else 1.0, key=f"{prefix}_eps")
    dlt = st.number_input("δ", 1e-4, SC.MAX_DELTA, (current.delta if current else 0) or 0.05, format="%.4f",
                          key=f"{prefix}_dlt") if AUDITS[aid].delta > 0 else 0.0
    return SC.Setting(sk, aid, mut, float(eps), float(dlt))


@st.fragment(run_every=2)
def dashboard(key: str):
    if (d := call(V.dashboard, key)) is None:
        return
    for col, (label, value) in zip(st.columns(4), d.metrics()):
        col.metric(label, value)
    st.markdown(f"#### {d.score.sentence}")
    st.plotly_chart(dashboard_figure(d.figure_setting, d.score), key="cls_fig", width="stretch")
    st.caption(d.caption())   # the chart's text alternative sits right under it (the test tier checks); its headline is the sentence above


def teacher(key: str | None):
    if not key:
        s = setting_form("new")
        n = st.number_input("Rounds", 1, S.DEFAULT_LIMITS.max_rounds, 5, key="new_rounds")
        if st.button("Create the class", type="primary", key="cls_create"):
            act("Class created.", S.create_class, s, int(n))
            st.rerun()
        st.text_input("…or open your class with its teacher key (then press Enter)", type="password", key="cls_paste",
                      on_change=lambda: st.session_state.update(cls_key=st.session_state["cls_paste"].strip()))
        return message()
    if (info := call(S.teacher_class, key)) is None:
        return st.session_state.pop("cls_key", None)
    message()
    st.expander("Teacher key: keep it private, it alone opens these controls (paste it to reopen)").code(key, None)
    st.subheader(f"Join with the code {info.join_code}: open Classroom and choose a student, or scan")   # projected
    st.image(codes.qr_png(f"{st.context.url or ''}?join={info.join_code}"), width=240, alt="QR code of the join link",
             caption=f"Scan to join, or type the code {info.join_code}")
    dashboard(key)
    for col, (label, done, fn) in zip(st.columns(4), CONTROLS):
        col.button(label, on_click=act, args=(done, fn, key), type="primary" if fn is S.open_round else "secondary")
    with st.expander("Change ε or switch to the broken mechanism (between rounds)"):
        s = setting_form("chg", info.setting)
        if st.button("Apply to the next round", key="cls_apply"):
            act("The next round plays {}.", S.change_setting, key, s)
            st.rerun()
    csv = V.export_csv(E, key, now=time.time(), nicknames=st.checkbox("Include nicknames in the export", key="cls_nk"))
    st.download_button("Results (CSV)", csv, "classroom.csv", "text/csv", on_click="ignore")
    st.download_button("Script that redraws the figure", V.redraw_script(), "classroom_figure.py", on_click="ignore")
    st.button("Delete the class and everything in it", on_click=act, args=("The class is deleted.", S.delete_class, key))


@st.fragment(run_every=2)
def student(code: str, token: str):
    if (view := call(V.student_view, code, token)) is None:
        return
    for kind, label, text in view.elements:
        getattr(st, kind)(*((label, text) if kind == "metric" else (text,)))
    if view.form_round is not None:
        conf = st.segmented_control("How sure? (optional)", [1, 2, 3], key="cls_conf", format_func=V.CONFIDENCE_WORDS.get)
        for col, says in zip(st.columns(2), ("in", "out")):
            col.button(says.upper(), key=f"cls_{says}", type="primary", width="stretch", on_click=act,
                       args=("", S.answer, code, token, view.form_round, says == "in", conf))
    message()


def join(code: str, nick: str, token: str = ""):  # resumes the student of ``token`` after a reload or restart
    try:
        sess = (S.resume_student(E, code, token, now=time.time()) if token else S.join(E, code, nick, now=time.time()))
        st.session_state["cls_student"] = (sess.join_code, sess.token)
        st.query_params.update(join=sess.join_code, s=sess.token)   # the student's own capability, not the coin
    except DPValueError as e:
        st.query_params.pop("s", None)
        st.session_state["cls_msg"] = ("error", literal(str(e)))


st.title("Classroom: in or out?")
st.info("Every release here is drawn from small **public demo tables**, never from your data: nothing is charged to "
        "any privacy budget. Each student sees one release per round, drawn on the server from D (the target is in) "
        "or D′ (out) by a secret fair coin, and guesses.", icon=":material/school:")
if st.radio("I am", ["a student", "the teacher"], horizontal=True, key="cls_role") == "the teacher":
    teacher(st.session_state.get("cls_key"))
elif "cls_student" not in st.session_state and st.query_params.get("s"):
    join(st.query_params.get("join", ""), "", st.query_params["s"])
    st.rerun()
elif "cls_student" in st.session_state:
    student(*st.session_state["cls_student"])
else:
    with st.form("cls_join"):
        code = st.text_input("Join code", value=st.query_params.get("join", ""), max_chars=60, key="cls_code")
        nick = st.text_input("Nickname (no real name needed; the class sees it)", max_chars=60, key="cls_nick")
        if st.form_submit_button("Join", type="primary"):
            join(code, nick)
            st.rerun()
    message()
