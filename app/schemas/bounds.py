"""Integers that fit the database's INTEGER columns, for every id, page and count taken as input.

A larger number can name nothing stored, and Postgres refuses to compare an INTEGER column with it
(SQLite refuses anything beyond 64 bits): bounding the input turns both into a 422.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

DB_INT_MAX = 2**31 - 1
MAX_ID = DB_INT_MAX

DbId = Annotated[int, Field(ge=1, le=DB_INT_MAX)]
DbCount = Annotated[int, Field(ge=0, le=DB_INT_MAX)]
# Sweep ids one API request may name (a read-off grows with them: ~1-3 s per 1,000 sweeps; an
# id list also binds a statement parameter per id). A request naming more is refused (422).
MAX_SWEEPS_ASKED = 5_000
