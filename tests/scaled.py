"""Candidates for `check`: a real vLLM sweep (four request rates) with throughput or TPOT scaled."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES

THROUGHPUTS = ("output_throughput", "total_token_throughput", "request_throughput")
# At p99 TTFT ≤ 400 ms and p50 TPOT ≤ 20 ms the 4 req/s point is the operating point: 365.8
# output tok/s on one GPU (8 req/s has p50 TPOT 23.9 ms, p99 TTFT 409 ms).
SLO = (
    "--ttft-ms",
    "400",
    "--ttft-percentile",
    "p99",
    "--tpot-ms",
    "20",
    "--tpot-percentile",
    "p50",
)
GOODPUT = 365.80041687999716


def vllm_files() -> list[Path]:
    return sorted(FIXTURES.glob("vllm/stellalee_openai-[1248].0qps-*.json"))


def scaled(label: str, *, throughput: float = 1.0, tpot: float = 1.0) -> list[tuple[str, bytes]]:
    """The four files with every throughput × `throughput` and every TPOT × `tpot`; `label`
    (vLLM's own field, kept with the points) makes each copy's content distinct."""
    files = []
    for path in vllm_files():
        data = json.loads(path.read_text())
        for key in THROUGHPUTS:
            data[key] *= throughput
        for key in [k for k in data if k.endswith("_tpot_ms")]:
            data[key] *= tpot
        data["label"] = label
        files.append((f"{label}-{path.name}", json.dumps(data).encode()))
    return files


def write_scaled(out: Path, label: str, **scale: float) -> list[Path]:
    paths = []
    for name, body in scaled(label, **scale):
        path = out / name
        path.write_bytes(body)
        paths.append(path)
    return paths
