"""The upload page's choices beside each sweep's details, on the real vLLM results folder:
hardware that is not in the catalog is saved only when "keep as typed" is ticked, the same
measurements uploaded again with corrected details update the stored sweep, the summary never
calls "Saved" a sweep that was stored before, and the preview shows the percentiles each file
stores."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.http.templating import fmt_num
from app.store.models import Hardware, StagedUpload, Sweep
from tests.conftest import FIXTURES
from tests.helpers import soup
from tests.web.test_upload_staging import details_form, multipart_of

VLLM = sorted((FIXTURES / "vllm").glob("*.json"))  # 5 real `vllm bench serve` results
TWO_QPS = (
    FIXTURES / "vllm" / "stellalee_openai-2.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094353.json"
)


def staged_form(client: TestClient, paths: list = VLLM) -> tuple[dict[str, str], object]:  # type: ignore[type-arg]
    response = client.post("/upload/stage", files=multipart_of(paths))
    assert response.status_code == 200, response.text
    page = soup(response)
    return details_form(page), page


def add_a100(session: Session) -> None:
    session.add(Hardware(key="A100", name="NVIDIA A100 SXM", aliases=["A100 80GB"]))
    session.commit()


def test_a_vllm_preview_shows_the_percentiles_the_file_stores_and_no_empty_column(
    hx_client: TestClient,
) -> None:
    _, page = staged_form(hx_client, [TWO_QPS])
    table = page.select_one("#sweep-0 table.data")
    heads = [th.get_text(strip=True) for th in table.select("thead th")]
    assert heads == [
        "Concurrency",
        "Rate (req/s)",
        "TPOT p50 (ms)",
        "TPOT p95 (ms)",
        "TPOT p99 (ms)",
        "TTFT p50 (ms)",
        "TTFT p95 (ms)",
        "TTFT p99 (ms)",
        "Output (tok/s)",
        "Samples",
    ]
    doc = json.loads(TWO_QPS.read_text())
    cells = [td.get_text(strip=True) for td in table.select("tbody tr td")]
    stored = [doc[f"{s}_{m}_ms"] for m in ("tpot", "ttft") for s in ("p50", "p95", "p99")]
    assert cells[2:8] == [fmt_num(v) for v in stored]
    assert all(cells)  # no empty cell: a column is shown only for a percentile the file has
    assert page.select_one("#sweep-0 .stored-percentiles").get_text(strip=True) == (
        "Percentiles this file stores: TPOT p50, p95, p99 · TTFT p50, p95, p99."
    )


def test_hardware_not_in_the_catalog_is_saved_only_when_kept_as_typed(
    hx_client: TestClient, session: Session
) -> None:
    add_a100(session)
    fields, page = staged_form(hx_client, [TWO_QPS])
    fields.update({"s0.hardware": "Z9000", "s0.num_gpus": "1"})
    page = soup(hx_client.post("/upload/preview", data=fields))
    choice = page.select_one("#s0-hardware-choice")
    assert "Hardware Z9000 is not in the hardware catalog, and no catalog key is near it." in (
        " ".join(choice.text.split())
    )
    assert not page.select_one("#s0-keep_hardware").has_attr("checked")

    refused = hx_client.post("/upload/confirm", data=fields)
    assert refused.status_code == 422
    errors = [li.get_text(strip=True) for li in soup(refused).select("[role=alert] li")]
    assert errors == [
        f"sweep 1 ({TWO_QPS.name}), “Hardware”: 'Z9000' is not in the hardware catalog (near "
        "no catalog key): type a catalog key, or tick “keep as typed” to store it as typed, "
        "with no catalog price, power or physics limit"
    ]
    assert session.scalars(select(Sweep)).all() == []
    assert len(session.scalars(select(StagedUpload)).all()) == 1  # still staged

    # Ticked, it is stored as typed; a catalog name needs no choice.
    saved = hx_client.post("/upload/confirm", data={**fields, "s0.keep_hardware": "1"})
    assert saved.status_code == 200, saved.text
    assert [s.hardware for s in session.scalars(select(Sweep))] == ["Z9000"]
    fields, _ = staged_form(hx_client, VLLM[:1])
    fields.update({"s0.hardware": "NVIDIA A100 SXM", "s0.num_gpus": "1"})
    assert hx_client.post("/upload/confirm", data=fields).status_code == 200
    assert sorted(s.hardware for s in session.scalars(select(Sweep))) == ["A100", "Z9000"]


def summary_rows(page: object) -> list[str]:
    return [td.get_text(strip=True) for td in page.select("#saved-sweeps td.stored-as")]  # type: ignore[attr-defined]


def test_the_same_measurements_with_corrected_details_update_the_stored_sweep(
    hx_client: TestClient, session: Session
) -> None:
    add_a100(session)
    fields, _ = staged_form(hx_client)
    count = sum(1 for k in fields if k.endswith(".hardware") and k.startswith("s"))
    assert count == 2  # the 1-8 req/s rate sweep (4 files) and the infinite-rate run
    every = {"all.hardware": "A100", "all.num_gpus": "1", "all.model": "Qwen2.5-Coder-7B"}
    first = soup(hx_client.post("/upload/confirm", data={**fields, **every}))
    assert summary_rows(first) == ["new"] * count
    ids = [int(tr["data-sweep-id"]) for tr in first.select("#saved-sweeps tbody tr")]
    assert sorted(ids) == sorted(s.id for s in session.scalars(select(Sweep)))

    # Again, with the GPU count corrected: each sweep offers to update its stored twin.
    fields, _ = staged_form(hx_client)
    fixed = {**every, "all.num_gpus": "2"}
    page = soup(hx_client.post("/upload/preview", data={**fields, **fixed}))
    offers = page.select("fieldset.already-stored")
    assert [int(f["data-sweep-id"]) for f in offers] == ids
    assert page.select_one("#s0-stored_as-update").has_attr("checked")
    assert "with other details" in offers[0].legend.get_text()
    fields = details_form(page)
    updated = soup(hx_client.post("/upload/confirm", data=fields))
    assert summary_rows(updated) == [f"updated #{i}" for i in ids]
    heading = updated.select_one("#upload-summary h2").get_text(" ", strip=True)
    assert heading.startswith(f"Updated {count} sweep")
    assert "Saved" not in heading
    session.expire_all()
    stored = session.scalars(select(Sweep)).all()
    assert sorted(s.id for s in stored) == sorted(ids)  # one sweep each, not a second copy
    assert {(s.hardware, s.num_gpus, s.model) for s in stored} == {("A100", 2, "Qwen2.5-Coder-7B")}

    # A third time, as now stored: already stored, unchanged, and never "Saved".
    fields, _ = staged_form(hx_client)
    page = soup(hx_client.post("/upload/preview", data={**fields, **fixed}))
    notes = page.select("p.already-stored")
    assert len(notes) == count and not page.select("fieldset.already-stored")
    assert "same measurements and details: saving leaves it unchanged" in notes[0].text
    again = soup(hx_client.post("/upload/confirm", data=details_form(page)))
    assert summary_rows(again) == [f"already stored as #{i} (unchanged)" for i in ids]
    heading = again.select_one("#upload-summary h2").get_text(" ", strip=True)
    assert heading.startswith(f"{count} sweep") and "already stored (unchanged)" in heading
    assert "Saved" not in heading
    assert len(session.scalars(select(Sweep)).all()) == count


def test_storing_the_same_measurements_as_a_second_sweep_is_a_choice(
    hx_client: TestClient, session: Session
) -> None:
    add_a100(session)
    fields, _ = staged_form(hx_client, [TWO_QPS])
    details = {"s0.hardware": "A100", "s0.num_gpus": "1"}
    hx_client.post("/upload/confirm", data={**fields, **details})
    fields, _ = staged_form(hx_client, [TWO_QPS])
    page = soup(hx_client.post("/upload/preview", data={**fields, **details, "s0.num_gpus": "4"}))
    fields = {**details_form(page), "s0.stored_as": "new"}
    saved = soup(hx_client.post("/upload/confirm", data=fields))
    assert summary_rows(saved) == ["new"]
    assert sorted(s.num_gpus for s in session.scalars(select(Sweep))) == [1, 4]


def test_the_staged_api_keeps_its_rule_and_says_what_is_stored_already(
    client: TestClient, session: Session
) -> None:
    """Scripts keep working: hardware not in the catalog is stored as typed with a warning, and
    other details store a new sweep; the preview names the stored sweep of the same
    measurements first."""

    def stage_api() -> str:
        files = [("files", (TWO_QPS.name, TWO_QPS.read_bytes(), "application/json"))]
        return str(client.post("/api/uploads", files=files).json()["staging"])

    token = stage_api()
    details = {"sweeps": [{"hardware": "Z9000", "num_gpus": 1}]}
    saved = client.post(f"/api/uploads/{token}", json=details)
    assert saved.status_code == 201, saved.text
    first = saved.json()["sweeps"][0]
    assert (first["created"], first["updated"]) == (True, False)
    assert saved.json()["warnings"][0].startswith(
        "Hardware 'Z9000' is not in the hardware catalog, so it was kept as typed"
    )
    token = stage_api()
    same = client.post(f"/api/uploads/{token}/preview", json=details).json()
    assert same["sweeps"][0]["already_stored"] == {"id": first["id"], "same_details": True}
    other = {"sweeps": [{"hardware": "Z9000", "num_gpus": 2}]}
    preview = client.post(f"/api/uploads/{token}/preview", json=other).json()
    assert preview["sweeps"][0]["already_stored"] == {"id": first["id"], "same_details": False}
    second = client.post(f"/api/uploads/{token}", json=other).json()["sweeps"][0]
    assert second["created"] and second["id"] != first["id"]
    assert sorted(s.num_gpus for s in session.scalars(select(Sweep))) == [1, 2]
