"""Hostile writes beyond file uploads: scrapes, pricing, claims, catalog, tags, PATCH, the
break-even calculator and a live pull's own request, each with the answer it must give.

Shared by the hostile route tests and the property-based read-back test: `seed_targets` stores
one of everything a write can name, `snapshot` is every stored row (so "nothing stored" covers
updates too), and `READS` is every page and API answer that shows what was written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import Base
from tests.conftest import FIXTURES
from tests.factories import MINIMAL, post_files
from tests.prom_stream import make_stream

STREAM = make_stream(n=300, duration_s=600)
ORIGIN = 1_780_000_000
H100 = {"key": "H100X", "name": "Hostile H100", "mem_bw_tb_s": 3.35, "memory_gb": 80}
CLAIM = {
    "vendor": "v",
    "hardware": "H100",
    "value_tok_s": 100,
    "measures": "per_gpu",
    "token_basis": "output",
}
OWNED = {
    "name": "owned",
    "kind": "ownership",
    "capex_usd": 30_000,
    "life_years": 4,
    "cost_of_capital": 0.1,
    "power_kw": 1.0,
    "pue": 1.3,
    "usd_per_kwh": 0.1,
}
VLLM = FIXTURES / "vllm/stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"


def scrape(t: float, head: str = "", *, edit: Callable[[str], str] = lambda text: text) -> bytes:
    """The stream's /metrics at stream time t, its first line `head` (a `# scraped_at`)."""
    return (head + edit(STREAM.exposition(t))).encode()


def scrapes(*files: bytes) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (f"m{i}.prom", data, "text/plain")) for i, data in enumerate(files)]


def timed(*stamps: str, edit: Callable[[str], str] = lambda text: text) -> dict[str, Any]:
    """A production upload of one scrape per `# scraped_at` value, 300 s of stream apart."""
    files = [scrape(300 * i, f"# scraped_at {s}\n", edit=edit) for i, s in enumerate(stamps)]
    return {"files": scrapes(*files), "data": {"deployment": "poison", "num_gpus": "4"}}


def good_scrapes() -> dict[str, Any]:
    return timed(*(str(ORIGIN + 300 * i) for i in range(3)))


@dataclass
class Targets:
    """Ids of one stored item of each kind, for the writes that name one and the reads."""

    sweep: int
    profile: int
    claim: int
    deployment: int


def seed_targets(client: TestClient) -> Targets:
    assert client.post("/api/hardware", json=H100).status_code == 201
    sweep = post_files(client, ("mini.csv", MINIMAL))
    assert sweep.status_code == 201, sweep.text
    profile = client.post("/api/pricing", json=OWNED)
    assert profile.status_code == 201, profile.text
    claim = client.post("/api/claims", json=CLAIM)
    assert claim.status_code == 201, claim.text
    deployment = client.post("/api/production", **good_scrapes())
    assert deployment.status_code == 201, deployment.text
    return Targets(
        sweep.json()["sweeps"][0]["id"],
        profile.json()["id"],
        claim.json()["id"],
        deployment.json()["deployment_id"],
    )


def snapshot(session: Session) -> dict[str, list[str]]:
    """Every stored row of every table."""
    session.expire_all()
    return {
        table.name: sorted(repr(tuple(row)) for row in session.execute(select(table)).all())
        for table in Base.metadata.sorted_tables
    }


def reads(t: Targets) -> list[str]:
    """Every page and API answer that shows a stored sweep, price, claim or deployment."""
    s = t.sweep
    return [
        "/",
        f"/?sweep={s}",
        "/sweeps",
        f"/sweeps/{s}",
        f"/compare?sweep={s}",
        f"/history?sweep={s}",
        f"/plan?sweep={s}&requests_per_s=5",
        "/pricing",
        f"/pricing?be_profile={t.profile}&be_output=1000",
        "/claims",
        f"/claims/{t.claim}",
        "/catalog",
        "/production",
        f"/production/{t.deployment}",
        "/api/sweeps",
        f"/api/sweeps/{s}",
        f"/api/readoff?sweep={s}&points=true",
        f"/api/frontier?sweep={s}",
        f"/api/plan?sweep={s}&requests_per_s=5",
        f"/api/export/sweeps.csv?sweep={s}",
        "/api/pricing",
        f"/api/pricing/{t.profile}",
        f"/api/pricing/{t.profile}/break-even?output_tok_s_per_gpu=1000",
        "/api/claims",
        f"/api/claims/{t.claim}",
        f"/api/claims/{t.claim}/audit",
        "/api/hardware",
        "/api/models",
        "/api/production",
        f"/api/production/{t.deployment}",
    ]


