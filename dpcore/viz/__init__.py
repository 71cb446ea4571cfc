"""Plotly figures built from dpcore results and frames (never imports streamlit).

One place for the look of every figure: :mod:`dpcore.viz.style` holds the mechanism labels,
colours and the shared layout. Each topic adds ``dpcore/viz/<topic>.py``.
"""
