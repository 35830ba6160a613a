"""Issue 47 items 1 and 2 in Chromium, at 1280×720 and on a 390 px phone: SGLang's one file per
load shows as one sweep in the preview with the choice to keep the files apart, and the same
files uploaded again come prefilled from the stored sweep and save as unchanged, untyped."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import resize
from tests.helpers import shoot
from tests.web.test_upload_grouping import SGLANG_NAME, sglang_per_load

DESKTOP = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
# Right edge of the widest of these boxes, against the screen's width.
OVERFLOW = """(sel) => Math.max(...[...document.querySelectorAll(sel)]
  .map((el) => el.getBoundingClientRect().right)) - window.innerWidth"""


def pick_files(page: Any, files: list[tuple[str, bytes]]) -> None:
    payloads = [{"name": n, "mimeType": "application/json", "buffer": d} for n, d in files]
    page.set_input_files("#upload-form input[name=files]", files=payloads)
    page.wait_for_selector("#details-form")


def settled_after(page: Any, action: Any) -> None:
    """Do `action` and wait until htmx has swapped in and settled the form it answers with."""
    page.evaluate("() => { document.querySelector('#details-form').dataset.seen = '1'; }")
    action()
    page.wait_for_function(
        "() => !document.querySelector('#details-form').dataset.seen"
        " && !document.querySelector('.htmx-settling, .htmx-swapping')"
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x720", "390"])
def test_one_file_per_load_previews_as_one_sweep_and_a_re_upload_saves_unchanged(
    page: Any, viewport: dict[str, int]
) -> None:
    resize(page, viewport)
    page.goto(page.base + "/upload")
    files = sglang_per_load()
    pick_files(page, files)
    assert page.locator("#upload-preview article.preview").count() == 1
    title = page.inner_text("#sweep-0 h2")
    assert title.startswith(SGLANG_NAME) and "5 points" in title
    joined = page.inner_text("#sweep-0 .joined-files")
    assert joined.startswith("One sweep of 5 files: llama70b/online_r1.jsonl")
    assert page.is_checked("#grouping-join") and not page.is_checked("#grouping-apart")
    assert page.evaluate(OVERFLOW, "#grouping label, #sweep-0 .joined-files") <= 0
    size = f"{viewport['width']}"
    shoot(page, f"upload-grouped-{size}")

    # Kept apart: a sweep per file; joined again: one.
    settled_after(page, lambda: page.check("#grouping-apart"))
    assert page.locator("#upload-preview article.preview").count() == 5
    settled_after(page, lambda: page.check("#grouping-join"))
    assert page.locator("#upload-preview article.preview").count() == 1

    settled_after(
        page, lambda: (page.fill("#s0-hardware", "H100"), page.press("#s0-hardware", "Tab"))
    )
    settled_after(page, lambda: (page.fill("#s0-num_gpus", "4"), page.press("#s0-num_gpus", "Tab")))
    assert page.locator("#sweep-0 .missing").count() == 0
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    assert page.locator("#saved-sweeps tbody tr").count() == 1

    # The same files again, in another order: prefilled from the stored sweep, nothing to type.
    page.goto(page.base + "/upload")
    pick_files(page, list(reversed(files)))
    assert page.input_value("#s0-hardware") == "H100"
    assert page.input_value("#s0-num_gpus") == "4"
    assert page.locator("#sweep-0 .missing").count() == 0
    assert "saving leaves it unchanged" in page.inner_text("#sweep-0 .already-stored")
    # The details grid's width on a phone is the page-state work's (issue 47, 390 px).
    assert page.evaluate(OVERFLOW, "#sweep-0 .already-stored") <= 0
    shoot(page, f"upload-reupload-{size}")
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    summary = page.inner_text("#upload-summary")
    assert "1 sweep already stored (unchanged)" in summary, summary
    assert page.problems == []
