"""The answer strip prices with the user's own $/GPU-hour when one is given (issue 47 item 4):
a price set that has no A100 price no longer hides the price the user typed."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.numbers import fmt_usd
from app.store.models import PricingProfile
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import soup
from tests.web.test_own_prices import (
    LLMPERF,
    NO_A100,
    PRICE_SET,
    SET_LABEL,
    SLO,
    priced,
    upload_a100,
)
from tests.web.test_readoff_api import O11

__all__ = ["priced"]  # the fixture, used by name


@pytest.mark.usefixtures("priced")
def test_the_strip_uses_your_own_price_for_the_a100_the_price_set_does_not_price(
    client: TestClient,
) -> None:
    [h100] = [s["id"] for s in post_files(client, ("o11.csv", O11)).json()["sweeps"]]
    a100 = upload_a100(client)
    view = {"sweep": [h100, a100], "picked": 1, "preset": "custom", "price_set": PRICE_SET}
    params = {**view, **SLO, "usd_per_gpu_hour": 1.8}
    page = soup(client.get("/", params=params).text)
    twin = client.get("/api/explore", params=params).json()
    goodput = {r["sweep_id"]: r["goodput_tok_s_per_gpu"] for r in twin["results"]}
    strip = {int(tr["data-sweep"]): tr for tr in page.select("#answer-strip tbody tr")}
    note = page.select_one("#answer-strip .strip-note")
    assert note is not None and "$/Mtok at $1.8/GPU-hour" in note.get_text()
    # Both rows at the user's $1.8: O11's 6,000 tok/s/GPU and the A100's own goodput.
    assert goodput[h100] == 6000
    assert strip[h100].select_one("td.cost .value").get_text() == fmt_usd(1.8e6 / (3600 * 6000))
    a100_cost = strip[a100].select_one("td.cost .value").get_text()
    assert a100_cost == fmt_usd(1.8e6 / (3600 * goodput[a100]))
    assert NO_A100 not in strip[a100].get_text()


@pytest.mark.usefixtures("priced")
def test_without_your_own_price_the_strip_reads_the_price_set_and_says_what_is_missing(
    client: TestClient,
) -> None:
    a100 = upload_a100(client)
    params = {"sweep": [a100], "picked": 1, "preset": "custom", "price_set": PRICE_SET, **SLO}
    page = soup(client.get("/", params=params).text)
    note = page.select_one("#answer-strip .strip-note")
    assert note is not None and f"$/Mtok at {SET_LABEL}" in note.get_text()
    [row] = page.select("#answer-strip tbody tr")
    assert row.select_one("td.cost .cost-reason").get_text() == NO_A100


@pytest.mark.usefixtures("priced")
def test_a_gpu_without_a_price_is_said_once_under_the_table_not_in_every_cell(
    client: TestClient, session: Session
) -> None:
    first, second = upload_a100(client), upload_a100_again(client)
    view = {"sweep": [first, second], "picked": 1, "preset": "custom", **SLO}
    own = session.query(PricingProfile).filter_by(key="own-example-h100").one()
    params = {**view, "price_set": PRICE_SET, "pricing": [own.id]}
    page = soup(client.get("/", params=params).text)
    cells = page.select("#readoff-table td.cost")
    assert [c.get_text() for c in cells] == ["–1", "–2", "–1", "–2"]
    notes = [li.get_text() for li in page.select("#cost-notes li")]
    assert notes == [
        NO_A100,
        "no A100 price in this profile (it prices H100): enter $/GPU-hour",
    ]
    table = page.select_one("#readoff")
    assert table is not None and table.get_text().count(NO_A100) == 1


def upload_a100_again(client: TestClient) -> int:
    """A second A100 sweep: the same LLMPerf run stored on 8 GPUs."""
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in LLMPERF]
    response = post_files(client, *files, hardware="A100", num_gpus=8)
    assert response.status_code == 201, response.text
    [sweep] = response.json()["sweeps"]
    return int(sweep["id"])
