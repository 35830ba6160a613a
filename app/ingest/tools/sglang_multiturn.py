"""SGLang's multi-turn benchmark (`benchmark/hicache/bench_multiturn.py`, sgl-project/sglang) →
one point per request rate, from the JSON Lines its `--log-file` collects.

Each run appends one line (`log_to_jsonl_file`): `{"timestamp", "tag", "summary": {…},
"round": {"round_0": {…}, …}}`, the `round` object only with `--enable-round-barrier`.

* `summary`: `total_requests` (the successful requests: a failed one is skipped), the Poisson
  `request_rate` it sent at (the load level), `average_`/`median_`/`p90_`/`p99_`/`max_` of
  `ttft`, `itl` and `latency` in **seconds**, `average_prompt_len`/`average_output_len`,
  `input_token_throughput`, `output_token_throughput` (tokens over the run),
  `throughput` (requests per second) and `cache_hit_rate`. Its percentiles are the tool's own
  (the value at index ⌊q·n⌋ of the sorted values), kept as stated.
* `itl` is the gap between streamed tokens (pooled): it fills `itl_*`, never `tpot_*`, so a run
  without a TPOT statistic has no interactivity axis (the import says so).
* `round.round_k`: round k of every client (turn k of each session): `average_ttft` (seconds),
  `cache_hit_rate`, `request_count` and, in later versions, ITL and throughput figures. Kept per
  round in `extra["rounds"]` (times in ms), with the first turn's mean TTFT and the later
  turns' request-weighted mean TTFT.
* No per-request records are written: the sessions (clients) and turns (rounds) are the run's
  shape, not samples, so session attainment is unknown for these sweeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.ingest.common import integer, json_safe, number
from app.ingest.errors import IngestError
from app.ingest.json_lines import json_lines
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

TOOL = "sglang bench_multiturn.py"
SCENARIO = "chat-multiturn"
# summary key → (canonical column, scale)
SUMMARY: dict[str, tuple[str, float]] = {
    "request_rate": ("request_rate", 1.0),
    "average_ttft": ("ttft_mean_ms", 1000.0),
    "median_ttft": ("ttft_p50_ms", 1000.0),
    "p90_ttft": ("ttft_p90_ms", 1000.0),
    "p99_ttft": ("ttft_p99_ms", 1000.0),
    "average_itl": ("itl_mean_ms", 1000.0),
    "median_itl": ("itl_p50_ms", 1000.0),
    "p90_itl": ("itl_p90_ms", 1000.0),
    "p99_itl": ("itl_p99_ms", 1000.0),
    "average_latency": ("e2el_mean_ms", 1000.0),
    "median_latency": ("e2el_p50_ms", 1000.0),
    "p90_latency": ("e2el_p90_ms", 1000.0),
    "p99_latency": ("e2el_p99_ms", 1000.0),
    "average_prompt_len": ("input_len", 1.0),
    "average_output_len": ("output_len", 1.0),
    "output_token_throughput": ("output_tok_s", 1.0),
    "throughput": ("requests_per_s", 1.0),
}
REQUIRED = ("request_rate", "total_requests", "average_ttft", "average_latency")


class SglangMultiTurnImporter:
    name = TOOL
    priority = 18

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(SNIFF_BYTES)
        return (
            head.startswith(b"{")
            and b'"summary"' in head
            and b'"average_ttft"' in head
            and b'"cache_hit_rate"' in head
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        return [sweep for file in files for sweep in _sweeps(file)]


def _sweeps(file: SourceFile) -> list[ParsedSweep]:
    """One sweep per tag (`--tag` names a configuration), its runs' points by request rate."""
    by_tag: dict[str, list[tuple[int, ParsedPoint]]] = {}
    for row, line in json_lines(file.text, file.name):
        point = _point(file.name, row, line)
        tag = str(line.get("tag") or "")[:100]
        same = [
            r
            for r, p in by_tag.get(tag, [])
            if p.values["request_rate"] == point.values["request_rate"]
        ]
        if same:
            raise IngestError.one(
                file.name,
                f"request rate {point.values['request_rate']:g} of tag {tag!r} is given twice "
                f"(rows {same[0]} and {row})",
                row=row,
            )
        by_tag.setdefault(tag, []).append((row, point))
    if not by_tag:
        raise IngestError.one(file.name, "holds no runs")
    stem = file.basename.rsplit(".", 1)[0]
    return [
        ParsedSweep(
            {
                "sweep": f"{stem} · {tag}" if tag else stem,
                "source_tool": TOOL,
                "scenario": SCENARIO,
            },
            [p for _, p in sorted(rows, key=lambda rp: rp[1].values["request_rate"])],
            file.name,
            "SGLang bench_multiturn JSONL",
            first_row=rows[0][0],
            warnings=[
                "no per-request records in the file: session attainment is unknown; TTFT by "
                "round (turn) is kept as the file states it"
            ],
        )
        for tag, rows in by_tag.items()
    ]


