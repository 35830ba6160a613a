"""Page structure behind the layout (issue 13): the SLO and price controls come first in every
sidebar, filters fold away unless set, every field keeps its name, and Explore's read-off sits
in its own full-width section. How it looks in a browser is in tests/browser/test_layout.py."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

# Every field Explore's form sends (those before the sidebar was reordered, the interval level and
# the picker's search box): links and tests rely on them.
EXPLORE_FIELDS = {
    "ci_level", "q",
    "picked", "applied_preset", "preset", "ttft_ms", "tpot_ms", "min_tok_s_user", "e2el_ms",
    "ttft_percentile", "tpot_percentile", "e2el_percentile", "mode", "percentile", "attainment",
    "interpolation", "sensitivity", "price_set", "pricing", "usd_per_gpu_hour", "sweep", "model",
    "hardware", "engine", "precision", "source_kind", "isl", "osl", "stat", "basis", "logx",
    "logy", "frontier_only", "bands", "roofline_model", "roofline_precision", "roofline_ctx",
    "claims", "leaders_demo", "accounting", "spec_decode",
    "usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output", "interactivity",
}  # fmt: skip


def form_of(client: TestClient, path: str, form_id: str) -> Tag:
    page = BeautifulSoup(client.get(path).text, "html.parser")
    form = page.select_one(f"form#{form_id}")
    assert form is not None
    return form


def order(form: Tag, *selectors: str) -> list[int]:
    """Each selector's first match, as its position among the form's visible controls."""
    controls = [c for c in form.select("input, select, textarea") if c.get("type") != "hidden"]
    return [controls.index(form.select_one(s)) for s in selectors]


def test_explore_lists_the_slo_then_prices_then_series_then_filters_and_axes(
    client: TestClient, seeded: None
) -> None:
    form = form_of(client, "/", "explore-form")
    positions = order(
        form, "#slo-preset", "#slo-ttft", "#slo-tpot", "#p-set", "#p-inline",
        "input[name=sweep]", "#f-model", "#a-stat", "#r-model",
    )  # fmt: skip
    assert positions == sorted(positions)
    named = {c["name"] for c in form.select("input[name], select[name], textarea[name]")}
    assert named == EXPLORE_FIELDS


def test_filters_fold_closed_until_one_is_set(client: TestClient, seeded: None) -> None:
    closed = form_of(client, "/", "explore-form").select_one("details#filters")
    assert closed is not None and not closed.has_attr("open")
    assert closed.select_one("#f-model") is not None
    assert "none set" in closed.summary.text

    opened = form_of(client, "/?hardware=H100&isl=1024", "explore-form")
    fold = opened.select_one("details#filters")
    assert fold is not None and fold.has_attr("open")
    assert "2 set: hardware, isl" in fold.summary.text

    history = form_of(client, "/history", "explore-form").select_one("details#filters")
    assert history is not None and not history.has_attr("open")
    assert history.select_one("#h-hardware") is not None


def test_the_rarer_slo_settings_fold_but_say_what_they_are(
    client: TestClient, seeded: None
) -> None:
    fold = form_of(client, "/", "explore-form").select_one("details#slo-more")
    assert fold is not None and not fold.has_attr("open")
    summary = " ".join(fold.summary.text.split())
    assert summary == "More (percentile mode · p99, no E2EL limit)"  # the chat preset
    assert fold.select_one("#slo-interp") is not None
    # No E2EL limit: its field waits under "More"; with one, it sits beside TTFT and TPOT.
    assert fold.select_one("#slo-e2el") is not None
    e2el = form_of(client, "/?picked=1&preset=custom&e2el_ms=9000", "explore-form")
    more = e2el.select_one("details#slo-more")
    assert more is not None and more.select_one("#slo-e2el") is None
    assert e2el.select_one("fieldset.slo-fields > .pair #slo-e2el")["value"] == "9000"  # type: ignore[index]

    # A TPOT limit given as a speed is a limit in force: its field is shown, not folded away.
    speed = form_of(client, "/?picked=1&preset=custom&min_tok_s_user=20", "explore-form")
    fold = speed.select_one("details#slo-more")
    assert fold is not None and fold.has_attr("open")
    assert "≥ 20 tok/s/user" in fold.summary.text
    per_request = form_of(client, "/?mode=requests", "explore-form").select_one("#slo-more")
    assert per_request is not None and per_request.has_attr("open")


@pytest.mark.parametrize(
    ("path", "form_id", "before"),
    [
        ("/history", "explore-form", "#h-hardware"),
        ("/compare", "explore-form", "input[name=sweep]"),
        ("/plan", "plan-form", "input[name=sweep]"),
    ],
)
def test_every_sidebar_puts_the_slo_and_prices_before_its_other_controls(
    client: TestClient, seeded: None, path: str, form_id: str, before: str
) -> None:
    form = form_of(client, path, form_id)
    positions = order(form, "#slo-preset", "#slo-ttft", "#p-set", "#p-inline", before)
    assert positions == sorted(positions)


def test_plan_asks_for_demand_first_and_folds_peak_and_headroom_until_set(
    client: TestClient, seeded: None
) -> None:
    form = form_of(client, "/plan", "plan-form")
    assert order(form, "#d-value", "#d-peak", "#slo-preset") == [0, 2, 4]
    fold = form.select_one("details#demand-more")
    assert fold is not None and not fold.has_attr("open")
    shaped = form_of(client, "/plan?peak_to_average=2&headroom=0.2", "plan-form")
    fold = shaped.select_one("details#demand-more")
    assert fold is not None and fold.has_attr("open")
    assert "20 % free" in fold.summary.text


def test_explores_readoff_sits_in_its_own_section_below_the_chart(
    client: TestClient, seeded: None
) -> None:
    page = BeautifulSoup(client.get("/").text, "html.parser")
    view = page.select_one("#explore")
    assert view is not None and "with-answer" in view["class"]
    answer = view.select_one(":scope > section.answer")
    assert answer is not None
    assert answer.select_one("#readoff-table") is not None
    assert answer.select_one("#sensitivity") is not None
    assert view.select_one(":scope > section.results #pareto-chart") is not None

    empty = BeautifulSoup(client.get("/?picked=1").text, "html.parser").select_one("#explore")
    assert empty is not None and "with-answer" not in empty["class"]
    assert empty.select_one("section.answer") is None
    assert empty.select_one(".results .empty") is not None
