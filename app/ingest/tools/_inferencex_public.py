"""The public InferenceX record, offline: rows of its read API and tables of its weekly dump.

Shapes (SemiAnalysisAI/InferenceX-app; docs/reference/inferencex.md §1.4):
- `/api/v1/benchmarks?model=…` answers a JSON list of rows (`packages/db/src/queries/
  benchmarks.ts`, `BenchmarkRow`): the configuration (`hardware`, `framework`, `model` as the
  app's model key, `precision`, `spec_method`, `disagg`, `is_multinode`, `prefill_*`/`decode_*`
  topology, `num_prefill_gpu`/`num_decode_gpu`), `isl`, `osl`, `conc`, `image`, a `metrics`
  object holding the agg row's figures under their agg names (seconds, per GPU), `date`
  (YYYY-MM-DD) and `run_url` (`…/actions/runs/<run id>/attempts/<n>`). The app's own
  supplemental rows (`packages/db/data/supplemental-bmk.json`) are agg rows whose figures sit
  in the same `metrics` object, with a `date`.
- The weekly dump (`packages/db/src/dump-db.ts`) writes one JSON array per table:
  `benchmark_results.json` (`config_id`, `workflow_run_id`, `benchmark_type`, `date`, `isl`,
  `osl`, `conc`, `image`, `metrics`, `error`), `configs.json` (the configuration by `id`) and
  `workflow_runs.json` (`id`, `github_run_id`, `run_attempt`, `html_url`, `date`). 64-bit ids
  are strings and dates full ISO timestamps there (postgres.js); both are read.

Each row becomes the flat agg row `inferencex.py` reads, plus its provenance: `date`, `run_id`
(the GitHub Actions run id), `run_url` and `image`. Rows with an `error`, and rows of a run
attempt another attempt of the same run superseded, are left out as the app leaves them out.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.source import SourceFile
from app.ingest.tools._vllm_common import Record

FMT_API = "InferenceX /api/v1/benchmarks rows"
FMT_DUMP = "InferenceX database dump (benchmark_results + configs + workflow_runs)"
# Provenance keys a flat row carries beside the agg keys (never read as figures).
PROVENANCE = ("date", "run_id", "run_url")
_RUN_ID = re.compile(r"/actions/runs/(\d{1,20})(?:/|$)")
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:$|[T ])")
_TOPOLOGY = ("tp", "ep", "dp_attention", "num_workers")


def table_kind(document: Any) -> str | None:
    """Which public-record shape a parsed JSON document is, or None for an agg row/list."""
    if not isinstance(document, list) or not document or not isinstance(document[0], dict):
        return None
    first = document[0]
    if "github_run_id" in first and "run_attempt" in first:
        return "workflow_runs"
    if "config_id" in first and "benchmark_type" in first and "metrics" in first:
        return "benchmark_results"
    if "prefill_num_workers" in first and "conc" not in first and "metrics" not in first:
        return "configs"
    if "metrics" in first:
        return "api"  # api_rows names a row whose `metrics` is not an object
    return None


def api_rows(file: SourceFile, document: list[Any]) -> list[Record]:
    """API rows (or supplemental rows) of one file as flat agg rows with their provenance."""
    out = []
    for i, item in enumerate(document, start=1):
        row = _object(file, i, item)
        metrics = row.get("metrics")
        if not isinstance(metrics, dict):
            raise IngestError.one(file.name, f"item {i}: key 'metrics': expected an object")
        flat = _flatten(row, metrics)
        flat["run_id"] = _run_id(row.get("run_url"))
        flat["run_url"] = row.get("run_url")
        flat["date"] = _date(file, i, row.get("date"))
        out.append(Record(flat, file.name, i, FMT_API))
    return out


def dump_rows(tables: dict[str, tuple[SourceFile, list[Any]]]) -> list[Record]:
    """benchmark_results joined to configs and workflow_runs, as flat rows with provenance."""
    results = tables.get("benchmark_results")
    if results is None:
        named = ", ".join(f"{k}.json" for k in sorted(tables))
        file = next(iter(tables.values()))[0]
        raise IngestError.one(
            file.name,
            f"an InferenceX dump table ({named}) without benchmark_results.json: upload the "
            "dump's benchmark_results.json, configs.json and workflow_runs.json together",
        )
    for needed in ("configs", "workflow_runs"):
        if needed not in tables:
            raise IngestError.one(
                results[0].name, f"benchmark_results.json needs {needed}.json from the same dump"
            )
    configs = _by_id(*tables["configs"])
    runs = _by_id(*tables["workflow_runs"])
    latest = _latest_attempts(runs)
    file, document = results
    out = []
    for i, item in enumerate(document, start=1):
        row = _object(file, i, item)
        if row.get("error") is not None:
            continue  # a failed point: the app never shows it
        config = configs.get(_key(row.get("config_id")))
        run = runs.get(_key(row.get("workflow_run_id")))
        if config is None or run is None:
            which = "config_id" if config is None else "workflow_run_id"
            raise IngestError.one(
                file.name, f"item {i}: key '{which}': {row.get(which)!r} is not in the dump"
            )
        if _key(run.get("id")) not in latest:
            continue  # a superseded attempt of its run
        metrics = row.get("metrics")
        if not isinstance(metrics, dict):
            raise IngestError.one(file.name, f"item {i}: key 'metrics': expected an object")
        point = {k: row.get(k) for k in ("isl", "osl", "conc", "image", "benchmark_type")}
        flat = _flatten({**config, **point}, metrics)
        github = run.get("github_run_id")
        flat["run_id"] = None if github is None else str(github)
        flat["run_url"] = _attempt_url(run)
        flat["date"] = _date(file, i, row.get("date") or run.get("date"))
        out.append(Record(flat, file.name, i, FMT_DUMP))
    return out


def _object(file: SourceFile, i: int, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise IngestError.one(
            file.name, f"item {i}: expected a JSON object, got {type(item).__name__}"
        )
    return item


def _flatten(row: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    """The agg row the app stored this row from: figures from `metrics`, the configuration
    under the agg names (`hw`, `spec_decoding`; a single node's `tp`/`ep` from `decode_*`)."""
    flat: dict[str, Any] = {k: v for k, v in metrics.items() if k not in PROVENANCE}
    config = {k: v for k, v in row.items() if k not in ("metrics", "id", "workers", *PROVENANCE)}
    flat.update(config)
    if "hw" not in flat and "hardware" in flat:
        flat["hw"] = flat.pop("hardware")
    if "spec_decoding" not in flat and "spec_method" in flat:
        flat["spec_decoding"] = flat.pop("spec_method")
    multinode = flat.get("is_multinode") is True or str(flat.get("is_multinode")).lower() == "true"
    if not multinode and "tp" not in flat and "decode_tp" in flat:
        # One node: the app stores the agg row's tp/ep/dp_attention as both roles' values.
        for key in _TOPOLOGY:
            if f"decode_{key}" in flat:
                flat[key] = flat[f"decode_{key}"]
        if "pp" not in flat and "decode_pp" in flat:
            flat["pp"] = flat["decode_pp"]
        for key in ("prefill", "decode"):
            for part in (*_TOPOLOGY, "pp"):
                flat.pop(f"{key}_{part}", None)
            flat.pop(f"num_{key}_gpu", None)
    if isinstance(flat.get("image"), str):
        flat["image"] = flat["image"].replace("#", "/")  # artifact names encode '/' as '#'
    return flat


def _run_id(url: Any) -> str | None:
    match = _RUN_ID.search(url) if isinstance(url, str) else None
    return match.group(1) if match else None


def _date(file: SourceFile, i: int, value: Any) -> dt.date | None:
    if value is None:
        return None
    match = _DATE.match(value) if isinstance(value, str) else None
    try:
        return dt.date.fromisoformat(match.group(1)) if match else _bad_date(file, i, value)
    except ValueError:
        return _bad_date(file, i, value)


def _bad_date(file: SourceFile, i: int, value: Any) -> dt.date:
    raise IngestError.one(file.name, f"item {i}: key 'date': expected YYYY-MM-DD, got {value!r}")


def _key(value: Any) -> str | None:
    return None if value is None or isinstance(value, bool) else str(value)


def _by_id(file: SourceFile, document: list[Any]) -> dict[str | None, dict[str, Any]]:
    return {_key(_object(file, i, r).get("id")): r for i, r in enumerate(document, start=1)}


def _latest_attempts(runs: dict[str | None, dict[str, Any]]) -> set[str | None]:
    """Ids of the rows that are their GitHub run's latest attempt (the app's latest view)."""
    best: dict[str, tuple[float, str | None]] = {}
    for key, run in runs.items():
        github = str(run.get("github_run_id"))
        attempt = run.get("run_attempt")
        rank = float(attempt) if isinstance(attempt, int | float) else 0.0
        if github not in best or rank > best[github][0]:
            best[github] = (rank, key)
    return {key for _, key in best.values()}


def _attempt_url(run: dict[str, Any]) -> str | None:
    url, attempt = run.get("html_url"), run.get("run_attempt")
    if not isinstance(url, str):
        return None
    return f"{url}/attempts/{attempt}" if isinstance(attempt, int) else url
