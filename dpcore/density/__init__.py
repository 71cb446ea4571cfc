"""Private density estimation (Hall 2012 thesis, Parts 2–3; Hall, Rinaldo & Wasserman 2013).

* :mod:`.kde` — Gaussian-kernel KDE on a public grid and its Gaussian-process (RKHS) release, d = 1, 2
  ((ε, δ)-DP; Hall's c(δ) for ε ≤ 2.7, the analytic Gaussian otherwise; Kronecker sampling in d = 2).
* :mod:`.fourier` — Fourier-basis KDE on [0, 1]^d with Laplace noise per coefficient (ε-DP).
* :mod:`.knorm` — K-norm KDE on the Carathéodory orbitope, d = 1 (ε-DP; exact rejection sampler,
  hit-and-run as an approximately private option; LP and Toeplitz gauges).
* :mod:`.svm` — kernel SVM without intercept released with GP noise (sensitivity 1/(λn) + 2√(g/λ)).
* :mod:`.compare` — the page's one call (all estimates on the same data, composed cost).
* :mod:`.designs` — mixtures on the unit cube (d = 1..6), two-class data, rescaling by public bounds.
* :mod:`.figures` — ``hall-kde``, ``hall-kde-dims``, ``hall-knorm``.
Declarations (mechanisms, audits with mutants, figures) in :mod:`.declare`.
"""
