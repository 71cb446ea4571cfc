"""The two generalised linear losses of Asi, Duchi & Talwar (2025), Examples 1 and 2, and their constants.

A GLM loss is ℓ_θ(x, y) = h(t) with t = ⟨x, θ⟩ − y (robust regression) or t = y⟨x, θ⟩ (logistic
regression). Then ∇ℓ = h'(t)·x·s and ∇²ℓ = h''(t)·xxᵀ (s = 1 or y), so on covariates with ‖x‖₂ ≤ r₂
[DERIVED, standard]: M0 = r₂·sup|h'|, M1 = r₂²·sup h'', M2 = r₂³·sup|h'''|, and the per-example
gradient set lies in the ℓ2 ball of radius r₂·sup|h'| (diameter D = 2r₂).

Both losses satisfy |h'''| ≤ h'' (quasi-self-concordance with q = 1, paper §2), hence
e^{−|s|}h''(t) ≤ h''(t+s) ≤ e^{|s|}h''(t) [DERIVED, Lemma 2.1(i)], and the linear self-bounding
condition ψ(s) ≤ c·s on [0, s̄] holds with c = e − 1, s̄ = 1 [DERIVED]; the defaults c = 2, s̄ = 1
are valid and slightly conservative.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import expit

from ..errors import DPValueError

__all__ = ["Loss", "ROBUST", "LOGISTIC", "LOSSES", "get_loss"]


def _robust_h(t):
    a = np.abs(t)
    return a + 2.0 * np.log1p(np.exp(-a))


def _robust_h1(t):
    return np.tanh(0.5 * t)


def _robust_h2(t):
    c = 1.0 / np.cosh(0.5 * np.clip(t, -1400, 1400))
    return 0.5 * c * c


def _robust_h3(t):
    return -_robust_h1(t) * _robust_h2(t)


def _logistic_h(t):
    return np.logaddexp(0.0, -t)


def _logistic_h1(t):
    return -expit(-t)


def _logistic_h2(t):
    return expit(t) * expit(-t)


def _logistic_h3(t):
    return _logistic_h2(t) * (1.0 - 2.0 * expit(t))


@dataclass(frozen=True)
class Loss:
    """A GLM loss h with its derivatives and the suprema behind the Lipschitz constants.

    Attributes
    ----------
    name : {"robust", "logistic"}
    title : str
    h, h1, h2, h3 : callables (vectorised)
        h and its first three derivatives.
    sup_h1, sup_h2, sup_h3 : float
        sup|h'|, sup h'', sup|h'''| (exact).
    q : float
        Quasi-self-concordance constant: |h'''| ≤ q·h''.
    """

    name: str
    title: str
    h: Callable[[np.ndarray], np.ndarray]
    h1: Callable[[np.ndarray], np.ndarray]
    h2: Callable[[np.ndarray], np.ndarray]
    h3: Callable[[np.ndarray], np.ndarray]
    sup_h1: float
    sup_h2: float
    sup_h3: float
    q: float = 1.0

    def margin(self, X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """The argument t of h: ⟨x, θ⟩ − y (robust) or y⟨x, θ⟩ (logistic)."""
        xt = X @ theta
        return xt - y if self.name == "robust" else y * xt

    def sign(self, y: np.ndarray) -> np.ndarray:
        """dt/d⟨x, θ⟩: 1 (robust) or y (logistic)."""
        return np.ones_like(y) if self.name == "robust" else y

    def constants(self, r2: float) -> dict:
        """M0, M1, M2 and D on covariates with ‖x‖₂ ≤ r₂ [DERIVED, §2.1 of the paper]."""
        return dict(M0=r2 * self.sup_h1, M1=r2 ** 2 * self.sup_h2, M2=r2 ** 3 * self.sup_h3, D=2.0 * r2 * self.sup_h1)


#: Example 1/3: robust regression, h(t) = log(1+eᵗ) + log(1+e^{−t}) = |t| + 2 log1p(e^{−|t|}).
#: h' = tanh(t/2), h'' = ½ sech²(t/2) ≤ ½, h''' = −h'h'', sup|h'''| = 1/(3√3) [DERIVED, exact].
ROBUST = Loss("robust", "robust regression, h(t) = log(1+eᵗ) + log(1+e⁻ᵗ)", _robust_h, _robust_h1, _robust_h2,
              _robust_h3, 1.0, 0.5, 1.0 / (3.0 * math.sqrt(3.0)))
#: Example 2/4: logistic regression, h(t) = log(1+e^{−t}), y ∈ {−1, +1}; h'' = s(t)s(−t) ≤ ¼,
#: h''' = h''(1 − 2s(t)), sup|h'''| = 1/(6√3) [DERIVED, exact].
LOGISTIC = Loss("logistic", "logistic regression, h(t) = log(1+e⁻ᵗ)", _logistic_h, _logistic_h1, _logistic_h2,
                _logistic_h3, 1.0, 0.25, 1.0 / (6.0 * math.sqrt(3.0)))
LOSSES = {"robust": ROBUST, "logistic": LOGISTIC}


def get_loss(name: str) -> Loss:
    if name not in LOSSES:
        raise DPValueError(f"loss = {name!r} is unknown; use 'robust' (robust regression) or 'logistic'.")
    return LOSSES[name]
