"""MCMC moves: each owns its chains' state, random numbers and tuning; :func:`dpcore.mcmc.driver.run` drives them."""
from .coordinate import CoordinateMove, IncrementalCoordinateMove
from .preconditioned import PreconditionedMove

__all__ = ["CoordinateMove", "IncrementalCoordinateMove", "PreconditionedMove"]
