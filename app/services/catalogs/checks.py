"""Checks of claims and pricing profiles that need the catalogs, the profiles as listed, and
break-even prices."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.domain.cost import break_even_api_prices
from app.schemas.answers.typed.pricing import BreakEvenDict, PricingProfilesDict
from app.schemas.claims import ClaimIn
from app.schemas.pricing import PricingIn, PricingQuery
from app.services.catalogs.entries import known_hardware
from app.services.errors import Invalid
from app.store import pricing as pricing_queries


def checked_claim(session: Session, body: ClaimIn) -> dict[str, Any]:
    """Claim values after the checks that need the catalog; hardware matched to its key
    ("NVIDIA H200" → H200), or refused naming the nearest keys."""
    return {**body.model_dump(), "hardware": known_hardware(session, body.hardware)}


def price_list(session: Session, query: PricingQuery) -> PricingProfilesDict:
    """Every pricing profile (optionally one GPU's) with its hourly cost breakdown."""
    profiles = pricing_queries.list_profiles(session, query.hardware)
    return {"profiles": [pricing_queries.profile_dict(p) for p in profiles]}


def checked_profile(
    session: Session, body: PricingIn, profile_id: int | None = None
) -> dict[str, Any]:
    """Profile values after checks that need the database (known hardware, unique key)."""
    values = body.model_dump()
    if body.hardware:
        values["hardware"] = known_hardware(session, body.hardware)
    if body.key:
        clash = [
            p
            for p in pricing_queries.list_profiles(session)
            if p.key == body.key and p.id != profile_id
        ]
        if clash:
            raise Invalid("key", f"{body.key!r} is already used")
    return values


def break_even(
    session: Session,
    profile_id: int,
    output_tok_s_per_gpu: float,
    input_tok_s_per_gpu: float = 0.0,
    output_to_input_ratio: float = 4.0,
) -> BreakEvenDict:
    """API prices ($/Mtok in and out) at which serving on this profile breaks even."""
    profile = pricing_queries.get_profile(session, profile_id)
    cost = pricing_queries.hourly_cost(profile)
    hourly = cost["usd_per_useful_gpu_hour"] or 0.0
    prices = break_even_api_prices(
        hourly, input_tok_s_per_gpu, output_tok_s_per_gpu, output_to_input_ratio
    )
    return {
        "profile_id": profile.id,
        "usd_per_useful_gpu_hour": hourly,
        "output_to_input_ratio": output_to_input_ratio,
        "usd_per_mtok_input": None if prices is None else prices[0],
        "usd_per_mtok_output": None if prices is None else prices[1],
    }
