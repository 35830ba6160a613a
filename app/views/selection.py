"""What Explore and Compare share: resolve the URL state, analyse, and build price groups."""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl
from sqlalchemy.orm import Session

from app.domain.request_goodput import SAMPLE_SCHEMA
from app.schemas.explore import ExploreQuery
from app.services import analysis
from app.services.analysis import Params, SweepAnalysis
from app.services.compare import sensitivity as slo_sensitivity
from app.services.compare.sensitivity import SensitivitySeries
from app.services.prices import Price
from app.services.readoff import answer, price_columns
from app.services.readoff.price_columns import PriceColumn
from app.services.readoff.query import params_of
from app.store.versions import Versions
from app.views import explore_state
from app.views.explore_state import ExploreState


@dataclass
class View:
    state: ExploreState
    params: Params
    results: list[SweepAnalysis]
    groups: list[PriceColumn]

    @property
    def cost_column(self) -> PriceColumn | None:
        """The price column a single $/Mtok reads, as the answer strip does: the user's own
        $/GPU-hour when given, else the first column; None without any price."""
        index = answer.strip_column(self.groups)
        return None if index is None else self.groups[index]

    def sensitivity(self) -> list[SensitivitySeries]:
        """Sensitivity from the analysed sweeps (per-request: their cached samples, no query)."""
        metric = self.state.query.sensitivity
        if metric == "off" or not self.results:
            return []
        samples = None
        if self.params.mode == "requests":
            frames = [r.samples for r in self.results if r.samples is not None]
            samples = pl.concat(frames) if frames else pl.DataFrame(schema=SAMPLE_SCHEMA)
        group = self.cost_column
        return slo_sensitivity.sensitivity_series(self.results, self.params, metric, group, samples)


def build(
    session: Session,
    query: ExploreQuery,
    default_series: int = explore_state.DEFAULT_SERIES,
    versions: Versions | None = None,
) -> View:
    state = explore_state.resolve(session, query, default_series, versions)
    params = params_of(state.query)
    results, prices = analysis.run(
        session,
        state.selected,
        params,
        state.profile_ids,
        state.query.usd_per_gpu_hour,
        state.catalog,
    )
    return View(state, params, results, price_groups(state, prices))


def price_groups(state: ExploreState, prices: list[Price]) -> list[PriceColumn]:
    groups = []
    own = price_columns.own_label(state.price_columns)
    for column in state.price_columns:
        chosen = tuple(
            p
            for p in prices
            if (column.inline and p.profile_id is None) or p.profile_id in column.profile_ids
        )
        groups.append(replace(column, prices=chosen, own=own))
    return groups
