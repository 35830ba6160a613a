"""Explore's URL state: filters, series, axes, SLO (presets) and prices, resolved to one view.

Everything the page shows comes from the query string, so every view can be shared and the
back button works; `canonical_query()` is what the address bar shows after an update.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import QueryParams

from app.domain.verdict import Slo
from app.http.errors import AppError
from app.schemas.explore import ExploreQuery
from app.services import picker as series_picker
from app.services.picker import LeaderResult, Picker
from app.services.readoff import price_columns
from app.services.readoff.price_columns import PriceColumn
from app.services.readoff.query import preset_limits
from app.store import catalog_cache
from app.store.catalog_cache import Catalog
from app.store.models import PricingProfile, SloPreset, Sweep
from app.store.sweep_search import SweepFilters
from app.store.versions import Versions
from app.views import choices

FILTERS = ("model", "hardware", "engine", "precision", "isl", "osl", "source_kind", "spec_decode")
SLO_FIELDS = (
    "ttft_ms",
    "tpot_ms",
    "min_tok_s_user",
    "e2el_ms",
    "percentile",
    "ttft_percentile",
    "tpot_percentile",
    "e2el_percentile",
    "attainment",
)
CLASS_PRICE_FIELDS = ("usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output")
PRICE_FIELDS = ("price_set", "pricing", "usd_per_gpu_hour")
# What follows the user between Explore, Compare, Plan and History (issue 47): besides the
# sweeps, the SLO and the prices, the settings that change the numbers read off.
CARRIED = (
    *SLO_FIELDS,
    "mode",
    "interpolation",
    "ci_level",
    "price_set",
    "usd_per_gpu_hour",
    *CLASS_PRICE_FIELDS,  # API prices by token class (issue 50)
    "accounting",
    "stat",
    "basis",
    "interactivity",  # the x axis: per-token speed or E2E-normalized (issue 49)
    "e2e_percentile",
)
DEFAULT_PRESET = "chat-interactive"
DEFAULT_PRICE_SET = "costr@2026-09-08"
DEFAULT_SERIES = 8
MAX_SERIES = series_picker.MAX_SERIES


@dataclass
class ExploreState:
    query: ExploreQuery
    candidates: list[Sweep]
    selected: list[int]
    presets: list[SloPreset]
    preset_key: str  # the preset the limits equal, or "" for custom limits
    profiles: list[PricingProfile]
    price_sets: tuple[tuple[str, str], ...]  # (key, label); shared by requests, read only
    catalog: Catalog  # as resolve read it: the rest of the request reads it here
    price_columns: list[PriceColumn] = field(default_factory=list)
    picker: Picker | None = None
    dropped: list[Sweep] = field(default_factory=list)  # asked for beyond MAX_SERIES, by name
    leaders: LeaderResult | None = None  # set when this request selected the frontier leaders
    max_series: int = MAX_SERIES
    # What the URL left out and the home page's defaults filled: "slo" (the default preset)
    # and "prices" (the default price set), so the page can say so.
    defaults: tuple[str, ...] = ()

    @property
    def profile_ids(self) -> list[int]:
        return [i for c in self.price_columns for i in c.profile_ids]

    def canonical_query(self) -> str:
        data = self.query.model_dump(exclude_none=True, exclude_defaults=True)
        data["sweep"] = self.selected
        data["picked"] = True
        data["preset"] = self.preset_key or "custom"
        data.pop("applied_preset", None)
        data.pop("select", None)
        data.pop("leaders_group", None)
        pairs: list[tuple[str, Any]] = []
        for key, value in data.items():
            if isinstance(value, list):
                pairs.extend((key, v) for v in value)
            elif isinstance(value, bool):
                if value:
                    pairs.append((key, "1"))
            else:
                pairs.append((key, value))
        return urlencode(pairs)


def carried_query(state: ExploreState) -> str:
    """The selection that follows the user to Explore, Compare, Plan and History, as a query
    string: the chosen sweeps, the SLO (its preset, or "custom" and the limits), the prices and
    the accounting. A link with it reproduces the view; page-only settings (filters, axes' logs,
    the demand) stay with their page."""
    return urlencode(carried_pairs(state.query, state.preset_key, state.selected))


def carried_pairs(
    query: ExploreQuery, preset_key: str, sweeps: list[int] | None
) -> list[tuple[str, Any]]:
    """The query pairs of `carried_query`: the sweeps (none when `sweeps` is None: the
    settings alone), the preset (`preset_key`, or "custom" and the limits), prices, accounting."""
    data = query.model_dump(include=set(CARRIED), exclude_none=True, exclude_defaults=True)
    if preset_key:  # the preset's own limits and percentiles follow from its key
        for key in SLO_FIELDS:
            data.pop(key, None)
    pairs: list[tuple[str, Any]] = []
    if sweeps is not None:
        pairs += [("sweep", i) for i in sweeps] + [("picked", "1")]
    # The preset is always named, so a page never fills in its default price set for
    # prices the user cleared.
    pairs.append(("preset", preset_key or "custom"))
    pairs += [(k, choices.input_value(v)) for k, v in data.items()]  # 500, not 500.0
    pairs += [("pricing", i) for i in query.pricing]
    return pairs


def query_data(
    params: QueryParams, lists: tuple[str, ...] = ("sweep", "pricing")
) -> dict[str, Any]:
    """The query string without empty fields (an empty form field means 'not given'); the
    repeated `lists` fields become lists. Shared by every page that reads read-off settings."""
    data: dict[str, Any] = {}
    for key, value in params.multi_items():
        if value == "":
            continue
        if key in lists:
            data.setdefault(key, []).append(value)
        else:
            data[key] = value
    return data


def parse(params: QueryParams) -> ExploreQuery:
    """The page's settings from its query string."""
    return validated(query_data(params))


