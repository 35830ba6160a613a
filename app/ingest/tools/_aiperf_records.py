"""AIPerf's per-request `profile_export.jsonl` → request samples of the run's point.

Record layout (ai-dynamo/aiperf `common/models/record_models.py` `MetricRecordInfo`, and the
"Working with profile exports" tutorial): one JSON object per line,

    {"metadata": {"session_num", "x_request_id", "x_correlation_id", "conversation_id",
                  "turn_index", "request_start_ns", "request_ack_ns", "request_end_ns",
                  "worker_id", "record_processor_id", "benchmark_phase", "was_cancelled", ...},
     "metrics": {"time_to_first_token": {"value": 255.9, "unit": "ms"},
                 "request_latency": {...},
                 "input_sequence_length": {"value": 550, "unit": "tokens"},
                 "output_sequence_length": {...}, "inter_token_latency": {...},
                 "inter_chunk_latency": {"value": [4.9, 5.3, ...], "unit": "ms"}, ...},
     "error": null | {"code": 499, "type": "RequestCancellationError", "message": "..."}}

A request failed when `error` is set (its metrics hold at most `error_isl`) or its metadata
says `was_cancelled`: a cancelled request (`--request-cancellation-rate`) counts as a failure.
Each record's phase (`benchmark_phase`, or the early `credit_phase`: "warmup" or "profiling")
is kept on its sample: warm-up records are counted and stored, never read off
(app.domain.phases). Times are converted by their `unit`. Early AIPerf (October 2025, its
examples/artifacts/run1) wrote TTFT under the short tag `ttft`; it is read the same.

Cached input (issue 50): a successful record's `usage_prompt_cache_read_tokens` (earlier
`usage_prompt_cached_tokens`: the server's `prompt_tokens_details.cached_tokens` as the client
read it) becomes its sample's `cached_input_tokens`; one above the record's input tokens is
refused, naming the line and the field (see `_aiperf_cache`).

Sessions (issue 49): a request's session is its `x_correlation_id` (AIPerf: "a shared ID for each
user session/conversation in multi-turn"), else its `conversation_id` (the dataset's
conversation, which several sessions may replay); its turn is `turn_index`. The point keeps
`request_accounting` as InferenceX's AgentX aggregation counts it: records_total,
records_profiled, records_warmup_dropped, records_error_dropped, error_categories (here the
errored records stay, as failed requests).
The file states no load level, so it is attached to the aggregate export of the same run: the one
in the same folder, or the only one in the upload; alone it is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.domain.phases import PHASES, WARMUP
from app.ingest.cached_tokens import check_request, samples_with_cached
from app.ingest.common import integer, number
from app.ingest.errors import IngestError
from app.ingest.parsed import Samples, make_samples
from app.ingest.safe_load import loads_json
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._aiperf_cache import CACHED_KEYS
from app.ingest.tools._genai_common import TIME_SCALE_MS, Built

METADATA_MARKERS = ("request_start_ns", "x_request_id", "benchmark_phase", "session_num")


def is_records(file: SourceFile) -> bool:
    """True for an AIPerf profile_export.jsonl (judged by its first record).

    Only a JSON bound (too deep, too many digits) raises, naming the file."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or b'"metadata"' not in head:
        return False
    try:
        first = loads_json(file.head(lstrip=False).split(b"\n", 1)[0], file.name)
    except ValueError:
        return False
    if not isinstance(first, dict) or not {"metadata", "metrics"} <= first.keys():
        return False
    meta = first["metadata"]
    return isinstance(meta, dict) and any(k in meta for k in METADATA_MARKERS)


@dataclass
class Records:
    file: SourceFile
    samples: Samples  # with the cached input tokens when the records report them
    ok: int
    failed: int
    accounting: dict[str, Any]
    multi_turn: bool  # some session has a turn after its first


TTFT_KEYS = ("time_to_first_token", "ttft")  # current name, then the early short tag


def _phase(meta: Any) -> Any:
    if not isinstance(meta, Mapping):
        return None
    return meta.get("benchmark_phase", meta.get("credit_phase"))


