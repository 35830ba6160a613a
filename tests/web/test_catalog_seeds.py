"""Honest seeds: demo sweeps say they are synthetic, worked examples stay off the default chart,
undated sweeps are not dated by their upload, ownership costs are labelled ownership, and no
page tells a user to edit a file."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.services.seed import seed
from app.settings import PROJECT_ROOT
from app.store.models import Hardware, PricingProfile, Sweep, VendorClaim
from tests.factories import post_files
from tests.helpers import soup


def test_demo_sweeps_are_labelled_demo_synthetic_and_never_measured(
    client: TestClient, session: Session, seeded: None
) -> None:
    demos = session.scalars(select(Sweep).where(Sweep.name.like("Demo%"))).all()
    assert len(demos) == 6
    assert {s.source_kind for s in demos} == {"demo"}
    listing = soup(client.get("/sweeps", params={"per_page": 100}).text)
    badges = {
        row.select_one("a").get_text(strip=True): row.select_one(".tag").get_text(strip=True)
        for row in listing.select("tbody tr")
    }
    assert {badges[s.name] for s in demos} == {"demo (synthetic)"}
    detail = soup(client.get(f"/sweeps/{demos[0].id}").text)
    tag = detail.select_one("dl.meta .tag")
    assert tag is not None and tag.get_text(strip=True) == "demo (synthetic)"
    assert "measured" not in tag.get("class", [])
    # Every real-file seed sweep is still "public" or "measured", none "demo".
    real = session.scalars(select(Sweep).where(~Sweep.name.like("Demo%"))).all()
    assert real and "demo" not in {s.source_kind for s in real}
    # The Explore source filter offers the label too.
    explore = soup(client.get("/").text)
    options = {o["value"]: o.get_text() for o in explore.select("#f-source_kind option")}
    assert options["demo"] == "demo (synthetic)"


def test_a_canonical_csv_may_say_demo_and_an_unknown_kind_is_refused(client: TestClient) -> None:
    head = b"sweep,hardware,num_gpus,source_kind,concurrency,tpot_p50_ms,output_tok_s\n"
    assert post_files(client, ("d.csv", head + b"d,H100,1,demo,1,10,100\n")).status_code == 201
    refused = post_files(client, ("e.csv", head + b"e,H100,1,fake,1,10,100\n"))
    assert refused.status_code == 422
    assert "'fake' is not one of ('measured', 'public', 'vendor', 'demo')" in refused.text


def test_worked_example_claims_are_flagged_and_off_by_default_on_explore(
    client: TestClient, session: Session, seeded: None
) -> None:
    flagged = session.scalars(select(VendorClaim).where(VendorClaim.example)).all()
    assert len(flagged) == 4
    assert all(c.vendor.startswith("Worked example") for c in flagged)
    page = soup(client.get("/").text)
    chosen = page.select_one("#c-claims option[selected]")
    assert chosen is not None and chosen["value"] == "matching"
    figure = client.get("/api/explore").json()["figure"]
    assert [t for t in figure["data"] if t.get("meta") == "claim"] == []
    with_examples = client.get("/api/explore", params={"claims": "examples"}).json()["figure"]
    names = [t["name"] for t in with_examples["data"] if t.get("meta") == "claim"]
    assert sum("Worked example" in n for n in names) == 4
    # The flag round-trips through the API and the claim form.
    claim_id = flagged[0].id
    assert client.get(f"/api/claims/{claim_id}").json()["example"] is True
    form = soup(client.get("/claims", params={"edit": claim_id}).text)
    box = form.select_one("input[name=example]")
    assert box is not None and box.has_attr("checked")


def test_undated_sweeps_show_date_unknown_on_history_and_are_not_plotted(
    client: TestClient,
) -> None:
    head = b"sweep,hardware,num_gpus,model,measured_at,concurrency,tpot_p90_ms,output_tok_s\n"
    rows = head + (b"dated,H100,8,m,2026-06-01,8,20,8000\nundated,H100,8,m,,8,20,9600\n")
    assert post_files(client, ("h.csv", rows)).status_code == 201
    body = client.get("/api/history", params={"picked": 1, "preset": "custom", "tpot_ms": 50})
    [config] = body.json()["configurations"]
    sweeps = [(s["name"], s["date"], s["date_source"]) for s in config["sweeps"]]
    assert sweeps == [("dated", "2026-06-01", "measured"), ("undated", None, "unknown")]
    assert config["sweeps"][1]["uploaded"] is not None
    [trace] = body.json()["figure"]["data"]
    assert (trace["x"], trace["y"], trace["text"]) == (["2026-06-01"], [1000.0], ["<b>dated</b>"])
    page = soup(client.get("/history", params={"picked": 1, "preset": "custom"}).text)
    dates = [td.get_text(" ", strip=True) for td in page.select(".history-table td.date")]
    assert dates[0] == "2026-06-01"
    assert dates[1].startswith("date unknown (not plotted; uploaded ")


def test_ownership_tiers_are_labelled_ownership_and_cost_what_they_quote(
    client: TestClient, session: Session, seeded: None
) -> None:
    profiles = session.scalars(select(PricingProfile)).all()
    kinds = {p.key: p.kind for p in profiles}
    owning = [p for p in profiles if p.tier in ("costh", "costn")]
    assert len(owning) == 36 and {p.kind for p in owning} == {"ownership"}
    assert kinds["ix-2026-09-h100-costr"] == "rental"
    assert kinds["own-example-h100"] == "ownership"
    h100 = next(p for p in profiles if p.key == "ix-2026-04-h100-costh")
    cost = client.get(f"/api/pricing/{h100.id}").json()["hourly_cost"]
    assert cost == {
        "tco_usd_per_hour": 1.3,
        "total_usd_per_gpu_hour": 1.3,
        "utilization": 1.0,
        "usd_per_useful_gpu_hour": 1.3,
    }
    page = soup(client.get("/pricing").text)
    row = page.select_one(f"#profile-{h100.id}")
    assert row is not None and row.select_one(".tag").get_text() == "ownership"
    # The API accepts an ownership profile given as one all-in hourly TCO.
    tco = {"name": "my TCO", "kind": "ownership", "usd_per_gpu_hour": 1.9}
    assert client.post("/api/pricing", json=tco).status_code == 201
    bare = client.post("/api/pricing", json={"name": "x", "kind": "ownership"})
    assert bare.status_code == 422
    assert "(or an all-in usd_per_gpu_hour)" in bare.text


def test_no_page_or_message_tells_a_user_to_edit_a_file() -> None:
    sources = [
        *(PROJECT_ROOT / "templates").rglob("*.html"),
        *(p for p in (PROJECT_ROOT / "app").rglob("*.py") if p.name != "seed.py"),
    ]
    offenders = []
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            # Strings shown to users, not comments or docstrings naming where seeds live.
            if re.search(r"(add|edit|change) it (to|in) seed_data", line) or re.search(
                r"seed_data/\w+\.csv", line
            ):
                if not line.lstrip().startswith("#"):
                    offenders.append(f"{path.relative_to(PROJECT_ROOT)}: {line.strip()}")
    assert offenders == []


def test_seeding_again_relabels_a_demo_sweep_an_older_seed_called_measured(
    session: Session, seeded: None
) -> None:
    demo = session.scalars(select(Sweep).where(Sweep.name.like("Demo%"))).first()
    assert demo is not None
    demo.source_kind = "measured"
    session.commit()
    assert seed(session)["sweeps"] == 0
    session.commit()
    session.refresh(demo)
    assert demo.source_kind == "demo"


def test_the_claims_list_tags_worked_examples(client: TestClient, seeded: None) -> None:
    page = soup(client.get("/claims").text)
    tagged = [
        row.select_one("td a").get_text(strip=True)
        for row in page.select("tbody tr")
        if row.select_one(".tag-example")
    ]
    assert (
        tagged
        == ["Worked example (metrics-and-costs O6), not a vendor"] * 2
        + ["Worked example (issue 51: Vera Rubin NVL72 vs GB300 NVL72), not a vendor"] * 2
    )


def test_the_seeds_rubin_versus_gb300_comparison_audits_on_the_bandwidth_ratio(
    client: TestClient, seeded: None
) -> None:
    claims = client.get("/api/claims").json()["claims"]
    pair = {
        c["hardware"]: c["id"] for c in claims if c["vendor"].startswith("Worked example (issue 51")
    }
    physics = {hw: client.get(f"/api/claims/{i}/audit").json()["physics"] for hw, i in pair.items()}
    gb300, rubin = physics["GB300"], physics["RUBIN"]
    # Same claim, same model, same batch: the ceilings differ only by HBM bandwidth, 19.2 / 8.
    assert round(rubin["ceiling_tok_s_user"] / gb300["ceiling_tok_s_user"], 9) == 2.4
    assert gb300["verdict"] == "possible only with speculative decoding"
    assert rubin["verdict"] == "physically possible"


def test_vera_rubin_is_in_the_catalog_with_the_seeds_figures(
    client: TestClient, session: Session, seeded: None
) -> None:
    rubin = session.get(Hardware, "RUBIN")
    assert rubin is not None
    assert (rubin.mem_bw_tb_s, rubin.memory_gb, rubin.memory_kind) == (19.2, 288, "HBM4")
    assert rubin.fp4_tflops * 72 / 1000 == 3600  # PFLOPS NVFP4 per 72-GPU rack
    assert rubin.bf16_tflops is None and rubin.fp8_tflops is None  # not in the sources: unknown
