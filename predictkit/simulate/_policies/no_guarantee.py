"""No-guarantee backfilling: start whatever fits now, reserve nothing (CPlant;
Leung et al. 2010 section I): the reservation-depth pass with depth 0."""

from . import reservation_depth
from ._policy import Policy

POLICY = Policy(name="no_guarantee", rank=3, run=reservation_depth.run,
                summary="backfill whatever fits, with no reservation at all")