def _session(meta: Any) -> tuple[str | None, int | None]:
    """(session id, turn) of a record's metadata; None where it states none."""
    if not isinstance(meta, Mapping):
        return None, None
    raw = meta.get("x_correlation_id") or meta.get("conversation_id")
    session = str(raw)[:200] if isinstance(raw, str | int) and raw != "" else None
    turn = meta.get("turn_index")
    valid = isinstance(turn, int) and not isinstance(turn, bool) and 0 <= turn < 2**31
    return session, turn if valid else None


def _category(error: Any) -> str:
    """An error's category as InferenceX counts it: its type (or code), else its message's
    first words."""
    if isinstance(error, Mapping):
        for key in ("type", "error_type", "code"):
            if error.get(key) not in (None, ""):
                return str(error[key])[:120]
        error = error.get("message")
    text = str(error or "unknown").strip().splitlines() or ["unknown"]
    return (text[0].split(":", 1)[0] or "unknown")[:120]


def _record(file: SourceFile, text: str, line: int) -> Mapping[str, Any]:
    """One line of the export: a JSON object with `metadata` and `metrics`, else refused."""
    try:
        record = loads_json(text, file.name, line)
    except json.JSONDecodeError as exc:
        raise IngestError.one(file.name, f"not valid JSON ({exc.msg})", row=line) from None
    if not isinstance(record, Mapping) or "metadata" not in record or "metrics" not in record:
        raise IngestError.one(
            file.name, "required keys 'metadata' and 'metrics' are missing", row=line
        )
    return record


def _count_category(categories: dict[str, int], error: Any) -> None:
    """Count a failed record under its error's category (a cancelled one has no error)."""
    name = _category(error if error is not None else {"type": "cancelled"})
    categories[name] = categories.get(name, 0) + 1


def read_records(file: SourceFile) -> Records:
    columns = _Columns()
    for line, text in enumerate(file.text.splitlines(), start=1):
        if text.strip():
            columns.add(file, _record(file, text, line), line)
    if not columns.total - columns.warmup:
        raise IngestError.one(file.name, "holds no profiling records")
    return columns.records(file)


@dataclass
class _Columns:
    """Every record's columns (warm-up ones kept, of their phase), and the counts."""

    ttft: list[float | None] = field(default_factory=list)
    e2el: list[float | None] = field(default_factory=list)
    out_len: list[int | None] = field(default_factory=list)
    in_len: list[int | None] = field(default_factory=list)
    cached: list[int | None] = field(default_factory=list)
    ok: list[bool] = field(default_factory=list)
    sessions: list[str | None] = field(default_factory=list)
    turns: list[int | None] = field(default_factory=list)
    phases: list[str | None] = field(default_factory=list)
    total: int = 0
    warmup: int = 0
    errored: int = 0
    categories: dict[str, int] = field(default_factory=dict)

    def add(self, file: SourceFile, record: Mapping[str, Any], line: int) -> None:
        meta = record["metadata"]
        self.total += 1
        phase = _phase(meta)
        self.phases.append(phase if phase in PHASES else None)
        metrics = record["metrics"] or {}
        if not isinstance(metrics, Mapping):
            raise IngestError.one(file.name, "key 'metrics': expected an object", row=line)
        cancelled = isinstance(meta, Mapping) and meta.get("was_cancelled") is True
        error = record.get("error")
        good = error is None and not cancelled
        if phase == WARMUP:  # kept as a warm-up sample: counted, never read off
            self.warmup += 1
        elif not good:
            self.errored += 1
            _count_category(self.categories, error)
        session, turn = _session(meta)
        self.sessions.append(session)
        self.turns.append(turn)
        get = _Reader(file.name, line, metrics)
        key = next((k for k in TTFT_KEYS if k in metrics), TTFT_KEYS[0])
        self.ttft.append(get.time(key) if good else None)
        self.e2el.append(get.time("request_latency") if good else None)
        self.out_len.append(get.tokens("output_sequence_length") if good else None)
        isl = get.tokens("input_sequence_length")
        isl = isl if isl is not None else get.tokens("error_isl")
        self.in_len.append(isl)
        self.cached.append(_cached(get, isl) if good else None)
        self.ok.append(good)

    def records(self, file: SourceFile) -> Records:
        multi = any(s is not None for s in self.sessions)
        stated = any(p is not None for p in self.phases)
        rows = make_samples(
            self.ttft,
            self.e2el,
            self.out_len,
            self.in_len,
            self.ok,
            self.sessions if multi else None,
            self.turns if multi else None,
            self.phases if stated else None,
        )
        with_cached = samples_with_cached(rows, self.cached)
        measured = self.total - self.warmup
        # As InferenceX counts them: profiled = profiling records without an error; the
        # errored ones are kept here all the same, as failed requests, and the warm-up ones as
        # samples of the warm-up phase, which no read-off reads.
        accounting = {
            "records_total": self.total,
            "records_profiled": measured - self.errored,
            "records_dropped_total": self.warmup + self.errored,
            "records_warmup_dropped": self.warmup,
            "records_error_dropped": self.errored,
            "error_categories": dict(sorted(self.categories.items())),
        }
        multi_turn = any(
            t is not None and t > 0
            for t, p in zip(self.turns, self.phases, strict=True)
            if p != WARMUP
        )
        samples = rows if with_cached is None else with_cached
        return Records(file, samples, measured - self.errored, self.errored, accounting, multi_turn)


