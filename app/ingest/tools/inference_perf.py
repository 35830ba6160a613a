"""kubernetes-sigs/inference-perf reports: a run folder (`reports-<timestamp>/`) → one sweep.

Reads (JSON, or the same objects rendered as YAML):

* `stage_<N>_lifecycle_metrics.json` — one per load stage = one point (client side, seconds);
* `summary_lifecycle_metrics.json` — all stages pooled: claimed, not a point (kept out);
* `stage_<N>_prometheus_metrics.json` — server-side Prometheus summary of stage N: folded into
  that point's `extra["prometheus"]`; `summary_prometheus_metrics.json` is claimed and ignored;
* `config.yaml` — model (`server.model_name`), engine (`server.type`), workload (`data.type`),
  per-stage settings and the goodput SLO;
* `per_request_lifecycle_metrics.json` — claimed so a whole folder uploads, not used (its
  entries carry no stage id).

Kinds are told apart by content (`load_summary` + `successes`; a stage has
`load_summary.requested_rate`, a Prometheus summary has no `successes.latency`). File names
only group files: stage files of one folder (and one `report_file_prefix`) form one sweep,
ordered by stage number, then load. A lifecycle file without a `stage_<N>_` name is a sweep of
its own. Both the older schema (no `benchmark_time_seconds`, no goodput) and the newer one are
read. The field mapping and units are documented in `_inference_perf_stage.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from app.domain.covariates import PREFIX_CACHE_HIT_RATE
from app.ingest.common import json_safe
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES, looks_like_csv
from app.ingest.tools._inference_perf_stage import (
    config_label,
    config_meta,
    goodput_slo,
    kind_of,
    load_document,
    stage_config,
    stage_point,
)

_STAGE_NAME = re.compile(r"^(.*?)stage_(\d+)_(lifecycle|prometheus)_metrics\.(json|ya?ml)$")
_YAML_KEY = {
    key: re.compile(rb"^" + key + rb":", re.MULTILINE)
    for key in (b"load_summary", b"successes", b"load", b"server", b"data", b"api")
}


@dataclass
class _Group:
    folder: str
    prefix: str | None  # None: a lifecycle file outside the stage_<N>_ naming, a sweep alone
    stages: list[tuple[int | None, SourceFile, Mapping[str, Any]]] = field(default_factory=list)
    prometheus: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    others: list[SourceFile] = field(default_factory=list)


class InferencePerfImporter:
    name = "inference-perf"
    priority = 74

    def sniff(self, file: SourceFile) -> bool:
        try:
            return _sniff(file)
        except IngestError:  # unreadable here; the upload's own checks say why
            return False

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        groups: dict[tuple[str, str | None, str], _Group] = {}
        configs: dict[str, Mapping[str, Any]] = {}
        for file in files:
            doc = load_document(file)
            if _is_config(doc):
                configs[file.folder] = doc
                continue
            kind = kind_of(doc)
            if kind is None and not isinstance(doc, list):
                raise IngestError.one(
                    file.name,
                    "not an inference-perf report: 'load_summary' and 'successes' must be objects",
                )
            _file_into(groups, file, kind, cast(Mapping[str, Any], doc))
        # config.yaml belongs to the stage_<N>_ files of its folder, not to lone reports.
        sweeps = [
            _sweep(g, configs.get(g.folder) if g.prefix is not None else None)
            for g in groups.values()
            if g.stages or g.prometheus
        ]
        orphans = [f.name for g in groups.values() if not g.stages for f in g.others]
        if not sweeps:
            where = ", ".join(orphans) or ", ".join(f.name for f in files)
            raise IngestError.one(
                where,
                "no stage_<N>_lifecycle_metrics report in this upload: summary, Prometheus, "
                "config and per-request files need the stage reports of their run",
            )
        _dedupe_names(sweeps)
        return sweeps


def _file_into(
    groups: dict[tuple[str, str | None, str], _Group],
    file: SourceFile,
    kind: str | None,
    report: Mapping[str, Any],
) -> None:
    """A report into its run's group: by folder and stage_<N>_ prefix (a lone stage report is
    a group of its own)."""
    match = _STAGE_NAME.match(file.basename)
    prefix = match.group(1) if match else None
    stage = int(match.group(2)) if match else None
    alone = file.name if kind == "stage" and match is None else ""
    group = groups.setdefault(
        (file.folder, prefix, alone), _Group(file.folder, prefix if match else None)
    )
    if kind == "stage":
        if stage is not None and any(s == stage for s, _, _ in group.stages):
            raise IngestError.one(
                file.name,
                f"stage {stage} appears twice in one upload folder; "
                "upload each run as its own folder or archive",
            )
        group.stages.append((stage, file, report))
    elif kind == "prometheus" and stage is not None:
        group.prometheus[stage] = report
    else:
        group.others.append(file)


def _sniff(file: SourceFile) -> bool:
    data = file.data
    head = file.head(SNIFF_BYTES)
    if head[:1] == b"{":
        return b'"load_summary"' in data and b'"successes"' in data
    if head[:1] == b"[":
        return b'"start_time"' in head and b'"end_time"' in head and _is_per_request(file)
    if looks_like_csv(data):
        return False
    if _yaml_key(data, b"load_summary") and _yaml_key(data, b"successes"):
        return True
    return bool(
        _yaml_key(data, b"load")
        and (_yaml_key(data, b"server") or _yaml_key(data, b"api"))
        and _is_config(load_document(file))
    )


def _yaml_key(data: bytes, key: bytes) -> bool:
    # A plain substring test first: a multiline regex over an 80 MB CSV takes a second.
    return key + b":" in data and _YAML_KEY[key].search(data) is not None


def _is_per_request(file: SourceFile) -> bool:
    doc = file.json()
    first = doc[0] if isinstance(doc, list) and doc else None
    return (
        isinstance(first, Mapping)
        and {"start_time", "end_time"} <= set(first)
        and bool({"request", "info", "error", "response"} & set(first))
    )


def _is_config(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and isinstance(doc.get("load"), Mapping)
        and "successes" not in doc
        and any(isinstance(doc.get(k), Mapping) for k in ("server", "api", "data"))
    )


def _sweep(group: _Group, config: Mapping[str, Any] | None) -> ParsedSweep:
    if not group.stages:
        lonely = min(group.prometheus)
        raise IngestError.one(
            group.folder or f"stage_{lonely}_prometheus_metrics",
            f"Prometheus report of stage {lonely} without its stage_{lonely}_lifecycle_metrics "
            "report in the same folder",
        )
    slo = goodput_slo(config) if config else None
    keyed: list[tuple[tuple[float, float], ParsedPoint]] = []
    for stage, file, doc in group.stages:
        point = _stage(group, stage, stage_point(file.name, doc, slo), config)
        load = point.values.get("concurrency", point.values.get("request_rate", math.inf))
        keyed.append(((math.inf if stage is None else stage, load), point))
    points = [p for _, p in sorted(keyed, key=lambda kp: kp[0])]
    first = group.stages[0][1]
    meta: dict[str, Any] = {"source_tool": "inference-perf"}
    if config is not None:
        meta.update(config_meta(config))
        for point in points:
            point.extra["config"] = json_safe(config)
    model = meta.get("model")
    label = (config_label(config) if config else None) or (
        group.prefix.rstrip("_-") if group.prefix else first.basename.rsplit(".", 1)[0]
    )
    model_label = str(model).rstrip("/").rsplit("/", 1)[-1] if model else None
    meta["sweep"] = " · ".join(p for p in (model_label, "inference-perf", label) if p)
    yaml_ = not first.head().startswith(b"{")
    source = group.folder if group.prefix is not None and group.folder else first.name
    fmt = "inference-perf lifecycle report" + (" (YAML)" if yaml_ else "")
    if len(points) > 1:
        fmt = f"inference-perf lifecycle reports ({len(points)} stages)"
    return ParsedSweep(meta, points, source, fmt)


def _stage(
    group: _Group, stage: int | None, point: ParsedPoint, config: Mapping[str, Any] | None
) -> ParsedPoint:
    """A stage's point with its stage number, its Prometheus report (and the prefix-cache hit
    rate it gives) and the stage's settings from the config."""
    point.extra["stage"] = stage
    if stage in group.prometheus:
        point.extra["prometheus"] = json_safe(group.prometheus[stage].get("successes"))
        hit = _prefix_cache_hit_rate(group.prometheus[stage].get("successes"))
        if hit is not None:
            point.extra[PREFIX_CACHE_HIT_RATE] = hit
    if config is not None and (settings := stage_config(config, stage)) is not None:
        point.extra["stage_config"] = settings
    return point


def _dedupe_names(sweeps: list[ParsedSweep]) -> None:
    """Two runs in one upload with the same description: tell them apart by folder."""
    names = [s.name for s in sweeps]
    for sweep in sweeps:
        if names.count(sweep.name) > 1:
            folder = sweep.source_file.rstrip("/").rsplit("/", 1)[-1]
            sweep.meta["sweep"] = f"{sweep.name} · {folder}"


IMPORTER = InferencePerfImporter()


def _prefix_cache_hit_rate(successes: Any) -> float | None:
    """The server's prefix-cache hit rate over the stage (`prefix_cache_hit_percent.mean`, in
    percent) as a fraction; None when not reported."""
    entry = successes.get("prefix_cache_hit_percent") if isinstance(successes, Mapping) else None
    mean = entry.get("mean") if isinstance(entry, Mapping) else None
    if isinstance(mean, bool) or not isinstance(mean, int | float) or not math.isfinite(mean):
        return None
    return float(mean) / 100.0