def server_errors(client: TestClient, t: Targets) -> dict[str, int]:
    """The reads that answer 5xx (none may)."""
    answers = {path: client.get(path).status_code for path in reads(t)}
    return {path: status for path, status in answers.items() if status >= 500}


@dataclass(frozen=True)
class Write:
    """One hostile write: `request(client, targets)` sends it; the answer must be `status`
    with `names` in its detail, and nothing may be stored."""

    id: str
    request: Callable[[TestClient, Targets], Any]
    status: int = 422
    names: str = ""
    settings: dict[str, object] = field(default_factory=dict)


def _posting(path: str, body: Any) -> Callable[[TestClient, Targets], Any]:
    return lambda client, t: client.post(path, json=body)


def _raw(method: str, path: Callable[[Targets], str], text: bytes) -> Callable[..., Any]:
    headers = {"content-type": "application/json"}
    return lambda client, t: client.request(method, path(t), content=text, headers=headers)


def _files(build: Callable[[], dict[str, Any]]) -> Callable[[TestClient, Targets], Any]:
    return lambda client, t: client.post("/api/production", **build())


def _vllm_with_surrogate() -> bytes:
    text = json.dumps(json.loads(VLLM.read_bytes()))
    return text.replace('"model_id": "', '"model_id": "\\ud800', 1).encode()


def _nan_counter(text: str) -> str:
    name = 'vllm:generation_tokens_total{engine="0",model_name="m"} '
    head, rest = text.split(name, 1)
    return head + name + "NaN" + rest[rest.index("\n") :]


