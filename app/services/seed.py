"""Seed catalogs (hardware, pricing, SLO presets, model specs) and sweeps from seed_data/."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Boolean, Date, Float, Integer, func, select
from sqlalchemy.orm import Session

from app.ingest import UploadFile, parse_upload
from app.settings import bundled
from app.store.models import (
    Base,
    Hardware,
    ModelSpec,
    PricingProfile,
    SloPreset,
    Sweep,
    VendorClaim,
)
from app.store.sweep_save import save_parsed

SEED_DIR = bundled("seed_data")
CATALOGS: tuple[tuple[str, type[Base]], ...] = (
    ("hardware.csv", Hardware),
    ("models.csv", ModelSpec),
    ("slo_presets.csv", SloPreset),
    ("pricing.csv", PricingProfile),
    ("claims.csv", VendorClaim),
)
# Columns that identify a seeded row; claims have an integer id, so they match on what they say.
CATALOG_KEYS: dict[type[Base], tuple[str, ...]] = {
    VendorClaim: ("vendor", "hardware", "value_tok_s", "measures", "source_url"),
}


def seed_if_empty(session: Session) -> bool:
    """Seed a brand-new database; leave one that has any data alone."""
    has_data = session.scalar(select(func.count()).select_from(Sweep)) or session.scalar(
        select(func.count()).select_from(Hardware)
    )
    if has_data:
        return False
    seed(session)
    return True


def seed_catalogs_if_empty(session: Session, seed_dir: Path = SEED_DIR) -> bool:
    """A database without any hardware row gets the catalogs of seed_data/ (hardware, models,
    SLO presets, prices, claims) but no seed sweeps: an import into a new database then matches
    its GPU names and prices, and the user's own sweeps are the only ones there."""
    if session.scalar(select(func.count()).select_from(Hardware)):
        return False
    for filename, model in CATALOGS:
        path = seed_dir / filename
        if path.exists():
            _upsert_catalog(session, model, path)
    session.flush()
    return True


def seed(session: Session, seed_dir: Path = SEED_DIR) -> dict[str, int]:
    """Upsert every catalog by key and add every seed sweep not already stored."""
    counts: dict[str, int] = {}
    for filename, model in CATALOGS:
        path = seed_dir / filename
        if path.exists():
            counts[model.__tablename__] = _upsert_catalog(session, model, path)
    sweep_dir = seed_dir / "sweeps"
    files = (
        [UploadFile(p.name, p.read_bytes()) for p in sorted(sweep_dir.glob("*.csv"))]
        if sweep_dir.exists()
        else []
    )
    if files:
        parsed = parse_upload(files, {})
        saved = save_parsed(session, parsed)
        counts["sweeps"] = sum(1 for s in saved if s.created)
        # The seed decides its own sweeps' provenance: an older seed's label is corrected.
        for item, stored in zip(parsed, saved, strict=True):
            kind = item.meta.get("source_kind")
            if not stored.created and kind and stored.sweep.source_kind != kind:
                stored.sweep.source_kind = kind
    session.flush()
    return counts


def _upsert_catalog(session: Session, model: type[Base], path: Path) -> int:
    """Every row of the CSV added, or written over the stored row with its key. The stored rows
    are read once, not looked up row by row: each lookup flushed the row added before it, two
    round trips a row (~1.3 s a seeding on Postgres, which every import into a new database,
    first start and many tests pay)."""
    table = model.__table__
    key_columns = CATALOG_KEYS.get(model, ("key",))

    def key_of(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[c] for c in key_columns)

    stored: dict[tuple[Any, ...], Any] = {}
    for row in session.scalars(select(model)):
        stored.setdefault(key_of({c: getattr(row, c) for c in key_columns}), row)
    n = 0
    with path.open(newline="", encoding="utf-8") as handle:
        for raw in csv.DictReader(handle):
            values = {
                name: _typed(table.c[name].type, value)
                for name, value in raw.items()
                if name in table.c and name != "id"
            }
            existing = stored.get(key_of(values))
            if existing is None:
                stored[key_of(values)] = added = model(**values)
                session.add(added)
            else:
                for name, value in values.items():
                    setattr(existing, name, value)
            n += 1
    return n


def _typed(column_type: Any, value: str | None) -> Any:
    if value is None or value.strip() == "":
        return None
    value = value.strip()
    if isinstance(column_type, Integer):
        return int(float(value))
    if isinstance(column_type, Float):
        return float(value)
    if isinstance(column_type, Date):
        return dt.date.fromisoformat(value)
    if isinstance(column_type, Boolean):
        return value.lower() in ("true", "1", "yes")
    if isinstance(column_type, JSON):
        # Lists (hardware aliases) are written "a|b|c" in the CSV.
        return [part.strip() for part in value.split("|") if part.strip()]
    return value
