"""A deployment's windows carry the server's measured cached share of prompt tokens from its
prefix-cache counters (issue 50), stored and read back through /api/production/{id}."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.schemas.answers.production import ProductionReport
from tests.helpers import prefix_cache_lines
from tests.prom_stream import make_stream

STREAM = make_stream(n=1200, duration_s=600)
ORIGIN = 1_780_000_000
DEPLOYMENT = {"deployment": "agents-prod", "model": "m", "hardware": "H100", "num_gpus": 4}


def files(with_cache: bool) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [
        (
            "files",
            (
                f"metrics-{t}.prom",
                (
                    STREAM.exposition(t, scraped_at=ORIGIN + t)
                    + (prefix_cache_lines(t) if with_cache else "")
                ).encode(),
                "text/plain",
            ),
        )
        for t in (0, 300, 600)
    ]


def report(client: TestClient, with_cache: bool, name: str) -> dict[str, Any]:
    data = {k: str(v) for k, v in (DEPLOYMENT | {"deployment": name}).items()}
    stored = client.post("/api/production", files=files(with_cache), data=data)
    assert stored.status_code == 201, stored.text
    body = client.get(f"/api/production/{stored.json()['deployment_id']}").json()
    ProductionReport.model_validate(body)
    return body


def test_each_stored_window_says_its_measured_cached_share(client: TestClient) -> None:
    windows = report(client, True, "cached")["windows"]
    got = [
        (w["cached_input_share"], w["cached_input_source"], w["cached_tokens"], w["queried_tokens"])
        for w in windows
    ]
    assert got == [(0.62, "measured", 62_000.0, 100_000.0), (0.6, "measured", 48_000.0, 80_000.0)]


def test_windows_without_the_counters_say_unknown_and_why(client: TestClient) -> None:
    first = report(client, False, "plain")["windows"][0]
    assert (first["cached_input_share"], first["cached_input_source"]) == (None, "unknown")
    assert first["cached_input_reason"] == "the engine exported no prefix-cache counters"
