"""vLLM's multi-turn serving benchmark (`benchmarks/multi_turn/benchmark_serving_multi_turn.py`,
vllm-project/vllm) → one point of request samples with their sessions and turns.

What `--stats-json-output FILE` writes: the JSON list of every measured request's
`RequestStats`, in the order the clients returned them:

    [{"ttft_ms", "tpot_ms", "latency_ms", "start_time_ms", "input_num_turns",
      "input_num_tokens", "output_num_tokens", "output_num_chunks",
      "output_num_first_chunk_tokens", "approx_cached_percent", "conversation_id",
      "client_id"}, ...]

* The session is `conversation_id`; the turn is the request's place in it: a request is sent
  with the conversation's messages so far (`input_num_turns` = 1, 3, 5, … user and assistant
  messages), so its turn is (input_num_turns − 1) ÷ 2.
* Only successful requests are written (a failed turn is retried, then its conversation is
  dropped): the file states no failure, so `num_failed` is left unknown, and a conversation
  that lost a turn ends early without being marked.
* Warm-up: `--warmup-step` sends every conversation's first turn before the measurement and
  writes none of it, so the measured conversations start at turn 1 and their sessions read as
  cut (their first turn is not in the file); the importer says so.
* The load level: each client process sends one request at a time, so the concurrency is the
  number of clients, counted as the distinct `client_id`s (the file names no other setting).
* TPOT is the tool's own per request (decode time ÷ the tokens after the first chunk), kept as
  the file states it; the statistics are the linear-interpolated percentiles the tool's own
  summary (`pandas.describe`) prints. Duration is the first start to the last end, as the tool
  computes `runtime_sec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.ingest.common import first_record, integer, number
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep, make_samples
from app.ingest.source import SourceFile
from app.ingest.tools._request_stats import latency_columns, throughput_columns

TOOL = "vllm benchmark_serving_multi_turn.py"
SCENARIO = "chat-multiturn"
MARKERS = ("input_num_turns", "conversation_id", "client_id", "ttft_ms", "latency_ms")
# file key → (column of the sample, whole number?)
NUMBERS: tuple[tuple[str, bool], ...] = (
    ("ttft_ms", False),
    ("tpot_ms", False),
    ("latency_ms", False),
    ("start_time_ms", False),
    ("input_num_turns", True),
    ("input_num_tokens", True),
    ("output_num_tokens", True),
)


class VllmMultiTurnImporter:
    name = TOOL
    priority = 18

    def sniff(self, file: SourceFile) -> bool:
        first = first_record(file, b'"input_num_turns"')
        return first is not None and all(k in first for k in MARKERS)

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        return [_sweep(file) for file in files]


@dataclass
class _Columns:
    ttft: list[float] = field(default_factory=list)
    tpot: list[float] = field(default_factory=list)
    e2el: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    sessions: list[str | None] = field(default_factory=list)
    turns: list[int | None] = field(default_factory=list)
    clients: set[str] = field(default_factory=set)


def _record(file: str, i: int, record: Any) -> dict[str, Any]:
    """One request's numbers, checked: each error names the file, the record (its row, from 1)
    and the key."""
    if not isinstance(record, Mapping):
        raise IngestError.one(file, "expected a JSON object", row=i + 1)
    out: dict[str, Any] = {}
    for key, whole in NUMBERS:
        if record.get(key) is None:
            raise IngestError.one(file, f"required key {key!r} is missing", row=i + 1)
        read = integer if whole else number
        try:
            value = read(record[key], file, key)
        except IngestError as exc:
            raise IngestError.one(file, exc.errors[0].message, row=i + 1) from None
        if value is None or value < 0:
            raise IngestError.one(file, f"key {key!r}: expected a number ≥ 0", row=i + 1)
        out[key] = value
    if out["input_num_turns"] < 1:
        raise IngestError.one(file, "key 'input_num_turns': expected at least 1", row=i + 1)
    conversation = record.get("conversation_id")
    if not isinstance(conversation, str | int) or conversation == "":
        raise IngestError.one(file, "key 'conversation_id': expected an id", row=i + 1)
    out["conversation_id"] = str(conversation)[:200]
    out["client_id"] = str(record.get("client_id"))
    return out


def _columns(file: SourceFile) -> _Columns:
    doc = file.json()
    if not isinstance(doc, list) or not doc:
        raise IngestError.one(file.name, "expected a JSON list of request records")
    cols = _Columns()
    for i, raw in enumerate(doc):
        r = _record(file.name, i, raw)
        cols.ttft.append(r["ttft_ms"])
        cols.tpot.append(r["tpot_ms"])
        cols.e2el.append(r["latency_ms"])
        cols.starts.append(r["start_time_ms"])
        cols.ends.append(r["start_time_ms"] + r["latency_ms"])
        cols.inputs.append(r["input_num_tokens"])
        cols.outputs.append(r["output_num_tokens"])
        cols.sessions.append(r["conversation_id"])
        cols.turns.append((r["input_num_turns"] - 1) // 2)
        cols.clients.add(r["client_id"])
    return cols


def _sweep(file: SourceFile) -> ParsedSweep:
    cols = _columns(file)
    n = len(cols.ttft)
    # Requests with one output token have no TPOT of their own (the tool writes 0).
    tpot = [t for t, out in zip(cols.tpot, cols.outputs, strict=True) if out > 1 and t > 0]
    values: dict[str, Any] = {
        "concurrency": float(len(cols.clients)),
        **latency_columns({"ttft": cols.ttft, "tpot": tpot, "e2el": cols.e2el}),
        **throughput_columns(cols.starts, cols.ends, cols.inputs, cols.outputs),
    }
    samples = make_samples(
        list(cols.ttft),
        list(cols.e2el),
        list(cols.outputs),
        list(cols.inputs),
        [True] * n,
        cols.sessions,
        cols.turns,
    )
    conversations = len(set(cols.sessions))
    point = ParsedPoint(
        values,
        extra={"conversations": conversations, "clients": sorted(cols.clients)},
        samples=samples,
    )
    stem = file.basename.rsplit(".", 1)[0]
    meta = {"sweep": stem, "source_tool": TOOL, "scenario": SCENARIO}
    warnings = [
        f"concurrency {len(cols.clients)}: the number of clients (distinct client_id), each "
        "sending one request at a time; the file names no other load setting",
        "the file lists successful requests only: failures are not counted, and a "
        "conversation that lost a turn ends early without being marked",
    ]
    if 0 not in cols.turns:
        warnings.append(
            "no conversation's first turn is in the file (sent in the --warmup-step warm-up): "
            "every session reads as cut, so session attainment is unknown"
        )
    return ParsedSweep(
        meta, [point], file.name, "vLLM multi-turn benchmark per-request stats", warnings=warnings
    )


IMPORTER = VllmMultiTurnImporter()
