"""Like with like on the seeded sweeps: the frontier leaders leave out demo and mock-server sweeps
and rank within one model and workload; Compare and Plan (pages, JSON twins, CLI) list every
difference between the systems compared."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tests.helpers import soup

# Seeded ids (seed_data/sweeps, files in name order): 2-7 are the demo Llama 3.1 70B sweeps
# (2: 8×H100 FP8, 3: 8×H200 FP8, 7: 4×H100 BF16), 9 the guidellm mock server, 10 Llama-3-8B.
DEMO = [2, 3, 4, 5, 6, 7]
MOCK = 9
SEEDED_GROUPS = [
    ("llama-2-70b · llmperf-sonnet · 550/150", 2),
    ("qwen2.5-coder-7b · burstgpt", 2),
    ("gpt-oss-120b · random · 1024/1024", 1),
    ("gpt-oss-20b · synthetic · 150/300", 1),
    ("gpt-oss-20b · synthetic · 200/300", 1),
    ("kimi-k2.5 · random · 8192/1024", 1),
    ("llama-3-8b · shared-prefix · 192/64", 1),
]


def words(tag: object) -> str:
    return " ".join(getattr(tag, "text", "").split())


@pytest.mark.usefixtures("seeded")
def test_the_leaders_leave_out_demo_and_mock_sweeps_and_ask_for_one_model_and_workload(
    client: TestClient,
) -> None:
    params = {"picked": 1, "preset": "custom", "sweep": [10], "select": "leaders"}
    api = client.get("/api/explore", params=params).json()
    leaders = api["leaders"]
    # Several models and workloads match: nothing is crowned, the selection stays.
    assert (leaders["needs_group"], leaders["chosen"], api["selected"]) == (True, [], [10])
    assert [(g["label"], g["sweeps"]) for g in leaders["groups"]] == SEEDED_GROUPS
    assert [s["id"] for s in leaders["excluded"]] == [*DEMO, MOCK]
    page = soup(client.get("/", params=params).text)
    note = page.select_one("#leaders-note")
    assert note is not None
    assert words(note.select_one("p")).startswith(
        "The filtered sweeps serve 7 models or workloads; the leaders are ranked within one, "
        "never across models."
    )
    buttons = note.select("button.leader-group")
    assert [b["data-group"] for b in buttons] == [label for label, _ in SEEDED_GROUPS]
    assert json.loads(buttons[1]["hx-vals"]) == {
        "select": "leaders",
        "leaders_group": leaders["groups"][1]["key"],
    }
    excluded = note.select_one(".leaders-excluded")
    assert words(excluded).startswith("Left out 7 demo (synthetic) or mock-server sweeps: Demo ·")
    assert [int(s["data-sweep"]) for s in excluded.select("span")] == [*DEMO, MOCK]
    # Choosing the BurstGPT group ranks its two sweeps only.
    chosen = client.get(
        "/api/explore", params={**params, "leaders_group": leaders["groups"][1]["key"]}
    ).json()
    assert chosen["leaders"]["group"]["label"] == "qwen2.5-coder-7b · burstgpt"
    assert set(chosen["selected"]) <= {15, 16} and chosen["selected"]
    assert chosen["leaders"]["needs_group"] is False


@pytest.mark.usefixtures("seeded")
def test_demo_sweeps_are_ranked_only_when_asked(client: TestClient) -> None:
    params = {"picked": 1, "preset": "custom", "model": "llama-3.1-70b", "select": "leaders"}
    api = client.get("/api/explore", params=params).json()
    assert (api["leaders"]["chosen"], api["leaders"]["groups"]) == ([], [])
    assert [s["id"] for s in api["leaders"]["excluded"]] == DEMO
    note = soup(client.get("/", params=params).text).select_one("#leaders-note")
    assert words(note.select_one("p")) == (
        "No frontier: every filtered sweep is demo (synthetic) data or a mock server; tick "
        "“include demo and mock-server sweeps” to rank them."
    )
    asked = client.get("/api/explore", params={**params, "leaders_demo": "true"}).json()
    assert asked["leaders"]["group"]["label"] == "llama-3.1-70b · random · 1024/1024"
    assert asked["leaders"]["excluded"] == []
    assert asked["selected"] and set(asked["selected"]) <= set(DEMO)
    assert "leaders_demo=1" in asked["query"]  # a setting kept in the URL
    page = soup(client.get("/", params={**params, "leaders_demo": "true"}).text)
    assert page.select_one("#leaders-demo").has_attr("checked")
    assert "Ranked within one model and workload: llama-3.1-70b · random · 1024/1024." in words(
        page.select_one("#leaders-note")
    )


@pytest.mark.usefixtures("seeded")
def test_compare_lists_what_differs_in_each_pair(client: TestClient) -> None:
    params = {"picked": 1, "preset": "custom", "sweep": [2, 3, 10]}
    api = client.get("/api/compare", params=params).json()
    h200, llama8b = api["pairs"]
    assert (h200["a"]["sweep_id"], h200["same_configuration"]) == (3, False)
    assert [d["text"] for d in h200["differences"]] == [
        "hardware differs: H200 vs H100",
        "both are demo (synthetic data), not a measurement of a real system",
    ]
    assert [d["text"] for d in llama8b["differences"]] == [
        "model differs: llama-3-8b vs llama-3.1-70b",
        "workload differs: shared-prefix vs random",
        "ISL/OSL differs: 192/64 vs 1024/1024",
        "hardware differs: A100 vs H100",
        "GPU count differs: 1 GPU vs 8 GPUs",
        "precision differs: bf16 vs fp8",
        "source differs: measured vs demo (synthetic data)",
    ]
    page = soup(client.get("/compare", params=params).text)
    box = page.select_one("#differences-3")
    assert box["data-same-configuration"] == "false"
    assert words(box.select_one("p")).startswith("Not one configuration:")
    assert [li.text for li in box.select("li")] == [d["text"] for d in h200["differences"]]
    assert [li["data-field"] for li in page.select("#differences-10 li")] == [
        "model",
        "workload",
        "isl_osl",
        "hardware",
        "num_gpus",
        "precision",
        "source",
    ]


@pytest.mark.usefixtures("seeded")
def test_plan_lists_what_differs_among_the_systems_on_the_page_the_api_and_the_cli(
    client: TestClient,
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = [
        "hardware differs: H100 vs H200",
        "GPU count differs: 8 GPUs vs 4 GPUs",
        "precision differs: fp8 vs bf16",
        "all are demo (synthetic data), not a measurement of a real system",
    ]
    params = {"sweep": [2, 3, 7], "requests_per_s": 10, "tpot_ms": 50, "percentile": "p90"}
    api = client.get("/api/plan", params=params).json()
    assert api["same_configuration"] is False
    assert [d["text"] for d in api["differences"]] == expected
    page = soup(client.get("/plan", params={**params, "picked": 1, "preset": "custom"}).text)
    assert [li.text for li in page.select("#plan-differences li")] == expected
    assert cli("plan", 2, 3, 7, "--requests-per-s", 10, "--tpot-ms", 50) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "systems differ: " + "; ".join(expected)
    # One system alone differs from nothing: no list, no line.
    assert client.get("/api/plan", params={**params, "sweep": [10]}).json()["differences"] == []
    assert cli("plan", 10, "--requests-per-s", 10) == 0
    assert capsys.readouterr().out.splitlines()[1] == ""


@pytest.mark.usefixtures("seeded")
def test_check_on_the_seeded_sweeps_names_a_mock_server_and_demo_data(
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The guidellm mock server against a measured Llama-3-8B: refused, every difference named.
    assert cli("check", MOCK, "--baseline", 10) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.endswith(
        "do not measure the same work (model differs: e2e-mock-model vs llama-3-8b; workload "
        "differs: synthetic vs shared-prefix; ISL/OSL differs: 32/8 vs 192/64; hardware "
        "differs: M4 vs A100; precision differs: not given vs bf16; source differs: mock "
        "server vs measured): a change between them is not a regression; give "
        "--allow-different to compare them\n"
    )
    # One demo configuration against itself passes, and says the data is synthetic.
    assert cli("check", 2, "--baseline", 2, "--tpot-ms", 50, "--format", "text") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "check: PASS"
    assert lines[3] == "Note: both are demo (synthetic data), not a measurement of a real system."
