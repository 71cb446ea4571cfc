"""Home: what the explorer is, the topics that have pages, the papers, how to start, the ledger."""
# nav: title="Home" icon=":material/home:" order=0 default=true
import streamlit as st

from dpcore import registry

import ui

st.title("DP Mechanism Explorer")
st.markdown(
    "Interactive experiments with differentially private (DP) mechanisms: run a mechanism on "
    "your data, on a built-in example or on simulated data, see how its error depends on ε and n, "
    "and keep an honest account of the privacy you spend."
)
ui.educational_banner()

st.header("Topics")
entries = ui.nav.discover()
for e in ui.nav.topics(entries):
    st.page_link(e.path, label=e.title, icon=e.icon)
    st.markdown(f"{e.topic or ''} [Paper]({e.paper})")
if not ui.nav.topics(entries):
    st.caption("No topic page yet.")
tools = [e for e in entries if not e.paper and e.path != "pages/home.py"]
if tools:
    st.markdown("Also: " + " · ".join(f"**{e.title}**" for e in tools) + " (see the menu).")

st.header("How to start")
st.markdown(
    "1. Open the **Data** page: upload a CSV, pick a built-in example, or simulate a dataset; choose the "
    "numeric columns and declare their **public bounds** (a range fixed without looking at the data).\n"
    "2. Open a topic page. On built-in and simulated data everything is shown freely. On your own data a "
    "page shows a *teaching view* (not private, labelled so) and a *release* (private, its cost shown "
    "before you press the button).\n"
    "3. Use **Error vs n** to see how the error of each mechanism shrinks with the sample size."
)
st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
st.page_link("pages/glossary.py", label="Glossary: ε, δ, ρ, neighbours, sensitivity, ⊥ and the boxes' labels",
             icon=":material/menu_book:")

st.header("The privacy ledger (sidebar)")
st.markdown(
    "Every private output on your data spends privacy. A release happens only when you press a page's "
    "release button; the ledger records each **new** one — new data, mechanism, parameter or draw — and "
    "adds up the ones that are differentially private two ways:\n\n"
    "- **basic composition**: the ε's and δ's add up (k draws at ε cost kε);\n"
    "- **zCDP**: ρ's add up (each ε-DP draw counts as ρ = ε²/2, so k draws give kε²/2), then the total is "
    "converted to (ε, δ) at δ = 10⁻⁶, which is tighter when there are many releases. An (ε, δ)-DP release "
    "with δ > 0 has no zCDP bound, so this total is then unavailable.\n\n"
    "Streamlit reruns the page on every click; rerunning the *same* release shows the stored result and "
    "is not counted again. **New draw** makes the next release of the same settings a new one, counted again.\n\n"
    "**Randomness.** A release on your data draws 128 bits of fresh randomness from the operating system, "
    "never shown. Built-in and simulated data use the sidebar's seed (reproducible teaching; nothing is "
    "charged). Switching on **Reproducible demo on my data** uses that seed on your data too: anyone who "
    "knows it can recompute the release, so such releases are listed as **not DP** and count in no total — "
    "as are releases whose bounds were taken from the data, and teaching views. "
    "**Clear ledger list** empties the list only.\n\n"
    "**A budget per dataset.** Loading your file gives it a total (ε, δ) (default ε = 3, set on the Data page "
    "before its first release). Every release is checked against what remains, by basic composition, "
    "*before* anything is computed, and refused if it does not fit; each button shows what its click costs. "
    "Spending stays with the data: clearing the list or loading the same file again gives nothing back. "
    "A server restart or a page reload ends the session — download the ledger (JSON) and upload it "
    "afterwards to keep counting against the same budget."
)
st.header("Papers")
st.markdown("\n".join(f"- [{t.paper}]({t.url})" for t in registry.topics() if t.paper))
st.caption("Each session has its own data, releases and ledger; nothing is shared between browser sessions "
           "and nothing you upload is stored on disk by the app. Refreshing the page ends the session.")
