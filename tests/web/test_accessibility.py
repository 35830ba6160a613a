"""Every control on every page has a label, and every page names itself."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

PAGES = [
    "/", "/sweeps", "/sweeps/2", "/upload", "/compare", "/history", "/pricing", "/metrics",
    "/claims", "/claims/1", "/catalog", "/catalog?edit_hardware=H100",
    "/catalog?edit_model=llama-3.1-8b",
]  # fmt: skip


def labelled(control: Tag, page: BeautifulSoup) -> bool:
    if control.get("aria-label") or control.find_parent("label") is not None:
        return True
    control_id = control.get("id")
    return bool(control_id and page.select_one(f'label[for="{control_id}"]'))


@pytest.mark.parametrize("path", PAGES)
def test_every_control_is_labelled(client: TestClient, seeded: None, path: str) -> None:
    page = BeautifulSoup(client.get(path).text, "html.parser")
    controls = [
        c
        for c in page.select("input, select, textarea")
        if c.get("type") not in ("hidden", "submit", "button")
    ]
    assert controls or path == "/metrics"
    unlabelled = [str(c)[:80] for c in controls if not labelled(c, page)]
    assert unlabelled == []
    assert page.select_one("title").text.endswith("· Paretoscope")
    assert page.select_one("nav[aria-label=Main] a[aria-current=page]")
