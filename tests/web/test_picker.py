"""The Explore series picker at scale: search, groups, the stated cap with dropped sweeps named,
the frontier leaders, and 10,000 stored sweeps searched rather than listed (SQLite and Postgres)."""

from __future__ import annotations

import re

import polars as pl
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import insert
from sqlalchemy.orm import Session

from app.services import picker as series_picker
from app.store.models import PointBlock, Sweep
from app.store.point_blocks import encode_frame
from app.store.sweep_search import SweepFilters
from bench.picker import sweep_rows
from tests.helpers import soup, upload_by_name

# x = 1000 / p50 TPOT (tok/s/user), y = output tok/s / GPUs. lead-a's points are (100, 100),
# (50, 300), (20, 500); lead-b's (40, 450) sits between them on the joint frontier; behind's
# (50, 200) and (80, 60) are dominated; fast-mistral (200, 1000) beats every Llama point.
LEADERS_CSV = (
    b"sweep,hardware,num_gpus,model,engine,concurrency,tpot_p50_ms,output_tok_s,tpot_p90_ms\n"
    b"lead-a,H100,8,llama-3.1-70b,vllm,1,10,800,\n"
    b"lead-a,H100,8,llama-3.1-70b,vllm,8,20,2400,\n"
    b"lead-a,H100,8,llama-3.1-70b,vllm,32,50,4000,\n"
    b"lead-b,H200,8,llama-3.1-70b,sglang,16,25,3600,\n"
    b"behind,H100,8,llama-3.1-70b,vllm,8,20,1600,\n"
    b"behind,H100,8,llama-3.1-70b,vllm,1,12.5,480,\n"
    b"fast-mistral,B200,1,mistral-7b,vllm,4,5,1000,\n"
    b"no-tpot,H100,8,llama-3.1-70b,vllm,4,,900,30\n"
)