def validated(data: dict[str, Any]) -> ExploreQuery:
    """The settings from their fields (a parsed query string, or an MCP tool's arguments)."""
    try:
        return ExploreQuery.model_validate(data)
    except ValidationError as exc:
        message = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".lstrip(": ") for e in exc.errors()
        )
        raise AppError(422, "Invalid request", message) from exc


def resolve(
    session: Session,
    query: ExploreQuery,
    default_series: int = DEFAULT_SERIES,
    versions: Versions | None = None,
) -> ExploreState:
    """Apply presets and defaults, pick the series, expand price sets into profiles.
    `versions`: the tokens, when the caller read them in this transaction already."""
    kept = catalog_cache.current(session, versions)
    presets = list(kept.slo_presets)
    by_key = {p.key: p for p in presets}
    query, defaults = _apply_preset(query, by_key)
    selection, pick = select_series(session, query, default_series)
    profiles = list(kept.profiles)
    state = ExploreState(
        query=query,
        candidates=[*pick.selected, *(s for g in pick.groups for s in g.sweeps)],
        selected=selection.selected,
        presets=presets,
        preset_key=_matching_preset(query, by_key),
        profiles=profiles,
        price_sets=kept.derived("price_sets", _price_sets),
        catalog=kept,
    )
    state.price_columns = _price_columns(state)
    # Say only what was filled in and exists (a catalog without the preset or set has none).
    known_set = query.price_set in dict(state.price_sets)
    state.defaults = tuple(
        d for d in defaults if (d == "slo" and state.preset_key) or (d == "prices" and known_set)
    )
    state.picker, state.dropped, state.leaders = pick, selection.dropped, selection.leaders
    return state


def sweep_filters(query: ExploreQuery) -> SweepFilters:
    """The picker's filters and search text."""
    values = {f: getattr(query, f) for f in FILTERS}
    return SweepFilters(**{k: v for k, v in values.items() if v not in (None, "")}, q=query.q)


