"""dpcore: the numeric core of DP Mechanism Explorer.

Educational/research code: the floating-point samplers are not hardened against
floating-point side channels and are not meant for production releases.
dpcore never imports streamlit.
"""
__version__ = "0.1.0"
