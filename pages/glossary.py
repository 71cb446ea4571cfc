"""Glossary: the words of differential privacy and the app's labels (ε, δ, ρ, neighbours, sensitivity, ⊥, the boxes).

Thin page: the definitions are dpcore.glossary.TERMS (one place, with their references). Uses no data, budget or
ledger of the user.
"""
# nav: title="Glossary" icon=":material/menu_book:" order=230 workspace="false"
import streamlit as st

from dpcore.glossary import TERMS

st.title("Glossary")
st.markdown("The words the pages use, in reading order: the guarantee and its parameters, what it protects, how a "
            "mechanism meets it, how releases add up, and the labels of the app's boxes and ledger.")
for name, text in TERMS:
    st.subheader(name)
    st.markdown(text)
st.caption("References: Dwork & Roth (2014), The algorithmic foundations of differential privacy; Bun & Steinke "
           "(2016), Concentrated differential privacy; Kairouz, Oh & Viswanath (2015) and Dong, Roth & Su (2022) for "
           "the hypothesis-testing reading.")
