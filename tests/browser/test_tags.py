"""Tags on the sweep page in Chromium: added and removed in place by htmx, no full reload."""

from __future__ import annotations

from typing import Any


def tag_chips(page: Any) -> list[str]:
    return [c.get_attribute("data-tag") for c in page.locator("#sweep-tags [data-tag]").all()]


def test_a_tag_is_added_and_removed_on_the_sweep_page_without_a_reload(page: Any) -> None:
    page.goto(page.base + "/sweeps/1")
    page.evaluate("window.__marker = 'same page'")
    page.fill("#sweep-tags input[name=tag]", "browser:nightly")
    page.click("#sweep-tags button:has-text('Add tag')")
    page.wait_for_selector("#sweep-tags [data-tag='browser:nightly']")
    page.fill("#sweep-tags input[name=tag]", "two words")
    page.click("#sweep-tags button:has-text('Add tag')")
    page.wait_for_selector("#tag-error")
    assert "may hold only letters" in page.inner_text("#tag-error")
    assert "browser:nightly" in tag_chips(page)
    page.click("#sweep-tags button[aria-label='Remove tag browser:nightly']")
    page.wait_for_selector("#sweep-tags [data-tag='browser:nightly']", state="detached")
    assert page.evaluate("window.__marker") == "same page"
    # A 422 answer is swapped in on purpose; the browser still logs it as a failed resource.
    assert [p for p in page.problems if "422" not in p] == []
