"""Plotly figures built from dpcore results and frames (never imports streamlit).

One place for the look of every figure: :mod:`dpcore.viz.style` holds the palette and the shared layout,
and reads the labels and colours each topic declares (``Topic.styles``). A topic's own figures live in its ``dpcore/<topic>/plots.py``
(this package imports no topic).
"""
