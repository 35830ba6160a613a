"""Property: whatever bounded values are written through each write route, every page and API
answer that shows them still serves (no 5xx), on both databases.

Each example writes random values within app.domain.bounds (extremes included) through an
upload, a PATCH, a tag, a pricing profile, a claim, a GPU and a production upload; a write may
be refused (4xx: values that are in bounds may still be impossible together), never a 5xx; then
every read of tests/hostile/writes.py is asked of what was stored. Derandomised: a failure
reproduces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import count
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session

from app.domain.bounds import DB_INT_MAX, MAX_NUMBER, MAX_TIME_S, MIN_POSITIVE
from tests.factories import post_files
from tests.hostile.writes import OWNED, STREAM, Targets, scrapes, seed_targets, server_errors

EXAMPLES = 10
# Sizes at both ends of the bounds, and ordinary ones between.
POSITIVE = st.one_of(
    st.sampled_from([MIN_POSITIVE, MAX_NUMBER, 1.0]),
    st.floats(min_value=MIN_POSITIVE, max_value=MAX_NUMBER),
)
WHOLE = st.one_of(st.sampled_from([1, DB_INT_MAX]), st.integers(min_value=1, max_value=DB_INT_MAX))
TEXT = st.text(max_size=30)  # any Unicode the JSON encoder writes (no lone surrogates)
_NAMES = count()


@st.composite
def writes(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "point": [draw(POSITIVE) for _ in range(4)],
        "concurrency": draw(WHOLE),
        "gpus": draw(WHOLE),
        "lengths": (draw(WHOLE), draw(WHOLE)),
        "notes": draw(TEXT),
        "tag": draw(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,29}", fullmatch=True)),
        "price": [draw(POSITIVE) for _ in range(5)],
        "claim": (draw(POSITIVE), draw(POSITIVE), draw(WHOLE)),
        "gpu": draw(st.floats(min_value=MIN_POSITIVE, max_value=1e7)),
        "start_s": draw(st.floats(min_value=0, max_value=MAX_TIME_S - 1_000)),
    }


def _written(client: TestClient, seeded: Targets, w: dict[str, Any]) -> tuple[Targets, list[str]]:
    """Write everything; the targets now include what was stored, and any 5xx answers."""
    n = next(_NAMES)
    low, tpot, high, tok_s = w["point"]
    ttft, e2el = min(low, high), max(low, high)  # apart, they are refused as impossible
    isl, osl = w["lengths"]
    csv = (
        "sweep,hardware,num_gpus,concurrency,ttft_p50_ms,tpot_p50_ms,e2el_p50_ms,output_tok_s,"
        f"isl,osl\np{n},H100,{w['gpus']},{w['concurrency']},{ttft!r},{tpot!r},{e2el!r},{tok_s!r},"
        f"{isl},{osl}\n"
    ).encode()
    answers: dict[str, Any] = {}
    targets = seeded
    answers["upload"] = post_files(client, (f"p{n}.csv", csv))
    if answers["upload"].status_code == 201:
        targets = replace(targets, sweep=answers["upload"].json()["sweeps"][0]["id"])
    answers["patch"] = client.patch(
        f"/api/sweeps/{targets.sweep}",
        json={"notes": w["notes"], "isl": isl, "osl": osl, "num_gpus": w["gpus"]},
    )
    answers["tag"] = client.post(f"/api/sweeps/{targets.sweep}/tags", json={"tag": w["tag"]})
    capex, power, kwh, colo, hourly = w["price"]
    price = {**OWNED, "name": f"p{n}", "capex_usd": capex, "power_kw": power}
    price |= {"usd_per_kwh": kwh, "colo_usd_per_kw_month": colo, "usd_per_gpu_hour": hourly}
    answers["price"] = client.post("/api/pricing", json=price)
    if answers["price"].status_code == 201:
        targets = replace(targets, profile=answers["price"].json()["id"])
    value, interactivity, batch = w["claim"]
    claim = {"vendor": f"v{n}", "hardware": "H100", "value_tok_s": value, "measures": "system"}
    claim |= {"token_basis": "output", "interactivity_tok_s_user": interactivity}
    claim |= {"batch": batch, "isl": isl, "osl": osl}
    answers["claim"] = client.post("/api/claims", json=claim)
    if answers["claim"].status_code == 201:
        targets = replace(targets, claim=answers["claim"].json()["id"])
    gpu = {"key": f"g{n}", "name": f"GPU {n}", "mem_bw_tb_s": w["gpu"], "memory_gb": w["gpu"]}
    answers["gpu"] = client.post("/api/hardware", json={**gpu, "bf16_tflops": w["gpu"]})
    start = w["start_s"]
    files = [f"# scraped_at {start + 300 * i!r}\n{STREAM.exposition(300 * i)}" for i in range(3)]
    answers["production"] = client.post(
        "/api/production",
        files=scrapes(*(f.encode() for f in files)),
        data={"deployment": f"d{n}", "num_gpus": str(min(w["gpus"], 1_000_000))},
    )
    if answers["production"].status_code == 201:
        targets = replace(targets, deployment=answers["production"].json()["deployment_id"])
    failed = [f"{k} {a.status_code}: {a.text[:200]}" for k, a in answers.items()]
    return targets, [
        f for f, a in zip(failed, answers.values(), strict=True) if a.status_code >= 500
    ]


def test_random_bounded_writes_through_every_route_leave_every_read_serving(
    make_client: Callable[..., TestClient], session: Session, catalog: None, database_url: str
) -> None:
    client = make_client()
    seeded = seed_targets(client)
    examples = EXAMPLES if database_url.startswith("sqlite") else EXAMPLES // 2

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(writes())
    def check(w: dict[str, Any]) -> None:
        targets, write_errors = _written(client, seeded, w)
        assert write_errors == []
        assert server_errors(client, targets) == {}

    check()