def many_series_csv(n: int) -> bytes:
    rows = [b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s"]
    rows += [
        f"series-{i:02d},H100,8,llama-3.1-70b,4,{10 + i},{1000 + i}".encode() for i in range(n)
    ]
    return b"\n".join(rows) + b"\n"


def picker_names(page: BeautifulSoup) -> list[str]:
    return [name.text for name in page.select("#picker-list .sweep-name")]


def checked(page: BeautifulSoup) -> list[int]:
    return [int(i["value"]) for i in page.select("#picker-list input[name=sweep][checked]")]


# --- the frontier leaders -----------------------------------------------------------------


def test_the_frontier_leaders_are_the_sweeps_owning_the_joint_frontier(
    client: TestClient, session: Session
) -> None:
    ids = upload_by_name(client, ("sweeps.csv", LEADERS_CSV))
    llama = SweepFilters(model="llama-3.1-70b")
    found = series_picker.leaders(session, llama, "p50", "output")
    assert found.chosen == [ids["lead-a"], ids["lead-b"]]
    assert found.frontier_points == {ids["lead-a"]: 3, ids["lead-b"]: 1}
    assert not found.truncated
    # Unfiltered, two models match: the leaders rank within one, never across models (the
    # Mistral point would dominate every Llama point), so the user chooses which.
    unfiltered = series_picker.leaders(session, SweepFilters(), "p50", "output")
    assert (unfiltered.chosen, unfiltered.needs_group) == ([], True)
    assert [(g.label, g.sweeps) for g in unfiltered.groups] == [
        ("llama-3.1-70b", 4),
        ("mistral-7b", 1),
    ]
    mistral = series_picker.leaders(
        session, SweepFilters(), "p50", "output", group=unfiltered.groups[1].key
    )
    assert mistral.chosen == [ids["fast-mistral"]]
    capped = series_picker.leaders(session, llama, "p50", "output", cap=1)
    assert (capped.chosen, capped.dropped) == ([ids["lead-a"]], [ids["lead-b"]])
    # The search text narrows the set too: only the H200 sweep matches "h200".
    h200 = SweepFilters(model="llama-3.1-70b", q="h200")
    assert series_picker.leaders(session, h200, "p50", "output").chosen == [ids["lead-b"]]


def test_the_kept_points_follow_every_stored_edited_and_deleted_sweep(
    client: TestClient, session: Session
) -> None:
    """The leaders rank a frame of every stored point kept under the sweeps token: a new
    sweep, a GPU count edited and a sweep deleted each show on the next ask."""
    ids = upload_by_name(client, ("sweeps.csv", LEADERS_CSV))
    llama = SweepFilters(model="llama-3.1-70b")
    assert series_picker.leaders(session, llama, "p50", "output").chosen == [
        ids["lead-a"], ids["lead-b"]
    ]  # fmt: skip
    newcomer = (
        b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n"
        b"newcomer,H100,8,llama-3.1-70b,4,5,40000\n"
    )
    more = upload_by_name(client, ("sweeps.csv", newcomer))
    session.rollback()  # a new transaction: the new token
    assert series_picker.leaders(session, llama, "p50", "output").chosen == [more["newcomer"]]
    # 40,000 tok/s on 8,000 GPUs is 5 per GPU: it dominates no one now, so the others return.
    assert client.patch(f"/api/sweeps/{more['newcomer']}", json={"num_gpus": 8000}).is_success
    session.rollback()
    chosen = series_picker.leaders(session, llama, "p50", "output").chosen
    assert more["newcomer"] in chosen and ids["lead-a"] in chosen
    assert client.delete(f"/api/sweeps/{more['newcomer']}").is_success
    session.rollback()
    assert series_picker.leaders(session, llama, "p50", "output").chosen == [
        ids["lead-a"], ids["lead-b"]
    ]  # fmt: skip


def test_a_point_limit_says_the_frontier_read_was_cut(client: TestClient, session: Session) -> None:
    ids = upload_by_name(client, ("sweeps.csv", LEADERS_CSV))
    llama = SweepFilters(model="llama-3.1-70b")
    # Four Llama points are frontier candidates; a limit of 3 reads lead-a's three only.
    found = series_picker.leaders(session, llama, "p50", "output", point_limit=3)
    assert found.truncated
    assert found.chosen == [ids["lead-a"]]
    whole = series_picker.leaders(session, llama, "p50", "output", point_limit=4)
    assert not whole.truncated
    assert whole.chosen == [ids["lead-a"], ids["lead-b"]]


def test_selecting_the_leaders_replaces_the_selection_and_the_url_keeps_only_the_ids(
    hx_client: TestClient,
) -> None:
    ids = upload_by_name(hx_client, ("sweeps.csv", LEADERS_CSV))
    params = {
        "picked": 1,
        "model": "llama-3.1-70b",
        "sweep": [ids["behind"]],
        "select": "leaders",
        "preset": "custom",
    }
    response = hx_client.get("/", params=params)
    page = soup(response.text)
    assert checked(page) == [ids["lead-a"], ids["lead-b"]]
    rows = [int(tr["data-sweep"]) for tr in page.select("#readoff-table tbody tr")]
    assert rows == [ids["lead-a"], ids["lead-b"]]
    assert "Selected the 2 frontier leaders" in page.select_one("#leaders-note").text
    pushed = response.headers["HX-Push-Url"]
    assert f"sweep={ids['lead-a']}&sweep={ids['lead-b']}" in pushed
    assert "select=" not in pushed
    api = hx_client.get("/api/explore", params=params).json()
    assert api["selected"] == [ids["lead-a"], ids["lead-b"]]
    assert api["leaders"]["frontier_points"] == {str(ids["lead-a"]): 3, str(ids["lead-b"]): 1}


def test_leaders_beyond_the_cap_are_named_as_not_drawn(client: TestClient) -> None:
    # 21 sweeps, each one point on a falling line: every one is on the joint frontier.
    rows = [b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s"]
    rows += [f"line-{i:02d},H100,1,m,1,{40 - i},{1000 - i}".encode() for i in range(21)]
    ids = upload_by_name(client, ("sweeps.csv", b"\n".join(rows) + b"\n"))
    api = client.get("/api/explore", params={"picked": 1, "select": "leaders"}).json()
    # Every sweep owns one point: the higher throughput wins the tie, so line-20 is cut.
    assert api["selected"] == [ids[f"line-{i:02d}"] for i in range(20)]
    assert api["dropped"] == [{"id": ids["line-20"], "name": "line-20"}]
    page = soup(client.get("/", params={"picked": 1, "select": "leaders"}).text)
    note = page.select_one("#series-dropped")
    assert "more sweeps own frontier points than the 20 series drawn at once" in note.text
    assert [li.contents[0].strip() for li in note.select("li")] == ["line-20"]


def test_no_frontier_says_why(client: TestClient) -> None:
    upload_by_name(
        client,
        (
            "sweeps.csv",
            b"sweep,hardware,num_gpus,concurrency,tpot_p90_ms,output_tok_s\nno-p50,H100,8,4,9,900\n",
        ),
    )
    page = soup(client.get("/", params={"picked": 1, "select": "leaders"}).text)
    note = page.select_one("#leaders-note").text
    assert "No frontier: no filtered sweep has a point with both p50 TPOT and output" in note
    assert checked(page) == []


# --- the cap ------------------------------------------------------------------------------


def test_the_cap_is_stated_and_a_21st_sweep_in_the_url_is_named_as_dropped(
    client: TestClient,
) -> None:
    ids = upload_by_name(client, ("sweeps.csv", many_series_csv(21)))
    order = [ids[f"series-{i:02d}"] for i in range(21)]
    params = {"picked": 1, "preset": "custom", "sweep": [order[0], *order]}  # a repeat counts once
    page = soup(client.get("/", params=params).text)
    assert "up to 20 series" in page.select_one("#picker legend").text
    assert checked(page) == order[:20]
    assert len(page.select("#readoff-table tbody tr")) == 20
    dropped = page.select_one("#series-dropped")
    assert "1 sweep not drawn: only 20 series are drawn at once" in dropped.text
    assert [li["data-sweep"] for li in dropped.select("li")] == [str(order[20])]
    assert "series-20" in dropped.text
    # The dropped sweep stays in the picker, unticked, to swap for another.
    assert f"s-{order[20]}" in [i["id"] for i in page.select("#picker-list input:not([checked])")]
    api = client.get("/api/explore", params=params).json()
    assert api["selected"] == order[:20]
    assert api["max_series"] == 20
    assert api["dropped"] == [{"id": order[20], "name": "series-20"}]
    twin = client.get("/api/explore/picker", params=params).json()
    assert twin["dropped"] == api["dropped"]


def test_a_url_naming_more_than_a_thousand_sweeps_is_a_clear_error(client: TestClient) -> None:
    response = client.get("/api/explore", params={"sweep": list(range(1, 1002))})
    assert response.status_code == 422
    assert "sweep" in response.text


# --- search and groups --------------------------------------------------------------------


def test_matches_are_grouped_by_model_then_hardware_after_the_selected(client: TestClient) -> None:
    ids = upload_by_name(client, ("sweeps.csv", LEADERS_CSV))
    page = soup(client.get("/", params={"picked": 1, "sweep": ids["behind"]}).text)
    groups = [
        (g["data-group"], [name.text for name in g.select(".sweep-name")])
        for g in page.select("#picker-list .picker-group")
    ]
    assert groups == [
        ("selected", ["behind"]),
        ("llama-3.1-70b · H100", ["no-tpot", "lead-a"]),
        ("llama-3.1-70b · H200", ["lead-b"]),
        ("mistral-7b · B200", ["fast-mistral"]),
    ]
    assert page.select_one("#picker-count").text == "5 matching sweeps."


def test_the_search_fragment_narrows_the_list_and_keeps_the_selected(
    hx_client: TestClient,
) -> None:
    ids = upload_by_name(hx_client, ("sweeps.csv", LEADERS_CSV))
    params = {"picked": 1, "sweep": ids["fast-mistral"], "q": "h100 VLLM"}
    response = hx_client.get("/explore/picker", params=params)
    assert response.status_code == 200
    assert "<html" not in response.text
    page = soup(response.text)
    assert page.select_one("#picker-list") is not None
    assert page.select_one("#explore-form") is None
    assert checked(page) == [ids["fast-mistral"]]  # kept though it does not match
    assert picker_names(page) == ["fast-mistral", "no-tpot", "behind", "lead-a"]
    twin = hx_client.get("/api/explore/picker", params=params).json()
    assert [s["name"] for g in twin["picker"]["groups"] for s in g["sweeps"]] == [
        "no-tpot",
        "behind",
        "lead-a",
    ]
    assert twin["picker"]["total"] == 3  # the three H100 vLLM sweeps; the selected B200 is not one
    assert twin["query"].endswith("q=h100+VLLM") or "q=h100+VLLM" in twin["query"]


def test_search_wildcards_are_literal_and_no_match_says_so(hx_client: TestClient) -> None:
    upload_by_name(hx_client, ("sweeps.csv", LEADERS_CSV))
    page = soup(hx_client.get("/explore/picker", params={"picked": 1, "q": "lead_%"}).text)
    assert picker_names(page) == []
    assert page.select_one("#picker-count").text == "No sweep matches “lead_%” and these filters."


def test_the_sweeps_api_searches_the_same_fields_and_bounds_the_limit(client: TestClient) -> None:
    upload_by_name(client, ("sweeps.csv", LEADERS_CSV))
    body = client.get("/api/sweeps", params={"q": "sglang h200", "limit": 1}).json()
    assert [s["name"] for s in body["sweeps"]] == ["lead-b"]
    assert (body["total"], body["per_page"]) == (1, 1)
    assert client.get("/api/sweeps", params={"q": "llama", "limit": 2}).json()["total"] == 4
    for bad in (0, 501):
        response = client.get("/api/sweeps", params={"limit": bad})
        assert response.status_code == 422
        assert "limit" in response.text


# --- 10,000 stored sweeps -----------------------------------------------------------------


def insert_many(session: Session, n: int) -> None:
    """`n` sweeps in one bulk INSERT (the picker bench's rows); the first two get a point each."""
    session.execute(insert(Sweep), sweep_rows(n))
    points = pl.DataFrame(
        {
            "sweep_id": [1, 2],
            "position": [0, 0],
            "extra": ["{}", "{}"],
            "tpot_p50_ms": [20.0, 10.0],
            "output_tok_s": [800.0, 400.0],
        }
    )
    session.execute(
        insert(PointBlock),
        [{"sweep_id": s, "points": n, "data": d} for s, n, d in encode_frame(points)],
    )
    session.commit()


@pytest.fixture
def ten_thousand(session: Session) -> None:
    insert_many(session, 10_000)


def test_with_ten_thousand_sweeps_the_page_lists_fifty_and_says_how_many_match(
    client: TestClient, ten_thousand: None
) -> None:
    page = soup(client.get("/", params={"picked": 1, "sweep": [3, 2]}).text)
    boxes = page.select("#explore-form input[name=sweep]")
    assert len(boxes) == 52  # the two selected, then the newest 50 of the rest
    assert checked(page) == [3, 2]
    listed = sorted(int(b["value"]) for b in boxes[2:])
    assert listed == list(range(9951, 10_001))
    count = page.select_one("#picker-count").text
    assert count == "Showing 50 of 9,998 other matching sweeps — search to narrow."
    none = soup(client.get("/", params={"picked": 1}).text)
    assert len(none.select("#explore-form input[name=sweep]")) == 50
    text = none.select_one("#picker-count").text
    assert text == "Showing 50 of 10,000 matching sweeps — search to narrow."
    first_visit = soup(client.get("/").text)
    assert len(first_visit.select("#explore-form input[name=sweep]")) <= 50 + 8
    assert "search to narrow" in first_visit.select_one("#picker-count").text


def test_with_ten_thousand_sweeps_a_search_finds_one_and_a_filter_counts_exactly(
    hx_client: TestClient, ten_thousand: None
) -> None:
    one = soup(hx_client.get("/explore/picker", params={"picked": 1, "q": "bulk-09999"}).text)
    assert picker_names(one) == ["bulk-09999"]
    assert one.select_one("#picker-count").text == "1 matching sweep."
    # Every 20th sweep is qwen3-32b on H100 (i % 5 == 2 and i % 4 == 2): 500 of them.
    grouped = soup(hx_client.get("/explore/picker", params={"picked": 1, "q": "qwen3 h100"}).text)
    assert [g["data-group"] for g in grouped.select(".picker-group")] == ["qwen3-32b · H100"]
    assert len(picker_names(grouped)) == 50
    text = grouped.select_one("#picker-count").text
    assert text == "Showing 50 of 500 matching sweeps — search to narrow."
    api = hx_client.get("/api/sweeps", params={"model": "qwen3-32b", "q": "h100", "limit": 5})
    assert api.json()["total"] == 500
    assert len(api.json()["sweeps"]) == 5


def test_with_ten_thousand_sweeps_the_leaders_come_from_the_whole_filtered_set(
    client: TestClient, session: Session, ten_thousand: None
) -> None:
    # Sweep 1 (llama-3.1-8b): (50 tok/s/user, 100 tok/s/GPU); sweep 2 (qwen3-32b): (100, 50).
    # Five models match, 2,000 sweeps each: the leaders rank within the one chosen.
    found = series_picker.leaders(session, SweepFilters(), "p50", "output")
    assert (found.chosen, found.needs_group) == ([], True)
    assert [(g.label, g.sweeps) for g in found.groups] == [
        ("deepseek-r1", 2000),
        ("llama-3.1-70b", 2000),
        ("llama-3.1-8b", 2000),
        ("mistral-7b", 2000),
        ("qwen3-32b", 2000),
    ]
    llama = found.groups[2].key
    assert series_picker.leaders(session, SweepFilters(), "p50", "output", group=llama).chosen == [
        1
    ]
    params = {"picked": 1, "select": "leaders", "leaders_group": found.groups[4].key}
    api = client.get("/api/explore", params=params).json()
    assert api["selected"] == [2]
    assert api["leaders"]["group"]["label"] == "qwen3-32b"
    assert re.search(r"sweep=2&", api["query"]) and "leaders_group" not in api["query"]


def test_compare_and_plan_name_the_sweeps_beyond_the_cap_too(client: TestClient) -> None:
    ids = upload_by_name(client, ("sweeps.csv", many_series_csv(21)))
    order = [ids[f"series-{i:02d}"] for i in range(21)]
    params = {"picked": 1, "preset": "custom", "sweep": order}
    for path in ("/compare", "/plan"):
        page = soup(client.get(path, params=params).text)
        names = [li["data-sweep"] for li in page.select("#series-dropped li")]
        assert names == [str(order[20])], path
    api = client.get("/api/compare", params=params).json()
    assert api["dropped"] == [{"id": order[20], "name": "series-20"}]
