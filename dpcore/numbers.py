"""Numbers as the app shows them: one rule for every budget, cost, ε and ledger total (issue 32, item 5).

``number(x, digits)`` rounds ``x`` to ``digits`` significant digits — to the nearest, or UP for an amount that must
never be understated (a spent budget, an upper bound), or DOWN for one that must never be overstated (what remains) —
by exact decimal arithmetic on the float's shortest repr (so ``1e6`` stays ``1e6`` and ``0.1 + 0.2`` prints ``0.3``:
no float noise), and writes it in positional notation between 1e-4 and 1e15 without trailing zeros (``999970``,
never ``1e+06``); outside that range in ``%g`` notation (``1e-05``, ``2.5e-07``).
"""
from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal

__all__ = ["number", "rounded", "digits_to_show"]

_ROUNDING = {"nearest": ROUND_HALF_EVEN, "up": ROUND_CEILING, "down": ROUND_FLOOR}
#: positional notation for magnitudes in [POSITIONAL_MIN, POSITIONAL_MAX)
POSITIONAL_MIN, POSITIONAL_MAX = 1e-4, 1e15


def rounded(x: float, digits: int = 4, rounding: str = "nearest") -> float:
    """``x`` rounded to ``digits`` significant digits (``rounding``: ``"nearest"``, ``"up"`` towards +∞ or ``"down"``
    towards −∞), computed exactly on the decimal of ``repr(x)``.

    >>> rounded(13.5914, 3, "up"), rounded(999970.0, 4, "down"), rounded(1.0100000000000002, 4)
    (13.6, 999900.0, 1.01)
    """
    if x == 0 or not math.isfinite(x):
        return float(x)
    if rounding not in _ROUNDING:
        raise ValueError(f"rounding = {rounding!r} is unknown; use one of {tuple(_ROUNDING)}.")
    d = Decimal(repr(float(x)))
    q = Decimal(1).scaleb(d.adjusted() - int(digits) + 1)
    return float(d.quantize(q, rounding=_ROUNDING[rounding]))


def number(x: float, digits: int = 4, rounding: str = "nearest") -> str:
    """``x`` as the app shows it: :func:`rounded`, then positional notation in [1e-4, 1e15) without trailing zeros,
    ``%g`` outside.

    >>> number(999970.0, 6), number(1e6), number(0.1 + 0.2), number(1.0100000000000002), number(1e-5)
    ('999970', '1000000', '0.3', '1.01', '1e-05')
    >>> number(13.5914, 3, "up"), number(2.0), number(0.0), number(-0.000000000000000008)
    ('13.6', '2', '0', '-8e-18')
    """
    x = float(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    r = rounded(x, digits, rounding)
    if not POSITIONAL_MIN <= abs(r) < POSITIONAL_MAX:
        return f"{r:.{int(digits)}g}"
    decimals = max(0, int(digits) - 1 - math.floor(math.log10(abs(r))))
    text = f"{r:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def digits_to_show(total: float, smallest: float, at_least: int = 4, at_most: int = 15) -> int:
    """Significant digits enough that an amount ``smallest`` taken from ``total`` changes the printed total.

    >>> digits_to_show(1e6, 30.0)
    8
    """
    if not (total > 0 and smallest > 0):
        return at_least
    return int(min(at_most, max(at_least, math.ceil(math.log10(total / smallest)) + 3)))
