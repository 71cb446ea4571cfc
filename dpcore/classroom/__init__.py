"""The classroom game "in or out?": every student is the adversary of a differentially private release.

A teacher creates a class on a scenario (a story over a declared audit's neighbouring pair D, D′ —
:mod:`.scenarios`), a mechanism or its broken mutant, ε (and δ). In each round every student sees one release,
drawn on the server from D or D′ by a secret fair coin, and answers "in" or "out" with a confidence. Pooled, the
class's answers are (false-positive, true-positive) points that a correct mechanism keeps under the trade-off
curve of its ε (:mod:`dpcore.privacy.tradeoff`); the class's empirical ε lower bound is computed by the audit
harness of the test suite (:func:`dpcore.audit.audit`).

Modules (pure; none imports streamlit): :mod:`.codes` (join codes, keys, nicknames), :mod:`.scenarios` (stories,
releases, display), :mod:`.roc` (the best adversary), :mod:`.scoring` (points, pooled ROC, ε lower bound,
sentence), :mod:`.figures` (the dashboard figure), :mod:`.storage` (SQLAlchemy Core tables and the game's
transactions; imports SQLAlchemy), :mod:`.views` (what a student and the dashboard show; CSV export). No module
is imported here, so ``import dpcore`` does not pull SQLAlchemy or plotly.
"""
