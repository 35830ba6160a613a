"""Production telemetry in: files (or a live pull's scrapes) → windows stored for a deployment.

All or nothing: a refusal stores nothing; windows already stored for the deployment (the same
time span) are left as they are and counted as already stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.domain.bounds import number_problem, time_problem
from app.domain.prom_text import Scrape, parse_selector, parse_time, promql_selector
from app.domain.prom_window import (
    DEFAULT_WINDOW_S,
    Refused,
    WindowError,
    WindowPoint,
    Windows,
    windows,
)
from app.domain.sweep_fields import SWEEP_TEXT_LIMITS
from app.ingest import prometheus
from app.ingest.errors import FIELD_SOURCE, IngestError, RowError
from app.ingest.limits import int_problem, text_problem
from app.ingest.source import SourceFile
from app.ingest.telemetry import read_telemetry
from app.schemas.answers.typed.production import ProductionStoredDict
from app.services.errors import Conflict, Invalid
from app.store import production as store
from app.store.models import Deployment

MAX_GPUS = 1_000_000
TEXT_FIELDS = ("model", "hardware", "engine", "engine_version")


@dataclass(frozen=True)
class DeploymentIn:
    name: str
    model: str | None = None
    hardware: str | None = None
    num_gpus: int | None = None
    engine: str | None = None
    engine_version: str | None = None

    def fields(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in store.DEPLOYMENT_FIELDS}


@dataclass
class Ingested:
    deployment_id: int
    deployment: str
    created: bool
    engine: str
    source: str
    stored: int
    already_stored: int
    refused: list[Refused] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_deployment(given: DeploymentIn) -> None:
    """Refuse, naming the field, what could not be stored."""
    name = given.name.strip()
    if not name:
        raise Invalid("deployment", "give the deployment's name")
    problem = text_problem(name, 300)
    if problem:
        raise Invalid("deployment", problem)
    for key in TEXT_FIELDS:
        value = getattr(given, key)
        problem = None if value is None else text_problem(value, SWEEP_TEXT_LIMITS[key])
        if problem:
            raise Invalid(key, problem)
    if given.num_gpus is not None and (
        given.num_gpus < 1 or given.num_gpus > MAX_GPUS or int_problem(given.num_gpus)
    ):
        raise Invalid("num_gpus", f"must be a whole number from 1 to {MAX_GPUS:,}")


def selector_of(text: str | None) -> dict[str, str]:
    try:
        return parse_selector(text)
    except ValueError as exc:
        raise Invalid("selector", str(exc)) from None


def times_of(text: str | None) -> list[float] | None:
    """Scrape times from a comma-separated list (Unix seconds or ISO 8601), or None."""
    if text is None or not text.strip():
        return None
    out = []
    for i, part in enumerate(text.split(","), start=1):
        try:
            out.append(parse_time(part))
        except ValueError as exc:
            raise Invalid("times", f"time {i}: {exc}") from None
    return out


def when(text: str, field: str) -> float:
    """One time (Unix seconds or ISO 8601), refused naming its field."""
    try:
        return parse_time(text)
    except ValueError as exc:
        raise Invalid(field, str(exc)) from None


def ingest_files(
    session: Session,
    given: DeploymentIn,
    files: Sequence[SourceFile],
    *,
    times_s: Sequence[float] | None = None,
    selector: Mapping[str, str] | None = None,
    window_s: float = DEFAULT_WINDOW_S,
) -> Ingested:
    telemetry = read_telemetry(files, times_s)
    return ingest_scrapes(
        session, given, telemetry.scrapes, telemetry.source, selector=selector, window_s=window_s
    )


def ingest_scrapes(
    session: Session,
    given: DeploymentIn,
    scrapes: Sequence[Scrape],
    source: str,
    *,
    selector: Mapping[str, str] | None = None,
    window_s: float = DEFAULT_WINDOW_S,
) -> Ingested:
    check_deployment(given)
    selector = dict(selector or {})
    existing = _existing(session, given)
    num_gpus = given.num_gpus or (existing.num_gpus if existing else None)
    try:
        made = windows(scrapes, num_gpus=num_gpus, window_s=window_s, selector=selector)
    except WindowError as exc:
        raise IngestError([RowError(FIELD_SOURCE, str(exc))]) from None
    return _store(session, given, existing, made, source, selector)


def store_windows(
    session: Session,
    given: DeploymentIn,
    made: Windows,
    source: str,
    selector: Mapping[str, str],
) -> Ingested:
    """Windows already made (the CLI's), stored for the deployment."""
    check_deployment(given)
    return _store(session, given, _existing(session, given), made, source, selector)


def pull_live(
    session: Session,
    given: DeploymentIn,
    pulled: PullRange,
    *,
    url: str | None,
    timeout_s: float,
) -> Ingested:
    """Windows computed by a Prometheus HTTP query API, stored as `live` windows."""
    check_deployment(given)
    wrong = prometheus.range_problem(pulled.start_s, pulled.end_s, pulled.window_s)
    if wrong:  # the request's own fault: a 422, not "Prometheus unavailable"
        raise Invalid(*wrong)
    if not url:
        raise Invalid("prometheus", "no Prometheus to pull from: set PARETOSCOPE_PROMETHEUS_URL")
    existing = _existing(session, given)
    num_gpus = given.num_gpus or (existing.num_gpus if existing else None)
    got = prometheus.pull(
        url,
        pulled.selector,
        pulled.start_s,
        pulled.end_s,
        num_gpus=num_gpus,
        window_s=pulled.window_s,
        timeout_s=timeout_s,
    )
    return _store(session, given, existing, got.windows, "live", pulled.selector)


@dataclass(frozen=True)
class PullRange:
    selector: dict[str, str]
    start_s: float
    end_s: float
    window_s: float = DEFAULT_WINDOW_S


def _existing(session: Session, given: DeploymentIn) -> Deployment | None:
    existing = store.find_deployment(session, given.name.strip())
    if existing is not None:
        for key, value in given.fields().items():
            kept = getattr(existing, key)
            if value is not None and kept is not None and value != kept:
                raise Conflict(
                    f"deployment {existing.name!r} is stored with {key} {kept!r}, not {value!r}"
                )
    return existing


def _store(
    session: Session,
    given: DeploymentIn,
    existing: Deployment | None,
    made: Windows,
    source: str,
    selector: Mapping[str, str],
) -> Ingested:
    if not made.points:
        reasons = "; ".join(sorted({r.reason for r in made.refused})) or "no windows"
        raise IngestError([RowError(FIELD_SOURCE, f"no window could be read: {reasons}")])
    problems = [RowError(FIELD_SOURCE, p) for p in map(window_problem, made.points) if p]
    if problems:  # stored only what every read can serve (app.domain.bounds)
        raise IngestError(problems)
    created = existing is None
    fields = given.fields() | {
        "engine": given.engine or made.engine,
        "model": given.model or _scraped_model(made.model),
    }
    deployment = existing or store.add_deployment(session, given.name.strip(), fields)
    for key, value in fields.items():  # what an earlier upload left unsaid
        if value is not None and getattr(deployment, key) is None:
            setattr(deployment, key, value)
    spans = store.stored_spans(session, deployment.id)
    new = [p for p in made.points if (p.start_s, p.end_s) not in spans]
    provenance = store.Provenance(source=source, selector=promql_selector(dict(selector)))
    store.add_windows(session, deployment.id, new, provenance)
    notes = sorted({n for p in made.points for n in p.notes})
    return Ingested(
        deployment_id=deployment.id,
        deployment=deployment.name,
        created=created,
        engine=made.engine,
        source=source,
        stored=len(new),
        already_stored=len(made.points) - len(new),
        refused=made.refused,
        notes=notes,
    )


def _scraped_model(label: str | None) -> str | None:
    """The series' model_name label as the deployment's model, when it is storable text."""
    if label is None or not label.strip() or text_problem(label, SWEEP_TEXT_LIMITS["model"]):
        return None
    return label.strip()


def ingested_json(result: Ingested) -> ProductionStoredDict:
    return {
        "deployment_id": result.deployment_id,
        "deployment": result.deployment,
        "created": result.created,
        "engine": result.engine,
        "source": result.source,
        "stored_windows": result.stored,
        "already_stored_windows": result.already_stored,
        "refused_windows": [
            {"start_s": r.start_s, "end_s": r.end_s, "reason": r.reason} for r in result.refused
        ],
        "notes": result.notes,
    }


def window_problem(point: WindowPoint) -> str | None:
    """Why a window cannot be stored so that every page can show it, or None."""
    where = f"the window from {point.start_s:g} s to {point.end_s:g} s"
    for name, seconds in (("start", point.start_s), ("end", point.end_s)):
        problem = time_problem(seconds)
        if problem:
            return f"{where}: its {name} {problem}"
    if not point.end_s > point.start_s:
        return f"{where} has no duration"
    numbers: list[tuple[str, float | None]] = [
        ("requests", point.requests),
        ("output tokens", point.output_tokens),
        ("prompt tokens", point.prompt_tokens),
        ("concurrency", point.concurrency),
        ("cached prompt tokens", None if point.cache is None else point.cache.cached_tokens),
        ("queried prompt tokens", None if point.cache is None else point.cache.queried_tokens),
    ]
    for measure, hist in point.histograms.items():
        numbers += [(f"a {measure} bucket count", c) for c in hist.counts]
        numbers += [(f"a {measure} bucket bound (ms)", b) for b in hist.bounds_ms[:-1]]
        numbers.append((f"the {measure} _sum (ms)", hist.sum_ms))
    for name, value in numbers:
        problem = None if value is None else number_problem(value)
        if problem:
            return f"{where}: {name} {problem}"
    return None