def select_series(
    session: Session, query: ExploreQuery, default_series: int = DEFAULT_SERIES
) -> tuple[series_picker.Selection, Picker]:
    """The sweeps to draw (the frontier leaders when asked, else the URL's, else a default
    group), capped at MAX_SERIES with the rest named, and the picker around them."""
    filters = sweep_filters(query)
    if query.select == "leaders":
        found = series_picker.leaders(
            session,
            filters,
            query.stat,
            query.basis,
            group=query.leaders_group,
            include_demo=query.leaders_demo,
            accounting=query.accounting,
        )
        if found.needs_group:
            # Several models or workloads match: the selection stays until one is chosen.
            kept = series_picker.cap_selection(session, query.sweep)
            selection = series_picker.Selection(kept.selected, kept.dropped, found)
        else:
            selection = series_picker.Selection(
                found.chosen, series_picker.sweeps_named(session, found.dropped), found
            )
    elif query.sweep:
        selection = series_picker.cap_selection(session, query.sweep)
    elif query.picked:
        selection = series_picker.Selection([])
    else:
        first = series_picker.picker(session, filters, [])
        # Oldest first, as before the picker was searched: the default's colours stay put.
        listed = sorted((s for g in first.groups for s in g.sweeps), key=lambda s: s.id)
        selection = series_picker.Selection(_default_series(listed)[:default_series])
    return selection, series_picker.picker(session, filters, selection.selected)


def _default_series(candidates: list[Sweep]) -> list[int]:
    """The largest group sharing model and ISL/OSL: comparable curves, never mixed workloads."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for sweep in candidates:
        groups.setdefault((sweep.model, sweep.isl, sweep.osl), []).append(sweep.id)
    if not groups:
        return []
    best = max(groups.values(), key=lambda ids: (len(ids), max(ids)))
    return best[:DEFAULT_SERIES]


def _apply_preset(
    query: ExploreQuery, presets: dict[str, SloPreset]
) -> tuple[ExploreQuery, tuple[str, ...]]:
    """The chosen preset's limits, and the home page's defaults where the URL names no SLO (no
    limit, no preset: the default preset) or no price and no preset (the default price set),
    e.g. a link naming sweeps only. The page's form always sends `preset` ("custom" for your
    own limits, or none at all), so a choice made on the page is never overridden. Returns the
    query and what was defaulted ("slo", "prices")."""
    given = query.model_fields_set
    no_slo = not (given & {*SLO_FIELDS, "preset", "applied_preset"})
    no_price = not (given & {*PRICE_FIELDS, "preset", "applied_preset"})
    key = DEFAULT_PRESET if no_slo and query.preset is None else query.preset
    preset = presets.get(key or "")
    changes: dict[str, Any] = {}
    defaults: list[str] = []
    if preset is not None and (no_slo or key != query.applied_preset):
        changes = {**preset_limits(preset), "preset": preset.key}
        if no_slo:
            defaults.append("slo")
    if no_price:
        changes["price_set"] = DEFAULT_PRICE_SET
        defaults.append("prices")
    return (query.model_copy(update=changes) if changes else query), tuple(defaults)


def _matching_preset(query: ExploreQuery, presets: dict[str, SloPreset]) -> str:
    """The preset whose limits the current ones equal; "" when the user set their own."""
    preset = presets.get(query.preset or "")
    if preset is None:
        return ""
    slo = query.slo()
    # Compare each limit's effective percentile: "p99 with TPOT p50" equals "p50 TPOT, p99 rest".
    own = Slo(
        preset.ttft_ms,
        preset.tpot_ms,
        preset.e2el_ms,
        preset.percentile,
        preset.attainment,
        preset.ttft_percentile,
        preset.tpot_percentile,
        preset.e2el_percentile,
    )
    same = slo.checked() == own.checked() and slo.attainment == own.attainment
    return preset.key if same else ""


def _price_sets(kept: catalog_cache.Catalog) -> tuple[tuple[str, str], ...]:
    return tuple(price_columns.price_sets(list(kept.profiles)))


def _price_columns(state: ExploreState) -> list[PriceColumn]:
    query = state.query
    return price_columns.price_columns(
        state.profiles, query.price_set, query.pricing, query.usd_per_gpu_hour, state.price_sets
    )
