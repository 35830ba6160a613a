"""`paretoscope check`: exit 0 / 1 / 2 on real vLLM sweeps imported through `paretoscope import`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.services.checks.frontier import NO_BAND
from app.store.models import Sweep, SweepCheck, SweepTag
from tests.conftest import FIXTURES
from tests.factories import count
from tests.scaled import GOODPUT, SLO, write_scaled


@pytest.fixture
def imported_scaled(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[..., None]:
    def load(label: str, *tags: str, **scale: float) -> None:
        files = write_scaled(tmp_path, label, **scale)
        options = ("--hardware", "RTX4090", "--gpus", 1, "--name", label)
        assert cli("import", *files, *options, *(a for t in tags for a in ("--tag", t))) == 0
        capsys.readouterr()

    return load


def test_a_slower_candidate_exits_1_and_an_equal_or_faster_one_exits_0(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")  # sweep 1
    imported_scaled("slower", throughput=0.8)  # 2
    imported_scaled("equal", throughput=1.0)  # 3
    imported_scaled("faster", throughput=1.25)  # 4
    price = ("--usd-per-gpu-hour", 0.5)
    assert cli("check", "slower", "--baseline", "baseline:main", *SLO, *price) == 1
    assert cli("check", "equal", "--baseline", "baseline:main", *SLO, *price) == 0
    assert cli("check", "faster", "--baseline", "baseline:main", *SLO, *price) == 0
    # 20 % slower passes with a 25 % tolerance (goodput -20 %, $/Mtok +25 % is not above it).
    assert cli("check", 2, "--baseline", 1, *SLO, *price, "--tolerance", 0.25) == 0
    capsys.readouterr()
    verdicts = [(c.candidate_id, c.baseline_id, c.verdict) for c in session.query(SweepCheck)]
    assert verdicts == [(2, 1, "regression"), (3, 1, "pass"), (4, 1, "pass"), (2, 1, "pass")]


def test_the_markdown_summary_says_what_moved_by_how_much_and_where(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    imported_scaled("nightly-42", "nightly", throughput=0.8)
    args = ("--baseline", "baseline:main", *SLO, "--usd-per-gpu-hour", 0.5)
    assert cli("check", "nightly", *args, "--base-url", "https://dash.example.com/") == 1
    slow = GOODPUT * 0.8
    base_cost, slow_cost = 0.5e6 / (3600 * GOODPUT), 0.5e6 / (3600 * slow)
    assert (f"{slow:.1f}", f"{base_cost:.4f}", f"{slow_cost:.4f}") == ("292.6", "0.3797", "0.4746")
    assert capsys.readouterr().out.splitlines() == [
        "### Paretoscope check: **regression**",
        "",
        "Candidate **nightly-42** (tag `nightly`: sweep 2) against baseline **main** "
        "(tag `baseline:main`: sweep 1).",
        "SLO: p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms (percentile mode); tolerance 5 %.",
        "",
        "| | baseline | candidate | change | verdict |",
        "| --- | ---: | ---: | ---: | --- |",
        "| meets SLO | yes | yes | | ok: both meet the SLO |",
        "| goodput (output tok/s/GPU) | 366 | 293 | -20 % | **regression**: fell by more "
        "than the tolerance (tolerance alone; one run cannot separate noise: record 3 or more "
        "runs per load) |",
        "| $/Mtok ($0.5/GPU-hour) | $0.38 | $0.47 | +25 % | **regression**: rose by more "
        "than the tolerance |",
        "| operating point | 4 req/s, 54.3 tok/s/user | 4 req/s, 54.3 tok/s/user | | |",
        "",
        "[Open in Compare](https://dash.example.com/compare?sweep=1&sweep=2&picked=1&preset=custom"
        "&ttft_ms=400.0&tpot_ms=20.0&ttft_percentile=p99&tpot_percentile=p50"
        "&usd_per_gpu_hour=0.5)",
    ]


def test_a_candidate_that_no_longer_meets_the_slo_is_a_regression(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    imported_scaled(
        "laggy", tpot=1.5
    )  # p50 TPOT 24.5 ms and up at every rate: no point meets 20 ms
    assert cli("check", "laggy", "--baseline", "baseline:main", *SLO, "--format", "text") == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "check: REGRESSION"
    assert lines[4] == "meets SLO: yes -> no REGRESSION: the SLO is no longer met"
    assert lines[5] == (
        "operating point: 4 req/s, 54.3 tok/s/user -> none (no point meets the SLO)"
    )
    # The other way round the candidate now meets the SLO: no regression.
    assert cli("check", "main", "--baseline", "laggy", *SLO) == 0


def test_a_tag_stands_for_the_newest_sweep_that_carries_it(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    imported_scaled("monday", "nightly", throughput=0.5)
    imported_scaled("tuesday", "nightly", "release", throughput=1.1)
    assert cli("check", "nightly", "--baseline", "baseline:main", *SLO, "--format", "json") == 0
    out = capsys.readouterr().out
    import json

    doc = json.loads(out)
    assert (doc["candidate"]["sweep_id"], doc["candidate"]["name"]) == (3, "tuesday")
    assert doc["candidate"]["resolved_by"] == "tag"
    assert doc["verdict"] == "pass"
    assert [f["figure"] for f in doc["findings"]] == ["meets_slo", "goodput_tok_s_per_gpu"]
    assert doc["findings"][1]["change"] == pytest.approx(0.1)
    assert count(session, SweepTag) == 4


def test_usage_and_data_errors_exit_2_with_one_line_and_store_nothing(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main")
    imported_scaled("twin", throughput=0.9)
    imported_scaled("twin", throughput=0.7)
    cases = [
        (
            ("check", "no-such-tag", "--baseline", 1, *SLO),
            "error: candidate: no sweep has the id, tag or name 'no-such-tag'",
        ),
        (("check", 1, "--baseline", 99, *SLO), "error: baseline: no sweep 99"),
        (
            ("check", "twin", "--baseline", 1, *SLO),
            "error: candidate: 'twin' names several sweeps (2, 3): give an id or a tag",
        ),
        (
            ("check", 2, "--baseline", 1, *SLO, "--tolerance", -0.1),
            "error: --tolerance: Input should be greater than or equal to 0",
        ),
        (("check", 2, *SLO), "error: the following arguments are required: --baseline"),
        (
            ("check", 2, "--baseline", 1, "--mode", "x"),
            "error: argument --mode: invalid choice: 'x' (choose from ",
        ),
    ]
    for args, message in cases:
        assert cli(*args) == 2, args
        captured = capsys.readouterr()
        # (argparse's quoting of the choices differs between Python versions)
        assert (captured.out, captured.err.count("\n")) == ("", 1)
        assert captured.err.startswith(message)
    # p90 TPOT is not in the vLLM files (they hold p50, p95, p99): unknown, not a pass.
    assert cli("check", 2, "--baseline", 1, "--tpot-ms", 20) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error: baseline: sweep 1 (main) cannot be checked at this SLO: its "
        "status is unknown (4 points unknown: p90 TPOT not measured"
    )
    assert err.count("\n") == 1
    assert count(session, SweepCheck) == 0


def test_import_refuses_a_bad_tag_and_stores_nothing(
    cli: Callable[..., int],
    tmp_path: Path,
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = write_scaled(tmp_path, "main")
    options = ("--hardware", "RTX4090", "--gpus", 1)
    assert cli("import", *files, *options, "--tag", "nightly", "--tag", "20261201") == 2
    err = capsys.readouterr().err
    assert "(form), column 'tags': '20261201' is all digits, which names a sweep by id" in err
    assert count(session, Sweep) == 0
    # One --tag may hold several, comma separated.
    assert cli("import", *files, *options, "--tag", "nightly,baseline:main") == 0
    assert [t.tag for t in session.query(SweepTag).order_by(SweepTag.tag)] == [
        "baseline:main",
        "nightly",
    ]


# --- like with like -----------------------------------------------------------------------


@pytest.fixture
def imported_as(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[..., None]:
    """The scaled vLLM sweep imported with the given hardware, GPUs, model and tags."""

    def load(label: str, *options: object, tags: tuple[str, ...] = (), **scale: float) -> None:
        files = write_scaled(tmp_path, label, **scale)
        tagged = [a for t in tags for a in ("--tag", t)]
        assert cli("import", *files, "--name", label, *options, *tagged) == 0
        capsys.readouterr()

    return load


def test_a_slower_h200_against_an_h100_baseline_is_a_comparison_not_a_regression(
    cli: Callable[..., int],
    imported_as: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_as("h100", "--hardware", "H100", "--gpus", 1, tags=("baseline:main",))
    imported_as("h200", "--hardware", "H200", "--gpus", 1, tags=("nightly",), throughput=0.896)
    args = ("nightly", "--baseline", "baseline:main", *SLO, "--usd-per-gpu-hour", 2)
    assert cli("check", *args, "--format", "text") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "check: COMPARISON"
    assert lines[3] == (
        "Not one configuration: hardware differs: H200 vs H100. What moved compares two "
        "systems; it is not a regression."
    )
    assert lines[6] == (
        "goodput (output tok/s/GPU): 366 -> 328 (-10.4 %) comparison: fell by more than the "
        "tolerance (tolerance alone; one run cannot separate noise: record 3 or more runs per "
        "load)"
    )
    assert not any("REGRESSION" in line for line in lines)
    assert cli("check", *args, "--format", "json") == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert (doc["verdict"], doc["same_configuration"], doc["regressions"]) == (
        "comparison",
        False,
        [],
    )
    assert doc["headline"] == (
        "comparison (hardware differs: H200 vs H100): goodput -10.4 %, $/Mtok ($2/GPU-hour) +11.6 %"
    )
    assert [d["text"] for d in doc["differences"]] == ["hardware differs: H200 vs H100"]
    assert [f["regression"] for f in doc["findings"]] == [False, False, False]
    assert cli("check", *args) == 0
    summary = capsys.readouterr().out.splitlines()
    assert summary[0] == "### Paretoscope check: comparison, not a regression"
    assert summary[3].startswith("**Not one configuration**: hardware differs: H200 vs H100.")
    verdicts = [(c.candidate_id, c.baseline_id, c.verdict) for c in session.query(SweepCheck)]
    assert verdicts == [(2, 1, "comparison")] * 3
    # A GPU count or precision of its own is a comparison too, each difference named.
    imported_as("wide", "--hardware", "H100", "--gpus", 2, "--precision", "fp8")
    assert cli("check", "wide", "--baseline", "baseline:main", *SLO, "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "comparison"
    assert [d["text"] for d in doc["differences"]] == [
        "GPU count differs: 2 GPUs vs 1 GPU",
        "precision differs: fp8 vs not given",
    ]


def test_another_model_exits_2_listing_the_differences_unless_allowed(
    cli: Callable[..., int],
    imported_as: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ("--hardware", "H100", "--gpus", 1)
    imported_as("qwen", *base, tags=("baseline:main",))
    imported_as("llama", *base, "--isl", 1024, throughput=0.5)
    # The files name their model; the sweep's details are edited as a user would.
    session.get_one(Sweep, 1).model = "qwen2.5-coder-7b"
    session.get_one(Sweep, 2).model = "llama-3.1-8b"
    session.commit()
    assert cli("check", "llama", "--baseline", "baseline:main", *SLO) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "error: sweep 2 (llama) and sweep 1 (qwen) do not measure the same work (model "
        "differs: llama-3.1-8b vs qwen2.5-coder-7b; ISL/OSL differs: 1024/? vs not given): a "
        "change between them is not a regression; give --allow-different to compare them\n"
    )
    assert count(session, SweepCheck) == 0
    # Allowed, a halved goodput is a comparison: exit 0, never a regression.
    assert cli("check", "llama", "--baseline", "baseline:main", *SLO, "--allow-different") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "### Paretoscope check: comparison, not a regression"
    assert out[3] == (
        "**Not one configuration**: model differs: llama-3.1-8b vs qwen2.5-coder-7b; ISL/OSL "
        "differs: 1024/? vs not given. What moved compares two systems; it is not a regression."
    )
    assert [c.verdict for c in session.query(SweepCheck)] == ["comparison"]


def test_readoff_takes_ids_tags_and_names_as_check_does(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    imported_scaled("monday", "nightly", throughput=0.5)
    imported_scaled("tuesday", "nightly", throughput=0.8)
    assert cli("readoff", "nightly", "baseline:main", "monday", 3, *SLO) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    # The newest sweep tagged nightly (3), the baseline (1), monday by name (2); 3 once.
    assert [r.split(",")[0] for r in rows] == ["3", "1", "2"]
    assert cli("readoff", "nightly", *SLO, "--format", "json") == 0
    import json

    [result] = json.loads(capsys.readouterr().out)["results"]
    assert result["sweep_id"] == 3
    assert result["goodput_tok_s_per_gpu"] == pytest.approx(GOODPUT * 0.8)
    for ref, message in (
        ("weekly", "error: no sweep has the id, tag or name 'weekly'\n"),
        ("99", "error: no sweep 99\n"),
    ):
        assert cli("readoff", ref, *SLO) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", message)


def test_the_frontier_scope_judges_the_whole_curve_and_junit_has_one_case_per_criterion(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    import json
    from xml.etree import ElementTree

    imported_scaled("main", "baseline:main")
    imported_scaled("slower", throughput=0.8)  # 20 % below everywhere: no band, tolerance decides
    imported_scaled("equal", "nightly-tag", throughput=1.0)
    frontier = ("--baseline", "baseline:main", "--scope", "frontier", *SLO)
    # The CI snippet's call (docs/cli.md): the markdown summary out, JUnit XML to a file.
    junit_file = tmp_path / "paretoscope.xml"
    assert cli("check", "nightly-tag", *frontier, "--junit", junit_file) == 0
    assert capsys.readouterr().out.startswith("### Paretoscope check: pass")
    assert ElementTree.parse(junit_file).getroot().get("failures") == "0"
    assert cli("check", "slower", *frontier, "--format", "junit") == 1
    suite = ElementTree.fromstring(capsys.readouterr().out)
    assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", "1", "1")
    [case] = suite.findall("testcase")
    assert case.get("classname") == "paretoscope.check.frontier"
    assert case.get("name") == "frontier (mean tok/s/GPU over the shared range)"
    failure = case.find("failure")
    assert failure is not None
    assert "over 100 % of the shared range" in (failure.get("message") or "")
    # One run a load, no request samples: no band, and the verdict says the tolerance decided.
    assert (failure.get("message") or "").endswith(f"({NO_BAND})")
    assert cli("check", "slower", *frontier, "--format", "json") == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["headline"] == (
        f"regression: frontier (mean tok/s/GPU over the shared range) -20 % ({NO_BAND})"
    )
    assert doc["findings"][0]["ratio"]["ci_reason"] == NO_BAND
    # The SLO scope's criteria, one case each (meets SLO, goodput, $/Mtok), none failed.
    assert cli("check", "equal", "--baseline", "baseline:main", *SLO,
               "--usd-per-gpu-hour", 0.5, "--format", "junit") == 0  # fmt: skip
    suite = ElementTree.fromstring(capsys.readouterr().out)
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names == ["meets SLO", "goodput (output tok/s/GPU)", "$/Mtok ($0.5/GPU-hour)"]
    assert suite.get("failures") == "0"


# --- nothing to compare, and a real per-request sweep made slower ---------------------------


def test_a_frontier_check_with_no_shared_range_is_unknown_and_exits_2(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    session: Session,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    # Every TPOT ×3: the candidate's interactivity range lies wholly below the baseline's.
    imported_scaled("crawl", tpot=3.0)
    assert cli("check", "crawl", "--baseline", "baseline:main", "--scope", "frontier", *SLO) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "error: scope: unknown: no shared interactivity range: nothing to compare between "
        "sweep 2 (crawl) and sweep 1 (main)\n"
    )
    assert count(session, SweepCheck) == 0  # no verdict, so none stored


def test_a_check_where_neither_sweep_meets_the_slo_is_unknown_and_exits_2(
    cli: Callable[..., int],
    imported_scaled: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported_scaled("main", "baseline:main")
    imported_scaled("slower", throughput=0.5)
    impossible = ("--ttft-ms", 1, "--ttft-percentile", "p99")
    assert cli("check", "slower", "--baseline", "baseline:main", *impossible) == 2
    assert capsys.readouterr().err == (
        "error: candidate: unknown: neither sweep meets the SLO: no goodput to compare "
        "(sweep 2 (slower) and sweep 1 (main))\n"
    )


LLMPERF = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
SLOWER = 1.25
LATENCIES = ("ttft_s", "end_to_end_latency_s", "inter_token_latency_s")


def slower_llmperf(out: Path) -> Path:
    """The real LLMPerf run (150 Llama-2-70B requests, each with its own TTFT, E2EL and
    output tokens) with every latency ×1.25 and every throughput ÷1.25: the same prompts,
    replayed in the same order on a build 25 % slower."""
    import json

    summary, individual = (json.loads((FIXTURES / "llmperf" / n).read_text()) for n in LLMPERF)
    for row in individual:
        for key in LATENCIES:
            if isinstance(row.get(key), float):
                row[key] *= SLOWER
        row["request_output_throughput_token_per_s"] /= SLOWER
    for key, value in summary.items():
        if not isinstance(value, float):
            continue
        if key.startswith(tuple(f"results_{k}" for k in LATENCIES)):
            summary[key] = value * SLOWER
        elif "throughput" in key or key == "results_num_completed_requests_per_min":
            summary[key] = value / SLOWER
    out.mkdir()
    for name, data in zip(LLMPERF, (summary, individual), strict=True):
        (out / name).write_text(json.dumps(data))
    return out


def test_a_real_per_request_sweep_25_percent_slower_fails_on_the_paired_ratio(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    options = ("--hardware", "H100", "--gpus", 8)
    real = [FIXTURES / "llmperf" / n for n in LLMPERF]
    assert cli("import", *real, *options, "--name", "base") == 0
    assert cli("import", slower_llmperf(tmp_path / "slow"), *options, "--name", "slow") == 0
    capsys.readouterr()
    args = ("slow", "--baseline", "base", "--mode", "requests", "--ttft-ms", 2000,
            "--tpot-ms", 60, "--format", "json")  # fmt: skip
    assert cli(*("check", *args)) == 1
    doc = json.loads(capsys.readouterr().out)
    [goodput] = [f for f in doc["findings"] if f["figure"] == "goodput_tok_s_per_gpu"]
    # Every request meets the SLO on both builds: goodput ÷1.25 exactly, and the same 150
    # prompts in the same order (one input length, the same output lengths request by
    # request) pair the resamples, so the ratio's interval is that one value.
    assert goodput["change"] == pytest.approx(1 / SLOWER - 1)
    ratio = goodput["ratio"]
    assert (ratio["paired"], ratio["ci_method"]) == (True, "ratio-bootstrap")
    assert ratio["ci_low"] == pytest.approx(0.8) and ratio["ci_high"] == pytest.approx(0.8)
    assert goodput["regression"] is True
    assert doc["regressions"] == ["goodput"]
