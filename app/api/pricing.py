"""Pricing profiles: create, read, update, delete; each answer shows the hourly cost breakdown."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.http.deps import IdPath, SessionDep, WriteDep
from app.schemas.answers.pricing import BreakEven, PricingProfileOut, PricingProfiles
from app.schemas.answers.typed.pricing import (
    BreakEvenDict,
    PricingProfileOutDict,
    PricingProfilesDict,
)
from app.schemas.bounds import NonNegative
from app.schemas.pricing import PricingIn, PricingQuery
from app.schemas.responses import ERROR_RESPONSES
from app.services.catalogs.checks import break_even, checked_profile, price_list
from app.store import pricing as q

router = APIRouter(prefix="/api", tags=["pricing"], responses=ERROR_RESPONSES)


@router.get(
    "/pricing",
    name="api_pricing_list",
    response_model=PricingProfiles,
    response_model_exclude_unset=True,
)
def api_pricing_list(
    session: SessionDep, query: Annotated[PricingQuery, Query()]
) -> PricingProfilesDict:
    """Every pricing profile (optionally for one GPU) with its hourly cost breakdown."""
    return price_list(session, query)


@router.post(
    "/pricing",
    name="api_pricing_create",
    status_code=201,
    dependencies=[WriteDep],
    response_model=PricingProfileOut,
    response_model_exclude_unset=True,
)
def api_pricing_create(body: PricingIn, session: SessionDep) -> PricingProfileOutDict:
    """Create a rental or ownership profile.

    Across fields: a rental profile needs usd_per_gpu_hour; an ownership profile needs
    capex_usd, life_years, cost_of_capital, power_kw, pue and usd_per_kwh, or one all-in
    usd_per_gpu_hour.
    """
    profile = q.save_profile(session, checked_profile(session, body))
    answer = q.profile_dict(profile)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.get(
    "/pricing/{profile_id}",
    name="api_pricing_detail",
    response_model=PricingProfileOut,
    response_model_exclude_unset=True,
)
def api_pricing_detail(profile_id: IdPath, session: SessionDep) -> PricingProfileOutDict:
    """One profile with its hourly cost breakdown."""
    return q.profile_dict(q.get_profile(session, profile_id))


@router.put(
    "/pricing/{profile_id}",
    name="api_pricing_update",
    dependencies=[WriteDep],
    response_model=PricingProfileOut,
    response_model_exclude_unset=True,
)
def api_pricing_update(
    profile_id: IdPath, body: PricingIn, session: SessionDep
) -> PricingProfileOutDict:
    """Replace a profile's values.

    Across fields: a rental profile needs usd_per_gpu_hour; an ownership profile needs
    capex_usd, life_years, cost_of_capital, power_kw, pue and usd_per_kwh, or one all-in
    usd_per_gpu_hour.
    """
    profile = q.save_profile(session, checked_profile(session, body, profile_id), profile_id)
    answer = q.profile_dict(profile)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.delete(
    "/pricing/{profile_id}", name="api_pricing_delete", status_code=204, dependencies=[WriteDep]
)
def api_pricing_delete(profile_id: IdPath, session: SessionDep) -> Response:
    """Delete a profile."""
    q.delete_profile(session, profile_id)
    session.commit()
    return Response(status_code=204)


@router.get("/pricing/{profile_id}/break-even", name="api_break_even", response_model=BreakEven)
def api_break_even(
    profile_id: IdPath,
    session: SessionDep,
    output_tok_s_per_gpu: Annotated[NonNegative, Query()],
    input_tok_s_per_gpu: Annotated[NonNegative, Query()] = 0.0,
    output_to_input_ratio: Annotated[NonNegative, Query()] = 4.0,
) -> BreakEvenDict:
    """API prices ($/Mtok in and out) at which serving on this profile breaks even."""
    return break_even(
        session, profile_id, output_tok_s_per_gpu, input_tok_s_per_gpu, output_to_input_ratio
    )