def _stamped(text: str) -> str:
    """The exposition with its first sample timed 1e18 ms (the year 31 million)."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    lines[first] += " 1000000000000000000"
    return "\n".join(lines) + "\n"


def _pull(body: dict[str, Any]) -> Callable[[TestClient, Targets], Any]:
    full = {"deployment": "pulled", "start": str(ORIGIN), "end": str(ORIGIN + 600)} | body
    return lambda client, t: client.post("/api/production/pull", json=full)


UNREACHABLE = {"prometheus_url": "http://127.0.0.1:9199", "prometheus_timeout_s": 2}

WRITES: list[Write] = [
    # Production scrapes: times a page can show, numbers a window can be read from.
    Write("scraped_at 1e15 (ms: the year 33658)", _files(lambda: timed("1e15", "1e15", "1e15")),
          names="m0.prom, row 1: scraped_at: time 1e+12 s is outside 1970-01-01 .. 9999-12-31"),
    Write("scraped_at -1e11", _files(lambda: timed("-1e11", "-1e11", "-1e11")),
          names="m0.prom, row 1: scraped_at: time -1e+11 s is outside"),
    Write("scraped_at 1e300", _files(lambda: timed("1e300", "1e300", "1e300")),
          names="m0.prom, row 1: scraped_at: time 1e+297 s is outside"),
    Write("scraped_at in the year 10000 (ISO)",
          _files(lambda: timed("10000-01-01T00:00:00", str(ORIGIN), str(ORIGIN + 300))),
          names="m0.prom, row 1: scraped_at: time '10000-01-01T00:00:00' is neither"),
    Write("a sample's own timestamp of 1e18 ms",
          _files(lambda: {"files": scrapes(scrape(0, edit=_stamped), scrape(300, edit=_stamped)),
                          "data": {"deployment": "p"}}),
          names="timestamp (ms): time 1e+15 s is outside"),
    Write("times form field 1e15", lambda client, t: client.post(
        "/api/production", files=scrapes(scrape(0), scrape(300)),
        data={"deployment": "p", "times": "1e15,1e15"}),
          names="times: time 1: time 1e+12 s is outside"),
    Write("a NaN counter", _files(lambda: timed(str(ORIGIN), str(ORIGIN + 300),
                                                 edit=_nan_counter)),
          names='vllm:generation_tokens_total{engine="0", model_name="m"} is NaN'),
    Write('le="NaN"', _files(lambda: timed(str(ORIGIN), str(ORIGIN + 300),
                                          edit=lambda x: x.replace('le="0.1"', 'le="NaN"'))),
          names="le='NaN' is not a number"),
    # Pricing: a write commits only with its answer.
    Write("ownership with capex and an all-in price but no life",
          _posting("/api/pricing", {**OWNED, "usd_per_gpu_hour": 2, "life_years": None}),
          names="an ownership profile with capex_usd needs life_years too"),
    Write("capex 1.08e308", _posting("/api/pricing", {**OWNED, "capex_usd": 1.08e308}),
          names="capex_usd: Input should be less than or equal to 1000000000000000"),
    Write("power_kw 7.9e307 x usd_per_kwh 7.1e307",
          _posting("/api/pricing", {**OWNED, "power_kw": 7.9e307, "usd_per_kwh": 7.1e307}),
          names="power_kw: Input should be less than or equal to 1000000000000000"),
    Write("an update to capex 1e300",
          lambda client, t: client.put(f"/api/pricing/{t.profile}",
                                       json={**OWNED, "capex_usd": 1e300}),
          names="capex_usd: Input should be less than or equal to"),
    Write("utilization 5e-324", _posting("/api/pricing", {**OWNED, "utilization": 5e-324}),
          names="utilization: Value error, 4.94066e-324 is below 1e-09"),
    Write("break-even at 5e-324 tok/s per GPU",
          lambda client, t: client.get(f"/api/pricing/{t.profile}/break-even",
                                       params={"output_tok_s_per_gpu": 5e-324}),
          names="output_tok_s_per_gpu: Value error, 4.94066e-324 is below 1e-09"),
    # Claims.
    Write("claim value_tok_s 5e-324", _posting("/api/claims", {**CLAIM, "value_tok_s": 5e-324}),
          names="value_tok_s: Value error, 4.94066e-324 is below 1e-09"),
    Write("claim interactivity 1e308",
          _posting("/api/claims", {**CLAIM, "interactivity_tok_s_user": 1e308}),
          names="interactivity_tok_s_user: Input should be less than or equal to"),
    Write("claim isl 2**40", _posting("/api/claims", {**CLAIM, "isl": 2**40}),
          names="isl: Input should be less than or equal to 2147483647"),
    Write("claim update with batch 2**40",
          lambda client, t: client.put(f"/api/claims/{t.claim}", json={**CLAIM, "batch": 2**40}),
          names="batch: Input should be less than or equal to 2147483647"),
    Write("claim vendor with a lone surrogate",
          _raw("POST", lambda t: "/api/claims",
               json.dumps({**CLAIM, "vendor": "v"}).replace('"v"', '"\\ud800"', 1).encode()),
          names="vendor: Input should be a valid string, unable to parse raw data as a unicode"),
    # Catalog.
    Write("hardware bandwidth 5e-324",
          _posting("/api/hardware", {**H100, "key": "tiny", "mem_bw_tb_s": 5e-324}),
          names="mem_bw_tb_s: Value error, 4.94066e-324 is below 1e-09"),
    Write("model of 5e-324 billion parameters",
          _posting("/api/models", {"key": "tiny", "name": "t", "total_params_b": 5e-324,
                                "layers": 1}),
          names="total_params_b: Value error, 4.94066e-324 is below 1e-09"),
    # Tags and PATCH.
    Write("a tag with a lone surrogate",
          _raw("POST", lambda t: f"/api/sweeps/{t.sweep}/tags", b'{"tag": "a\\ud800"}'),
          names="tag: Input should be a valid string, unable to parse raw data as a unicode"),
    Write("PATCH model with a lone surrogate",
          _raw("PATCH", lambda t: f"/api/sweeps/{t.sweep}", b'{"model": "\\ud800"}'),
          names="(request), column 'model': contains a lone surrogate"),
    Write("PATCH with a lone surrogate as a key",
          _raw("PATCH", lambda t: f"/api/sweeps/{t.sweep}", b'{"\\udfff": "x"}'),
          names="contains a lone surrogate"),
    Write("PATCH num_gpus 2**40",
          lambda client, t: client.patch(f"/api/sweeps/{t.sweep}", json={"num_gpus": 2**40}),
          names="num_gpus: 1099511627776 is out of range"),
    # Uploads.
    Write("a vLLM result with a lone surrogate",
          lambda client, t: post_files(client, ("surrogate.json", _vllm_with_surrogate()),
                                       hardware="H100", num_gpus=8),
          names="surrogate.json: a string holds a lone surrogate"),
    Write("a sweep CSV with output tok/s 1e300",
          lambda client, t: post_files(client, ("huge.csv", MINIMAL.replace(b"100.0", b"1e300"))),
          names="huge.csv, row 2, column 'output_tok_s': 1e+300 is above 1e+15"),
    # A live pull's own request is the request's fault (422), not Prometheus's (502).
    Write("a pull whose end is before its start", _pull({"end": str(ORIGIN - 600)}),
          names="end: the end of the range must be after its start", settings=UNREACHABLE),
    Write("a pull of 10,001 windows", _pull({"end": str(ORIGIN + 300 * 10_001)}),
          names="end: 10,001 windows; at most 10,000 per pull", settings=UNREACHABLE),
    Write("a pull starting in the year 33658", _pull({"start": "1e15"}),
          names="start: time 1e+12 s is outside", settings=UNREACHABLE),
]  # fmt: skip
