"""Database ids as they arrive in requests: positive 32-bit integers (Postgres INTEGER keys).

A larger number cannot name a row; refusing it here keeps it from reaching the database driver
(SQLite overflows past 2^63, Postgres past 2^31).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

MAX_ID = 2**31 - 1
DbId = Annotated[int, Field(ge=1, le=MAX_ID)]
