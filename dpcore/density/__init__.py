"""Private density estimation (Hall 2012 thesis, Parts 2–3; Hall, Rinaldo & Wasserman 2013).

* :mod:`.kde` — Gaussian-kernel KDE on a public grid and its Gaussian-process (RKHS) release, d = 1, 2.
* :mod:`.designs` — mixtures on the unit cube (d = 1..6), two-class data, rescaling by public bounds.
Declarations (mechanisms, audits, figures) in :mod:`.declare`.
"""
