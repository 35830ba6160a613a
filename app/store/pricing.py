"""Pricing profiles and the hardware catalog; a profile's hourly cost by component."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.cost import OwnershipInputs, ownership_breakdown, usd_per_useful_hour
from app.schemas.answers.typed.pricing import PricingProfileOutDict
from app.schemas.pricing import PricingIn
from app.store.db import already_loaded
from app.store.models import Hardware, PricingProfile
from app.store.sweeps import NotFound

# Every field a profile is created with, in the order the API answers.
PROFILE_FIELDS: tuple[str, ...] = tuple(PricingIn.model_fields)


def list_profiles(session: Session, hardware: str | None = None) -> list[PricingProfile]:
    query = select(PricingProfile)
    if hardware:
        query = query.where(PricingProfile.hardware == hardware)
    order = (PricingProfile.hardware, PricingProfile.as_of.desc(), PricingProfile.name)
    return list(session.scalars(query.order_by(*order)).all())


def get_profile(session: Session, profile_id: int) -> PricingProfile:
    profile = session.get(PricingProfile, profile_id)
    if profile is None:
        raise NotFound(f"pricing profile {profile_id} does not exist")
    return profile


def get_profiles(session: Session, profile_ids: list[int]) -> list[PricingProfile]:
    # Explore lists every profile before pricing its read-off: a query only for the others.
    found = already_loaded(session, PricingProfile, profile_ids, PROFILE_FIELDS)
    others = [i for i in profile_ids if i not in found]
    if others:
        query = select(PricingProfile).where(PricingProfile.id.in_(others))
        found.update((p.id, p) for p in session.scalars(query))
    missing = [i for i in profile_ids if i not in found]
    if missing:
        raise NotFound(f"pricing profile {missing[0]} does not exist")
    return [found[i] for i in profile_ids]


def save_profile(
    session: Session, values: dict[str, Any], profile_id: int | None = None
) -> PricingProfile:
    profile = PricingProfile() if profile_id is None else get_profile(session, profile_id)
    for name, value in values.items():
        setattr(profile, name, value)
    if profile_id is None:
        session.add(profile)
    session.flush()
    return profile


def delete_profile(session: Session, profile_id: int) -> None:
    session.delete(get_profile(session, profile_id))
    session.flush()


def hardware_catalog(session: Session) -> list[Hardware]:
    return list(session.scalars(select(Hardware).order_by(Hardware.vendor, Hardware.key)).all())


def allin_kw_by_hardware(session: Session) -> dict[str, float]:
    """All-in kW per GPU by lower-cased hardware key, where the catalog knows it."""
    return allin_kw_of(session.execute(select(Hardware.key, Hardware.allin_kw)).all())


def allin_kw_of(rows: Iterable[tuple[str, float | None]]) -> dict[str, float]:
    """`allin_kw_by_hardware` of (key, all-in kW) pairs already read."""
    return {key.lower(): kw for key, kw in rows if kw is not None}


def hourly_cost(profile: PricingProfile) -> dict[str, float | None]:
    """USD per GPU-hour by component; `per_useful_hour` divides by utilization."""
    if profile.kind == "ownership" and profile.capex_usd is not None:
        breakdown = ownership_breakdown(ownership_inputs(profile))
        parts: dict[str, float | None] = {
            "capital_usd_per_hour": breakdown.capital_usd_per_hour,
            "power_usd_per_hour": breakdown.power_usd_per_hour,
            "colo_usd_per_hour": breakdown.colo_usd_per_hour,
            "opex_usd_per_hour": breakdown.opex_usd_per_hour,
        }
        total = breakdown.total_usd_per_gpu_hour
    elif profile.kind == "ownership":
        # An ownership cost quoted as one all-in $/GPU-hour (e.g. InferenceX TCO tiers).
        parts = {"tco_usd_per_hour": profile.usd_per_gpu_hour}
        total = profile.usd_per_gpu_hour or 0.0
    else:
        parts = {"rental_usd_per_hour": profile.usd_per_gpu_hour}
        total = profile.usd_per_gpu_hour or 0.0
    return {
        **parts,
        "total_usd_per_gpu_hour": total,
        "utilization": profile.utilization,
        "usd_per_useful_gpu_hour": usd_per_useful_hour(total, profile.utilization),
    }


def ownership_inputs(profile: PricingProfile) -> OwnershipInputs:
    return OwnershipInputs(
        capex_usd=profile.capex_usd or 0.0,
        life_years=profile.life_years or 0.0,
        cost_of_capital=profile.cost_of_capital or 0.0,
        power_kw=profile.power_kw or 0.0,
        pue=profile.pue or 1.0,
        usd_per_kwh=profile.usd_per_kwh or 0.0,
        colo_usd_per_kw_month=profile.colo_usd_per_kw_month or 0.0,
        other_opex_pct_per_year=profile.other_opex_pct_per_year or 0.0,
    )


def profile_dict(profile: PricingProfile) -> PricingProfileOutDict:
    data: dict[str, Any] = {"id": profile.id}
    for name in PROFILE_FIELDS:
        value = getattr(profile, name)
        data[name] = value.isoformat() if hasattr(value, "isoformat") else value
    data["hourly_cost"] = hourly_cost(profile)
    # Keyed by the profile's fields (app.schemas.pricing.PROFILE_FIELDS), as the model lists
    # them; the hourly parts are the kind's own (rental, all-in or itemised ownership).
    return cast(PricingProfileOutDict, data)
