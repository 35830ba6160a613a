"""Issue 37 on real files: InferenceX's disaggregated gpt-oss run (raw files that do not carry
their 8 prefill + 8 decode split, so the upload form asks for it), and speculative decoding
(InferenceX's Kimi MTP rows) and prefix caching (llm-d's report) warned about in Compare and
check."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import Sweep
from tests.conftest import FIXTURES
from tests.factories import to_csv
from tests.helpers import soup, upload_by_name, upload_id
from tests.web.test_explore import figure
from tests.web.test_upload_staging import details_form, multipart_of

RAW = [
    FIXTURES / "inferencemax" / f"raw_benchmark_serving_gptoss120b_1k1k_disagg16gpu_conc{c}.json"
    for c in (8, 64)
]
KIMI = sorted((FIXTURES / "inferencemax").glob("agg_kimik2.5_*_mtp_conc*.json"))
LLM_D = FIXTURES / "llm-d" / "br_v0_2_example.yaml"


def test_a_sweep_marked_disaggregated_is_saved_only_with_its_split(
    hx_client: TestClient, session: Session, seeded: None
) -> None:
    seeded_ids = set(session.scalars(select(Sweep.id)))
    page = soup(hx_client.post("/upload/stage", files=multipart_of(RAW)))
    marking = page.select_one("#s0-disaggregated")
    assert marking.select_one("option[selected]") is None  # the file says nothing of a split
    fields = details_form(page) | {"s0.hardware": "B200", "s0.num_gpus": "16"}
    marked = fields | {"s0.disaggregated": "1"}
    preview = soup(hx_client.post("/upload/preview", data=marked))
    assert "Missing: Prefill GPUs, Decode GPUs" in preview.select_one("#sweep-0 .missing").text
    assert preview.select_one("#s0-num_prefill_gpus")["aria-invalid"] == "true"
    refused = hx_client.post("/upload/confirm", data=marked)
    assert refused.status_code == 422
    assert set(session.scalars(select(Sweep.id))) == seeded_ids
    split = marked | {"s0.num_prefill_gpus": "8", "s0.num_decode_gpus": "8"}
    assert hx_client.post("/upload/confirm", data=split).status_code == 200
    [sweep] = session.scalars(select(Sweep).where(Sweep.id.not_in(seeded_ids))).all()
    assert (sweep.num_gpus, sweep.num_prefill_gpus, sweep.num_decode_gpus) == (16, 8, 8)

    detail = soup(hx_client.get(f"/sweeps/{sweep.id}").text)
    assert detail.select_one("#sweep-split").text == "(8P + 8D)"
    assert "disaggregated: 8P + 8D" in detail.select_one("#meta-serving").text
    # process_result.py's per-GPU figures: output ÷ 8 decode GPUs, total ÷ all 16.
    query = f"sweep={sweep.id}&accounting=decode_gpu"
    front = hx_client.get(f"/api/frontier?{query}").json()["sweeps"][0]["frontier"]
    ys = sorted(p["y"] for p in front)
    assert ys == pytest.approx([928.9837604849168 / 8, 5002.605334620647 / 8], rel=1e-12)
    total = hx_client.get(f"/api/frontier?sweep={sweep.id}&basis=total").json()
    assert max(p["y"] for p in total["sweeps"][0]["frontier"]) == pytest.approx(625.3256668, 1e-9)


def _like_kimi(spec: str, rate: float | None) -> bytes:
    """A second Kimi K2.5 system on the MI355X beside InferenceX's MTP rows."""
    row = {
        "sweep": f"kimi {spec} {rate}", "hardware": "MI355X", "num_gpus": 8,
        "model": "moonshotai/Kimi-K2.5", "precision": "int4", "spec_decode": spec,
        "isl": 8192, "osl": 1024, "concurrency": 32, "tpot_p50_ms": 200.0,
        "output_tok_s": 150.0, "spec_acceptance_rate": rate,
    }  # fmt: skip
    return to_csv([row])


