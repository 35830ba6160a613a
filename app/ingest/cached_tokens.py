"""Cached (prefix-hit) input tokens as files report them (issue 50): per request, beside the
request samples, and per point as a share with its source.

A cached token is an input token the server served from its prefix cache: input = uncached +
cached, so a request with more cached tokens than input tokens is impossible and its file is
refused, naming the file, row and field. Per request the counts are the client's (each
response's usage, summed by no one): the samples' optional `cached_input_tokens` column. Per
point a file may store Σ cached ÷ Σ prompt tokens of its requests (reported by the client), a
server's prefix-cache hit rate (measured) or a workload's theoretical rate; each is kept under
its own covariate key, so its source is stored with it (app.domain.covariates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from app.domain.covariates import CLIENT_CACHE_HIT_RATE
from app.ingest.errors import IngestError
from app.ingest.parsed import CACHED_INPUT, OPTIONAL_SAMPLE_SCHEMA, SAMPLE_FRAME_SCHEMA


def check_request(
    file: str, cached: int | None, input_len: int | None, row: int | None, column: str
) -> None:
    """Refuse a request whose cached tokens are negative or above its input tokens."""
    if cached is None:
        return
    if cached < 0:
        raise IngestError.one(file, f"{cached} cached input tokens: must be ≥ 0", row, column)
    if input_len is not None and cached > input_len:
        raise IngestError.one(
            file,
            f"{cached} cached input tokens is above the request's {input_len} input tokens "
            "(input = uncached + cached)",
            row,
            column,
        )


def samples_with_cached(
    samples: Sequence[tuple[Any, ...]], cached: Sequence[int | None]
) -> pl.DataFrame | None:
    """The request samples as a frame with their cached input tokens; None (keep the rows as
    they are) when no request reports any, so a file without them keeps its hash."""
    if all(c is None for c in cached):
        return None
    if len(cached) != len(samples):
        raise ValueError("cached input tokens and samples differ in length")
    names = list(SAMPLE_FRAME_SCHEMA)
    rows = [(*r, *(None,) * (len(names) - len(r))) for r in samples]
    frame = pl.DataFrame(rows, schema=SAMPLE_FRAME_SCHEMA, orient="row")
    return frame.with_columns(
        pl.Series(CACHED_INPUT, list(cached), OPTIONAL_SAMPLE_SCHEMA[CACHED_INPUT])
    )


def client_rate(
    file: str, cached: float | None, prompt: float | None, row: int | None, where: str
) -> dict[str, float]:
    """{client_cache_hit_rate: Σ cached ÷ Σ prompt tokens} of a point whose client summed
    both; refused when cached exceeds prompt tokens, empty without prompt tokens."""
    if cached is None or prompt is None or not prompt > 0:
        return {}
    if cached < 0 or cached > prompt:
        raise IngestError.one(
            file,
            f"{cached:g} cached tokens against {prompt:g} prompt tokens: cached input must lie "
            "between 0 and the input tokens (input = uncached + cached)",
            row,
            where,
        )
    return {CLIENT_CACHE_HIT_RATE: cached / prompt}
