"""K-norm KDE on the Carathéodory orbitope, d = 1 (Hall 2012 slides Part 3; Hardt & Talwar 2010).

Objects (spec §3.4; the construction details are RECONSTRUCTED there and implemented as written). The non-constant feature map is the trigonometric moment curve
Ψ̃(x) = (√2 cos 2πjx, √2 sin 2πjx)_{j=1..k} ∈ R^{2k}; K = conv Ψ̃([0, 1]) is the Carathéodory orbitope
and v_D = (1/n) Σ Ψ̃(x_i) ∈ K. The norm body is the symmetric sensitivity body on a public grid
g_i = i/G (i = 0..G−1):

    B = K_G − K_G = {Σ_i w_i Ψ̃(g_i) : Σ w_i = 0, ‖w‖₁ ≤ 2},   ‖z‖_B = min ½‖w‖₁ s.t. A w = z, 1ᵀw = 0

(an LP, solved with HiGHS). Data are ROUNDED to the grid (public preprocessing, spec correction 6), so
v_D − v_D′ = (Ψ̃(g) − Ψ̃(g′))/n ∈ (1/n)B: **Δ = 1/n** in ‖·‖_B under replace-one (n public).

Mechanism (K-norm, pure ε-DP): density ∝ exp(−(ε/Δ)‖z − v_D‖_B); the normaliser does not depend on D and
the triangle inequality gives the ratio bound e^ε. Sampling (HT): r ~ Gamma(2k + 1, 1), U uniform in B,
z = v_D + (Δ/ε) r U. U is drawn EXACTLY by rejection from the enclosing ball of radius
R = max_{i,j} ‖Ψ̃(g_i) − Ψ̃(g_j)‖ (the largest vertex of B): a proposal is refused at once when a
precomputed support inequality ⟨c, z⟩ ≤ h_B(c) fails (for k = 1 these are all the facets of the polygon B,
so that test is exact) and otherwise decided by the LP. Hit-and-run (``sampler="hit-and-run"``) is an option only:
its law is within an uncertified TV distance η of uniform, so the release is only (ε, (1 + e^ε)η)-DP.

Also: the exact Toeplitz gauge of K (Carathéodory–Toeplitz; SSS "Orbitopes"): with c_j = e^{2πijx}-type
coordinates c_j = (u_{2j−1} + i u_{2j})/√2, g_K(u) = −λ_min(H(u)), H the Hermitian Toeplitz matrix with
zero diagonal and entries c_{b−a}; g_K(Ψ̃(x)) = 1 on the moment curve.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.special import gammaln

from dpcore._rng import as_generator
from dpcore._validation import check_int

from dpcore.limits import check_work

from ._fourier import basis, evaluate
from ._kde import MAX_GRID_PER_AXIS, check_data

if TYPE_CHECKING:
    from .configs import KNormConfig

__all__ = ["Body", "body", "moment_curve", "toeplitz_gauge", "round_to_grid", "uniform_in_body", "hit_and_run",
           "nonprivate_knorm", "laplace_noise_mse", "knorm_noise_mse", "MAX_K", "REFERENCE_KNORM"]

MAX_K = 5
_ACCEPT = (1.0, 0.54, 0.17, 0.038, 0.007)
#: Most expected proposals of the exact rejection sampler per call, draws / acceptance(k): each proposal beyond
#: k = 1 may need a linear program (k = 4, 100 draws: 2 600 proposals, 45–70 s; the cap allows 38 draws there, ≈ 15 s).
MAX_KNORM_PROPOSALS = 1000


def check_knorm_work(k: int, size: int) -> None:
    """Refuse draws / acceptance(k) > :data:`MAX_KNORM_PROPOSALS` expected proposals (k, draws public)."""
    acc = _ACCEPT[int(k) - 1]
    check_work(f"expected proposals of the exact K-norm sampler (k = {int(k)} accepts {acc:.1%})",
               {"draws": int(size), "1/acceptance": round(1 / acc, 1)}, MAX_KNORM_PROPOSALS,
               fix=f"use at most {max(1, int(MAX_KNORM_PROPOSALS * acc))} draws at k = {int(k)}, or a smaller k")
REFERENCE_KNORM = ("Hall (2012) thesis slides Part 3 (K-norm on the Carathéodory orbitope; construction derived here: "
                   "body K − K on a public grid, data rounded to it); Hardt & Talwar (2010) K-norm mechanism; Sanyal, Sottile & "
                   "Sturmfels, Orbitopes")


def moment_curve(x, k: int) -> np.ndarray:
    """Ψ̃(x) ∈ R^{2k} (cos/sin pairs, frequencies 1..k), shape x.shape + (2k,)."""
    return basis(x, k)[..., 1:]


def toeplitz_gauge(u: np.ndarray, k: int) -> float:
    """Gauge of K (not of B): −λ_min of the zero-diagonal Hermitian Toeplitz matrix of c_j = (u_{2j−1} + i u_{2j})/√2."""
    u = np.asarray(u, dtype=float)
    c = np.concatenate([[0.0], (u[0::2] + 1j * u[1::2]) / math.sqrt(2)])
    idx = np.arange(k + 1)
    lag = idx[None, :] - idx[:, None]
    H = np.where(lag >= 0, c[np.abs(lag)], np.conj(c[np.abs(lag)]))
    return float(-np.linalg.eigvalsh(H).min())


@dataclass(frozen=True)
class Body:
    """The grid body B = K_G − K_G: vertices' generators ``A`` (2k, G), radius R, support data, inner radius."""

    k: int
    G: int
    A: np.ndarray
    radius: float
    directions: np.ndarray
    support: np.ndarray
    inner: float

    def _lp(self, z: np.ndarray):
        G = self.G
        A_eq = np.vstack([np.hstack([self.A, -self.A]), np.concatenate([np.ones(G), -np.ones(G)])])
        b_eq = np.concatenate([np.asarray(z, dtype=float), [0.0]])
        res = linprog(np.full(2 * G, 0.5), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
        if res.status != 0:
            raise RuntimeError(f"gauge LP failed: {res.message}")
        return res

    def gauge(self, z: np.ndarray) -> float:
        """‖z‖_B by the LP min ½‖w‖₁ s.t. A w = z, 1ᵀw = 0 (w = w⁺ − w⁻)."""
        return float(self._lp(z).fun)

    def support_of(self, c: np.ndarray) -> float:
        """h_B(c) = max_i ⟨c, Ψ̃(g_i)⟩ − min_i ⟨c, Ψ̃(g_i)⟩ (exact for the grid body)."""
        p = c @ self.A
        return float(p.max() - p.min())

    def contains(self, Z: np.ndarray, cuts: list | None = None, need: int | None = None) -> np.ndarray:
        """Exact membership ‖z‖_B ≤ 1 for rows of Z: support tests (the fixed directions and any learned
        ``cuts``), the inner ball, then the LP. When the LP finds z outside, its dual vector c (a separating
        functional) is appended to ``cuts`` as (c, h_B(c)), with h_B computed exactly: later proposals beyond
        it are refused without an LP. Every test is exact; the cuts only save time.

        ``need``: rows are examined in order and examination stops after ``need`` members; the rows after
        that are returned False (not examined). The first ``need`` members of iid proposals are iid."""
        Z = np.atleast_2d(Z)
        out = np.all(Z @ self.directions.T <= self.support[None, :], axis=1)
        pending = out & (np.linalg.norm(Z, axis=1) > self.inner)
        if not pending.any():                  # decided without LPs (always for k = 1)
            if need is not None:
                out[np.flatnonzero(out)[need:]] = False
            return out
        count = 0
        for i in range(len(Z)):
            if need is not None and count >= need:
                out[i:] = False
                break
            if pending[i]:
                out[i] = self._member(Z[i], cuts)
            count += bool(out[i])
        return out

    def _member(self, z: np.ndarray, cuts: list | None) -> bool:
        if cuts and any(c @ z > h for c, h in cuts):
            return False
        res = self._lp(z)
        if res.fun > 1.0 and cuts is not None:
            c = np.asarray(res.eqlin.marginals[:-1], dtype=float)
            if c @ z < 0:
                c = -c
            cuts.append((c, self.support_of(c)))
        return bool(res.fun <= 1.0)


def body(k: int, G: int = 256, *, n_directions: int = 512) -> Body:
    """The grid body for truncation k on G grid points (deterministic: directions from a fixed public seed)."""
    k = check_int(k, "k", lo=1, hi=MAX_K)
    G = check_int(G, "body_grid", lo=2 * k + 2, hi=MAX_GRID_PER_AXIS)
    g = np.arange(G) / G
    A = moment_curve(g, k).T                                       # (2k, G)
    # ‖Ψ̃(g_i) − Ψ̃(g_j)‖² = 4k − 4 Σ_j cos(2πj t), t = (i − j)/G: the max over grid differences is exact.
    t = np.arange(G) / G
    r2 = 4 * k - 4 * np.cos(2 * math.pi * np.outer(t, np.arange(1, k + 1))).sum(axis=1)
    radius = float(math.sqrt(r2.max()))
    rs = np.random.default_rng(20120901)                           # public, fixed
    if k == 1:
        ang = np.arange(2 * G) * math.pi / G
        dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    else:
        dirs = rs.standard_normal((n_directions, 2 * k))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        dirs = np.vstack([dirs, np.eye(2 * k), -np.eye(2 * k)])
    proj = dirs @ A
    support = proj.max(axis=1) - proj.min(axis=1)                   # h_B(c) = max⟨c, Ψ̃⟩ − min⟨c, Ψ̃⟩ (exact)
    inner = 0.0
    if k == 1:
        # B is a polygon whose facet normals lie at angles that are multiples of π/G (those of K_G and of
        # −K_G); the directions are exactly those multiples, so the support test alone decides membership.
        inner = radius
    return Body(k, G, A, radius, dirs, support, inner)


def uniform_in_body(B: Body, size: int, rng, *, batch: int = 4096) -> tuple[np.ndarray, float]:
    """``size`` exact uniform draws in B by rejection from the ball of radius R; returns (U, acceptance rate)."""
    g = as_generator(rng)
    dim = 2 * B.k
    out, tried = [], 0
    have = 0
    cuts: list = []
    while have < size:
        # enough proposals for the draws still needed at the expected acceptance (spec: 1, .54, .17, .038, .007)
        m = batch if B.k == 1 else min(batch, int(1.5 * (size - have) / _ACCEPT[B.k - 1]) + 16)
        y = g.standard_normal((m, dim))
        y *= (B.radius * g.random(m) ** (1 / dim) / np.linalg.norm(y, axis=1))[:, None]
        ok = B.contains(y, cuts, need=size - have)
        idx = np.flatnonzero(ok)
        tried += int(idx[-1]) + 1 if have + len(idx) >= size else m
        out.append(y[ok])
        have += len(idx)
    U = np.vstack(out)[:size]
    return U, have / tried


def _chord(B: Body, u: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """[s_min, s_max] with u + s d ∈ B (two LPs in (w⁺, w⁻, s))."""
    G = B.G
    A_eq = np.vstack([np.hstack([B.A, -B.A, -d[:, None]]), np.concatenate([np.ones(G), -np.ones(G), [0.0]])])
    b_eq = np.concatenate([u, [0.0]])
    A_ub = np.concatenate([np.ones(2 * G), [0.0]])[None, :]
    bounds = [(0, None)] * (2 * G) + [(None, None)]
    s = []
    for sign in (1.0, -1.0):
        c = np.zeros(2 * G + 1)
        c[-1] = sign
        res = linprog(c, A_ub=A_ub, b_ub=[2.0], A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
        s.append(res.x[-1])
    return s[0], s[1]


def hit_and_run(B: Body, steps: int, rng) -> np.ndarray:
    """One approximately uniform point of B after ``steps`` hit-and-run steps from 0 (a fresh chain)."""
    g = as_generator(rng)
    u = np.zeros(2 * B.k)
    for _ in range(steps):
        d = g.standard_normal(2 * B.k)
        d /= np.linalg.norm(d)
        lo, hi = _chord(B, u, d)
        u = u + g.uniform(lo, hi) * d
    return u


def round_to_grid(x: np.ndarray, G: int) -> np.ndarray:
    """x ∈ [0, 1] rounded to the nearest g_i = i/G (periodic: 1 ≡ 0)."""
    return (np.rint(np.asarray(x) * G) % G) / G


def _centre(x: np.ndarray, config: KNormConfig) -> np.ndarray:
    return moment_curve(round_to_grid(x[:, 0], config.body_grid), config.k).mean(axis=0)


def _evaluate(z: np.ndarray, config: KNormConfig) -> np.ndarray:
    coef = np.hstack([np.ones((len(z), 1)), z])
    return evaluate(coef, config.k, config.bandwidth, config.grid, config.weights)


def nonprivate_knorm(data, config: KNormConfig) -> np.ndarray:
    """The truncated Fourier KDE of the grid-rounded data (what the K-norm release estimates)."""
    x, _ = check_data(data, 1)
    return _evaluate(_centre(x, config)[None], config)[0]


def laplace_noise_mse(k: int, n: int, epsilon: float) -> float:
    """E‖L‖² of the Laplace coefficient noise (d = 1, tight Δ₁ = 4k/n): 2k · 2b² = 64k³/(εn)²."""
    b = 4.0 * k / (n * epsilon)
    return 2 * k * 2 * b * b


def knorm_noise_mse(k: int, n: int, epsilon: float, mean_sq_u: float) -> float:
    """E‖z − v_D‖² = (1/(εn))² (2k+1)(2k+2) E‖U‖² (E r² of Gamma(2k+1) is (2k+1)(2k+2))."""
    return math.exp(2 * (-math.log(epsilon * n)) + gammaln(2 * k + 3) - gammaln(2 * k + 1)) * mean_sq_u
