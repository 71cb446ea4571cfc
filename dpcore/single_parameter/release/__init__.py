"""The releases of the single-parameter topic, one module per mechanism family, each with a function named
``release(data, config, *, rng)``, its ``nonprivate`` answer and the vectorised sampler (``sample_<family>``)
that the release, the audits and the figures share: ``lambda_min`` (Algorithm 2), ``eigen_bounds``
(Algorithms 2 + 4), ``theta`` (Algorithm 3), ``theta_generic`` (Algorithm 7), ``functional`` (Algorithm 5),
and the baselines ``output_perturbation``, ``objective_perturbation``, ``noisy_gd``.
"""
