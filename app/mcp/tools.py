"""The read-only tools: each one's arguments are the JSON API's query model (the same class, so
the two cannot drift), and its answer is the API's answer, built by the same function."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import QueryParams

from app.http.errors import AppError, invalid_request
from app.schemas.answers.misc import Definitions
from app.schemas.answers.pricing import PricingProfiles
from app.schemas.check import CheckQuery
from app.schemas.explore import ExploreQuery
from app.schemas.metrics import MetricQuery
from app.schemas.plan import PlanRequest
from app.schemas.pricing import PricingQuery
from app.schemas.readoff import ReadoffQuery, ReadoffRequest
from app.schemas.sweeps import SweepQuery, SweepRef
from app.services.catalogs.checks import price_list
from app.services.checks import gate as check
from app.services.readoff.document import slo_json
from app.services.readoff.query import params_of
from app.views import documents, explore_state
from app.views import sweeps as sweep_json
from app.views.compare import compare_answer

# Fields of a read-off query that say how it was computed (the rest are limits and prices).
METHOD_FIELDS = ("mode", "basis", "stat", "interpolation", "ci_level")
# The argument that asks for what a tool's charts draw: Plotly specs and sampled series, left
# out by default since they are most of an answer's size (two seeded sweeps' compare: ~10k
# characters of specs and ~10k of curve samples, against ~4k of headlines, ratios at the SLO
# and differences) and an assistant reads the numbers, not the charts.
FIGURES = "figures"
FIGURES_SCHEMA = {
    "type": "boolean",
    "default": False,
    "title": "Figures",
    "description": "include what the dashboard's charts draw: the Plotly figure specs and "
    "sampled series (left out by default; the read-off numbers are in the rest of the answer)",
}


@dataclass(frozen=True)
class Answered:
    """A tool's answer (the API's body) and what it was made from, for its provenance."""

    body: Mapping[str, Any]
    sweep_ids: list[int]
    slo: Mapping[str, Any] | None
    prices: dict[str, Any] | None
    method: dict[str, Any] | str
    view: str  # the dashboard's path and query showing the same
    api: str  # the JSON API request giving the same body


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    answer: Callable[[Session, Any, str], Answered]  # session, validated query, dashboard root
    # Arguments that stand for a query string: a NUL byte anywhere is refused as the API's
    # query guard refuses it (a body is checked by its model).
    query_string: bool = True
    where: tuple[str, ...] = ()  # where the API reads the arguments ("path"), named in errors
    # The API's response model, when its route validates its answer through one.
    response_model: type[BaseModel] | None = None
    exclude_unset: bool = False
    validate: Callable[[dict[str, Any]], BaseModel] | None = None
    # Parts of the API's body that charts draw, in a tool's answer only when asked: a key, or
    # `list[].key` for that key in each item of a list.
    figures: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        """The API's query model, plus `figures` for a tool whose answer has figures."""
        schema = self.model.model_json_schema()
        if self.figures:
            schema["properties"] = {**schema.get("properties", {}), FIGURES: FIGURES_SCHEMA}
        return schema

    def wants_figures(self, arguments: dict[str, Any]) -> bool:
        """Whether the call asks for the figures (`figures: true`); a 422 for a non-boolean."""
        asked = arguments.get(FIGURES, False) if self.figures else False
        if not isinstance(asked, bool):
            message = "give true or false"
            problem: dict[str, object] = {"field": FIGURES, "message": message}
            raise AppError(422, "Invalid request", f"{FIGURES}: {message}", [problem])
        return asked

    def shown(self, body: dict[str, Any], figures: bool) -> dict[str, Any]:
        """The API's body, without its figures unless they were asked for."""
        if figures:
            return body
        shown = dict(body)
        for part in self.figures:
            outer, _, inner = part.partition("[].")
            if not inner:
                shown.pop(outer, None)
            elif isinstance(shown.get(outer), list):
                shown[outer] = [
                    {k: v for k, v in item.items() if k != inner}
                    if isinstance(item, dict)
                    else item
                    for item in shown[outer]
                ]
        return shown

    def parse(self, arguments: dict[str, Any]) -> Any:
        """The query, or the API's 422 (AppError) for the same arguments."""
        if self.figures:
            arguments = {k: v for k, v in arguments.items() if k != FIGURES}
        if self.validate is not None:
            return self.validate(arguments)
        try:
            return self.model.model_validate(arguments)
        except ValidationError as exc:
            problems = [{**e, "loc": (*self.where, *e["loc"])} for e in exc.errors()]
            raise invalid_request(problems) from None

    def serialise(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The body as the API route writes it (through its response model, if it has one)."""
        if self.response_model is None:
            return dict(body)
        shaped = self.response_model.model_validate(body)
        return shaped.model_dump(mode="json", by_alias=True, exclude_unset=self.exclude_unset)


def _pairs(data: dict[str, Any]) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for key, value in data.items():
        for one in value if isinstance(value, list) else [value]:
            pairs.append((key, "1" if one is True else one))
    return [(k, v) for k, v in pairs if v is not False]


def _analysis_view(path: str, query: ReadoffQuery, ids: list[int]) -> str:
    """Explore or Plan showing these sweeps at exactly this query's limits and prices."""
    options = query.model_dump(
        exclude_none=True, exclude_defaults=True, exclude={"sweep", "points", *check.CHECK_FIELDS}
    )
    pairs = [("sweep", i) for i in ids] + [("picked", 1), ("preset", "custom")]
    return f"{path}?{urlencode(pairs + _pairs(options))}"


def _api(path: str, query: BaseModel) -> str:
    data = query.model_dump(exclude_none=True, exclude_defaults=True)
    text = urlencode(_pairs(data))
    return f"{path}?{text}" if text else path


def _prices(query: ReadoffQuery, columns: list[Any]) -> dict[str, Any]:
    return {
        "price_set": query.price_set,
        "pricing": query.pricing,
        "usd_per_gpu_hour": query.usd_per_gpu_hour,
        "columns": columns,
    }


def _method(slo: Mapping[str, Any]) -> dict[str, Any]:
    return {k: slo[k] for k in METHOD_FIELDS}


def _list_sweeps(session: Session, query: SweepQuery, _root: str) -> Answered:
    body = sweep_json.sweep_list(session, query)
    what = "the stored sweeps matching the filters and search words, newest first"
    qs = query.query_string()
    return Answered(
        body,
        [s["id"] for s in body["sweeps"]],
        None,
        None,
        what,
        "/sweeps" + (f"?{qs}" if qs else ""),
        "/api/sweeps" + (f"?{qs}" if qs else ""),
    )


def _get_sweep(session: Session, query: SweepRef, _root: str) -> Answered:
    body = sweep_json.sweep_detail(session, query.sweep_id)
    what = "the sweep's stored points, as imported"
    path = f"/sweeps/{query.sweep_id}"
    return Answered(body, [query.sweep_id], None, None, what, path, "/api" + path)


def _readoff(session: Session, query: ReadoffRequest, _root: str) -> Answered:
    body = documents.readoff_answer(session, query)
    ids = [r["sweep_id"] for r in body["results"]]
    return Answered(
        body,
        ids,
        body["slo"],
        _prices(query, body["price_columns"]),
        _method(body["slo"]),
        _analysis_view("/", query, ids),
        _api("/api/readoff", query),
    )


def _plan(session: Session, query: PlanRequest, _root: str) -> Answered:
    body = documents.plan_answer(session, query)
    ids = list(dict.fromkeys(query.sweep))
    return Answered(
        body,
        ids,
        body["slo"],
        _prices(query, []),
        _method(body["slo"]),
        _analysis_view("/plan", query, ids),
        _api("/api/plan", query),
    )


def _compare(session: Session, query: ExploreQuery, _root: str) -> Answered:
    body = compare_answer(session, query)
    # The view as resolved (presets and default prices applied): what the numbers used.
    resolved = explore_state.validated(explore_state.query_data(QueryParams(body["query"])))
    slo = slo_json(resolved, params_of(resolved))
    return Answered(
        body,
        list(resolved.sweep),
        slo,
        _prices(resolved, body["price_columns"]),
        _method(slo),
        "/compare?" + body["query"],
        "/api/compare?" + body["query"],
    )


def _check(session: Session, query: CheckQuery, root: str) -> Answered:
    document = check.evaluate(session, query, root).document
    ids = [document["candidate"]["sweep_id"], document["baseline"]["sweep_id"]]
    return Answered(
        document,
        ids,
        document["slo"],
        _prices(query, document["price_columns"]),
        _method(document["slo"]),
        document["compare_url"],
        "POST /api/check (stores the check; this tool stores nothing)",
    )


def _list_prices(session: Session, query: PricingQuery, _root: str) -> Answered:
    body = price_list(session, query)
    prices = {"profiles": [{"id": p["id"], "name": p["name"]} for p in body["profiles"]]}
    what = "the stored pricing profiles, each with its hourly cost breakdown"
    return Answered(body, [], None, prices, what, "/pricing", _api("/api/pricing", query))


def _explain_metric(_session: Session, query: MetricQuery, _root: str) -> Answered:
    body = documents.metrics_answer(query)
    # The section of the one definition asked for (by id or name): its anchor is the id.
    view = "/metrics" + (f"#{body['definitions'][0]['id']}" if query.id else "")
    what = "the Metrics page's definitions, as the numbers use them"
    return Answered(body, [], None, None, what, view, _api("/api/metrics", query))


def _explore(arguments: dict[str, Any]) -> ExploreQuery:
    return explore_state.validated(arguments)


TOOLS: tuple[Tool, ...] = (
    Tool(
        "list_sweeps",
        "List sweeps",
        "Stored benchmark sweeps matching filters and search words (`q`: every word in the "
        "name, model, hardware, engine, precision or notes), paged (at most 500 a page), as "
        "GET /api/sweeps.",
        SweepQuery,
        _list_sweeps,
    ),
    Tool(
        "get_sweep",
        "One sweep",
        "One sweep with every stored column of its points, as GET /api/sweeps/{sweep_id}.",
        SweepRef,
        _get_sweep,
        where=("path",),
    ),
    Tool(
        "readoff",
        "Read off at an SLO",
        "Per sweep: pass, fail or unknown at the SLO (per-limit percentiles, percentile or "
        "per-request mode, attainment), its goodput, operating point and $/Mtok per price "
        "column with intervals at `ci_level`, as GET /api/readoff.",
        ReadoffRequest,
        _readoff,
    ),
    Tool(
        "compare",
        "Compare systems",
        "Every system against the first (`sweep`, repeated): throughput and cost ratios along "
        "interactivity, headlines and the ratio at the SLO, as GET /api/compare. Without limits "
        "or prices the dashboard's defaults apply (the provenance says which). The charts' "
        "data (Plotly specs; each pair's `curve`, the ratio sampled along interactivity; each "
        "public band's `figure`) only with `figures: true`.",
        ExploreQuery,
        _compare,
        validate=_explore,
        figures=("figures", "pairs[].curve", "public_record[].figure"),
    ),
    Tool(
        "plan",
        "Capacity plan",
        "From one demand (requests_per_s, output_tok_s, tokens_per_day or concurrent_sessions: "
        "agents of a multi-turn run, sized from session attainment) at an SLO to "
        "replicas, GPUs, $/month and power per sweep, as GET /api/plan. The cost chart's "
        "Plotly spec only with `figures: true`.",
        PlanRequest,
        _plan,
        figures=("figure",),
    ),
    Tool(
        "check",
        "Regression check",
        "Read off `candidate` and `baseline` (ids, tags or names) at one SLO and price and say "
        "whether the candidate regressed, as POST /api/check — but read-only: the check is not "
        "stored (no check_id, no History mark).",
        CheckQuery,
        _check,
        query_string=False,
    ),
    Tool(
        "list_prices",
        "Pricing profiles",
        "Every pricing profile (optionally one GPU's) with its hourly cost breakdown, as "
        "GET /api/pricing.",
        PricingQuery,
        _list_prices,
        response_model=PricingProfiles,
        exclude_unset=True,
    ),
    Tool(
        "explain_metric",
        "Explain a metric",
        "The Metrics page's definition and formula of a term (goodput, interactivity, "
        "Pareto frontier, cost, …) by its id or plain name in any case (all of them without "
        "`id`), as GET /api/metrics.",
        MetricQuery,
        _explain_metric,
        response_model=Definitions,
    ),
)
BY_NAME = {t.name: t for t in TOOLS}