def test_compare_and_check_warn_when_spec_decoding_or_prefix_caching_differ(
    client: TestClient,
) -> None:
    mtp = upload_by_name(client, *((p.name, p.read_bytes()) for p in KIMI))
    [kimi] = mtp.values()
    none = upload_id(client, ("none.csv", _like_kimi("none", None)))
    check = client.post(
        "/api/check", json={"candidate": str(kimi), "baseline": str(none), "percentile": "p50"}
    ).json()
    [caveat] = check["caveats"]
    assert caveat["kind"] == "spec_method"
    assert caveat["text"].startswith("Speculative decoding differs: mtp vs none.")
    assert "The speed-up depends on the data" in caveat["text"]
    assert f"Warning: {caveat['text']}" in check["summary"]

    # Two EAGLE runs whose acceptance rates differ by 25 % relative (0.6 vs 0.8).
    low = upload_id(client, ("low.csv", _like_kimi("eagle", 0.6)))
    high = upload_id(client, ("high.csv", _like_kimi("eagle", 0.8)))
    pair = client.get(f"/api/compare?sweep={high}&sweep={low}&picked=1").json()["pairs"][0]
    assert [c["kind"] for c in pair["caveats"]] == ["acceptance"]
    assert "differ by 25% relative (60% vs 80%)" in pair["caveats"][0]["text"]

    # Explore's hovers name the sweep's speculative decoding and its acceptance.
    fig = figure(soup(client.get(f"/?sweep={high}&picked=1").text))
    assert "spec eagle · acceptance 80%" in fig["data"][0]["hovertemplate"]

    # Explore's filter: speculative decoding on (any method), off, or one method.
    def picked(spec: str) -> list[int]:
        doc = client.get(f"/api/explore/picker?picked=1&spec_decode={spec}").json()["picker"]
        return sorted(s["id"] for g in doc["groups"] for s in g["sweeps"])

    assert (picked("on"), picked("off")) == (sorted([kimi, low, high]), [none])
    assert (picked("eagle"), picked("MTP")) == (sorted([low, high]), [kimi])

    # llm-d's report hits its prefix cache 65.3 % of the time; a run at 20 % is warned about.
    report = upload_id(client, (LLM_D.name, LLM_D.read_bytes()))
    cold = client.get(f"/api/sweeps/{report}").json()
    row = {k: cold[k] for k in ("hardware", "num_gpus", "model", "isl", "osl")}
    cold_id = upload_id(
        client,
        ("cold.csv", to_csv([{**row, "sweep": "cold", "concurrency": 8, "tpot_p50_ms": 9.0,
                               "output_tok_s": 900.0, "prefix_cache_hit_rate": 0.2}])),
    )  # fmt: skip
    page = soup(client.get(f"/compare?sweep={cold_id}&sweep={report}&picked=1").text)
    [shown] = page.select("p.caveat")
    assert shown["data-kind"] == "prefix_cache"
    assert "differ by 45 points (65% vs 20%)" in shown.text


AIPERF = FIXTURES / "aiperf" / "wellflat_k8s-dev_profile_export_aiperf.json"


def test_tokens_per_joule_measured_beside_the_catalog_estimate_each_named(
    client: TestClient, session: Session, seeded: None
) -> None:
    from app.store.models import Hardware

    session.get(Hardware, "A100").allin_kw = 1.25  # type: ignore[union-attr]  # for this test
    session.commit()
    sweep = upload_id(client, (AIPERF.name, AIPERF.read_bytes()), hardware="A100", num_gpus=1)
    [result] = client.get(f"/api/readoff?sweep={sweep}").json()["results"]
    joules = result["tokens_per_joule"]
    # 54.56 output tok/s at 94.62 W measured; the estimate over 1.25 kW all-in per GPU.
    assert joules["measured"] == pytest.approx(54.55756456668085 / 94.61787741935483, 1e-12)
    assert joules["estimate"] == pytest.approx(54.55756456668085 / 1250, rel=1e-12)
    assert joules["token_basis"] == "output"
    assert joules["measured_power"].startswith("measured: the GPUs' own power")
    page = soup(client.get(f"/?sweep={sweep}&picked=1").text)
    row = page.select_one("#readoff-table tbody tr")
    assert "tok/J measured (GPU power)" in row.select_one(".tok-j-measured").text
    assert "tok/J est. (catalog all-in)" in row.select_one(".tok-j-estimate").text
    detail = soup(client.get(f"/sweeps/{sweep}").text)
    heads = [th.get_text(" ", strip=True) for th in detail.select("#covariates-table th")]
    assert heads[2:] == ["measured GPU power (W)", "measured GPU energy (J)"]
