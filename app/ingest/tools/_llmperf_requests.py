"""LLMPerf's `*_individual_responses.json`: request samples, per-request TPOT, summary pairing.

The file (`token_benchmark_ray.py` `run_token_benchmark`, ray-project/llmperf) is the JSON list of
the request metrics the summary was computed from, in seconds:
`{error_code, error_msg, inter_token_latency_s, ttft_s, end_to_end_latency_s,
request_output_throughput_token_per_s, number_total_tokens, number_output_tokens,
number_input_tokens}`; `error_code` is null for a successful request. Its length is the
summary's `results_num_requests_started` (both are `completed_requests`), so that count and the
mean TTFT identify the summary a file belongs to when the file names do not. LLMPerf has no
warm-up or measurement window: the summary describes exactly these requests, so every one becomes
a sample (errored ones as failures).

TPOT: LLMPerf's `inter_token_latency_s` is NOT a TPOT. The client
(`ray_clients/openai_chat_completions_client.py`) appends the TTFT itself as the first entry of
`time_to_next_token` and sums the list; `token_benchmark_ray.py` divides that sum by the output
token count. So it is ≈ E2EL / n and carries TTFT / n (Together fixture: 15.8 ms vs a true TPOT of
11.9 ms). The canonical TPOT is computed per request as (E2EL − TTFT) / (output tokens − 1) over
the successful requests with more than one output token, and summarised with the linear
interpolation LLMPerf itself uses (`pd.Series.quantile`, numpy's default "linear" method).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.metrics import percentile_linear
from app.ingest.common import first_record, integer, number
from app.ingest.errors import IngestError
from app.ingest.parsed import make_samples
from app.ingest.source import SourceFile

INDIVIDUAL_KEYS = ("ttft_s", "end_to_end_latency_s", "number_output_tokens")
_ROLE = re.compile(r"(^|[_-])(summary|individual_responses|individual)(?=$|[_-])")


def is_individual(file: SourceFile) -> bool:
    """A JSON list whose first element has LLMPerf's per-request keys. Never raises."""
    first = first_record(file, b'"ttft_s"')
    return (
        first is not None
        and isinstance(first, dict)
        and all(k in first for k in INDIVIDUAL_KEYS)
        and "error_code" in first
    )


@dataclass
class Individual:
    file: SourceFile
    samples: list[tuple[Any, ...]]
    tpot_ms: list[float]  # per successful request with > 1 output token
    started: int
    ok: int
    mean_ttft_s: float | None


def read_individual(file: SourceFile) -> Individual:
    doc = file.json()
    if not isinstance(doc, list):
        raise IngestError.one(file.name, "expected a JSON list of request records")
    ttft: list[float | None] = []
    e2el: list[float | None] = []
    out: list[int | None] = []
    inp: list[int | None] = []
    ok: list[bool] = []
    tpot: list[float] = []
    raw_ttft: list[float] = []
    for i, record in enumerate(doc):
        where = f"[{i}]"
        if not isinstance(record, Mapping):
            raise IngestError.one(file.name, f"record {where}: expected an object")
        good = record.get("error_code") is None
        inp.append(
            integer(record.get("number_input_tokens"), file.name, f"{where}.number_input_tokens")
        )
        ok.append(good)
        if not good:
            ttft.append(None)
            e2el.append(None)
            out.append(None)
            continue
        for key in INDIVIDUAL_KEYS:
            if key not in record:
                raise IngestError.one(
                    file.name, f"required key {key!r} is missing in record {where}"
                )
        t = number(record["ttft_s"], file.name, f"{where}.ttft_s")
        e = number(record["end_to_end_latency_s"], file.name, f"{where}.end_to_end_latency_s")
        n = integer(record["number_output_tokens"], file.name, f"{where}.number_output_tokens")
        ttft.append(None if t is None else t * 1000.0)
        e2el.append(None if e is None else e * 1000.0)
        out.append(n)
        if t is not None:
            raw_ttft.append(t)
        if t is not None and e is not None and n is not None and n > 1:
            tpot.append((e - t) / (n - 1) * 1000.0)
    mean_ttft = sum(raw_ttft) / len(raw_ttft) if raw_ttft else None
    samples = make_samples(ttft, e2el, out, inp, ok)
    return Individual(file, samples, tpot, len(ok), sum(ok), mean_ttft)


def tpot_values(individual: Individual) -> dict[str, float]:
    values = individual.tpot_ms
    if not values:
        return {}
    out = {"tpot_mean_ms": sum(values) / len(values)}
    for name, q in (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0)):
        out[f"tpot_{name}_ms"] = percentile_linear(values, q)
    return out


def pair_key(file: SourceFile) -> tuple[str, str]:
    """(folder, stem) with the role words removed: `X_summary` ↔ `X_individual_responses`,
    and the leaderboard's `summary/X.json` ↔ `individual/X.json` or `summary_X` ↔ `individual_X`.
    """
    folder = file.folder
    if _ROLE.fullmatch(folder.rsplit("/", 1)[-1]) or folder.rsplit("/", 1)[-1] in (
        "summary",
        "individual",
        "individual_responses",
    ):
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    stem = file.basename.rsplit(".", 1)[0]
    return folder, _ROLE.sub("", stem).strip("_-")


def consistent(summary: Mapping[str, Any], individual: Individual) -> bool:
    """The individual file has the summary's request count and mean TTFT."""
    started = summary.get("results_num_requests_started")
    mean = summary.get("results_ttft_s_mean")
    if started is not None and started != individual.started:
        return False
    if isinstance(mean, int | float) and individual.mean_ttft_s is not None:
        return math.isclose(mean, individual.mean_ttft_s, rel_tol=1e-9, abs_tol=1e-12)
    return True
