"""The query-release releases, one module per family, each with its ``release(data, config, *, rng)``.

Central (ρ-zCDP): :mod:`.gaussian`, :mod:`.projection`, :mod:`.coarse`, :mod:`.chaining`, :mod:`.pmw`;
local (ε-LDP): :mod:`.local_projection`, :mod:`.local_coarse`, :mod:`.local_chaining`.
"""
from __future__ import annotations

from . import chaining, coarse, gaussian, local_chaining, local_coarse, local_projection, pmw, projection

__all__ = ["gaussian", "projection", "coarse", "chaining", "pmw", "local_projection", "local_coarse",
           "local_chaining"]
