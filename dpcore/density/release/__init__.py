"""The density releases, one module per family, each with its ``release(data, config, *, rng)``: :mod:`.kde`
(GP-KDE), :mod:`.fourier` (Fourier/Laplace), :mod:`.knorm` (K-norm), :mod:`.bandwidth` (private bandwidth),
:mod:`.svm` (kernel SVM); beside each, the vectorised ``*_sample`` its audit draws from."""
from __future__ import annotations

from . import bandwidth, fourier, kde, knorm, svm

__all__ = ["kde", "fourier", "knorm", "bandwidth", "svm"]
