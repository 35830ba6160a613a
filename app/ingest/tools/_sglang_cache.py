"""SGLang bench_serving's cached (prefix-hit) input tokens (issue 50).

With `--cache-report` (sgl-project/sglang `python/sglang/benchmark/serving.py` @ 00f9ec47) each
request's `cached_tokens` is the server's count for it as the client read it from the response
(`meta_info.cached_tokens`, or the OpenAI routes' `sglext.cached_tokens_details` device + host +
storage), and the line gains `cache_report`: {total_prompt_tokens, total_cached_tokens,
cache_hit_rate_pct, device_cached_tokens, host_cached_tokens, storage_cached_tokens,
storage_backend} over the successful requests. With `--output-details` the per-request list
`cached_tokens` sits beside `input_lens` (0 for a failed request: not a count, so left out).

Both are reported by the client: the per-request counts become the samples'
`cached_input_tokens` (one above its request's input length is refused, naming the row and the
entry), the report's Σ cached ÷ Σ prompt tokens the point's `client_cache_hit_rate`.
"""

from __future__ import annotations

import polars as pl

from app.ingest.cached_tokens import check_request, client_rate, samples_with_cached
from app.ingest.common import integer, number
from app.ingest.parsed import ParsedPoint
from app.ingest.tools._vllm_common import Record, at_row, fail


def cache_report(rec: Record) -> dict[str, float]:
    """The point's client_cache_hit_rate from `cache_report`, when the line has one."""
    report = rec.data.get("cache_report")
    if report is None:
        return {}
    if not isinstance(report, dict):
        raise fail(rec, "key 'cache_report': expected an object")
    with at_row(rec):
        cached = number(report.get("total_cached_tokens"), rec.file, "cache_report")
        prompt = number(report.get("total_prompt_tokens"), rec.file, "cache_report")
    where = "cache_report.total_cached_tokens"
    return client_rate(rec.file, cached, prompt, rec.row, where)


def attach_cached(rec: Record, point: ParsedPoint) -> None:
    """Give the point's samples their cached input tokens from the `cached_tokens` list."""
    values = rec.data.get("cached_tokens")
    samples = point.samples
    if values is None or not isinstance(samples, list):
        return
    if not isinstance(values, list) or len(values) != len(samples):
        given = len(values) if isinstance(values, list) else "no"
        raise fail(rec, f"key 'cached_tokens': {given} entries, but 'ttfts' has {len(samples)}")
    cached: list[int | None] = []
    for i, (value, sample) in enumerate(zip(values, samples, strict=True)):
        ok, input_len = sample[4], sample[3]
        with at_row(rec):
            count = integer(value, rec.file, f"cached_tokens[{i}]") if ok else None
        check_request(rec.file, count, input_len, rec.row, f"cached_tokens[{i}]")
        cached.append(count)
    frame: pl.DataFrame | None = samples_with_cached(samples, cached)
    if frame is not None:
        point.samples = frame
