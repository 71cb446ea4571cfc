"""The releases of private LASSO, one module per mechanism family, each with a function named ``release``:

* :mod:`~dpcore.lasso.release.private_fw` — private Frank–Wolfe over the ℓ1 ball or the simplex (Algorithm 2;
  with ``intercept=True`` the two-stage release with private centring means): ``lasso/private-fw`` and
  ``lasso/private-fw-intercept``;
* :mod:`~dpcore.lasso.release.noisy_gradient` — noisy-gradient Frank–Wolfe for a general C (Theorem 2.6):
  ``lasso/noisy-gradient-fw``.
"""
