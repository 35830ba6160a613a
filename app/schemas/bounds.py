"""Bounds for every id, page, count and stored number taken as input (app.domain.bounds).

A larger integer can name nothing stored, and Postgres refuses to compare an INTEGER column with
it (SQLite refuses anything beyond 64 bits): bounding the input turns both into a 422. A stored
quantity is finite and within [MIN_POSITIVE, MAX_NUMBER] (or 0 where 0 means something), so
every page that multiplies or divides by it can serve it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from app.domain.bounds import DB_INT_MAX as DB_INT_MAX
from app.domain.bounds import MAX_NUMBER, MIN_POSITIVE

MAX_ID = DB_INT_MAX

DbId = Annotated[int, Field(ge=1, le=DB_INT_MAX)]
DbCount = Annotated[int, Field(ge=0, le=DB_INT_MAX)]
# Sweep ids one API request may name (a read-off grows with them: ~1-3 s per 1,000 sweeps; an
# id list also binds a statement parameter per id). A request naming more is refused (422).
MAX_SWEEPS_ASKED = 5_000


def not_tiny(value: float | None) -> float | None:
    """A positive value below MIN_POSITIVE refused (0 stays: where 0 is allowed it means none)."""
    if value is not None and 0 < value < MIN_POSITIVE:
        raise ValueError(
            f"{value:g} is below {MIN_POSITIVE:g}, the smallest positive number stored"
        )
    return value


# A measured or priced quantity that must be positive, and one that may be 0.
Positive = Annotated[
    float, Field(gt=0, le=MAX_NUMBER, allow_inf_nan=False), AfterValidator(not_tiny)
]
NonNegative = Annotated[
    float, Field(ge=0, le=MAX_NUMBER, allow_inf_nan=False), AfterValidator(not_tiny)
]