def _num(file: str, row: int, value: Any, key: str) -> float | None:
    try:
        return number(value, file, key)
    except IngestError as exc:
        raise IngestError.one(file, exc.errors[0].message, row=row) from None


def _point(file: str, row: int, line: Mapping[str, Any]) -> ParsedPoint:
    summary = line.get("summary")
    if not isinstance(summary, Mapping):
        raise IngestError.one(file, "key 'summary': expected an object", row=row)
    for key in REQUIRED:
        if summary.get(key) is None:
            raise IngestError.one(file, f"required key 'summary.{key}' is missing", row=row)
    values: dict[str, Any] = {}
    for key, (column, scale) in SUMMARY.items():
        value = _num(file, row, summary.get(key), f"summary.{key}")
        if value is not None:
            values[column] = value * scale
    try:
        values["num_requests"] = integer(summary["total_requests"], file, "summary.total_requests")
    except IngestError as exc:
        raise IngestError.one(file, exc.errors[0].message, row=row) from None
    given = _num(file, row, summary.get("input_token_throughput"), "summary.input_token_throughput")
    if given is not None and "output_tok_s" in values:
        values["total_tok_s"] = given + values["output_tok_s"]  # input + output, as vLLM's
    extra: dict[str, Any] = {
        k: json_safe(v) for k, v in summary.items() if k not in SUMMARY and k != "total_requests"
    }
    extra["timestamp"] = json_safe(line.get("timestamp"))
    extra |= _rounds(file, row, line.get("round"))
    return ParsedPoint(values, row=row, extra=extra)


def _rounds(file: str, row: int, rounds: Any) -> dict[str, Any]:
    """Each round's figures (TTFT in ms) and the first and later turns' mean TTFT."""
    if rounds is None:
        return {}
    if not isinstance(rounds, Mapping):
        raise IngestError.one(file, "key 'round': expected an object", row=row)
    kept = []
    for name, figures in rounds.items():
        index = str(name).removeprefix("round_")
        if not index.isdigit() or not isinstance(figures, Mapping):
            raise IngestError.one(file, f"key 'round.{name}': expected round_<n> figures", row=row)
        ttft = _num(file, row, figures.get("average_ttft"), f"round.{name}.average_ttft")
        count = _num(file, row, figures.get("request_count"), f"round.{name}.request_count")
        rest = {k: json_safe(v) for k, v in figures.items() if k != "average_ttft"}
        # A round with no request states 0 for its mean: unknown, not 0.
        ttft_ms = None if ttft is None or not count else ttft * 1000.0
        rest["request_count"] = 0 if count is None else int(count)
        kept.append({"round": int(index), "ttft_mean_ms": ttft_ms, **rest})
    kept.sort(key=lambda r: r["round"])
    later = [r for r in kept if r["round"] > 0 and r["ttft_mean_ms"] is not None]
    weight = sum(r["request_count"] for r in later)
    first = next((r["ttft_mean_ms"] for r in kept if r["round"] == 0), None)
    return {
        "rounds": kept,
        "ttft_first_turn_mean_ms": first,
        "ttft_later_turns_mean_ms": (
            sum(r["ttft_mean_ms"] * r["request_count"] for r in later) / weight if weight else None
        ),
    }


IMPORTER = SglangMultiTurnImporter()