def _cached(get: _Reader, input_len: int | None) -> int | None:
    """A successful request's cached (prefix-hit) input tokens from its usage, as AIPerf names
    them (`usage_prompt_cache_read_tokens`; `usage_prompt_cached_tokens` before), refused when
    above its input tokens; None where the server reported none."""
    for key in CACHED_KEYS:
        if get.metrics.get(key) is not None:
            value = get.tokens(key)
            check_request(get.file, value, input_len, get.line, f"metrics.{key}.value")
            return value
    return None


@dataclass
class _Reader:
    file: str
    line: int
    metrics: Mapping[str, Any]

    def _value(self, key: str) -> tuple[Any, Any]:
        entry = self.metrics.get(key)
        if entry is None:
            return None, None
        if not isinstance(entry, Mapping) or "value" not in entry:
            raise IngestError.one(
                self.file, f"key 'metrics.{key}': expected {{value, unit}}", row=self.line
            )
        return entry["value"], entry.get("unit")

    def time(self, key: str) -> float | None:
        raw, unit = self._value(key)
        try:
            value = number(raw, self.file, f"metrics.{key}.value")
        except IngestError as exc:
            raise IngestError.one(self.file, exc.errors[0].message, row=self.line) from None
        if value is None:
            return None
        unit = (unit or "ms").lower()
        if unit not in TIME_SCALE_MS:
            raise IngestError.one(
                self.file, f"key 'metrics.{key}.unit': {unit!r} is not a time unit", row=self.line
            )
        return value * TIME_SCALE_MS[unit]

    def tokens(self, key: str) -> int | None:
        raw, _ = self._value(key)
        try:
            return integer(raw, self.file, f"metrics.{key}.value")
        except IngestError as exc:
            raise IngestError.one(self.file, exc.errors[0].message, row=self.line) from None


def attach(records: list[Records], built: list[Built]) -> None:
    """Give each point the samples of its run; refuse what cannot be matched unambiguously."""
    taken: dict[int, str] = {}
    for rec in records:
        same_folder = [b for b in built if b.run.file.folder == rec.file.folder]
        target = same_folder if len(same_folder) == 1 else built if len(built) == 1 else []
        if len(target) != 1:
            problem = "no" if not built else f"{len(same_folder) or len(built)}"
            raise IngestError.one(
                rec.file.name,
                f"per-request records need their run's profile_export_aiperf.json (or .csv) in "
                f"the same folder of the upload; found {problem} candidates",
            )
        point = target[0].point
        if id(point) in taken:
            raise IngestError.one(
                rec.file.name,
                f"{taken[id(point)]} already gives the requests of {target[0].run.file.name}",
            )
        expected = point.values.get("num_requests")
        if expected is not None and expected != rec.ok:
            raise IngestError.one(
                rec.file.name,
                f"holds {rec.ok} successful requests, but {target[0].run.file.name} reports "
                f"request_count {expected}: not the same run",
            )
        taken[id(point)] = rec.file.name
        point.samples = rec.samples
        point.extra["per_request_failed"] = rec.failed
        point.extra["request_accounting"] = rec.accounting
        if rec.multi_turn:  # the kind of traffic, until the user names it more exactly
            target[0].meta.setdefault("scenario", "multi-turn")
