"""Hostile names never become script: on every page, fragment and the offline report they stay text.

A sweep, engine and claim named to break out of a <script> block are uploaded; each page is
parsed like a browser would (BeautifulSoup's html.parser treats <script> bodies as raw text), and
must contain only our own external scripts plus JSON data blocks that JSON.parse reads back to
the exact names.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.http.security import script_hash
from app.http.templating import script_json
from app.services.seed import SEED_DIR, seed
from tests.factories import to_csv

BREAKOUT = "</script><script>window.__pwned=1;alert(1)</script>"
COMMENT = "<!--<script>window.__pwned=2</script>"
SEPARATORS = "line\u2028sep\u2029para \"dq\" 'sq' & amp"
ATTRIBUTE = '"><img src=x onerror="window.__pwned=3">'
NAMES = [BREAKOUT, COMMENT, SEPARATORS, ATTRIBUTE]
# Characters that, unescaped inside a <script> block, could end it or change how it parses.
SCRIPT_UNSAFE = ("<", ">", "&", "\u2028", "\u2029")


def hostile_csv() -> bytes:
    rows = []
    for i, name in enumerate(NAMES):
        for concurrency, tpot, tok_s in ((1, 12.0, 700.0), (8, 18.0, 4400.0), (32, 30.0, 9000.0)):
            rows.append(
                {
                    "sweep": name,
                    "hardware": "H100",
                    "num_gpus": 8,
                    "model": "llama-3.1-70b",
                    # The engine is part of History's configuration label.
                    "engine": BREAKOUT if i == 0 else "vllm",
                    "measured_at": f"2026-0{i + 1}-15",
                    "concurrency": concurrency,
                    "tpot_p50_ms": tpot,
                    "tpot_p90_ms": tpot * 1.2,
                    "ttft_p90_ms": 150,
                    "output_tok_s": tok_s * (1 + i / 10),
                }
            )
    return to_csv(rows)


@pytest.fixture
def hostile(client: TestClient, session: Session, tmp_path: Path) -> dict[str, Any]:
    """Four sweeps and one claim whose names try to become script; their ids."""
    for name in ("hardware.csv", "models.csv"):  # the catalog a claim is checked against
        shutil.copy(SEED_DIR / name, tmp_path / name)
    seed(session, tmp_path)
    session.commit()
    response = client.post(
        "/api/sweeps", files=[("files", ("hostile.csv", hostile_csv(), "text/csv"))]
    )
    assert response.status_code == 201, response.text
    sweeps = {s["name"]: s["id"] for s in response.json()["sweeps"]}
    assert sorted(sweeps) == sorted(NAMES)
    claim = client.post(
        "/api/claims",
        json={
            "vendor": BREAKOUT,
            "hardware": "H100",
            "model": "llama-3.1-70b",
            "precision": "fp8",
            "value_tok_s": 3000,
            "measures": "per_user",
            "token_basis": "output",
            "notes": COMMENT + SEPARATORS + ATTRIBUTE,
            "source_url": "javascript:window.__pwned=4",
        },
    )
    assert claim.status_code == 201, claim.text
    profile = client.post(
        "/pricing",
        data={
            "name": BREAKOUT + ATTRIBUTE,
            "kind": "rental",
            "hardware": "H100",
            "usd_per_gpu_hour": "2",
            "source": COMMENT + SEPARATORS,
        },
        follow_redirects=False,
    )
    assert profile.status_code == 303, profile.text
    return {
        "sweeps": list(sweeps.values()),
        "claim": claim.json()["id"],
        "profile": int(profile.headers["location"].rsplit("-", 1)[1]),
    }


def assert_no_script_from_data(html: str) -> list[Any]:
    """Only our own static scripts run; every inline block is JSON. Returns the parsed blocks."""
    page = BeautifulSoup(html, "html.parser")
    blocks = []
    for script in page.find_all("script"):
        if script.get("src"):
            assert str(script["src"]).startswith("/static/"), script
            continue
        assert script.get("type") == "application/json", f"inline script: {script}"
        body = script.string or ""
        assert not any(c in body for c in SCRIPT_UNSAFE), body[:200]
        blocks.append(json.loads(body))
    assert page.find("img", src="x") is None, "an attribute was broken out of"
    assert not page.find_all(attrs={"onerror": True})
    for name in NAMES:
        # Wherever a name appears as text, it is the whole name, escaped, not markup.
        assert name not in html
    return blocks


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


def texts_of(html: str) -> str:
    return BeautifulSoup(html, "html.parser").get_text()


def get_ok(client: TestClient, url: str, params: Any = None) -> str:
    response = client.get(url, params=params)
    assert response.status_code == 200, (url, response.text[:500])
    return response.text


def sweep_params(ids: list[int], **extra: Any) -> list[tuple[str, Any]]:
    return [("sweep", i) for i in ids] + list(extra.items())


def test_the_script_json_filter_escapes_everything_that_could_end_a_script_block() -> None:
    text = str(script_json({"name": BREAKOUT + COMMENT + SEPARATORS + ATTRIBUTE}))
    assert not any(c in text for c in (*SCRIPT_UNSAFE, "'"))
    assert "\\u003c/script\\u003e" in text and "\\u2028" in text and "\\u2029" in text
    assert json.loads(text) == {"name": BREAKOUT + COMMENT + SEPARATORS + ATTRIBUTE}


def test_explore_draws_hostile_sweep_names_only_as_escaped_json_and_text(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    html = get_ok(client, "/", sweep_params(hostile["sweeps"], sensitivity="tpot"))
    blocks = assert_no_script_from_data(html)
    data = BeautifulSoup(html, "html.parser").select("script[type='application/json']")
    ids = {s["id"] for s in data}
    assert {"pareto-figure", "sensitivity-figure"} <= ids
    # The chart data carries the names exactly, so the legend shows them as typed.
    assert set(NAMES) <= strings_in(blocks)
    assert BREAKOUT in texts_of(html)


def test_the_explore_fragment_for_htmx_escapes_the_names_too(
    hx_client: TestClient, hostile: dict[str, Any]
) -> None:
    html = get_ok(hx_client, "/", sweep_params(hostile["sweeps"]))
    assert set(NAMES) <= strings_in(assert_no_script_from_data(html))


def test_compare_keeps_hostile_names_in_its_json_blocks(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    params = sweep_params(hostile["sweeps"], usd_per_gpu_hour=2, sensitivity="tpot")
    html = get_ok(client, "/compare", params)
    blocks = assert_no_script_from_data(html)
    assert len(blocks) == 5  # frontier, ratio, cost, sensitivity, cost sensitivity
    assert set(NAMES) & strings_in(blocks)
    assert COMMENT in texts_of(html)


def test_history_keeps_hostile_names_and_labels_in_its_json_blocks(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    html = get_ok(client, "/history", {"usd_per_gpu_hour": 2})
    blocks = assert_no_script_from_data(html)
    assert len(blocks) == 2  # goodput and cost by date
    # Configuration labels name the engine; one engine is the breakout payload.
    assert any(BREAKOUT in s for s in strings_in(blocks))
    assert BREAKOUT in texts_of(html)


def test_each_sweep_page_and_the_list_show_hostile_names_as_text(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    for sweep_id in hostile["sweeps"]:
        html = get_ok(client, f"/sweeps/{sweep_id}")
        assert len(assert_no_script_from_data(html)) == 3  # TTFT+TPOT, E2EL and throughput
    html = get_ok(client, "/sweeps")
    assert_no_script_from_data(html)
    text = texts_of(html)
    assert all(name in text for name in NAMES)


def test_claims_pages_show_a_hostile_vendor_and_notes_as_text_and_no_javascript_link(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    for url in ("/claims", f"/claims/{hostile['claim']}", f"/claims?edit={hostile['claim']}"):
        html = get_ok(client, url)
        assert_no_script_from_data(html)
        page = BeautifulSoup(html, "html.parser")
        assert BREAKOUT in page.get_text()
        assert not page.select("a[href^='javascript']")
    audit = get_ok(client, f"/claims/{hostile['claim']}")
    assert BREAKOUT in strings_in(assert_no_script_from_data(audit))


def test_a_hostile_pricing_profile_name_stays_text_and_json_on_every_priced_view(
    client: TestClient, hostile: dict[str, Any]
) -> None:
    name = BREAKOUT + ATTRIBUTE
    html = get_ok(client, "/pricing")
    assert_no_script_from_data(html)
    assert name in texts_of(html)
    priced = sweep_params(hostile["sweeps"], pricing=hostile["profile"], sensitivity="tpot")
    for url in ("/", "/compare", "/history"):
        html = get_ok(client, url, priced)
        assert_no_script_from_data(html)
        assert name in texts_of(html), url
    for view in ("explore", "compare"):
        html = get_ok(client, "/report", [*priced, ("view", view)])
        assert name in texts_of(html), view
        for name_ in NAMES:
            assert name_ not in html


@pytest.mark.parametrize("view", ["explore", "compare"])
def test_the_offline_report_embeds_hostile_names_only_as_escaped_json(
    client: TestClient, hostile: dict[str, Any], view: str
) -> None:
    response = client.get(
        "/report", params=sweep_params(hostile["sweeps"], view=view, usd_per_gpu_hour=2)
    )
    assert response.status_code == 200
    page = BeautifulSoup(response.text, "html.parser")
    inline = [s for s in page.find_all("script") if not s.get("src")]
    code = [s for s in inline if s.get("type") != "application/json"]
    # Exactly Plotly and our scripts (static/js/*.js, joined) run, each allowed by its hash in
    # the report's own policy.
    assert len(code) == 2
    meta = page.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
    assert meta is not None
    policy = str(meta["content"])
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    for script in code:
        assert script_hash(script.string or "") in policy
    assert response.headers["content-security-policy"].startswith(policy)
    data = [s for s in inline if s.get("type") == "application/json"]
    assert data
    for script in data:
        assert not any(c in (script.string or "") for c in SCRIPT_UNSAFE)
    names = strings_in([json.loads(s.string or "") for s in data])
    assert set(NAMES) & names
    for name in NAMES:
        assert name not in response.text


def test_the_upload_preview_shows_a_hostile_file_name_as_text(hx_client: TestClient) -> None:
    response = hx_client.post(
        "/upload/preview", files=[("files", (f"{BREAKOUT}.csv", hostile_csv(), "text/csv"))]
    )
    assert response.status_code == 200, response.text
    assert_no_script_from_data(response.text)
    assert f"{BREAKOUT}.csv" in texts_of(response.text)
