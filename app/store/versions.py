"""The version tokens of what a process keeps between requests: the catalog's (migration 0011)
and the sweeps' (0012), both read in one query. Triggers renew a token in the transaction of
any change to what it follows, so a process that keeps something under the tokens it read
before reading the rows knows it is never older than they say."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import literal, select, union_all
from sqlalchemy.orm import Session

from app.store.models import CatalogVersion, SweepVersion


@dataclass(frozen=True)
class Versions:
    catalog: str | None  # None: the row is missing, so nothing may be kept under it
    sweeps: str | None


_BOTH = union_all(
    select(literal("catalog").label("kind"), CatalogVersion.token).where(CatalogVersion.id == 1),
    select(literal("sweeps").label("kind"), SweepVersion.token).where(SweepVersion.id == 1),
)


def read(session: Session) -> Versions:
    found: dict[str, str] = {row.kind: row.token for row in session.execute(_BOTH)}
    return Versions(catalog=found.get("catalog"), sweeps=found.get("sweeps"))
