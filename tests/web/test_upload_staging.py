"""/upload in steps: the files are staged once, each sweep's details are edited against the staged
copy (no file is sent again), "Save" stores exactly what was staged and summarises it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.ingest import UploadFile
from app.services.upload import save as uploads
from app.store.models import StagedUpload, Sweep
from app.web.uploads import EDITABLE_SWEEPS, LISTED_SWEEPS
from tests.conftest import FIXTURES
from tests.factories import count
from tests.helpers import details_form, soup

LLMPERF = sorted((FIXTURES / "llmperf").glob("*.json"))  # two sweeps: anyscale and together
BARE = b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n8,14,700\n"


def multipart_of(paths: list[Path]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (p.name, p.read_bytes(), "application/json")) for p in paths]


def kept(fields: dict[str, str]) -> dict[str, str]:
    """The fields with "keep as typed" ticked for every sweep's hardware (the test databases'
    catalog is empty, so no hardware is in it)."""
    return {**fields, "all.keep_hardware": "1"}


def stage_files(client: TestClient, paths: list[Path] = LLMPERF) -> dict[str, str]:
    response = client.post("/upload/stage", files=multipart_of(paths))
    assert response.status_code == 200, response.text
    return details_form(soup(response))


def test_staging_keeps_the_files_once_and_prefills_each_sweeps_details_from_its_file(
    hx_client: TestClient, session: Session
) -> None:
    response = hx_client.post("/upload/stage", files=multipart_of(LLMPERF))
    page = soup(response)
    # The answer is what goes inside #upload-result, not a replacement for it.
    assert page.select_one("#upload-result") is None
    cards = page.select("#upload-preview article")
    assert [c.select_one("h2").contents[0].strip() for c in cards] == [
        "Llama-2-70b-chat-hf · LLMPerf · anyscale",
        "llama-2-70b-chat · LLMPerf · together",
    ]
    fields = details_form(page)
    assert fields["s0.model"] == "meta-llama/Llama-2-70b-chat-hf"
    assert fields["s1.model"] == "together_ai/togethercomputer/llama-2-70b-chat"
    assert (fields["s0.isl"], fields["s0.osl"], fields["s1.isl"]) == ("550", "150", "550")
    assert fields["s0.hardware"] == fields["s0.num_gpus"] == ""
    assert [c.select_one(".missing").text for c in cards] == [
        "Missing: Hardware, GPUs — fill them in below."
    ] * 2
    assert page.select_one('input[name="s0.num_gpus"]')["aria-invalid"] == "true"
    [staged] = session.scalars(select(StagedUpload)).all()
    assert staged.token == fields["staging"]
    assert staged.data == b"".join(p.read_bytes() for p in LLMPERF)
    assert staged.files == [[p.name, p.stat().st_size] for p in LLMPERF]
    assert count(session, Sweep) == 0


def test_a_field_edit_sends_only_the_details_and_previews_the_staged_copy(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update({"s0.hardware": "H100", "s0.num_gpus": "8", "s0.isl": "2000"})
    response = hx_client.post("/upload/preview", data=fields)
    sent = response.request
    assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
    assert len(sent.content) < 2000  # the four files are 125 KB
    page = soup(response)
    first, second = page.select("#upload-preview article")
    assert first.select_one(".missing") is None
    assert "Missing: Hardware, GPUs" in second.select_one(".missing").text
    again = details_form(page)
    assert (again["s0.hardware"], again["s0.num_gpus"], again["s0.isl"]) == ("H100", "8", "2000")
    # The length warning follows the ISL now in force (the file measured about 550).
    assert any("ISL" in w.text for w in first.select(".warning"))
    assert not any("ISL" in w.text for w in second.select(".warning"))
    assert count(session, Sweep) == 0


def test_save_stores_exactly_the_staged_content_with_each_sweeps_own_details(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update(
        {"s0.hardware": "H100", "s0.num_gpus": "8", "s1.hardware": "A100", "s1.num_gpus": "2"}
    )
    fields["s1.sweep"] = "together on A100"
    response = hx_client.post("/upload/confirm", data=kept(fields))
    assert response.status_code == 200, response.text
    assert response.request.headers["content-type"] == "application/x-www-form-urlencoded"
    stored = {s.name: s for s in session.scalars(select(Sweep)).all()}
    assert {n: (s.hardware, s.num_gpus) for n, s in stored.items()} == {
        "Llama-2-70b-chat-hf · LLMPerf · anyscale": ("H100", 8),
        "together on A100": ("A100", 2),
    }
    # The same content as parsing the original files with those details: nothing else was used.
    details = uploads.Details(
        per_sweep=[
            {"hardware": "H100", "num_gpus": "8"},
            {"hardware": "A100", "num_gpus": "2", "sweep": "together on A100"},
        ]
    )
    files = [UploadFile(p.name, p.read_bytes()) for p in LLMPERF]
    expected = uploads.parse_detailed(files, details, uploads.Limits(), require_meta=True)
    assert sorted(s.content_hash for s in stored.values()) == sorted(
        s.content_hash() for s in expected.sweeps
    )
    # Saved: the staged copy is gone with the same commit.
    assert session.scalars(select(StagedUpload)).all() == []


def test_the_summary_links_each_saved_sweep_and_opens_them_all_on_explore(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update({"all.hardware": "H100", "all.num_gpus": "8"})
    page = soup(hx_client.post("/upload/confirm", data=kept(fields)))
    ids = sorted(session.scalars(select(Sweep.id)).all())
    summary = page.select_one("#upload-summary")
    assert summary.select_one("h2").get_text(" ", strip=True) == "Saved 2 new sweeps 2 points"
    rows = summary.select("#saved-sweeps tbody tr")
    assert [r.select_one("a")["href"] for r in rows] == [f"/sweeps/{i}" for i in ids]
    assert [r.select("td")[1].text for r in rows] == ["1", "1"]
    assert [r.select("td")[2].text for r in rows] == ["new", "new"]
    link = summary.select_one("#open-on-explore")
    assert link.text == "Open these on Explore"
    assert link["href"] == f"/?sweep={ids[0]}&sweep={ids[1]}&picked=1"
    explore = soup(hx_client.get(link["href"], headers={"HX-Request": ""}))
    checked = {int(i["value"]) for i in explore.select("input[name=sweep][checked]")}
    assert checked == set(ids)


def test_the_all_sweeps_row_sets_every_sweep_and_is_cleared_once_applied(
    hx_client: TestClient,
) -> None:
    fields = stage_files(hx_client)
    fields.update({"all.hardware": "H200", "all.num_gpus": "4"})
    again = details_form(soup(hx_client.post("/upload/preview", data=fields)))
    assert [again[f"s{i}.{k}"] for i in (0, 1) for k in ("hardware", "num_gpus")] == [
        "H200",
        "4",
        "H200",
        "4",
    ]
    assert again["all.hardware"] == again["all.num_gpus"] == ""


def test_a_refused_detail_keeps_every_sweep_and_shows_the_value_as_typed(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update({"s1.num_gpus": "eight", "s0.hardware": "H100"})
    page = soup(hx_client.post("/upload/preview", data=fields))
    assert len(page.select("#upload-preview article")) == 2
    errors = [li.text for li in page.select(".alert-error li")]
    assert errors == [
        "sweep 2 (summary_together_70b.json, individual_together_70b.json), “GPUs”: "
        "'eight' is not a whole number"
    ]
    field = page.select_one('input[name="s1.num_gpus"]')
    assert (field["value"], field["aria-invalid"]) == ("eight", "true")
    assert page.select_one('input[name="s0.hardware"]')["value"] == "H100"
    assert count(session, Sweep) == 0


def test_saving_without_a_gpu_count_names_sweep_and_field_and_keeps_the_files_staged(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update({"all.hardware": "H100", "s0.num_gpus": "8"})
    refused = hx_client.post("/upload/confirm", data=kept(fields))
    assert refused.status_code == 422
    page = soup(refused)
    assert [li.text for li in page.select(".alert-error li")] == [
        "sweep 2 (summary_together_70b.json, individual_together_70b.json): "
        "the file does not say how many GPUs; give “GPUs”"
    ]
    assert page.select_one("#details-form") is not None  # fix it there and save again
    assert count(session, Sweep) == 0
    fields["s1.num_gpus"] = "2"
    assert hx_client.post("/upload/confirm", data=kept(fields)).status_code == 200
    assert count(session, Sweep) == 2


def many_staged_sweeps_csv(n: int) -> bytes:
    rows = [f"s{k:03d},H100,{1 + k % 8},m-{k},1,10,100\n" for k in range(n)]
    return (
        "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(rows)
    ).encode()


def test_an_upload_of_more_sweeps_than_a_form_can_carry_lists_the_rest_and_saves_them_all(
    hx_client: TestClient, session: Session
) -> None:
    sweeps = EDITABLE_SWEEPS + 50
    staged = hx_client.post(
        "/upload/stage", files=[("files", ("many.csv", many_staged_sweeps_csv(sweeps), "text/csv"))]
    )
    page = soup(staged)
    assert len(page.select("#upload-preview article.preview")) == EDITABLE_SWEEPS
    more = page.select_one("#more-sweeps")
    assert more.select_one("h2").text == "50 more sweeps"
    rows = more.select("tbody tr")
    assert len(rows) == 50
    assert [td.text for td in rows[-1].select("td")] == [
        f"s{sweeps - 1} many.csv",
        "1",
        # This test's catalog is empty.
        "H100 (not in the catalog: to keep it, tick “Keep every hardware name … as typed” above)",
        str(1 + (sweeps - 1) % 8),
        f"m-{sweeps - 1}",
        "—",  # nothing missing
    ]
    fields = details_form(page)
    # Within the form-field bound every request has (Starlette's 1,000), as the browser sends it.
    assert len(fields) <= 1000
    assert f"s{EDITABLE_SWEEPS}.hardware" not in fields
    # The All sweeps row, applied by a preview, then one sweep edited: the listed sweeps keep
    # the row's value although the row itself is cleared once applied.
    fields.update({"all.engine": "vLLM", "all.precision": "fp8", "s0.model": "edited"})
    page = soup(hx_client.post("/upload/preview", data=fields))
    assert page.select_one("#rest-given").text == (
        "Set on all of them from the All sweeps row: Engine vLLM, Precision fp8."
    )
    fields = details_form(page)
    assert (fields["all.engine"], fields["s1.engine"], fields["rest.engine"]) == (
        "",
        "vLLM",
        "vLLM",
    )
    # A refused row value stays in the row, marked, and leaves the value carried before.
    fields["all.num_gpus"] = "eight"
    page = soup(hx_client.post("/upload/preview", data=fields))
    assert page.select_one("#all-num_gpus")["aria-invalid"] == "true"
    fields = details_form(page)
    assert (fields["all.num_gpus"], fields["rest.engine"]) == ("eight", "vLLM")
    fields.update({"s1.engine": "SGLang", "all.precision": "bf16", "all.num_gpus": ""})
    saved = hx_client.post("/upload/confirm", data=kept(fields))
    assert saved.status_code == 200, saved.text[:500]
    stored = session.execute(
        select(Sweep.name, Sweep.model, Sweep.engine, Sweep.precision, Sweep.num_gpus)
    ).all()
    assert len(stored) == sweeps
    by_name = {name: rest for name, *rest in stored}
    assert by_name["s000"] == ["edited", "vLLM", "bf16", 1]
    assert by_name["s001"] == ["m-1", "SGLang", "bf16", 2]
    last = sweeps - 1
    assert by_name[f"s{last}"] == [f"m-{last}", "vLLM", "bf16", 1 + last % 8]


def test_a_preview_lists_a_bounded_number_of_sweeps_and_counts_the_rest(
    hx_client: TestClient,
) -> None:
    sweeps = EDITABLE_SWEEPS + LISTED_SWEEPS + 5
    data = many_staged_sweeps_csv(sweeps).replace(b"s105,H100,2,", b"s105,H100,,")  # no GPU count
    upload = [("files", ("many.csv", data, "text/csv"))]
    page = soup(hx_client.post("/upload/stage", files=upload))
    more = page.select_one("#more-sweeps")
    assert len(more.select("tbody tr")) == LISTED_SWEEPS
    missing = [r.select_one("td.missing").text for r in more.select("tbody tr")[:6]]
    assert missing == ["—"] * 5 + ["GPUs"]
    # Saved, the summary lists as many and counts the rest too.
    fields = details_form(page)
    fields["all.num_gpus"] = "8"
    saved = hx_client.post("/upload/confirm", data=kept(fields))
    summary = soup(saved).select_one("#upload-summary")
    assert summary.select_one("h2").get_text(" ", strip=True) == (
        f"Saved {sweeps:,} new sweeps {sweeps:,} points"
    )
    assert len(summary.select("#saved-sweeps tbody tr")) == LISTED_SWEEPS
    assert summary.select_one("#saved-more").text == (
        f"and {sweeps - LISTED_SWEEPS} more sweeps, on the Sweeps page."
    )
    assert more.select("p")[-1].text == "and 5 more sweeps not listed."


def test_a_saved_or_expired_or_made_up_staging_token_is_gone(
    hx_client: TestClient, session: Session
) -> None:
    fields = stage_files(hx_client)
    fields.update({"all.hardware": "H100", "all.num_gpus": "8"})
    assert hx_client.post("/upload/confirm", data=kept(fields)).status_code == 200
    again = hx_client.post("/upload/confirm", data=kept(fields))
    assert again.status_code == 410
    assert "choose the files again" in again.text
    assert count(session, Sweep) == 2

    other = stage_files(
        hx_client, [FIXTURES / "sglang" / "datacrunch_deepseek_dp_mla_output.jsonl"]
    )
    session.execute(update(StagedUpload).values(expires_at_s=0))
    session.commit()
    assert hx_client.post("/upload/preview", data=other).status_code == 410
    for token in ("", "x", "'; DROP TABLE sweep; --", "a" * 65):
        made_up = hx_client.post("/upload/confirm", data={"staging": token})
        assert made_up.status_code == 410, token


def test_new_files_replace_the_staged_ones_and_expired_ones_are_purged(
    hx_client: TestClient, session: Session
) -> None:
    first = stage_files(hx_client)
    session.execute(update(StagedUpload).values(expires_at_s=0))
    session.commit()
    older = stage_files(hx_client)
    assert older["staging"] != first["staging"]
    # The expired one was purged when the next files arrived.
    assert session.scalars(select(StagedUpload.token)).all() == [older["staging"]]
    # Choosing files again sends the previous token along: it is dropped.
    files = multipart_of([FIXTURES / "sglang" / "datacrunch_deepseek_dp_mla_output.jsonl"])
    newest = hx_client.post("/upload/stage", files=files, data={"staging": older["staging"]})
    session.expire_all()
    assert session.scalars(select(StagedUpload.token)).all() == [
        details_form(soup(newest))["staging"]
    ]


def test_the_staging_area_is_bounded_and_refuses_with_503_when_full(
    make_client: Any, session: Session
) -> None:
    client = make_client(max_staged_mb=0.2)  # the LLMPerf files are 125 KB
    client.headers["HX-Request"] = "true"
    stage_files(client)
    full = client.post("/upload/stage", files=multipart_of(LLMPERF))
    assert full.status_code == 503
    assert full.headers["Retry-After"] == "60"
    assert "PARETOSCOPE_MAX_STAGED_MB" in full.text
    assert len(session.scalars(select(StagedUpload)).all()) == 1


def test_files_that_do_not_parse_are_refused_and_not_kept(
    hx_client: TestClient, session: Session
) -> None:
    bad = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,fast,1\n"
    response = hx_client.post("/upload/stage", files=[("files", ("bad.csv", bad, "text/csv"))])
    assert response.status_code == 422
    assert [li.text for li in soup(response).select(".alert-error li")] == [
        "bad.csv, row 2, column 'tpot_p50_ms': 'fast' is not a number"
    ]
    assert session.scalars(select(StagedUpload)).all() == []


def test_without_javascript_each_step_answers_the_whole_page(
    client: TestClient, session: Session
) -> None:
    staged = client.post("/upload/stage", files=[("files", ("bare.csv", BARE, "text/csv"))])
    page = soup(staged)
    assert page.select_one("#upload-form") is not None
    assert page.select_one("#upload-result #details-form")["action"] == "/upload/confirm"
    fields = details_form(page)
    fields.update({"s0.sweep": "no-js", "s0.hardware": "H100", "s0.num_gpus": "8"})
    saved = soup(client.post("/upload/confirm", data=kept(fields)))
    assert saved.select_one("#upload-result #upload-summary a")["href"].startswith("/sweeps/")
    assert session.scalars(select(Sweep.name)).all() == ["no-js"]


def test_staging_needs_the_write_token_and_the_staging_token_carries_it_to_save(
    make_client: Any, session: Session
) -> None:
    client = make_client(write_token="s3cret")
    files = [("files", ("bare.csv", BARE, "text/csv"))]
    assert client.post("/upload/stage", files=files).status_code == 401
    staged = client.post("/upload/stage", files=files, data={"write_token": "s3cret"})
    fields = details_form(soup(staged))
    fields.update({"s0.sweep": "tok", "s0.hardware": "H100", "s0.num_gpus": "8"})
    assert client.post("/upload/confirm", data=kept(fields)).status_code == 200
    assert count(session, Sweep) == 1


def test_every_form_of_the_page_answers_into_the_result_box(hx_client: TestClient) -> None:
    page = soup(hx_client.get("/upload", headers={"HX-Request": ""}))
    staged = soup(hx_client.post("/upload/stage", files=multipart_of(LLMPERF)))
    for form in (page.select_one("#upload-form"), staged.select_one("#details-form")):
        assert (form["hx-target"], form["hx-swap"]) == ("#upload-result", "innerHTML")
    assert page.select_one("#upload-result")["aria-live"] == "polite"
