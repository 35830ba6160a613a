"""A sweep's notes in Chromium: each line of them (a user's lines, an import's warnings, which
storing appends one per line) stays a line of its own on the sweep page, at laptop and phone
widths, instead of running into the next."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

POINTS = (
    "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    "notes-in-lines,H100,8,1,10,1000\n"
    "notes-in-lines,H100,8,2,11,1900\n"
)
NOTES = "Rerun after the driver update.\npoint at concurrency 8: its samples give more tok/s"


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 720}, {"width": 390, "height": 844}]
)
def test_each_line_of_a_sweeps_notes_is_a_line_of_its_own_on_its_page(
    page: Any, viewport: dict[str, int]
) -> None:
    answer = httpx.post(
        page.base + "/api/sweeps", files=[("files", ("p.csv", POINTS.encode()))], timeout=60
    )
    assert answer.status_code in (200, 201), answer.text
    sweep_id = answer.json()["sweeps"][0]["id"]
    edited = httpx.patch(f"{page.base}/api/sweeps/{sweep_id}", json={"notes": NOTES}, timeout=60)
    assert edited.status_code == 200, edited.text
    page.set_viewport_size(viewport)
    page.goto(f"{page.base}/sweeps/{sweep_id}")
    shown = page.locator("p.notes").filter(has_text="driver update")
    # innerText is the text as laid out: a line break the page drops reads as a space.
    assert shown.evaluate("e => e.innerText") == NOTES
    assert page.problems == []
