"""A claim's verdict in Chromium at 1280×720 and 390 px: the sentence as the JSON twin says it,
the sweeps of the claim's architecture marked (other hardware, another model of it), nothing
scrolling sideways."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.test_layout import LAPTOP, PHONE, settle, sideways
from tests.helpers import shoot
from tests.web.test_claim_verdict import CLAIM, SWEEPS


def test_the_claim_page_says_whether_the_claim_holds_on_a_laptop_and_a_phone(
    server: str, new_page: Any
) -> None:
    # Sweeps named apart from the shared server's other tests (and its demo sweeps).
    body = SWEEPS.replace(b"-h100,", b"-h100-verdict,").replace(b"-a100,", b"-a100-verdict,")
    uploaded = httpx.post(server + "/api/sweeps", files=[("files", ("verdict.csv", body))])
    assert uploaded.status_code == 201, uploaded.text
    # A claim at 120 tok/s/user: only these sweeps' Llama 3.3 70B point at 100 comes near.
    claim = httpx.post(server + "/api/claims", json=CLAIM | {"interactivity_tok_s_user": 120})
    assert claim.status_code == 201, claim.text
    claim_id = claim.json()["id"]
    twin = httpx.get(f"{server}/api/claims/{claim_id}/audit", timeout=30).json()["verdict"]
    assert twin["state"] in ("holds", "does_not_hold", "cannot_say")
    names = {s["name"] for s in twin["sweeps"]}
    assert {"llama33-h100-verdict", "llama31-h100-verdict", "llama33-a100-verdict"} <= names
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        page = new_page(viewport)
        page.goto(f"{server}/claims/{claim_id}")
        settle(page)
        assert sideways(page) == 0, name
        sentence = page.locator("#claim-verdict-sentence")
        assert sentence.is_visible()
        assert (sentence.text_content() or "").strip() == twin["sentence"]
        other = page.locator("#verdict-sweeps tr.other-hardware", has_text="llama33-a100-verdict")
        assert other.count() == 1 and "other hardware" in (other.text_content() or "")
        # The verdict comes first: above the physics section, in view without scrolling far.
        verdict_top = page.locator("#claim-verdict").bounding_box()["y"]
        assert verdict_top < page.locator("#physics").bounding_box()["y"]
        shoot(page, f"claim-verdict-{name}")
        assert page.problems == [], name
