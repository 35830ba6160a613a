"""Explore's URL state as query fields: filters, series, axes, SLO, prices, physics limits."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.bounds import DbCount, DbId
from app.schemas.readoff import ReadoffQuery

MAX_ASKED = 1000  # sweep ids one URL may name (the ones beyond MAX_SERIES are named as dropped)


class ExploreQuery(ReadoffQuery):
    model: str | None = None
    hardware: str | None = None
    engine: str | None = None
    precision: str | None = None
    isl: DbCount | None = None
    osl: DbCount | None = None
    source_kind: str | None = None
    spec_decode: str | None = Field(
        default=None, max_length=100, description="speculative decoding: on, off or a method"
    )
    sweep: list[DbId] = Field(default_factory=list, max_length=MAX_ASKED)
    q: str | None = Field(default=None, max_length=200, description="search the series picker")
    # A one-off action, not kept in the URL: select the frontier leaders of the filtered set.
    select: Literal["leaders"] | None = None
    # Which model and workload the leaders rank (a WorkGroup key; one-off, with select).
    leaders_group: str | None = Field(default=None, max_length=1000)
    # The leaders leave out demo (synthetic) and mock-server sweeps unless this is set.
    leaders_demo: bool = False
    picked: bool = False  # the series picker was used, so an empty selection means none
    preset: str | None = None
    applied_preset: str | None = None
    logx: bool = False
    logy: bool = False
    frontier_only: bool = False
    # Confidence bands on frontiers (at ci_level) and Compare's stretches: a bootstrap, so off
    # unless asked.
    bands: bool = False
    # Compare's area under the frontier (bands=1) over a stated interactivity range, tok/s/user;
    # an end not given is the shared range's. Beyond either frontier it is unknown, said why.
    area_from: float | None = Field(
        default=None, gt=0, le=1e9, allow_inf_nan=False,
        description="Compare with bands=1: the area under the frontier from this tok/s/user",
    )  # fmt: skip
    area_to: float | None = Field(
        default=None, gt=0, le=1e9, allow_inf_nan=False,
        description="Compare with bands=1: the area under the frontier up to this tok/s/user",
    )  # fmt: skip
    sensitivity: Literal["tpot", "ttft", "e2el", "off"] = "tpot"
    # Physics limit and vendor claims (issue 5): a model spec turns the dashed ceilings on.
    roofline_model: str | None = None
    roofline_precision: Literal["bf16", "fp8", "fp4", "int8", "int4"] | None = None
    roofline_ctx: int | None = Field(default=None, ge=1, le=10_000_000)
    claims: Literal["matching", "all", "examples", "none"] = "matching"
    # A production deployment's windows drawn over the frontiers, coloured by time (issue 36).
    deployment: DbId | None = Field(default=None, description="overlay a deployment's windows")
