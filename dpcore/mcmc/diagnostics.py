"""MCMC diagnostics: pure functions of a trace (T, C, d).

Rank-normalised split R-hat and bulk effective sample size, following Vehtari, Gelman, Simpson,
Carpenter & Bürkner (2021), "Rank-normalization, folding, and localization: an improved R-hat",
Bayesian Analysis 16(2); per chain (:func:`per_chain_rhat_ess`) for simulations with one chain
per replicate.  Computed from private data: non-private, never part of a release.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import fft as _fft
from scipy import special as _special

from ..errors import DPValueError

__all__ = ["split_rhat", "effective_sample_size", "per_chain_rhat_ess", "acceptance_rate"]


def _as_tcd(trace: Any, name: str = "trace") -> tuple[np.ndarray, bool]:
    """Read-only view of ``trace`` as (T, C, d) floats; ``squeeze`` if the input was (T, C)."""
    try:
        a = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError(f"{name} must be a numeric array of shape (T, C, d) or (T, C).") from None
    if a.ndim == 2:
        a, squeeze = a[:, :, None], True
    elif a.ndim == 3:
        squeeze = False
    else:
        raise DPValueError(f"{name} must have shape (T, C, d) or (T, C) (draws x chains [x coordinates]); "
                           f"got shape {a.shape}.")
    if a.shape[1] < 1 or a.shape[2] < 1:
        raise DPValueError(f"{name} has no chains or no coordinates (shape {a.shape}).")
    if not np.isfinite(a).all():
        raise DPValueError(f"{name} contains NaN or infinite values; diagnostics need finite draws.")
    return a, squeeze


def _split_chains(a: np.ndarray) -> np.ndarray:
    """(T, C, d) -> (T//2, 2C, d): first and second half of every chain (middle draw dropped if T odd)."""
    h = a.shape[0] // 2
    return np.concatenate([a[:h], a[a.shape[0] - h:]], axis=1)


def _average_ranks(flat: np.ndarray) -> np.ndarray:
    """Ranks 1..N along axis 0 of every column of ``flat`` (N, K), ties given their average rank.

    Fully vectorised over columns (tens of thousands of columns when ranking chains one by one):
    a tie group spanning sorted positions s..e gets rank (s + e)/2 + 1.
    """
    y = np.ascontiguousarray(flat.T)  # (K, N): work along the contiguous axis
    N = y.shape[1]
    order = np.argsort(y, axis=1, kind="stable")
    sv = np.take_along_axis(y, order, axis=1)
    idx = np.arange(N)[None, :]
    new = np.ones(y.shape, dtype=bool)
    new[:, 1:] = sv[:, 1:] != sv[:, :-1]                       # first of a tie group
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    last = np.ones(y.shape, dtype=bool)
    last[:, :-1] = new[:, 1:]                                   # last of a tie group
    end = np.minimum.accumulate(np.where(last, idx, N - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(y.shape, dtype=float)
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, axis=1)
    return ranks.T


def _rank_normalise(x: np.ndarray) -> np.ndarray:
    """Pooled rank-normal scores per coordinate: Φ⁻¹((r − 3/8)/(N + 1/4)), average ranks for ties."""
    n, m, d = x.shape
    r = _average_ranks(x.reshape(n * m, d))
    scores: np.ndarray = _special.ndtri((r - 0.375) / (n * m + 0.25))
    return scores.reshape(n, m, d)


def _rhat_core(x: np.ndarray) -> np.ndarray:
    """Classic R-hat of chains x (n, m, d) (Gelman et al., BDA3 §11.4); inf if W = 0 < B, NaN if both 0."""
    n, m, _ = x.shape
    lo, hi = x.min(axis=0), x.max(axis=0)  # (m, d); exact tests avoid round-off "variances"
    W = np.where((lo == hi).all(axis=0), 0.0, x.var(axis=0, ddof=1).mean(axis=0))
    B = n * x.mean(axis=0).var(axis=0, ddof=1) if m > 1 else np.zeros(x.shape[2])
    B = np.where(lo.min(axis=0) == hi.max(axis=0), 0.0, B)
    var_plus = (n - 1) / n * W + B / n
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(var_plus / W)
    return np.where(W > 0, r, np.where(B > 0, np.inf, np.nan))


def _scores(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split chains and their pooled rank-normal scores (shared by R-hat and ESS)."""
    s = _split_chains(a)
    return s, _rank_normalise(s)


def _rhat_from(s: np.ndarray, z: np.ndarray) -> np.ndarray:
    """max(bulk, tail) split R-hat from split chains ``s`` and their scores ``z``."""
    d = s.shape[2]
    bulk = _rhat_core(z)
    folded = np.abs(s - np.median(s.reshape(-1, d), axis=0))
    tail = _rhat_core(_rank_normalise(folded))
    out: np.ndarray = np.fmax(bulk, tail)  # NaN only if both are NaN
    return out


def _ess_from(s: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Bulk ESS from split chains ``s`` and their scores ``z`` (NaN for a constant coordinate)."""
    const = np.ptp(s.reshape(-1, s.shape[2]), axis=0) == 0
    return np.where(const, np.nan, _ess_core(z))


def rhat_ess(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank-normalised split R-hat and bulk ESS of a validated (T, C, d) trace (NaN if T < 4)."""
    d = a.shape[2]
    if a.shape[0] < 4:
        return np.full(d, np.nan), np.full(d, np.nan)
    s, z = _scores(a)
    return _rhat_from(s, z), _ess_from(s, z)


def split_rhat(trace: Any) -> np.ndarray | float:
    """Rank-normalised split R-hat (Vehtari et al. 2021), pure function of the trace.

    Each chain is split in two halves; R-hat is computed on the pooled rank-normal scores
    ("bulk") and on those of |x − median| ("tail"), and the larger is returned.  Works with
    a single chain (two halves).  NaN when fewer than 4 draws or when every draw is identical;
    inf when chains are constant at different values.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    (d,) array, or a float for a (T, C) trace.

    Examples
    --------
    >>> float(split_rhat(np.zeros((10, 2))))
    nan
    """
    a, squeeze = _as_tcd(trace)
    out = np.full(a.shape[2], np.nan) if a.shape[0] < 4 else _rhat_from(*_scores(a))
    return float(out[0]) if squeeze else out


def _ess_core(x: np.ndarray) -> np.ndarray:
    """Multi-chain ESS of x (n, m, d) with Geyer's initial monotone sequence (as in Stan)."""
    n, m, d = x.shape
    N = n * m
    xc = x - x.mean(axis=0)
    nfft = _fft.next_fast_len(2 * n)
    f = _fft.rfft(xc, n=nfft, axis=0)
    acov = _fft.irfft(f * np.conj(f), n=nfft, axis=0)[:n] / n  # biased autocovariance, (n, m, d)
    mean_var = acov[0].mean(axis=0) * n / (n - 1)  # mean within-chain variance (ddof=1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus = var_plus + x.mean(axis=0).var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (mean_var - acov.mean(axis=1)) / var_plus  # (n, d)
    rho[0] = 1.0
    k = max(1, (n - 1) // 2)
    P = rho[0:2 * k:2] + rho[1:2 * k + 1:2]  # Γ_k = ρ_{2k} + ρ_{2k+1}
    valid = np.cumprod(P > 0, axis=0).astype(bool)  # initial positive sequence
    Pm = np.minimum.accumulate(P, axis=0)  # initial monotone sequence
    tau = -1.0 + 2.0 * np.where(valid, Pm, 0.0).sum(axis=0)
    tau = np.maximum(tau, 1.0 / math.log10(max(N, 10)))
    ess = N / tau
    return np.where(var_plus > 0, ess, np.nan)


def effective_sample_size(trace: Any) -> np.ndarray | float:
    """Rank-normalised bulk effective sample size over all chains, pure function of the trace.

    Split chains, pooled rank-normal scores (Vehtari et al. 2021, "bulk-ESS"), multi-chain
    autocorrelation ρ_t = 1 − (W − mean_c acov_c(t)) / var⁺, truncated with Geyer's (1992)
    initial positive and monotone sequence; ESS = N / τ with τ = −1 + 2 Σ_k Γ_k.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    (d,) array, or a float for a (T, C) trace (NaN if T < 4 or the trace is constant).
    """
    a, squeeze = _as_tcd(trace)
    out = np.full(a.shape[2], np.nan) if a.shape[0] < 4 else _ess_from(*_scores(a))
    return float(out[0]) if squeeze else out


def per_chain_rhat_ess(trace: Any) -> tuple[np.ndarray, np.ndarray]:
    """Split R-hat and bulk ESS of every chain on its own (its two halves as two chains), vectorised.

    Chain ``c``'s values equal ``split_rhat(trace[:, c:c+1])`` and
    ``effective_sample_size(trace[:, c:c+1])`` exactly (same ranks, split, folding and truncation;
    Vehtari et al. 2021), computed for all chains at once — for simulations with one chain per
    replicate (tens of thousands of chains), where each replicate must be judged separately.

    Parameters
    ----------
    trace : array (T, C, d) or (T, C)

    Returns
    -------
    rhat, ess : arrays (C, d), or (C,) for a (T, C) trace (NaN if T < 4 or a chain is constant).
    """
    a, squeeze = _as_tcd(trace)
    T, C, d = a.shape
    r, e = rhat_ess(a.reshape(T, 1, C * d))  # every (chain, coordinate) column is its own one-chain trace
    r, e = r.reshape(C, d), e.reshape(C, d)
    return (r[:, 0], e[:, 0]) if squeeze else (r, e)


def acceptance_rate(accepted: Any) -> float:
    """Fraction of accepted proposals: the mean of a boolean (or 0/1) array of any shape."""
    try:
        a = np.asarray(accepted, dtype=float)
    except (TypeError, ValueError):
        raise DPValueError("accepted must be an array of booleans (True = proposal accepted).") from None
    if a.size == 0:
        raise DPValueError("accepted is empty; run at least one proposal before computing the acceptance rate.")
    if not ((a == 0) | (a == 1)).all():
        raise DPValueError("accepted must contain only booleans or 0/1 values.")
    return float(a.mean())

