"""inference-perf reports: the 7-stage KubeCon run folder (lifecycle + Prometheus + config), the
newer-schema YAML lifecycle report from llm-d-benchmark, and variants built from them here.
"""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from app.ingest import IngestError
from app.ingest.source import SourceFile
from app.ingest.tools.inference_perf import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import as_json, parse

RUN = FIXTURES / "inference-perf" / "kubecon-na-2025-vllm"
LIFECYCLE_YAML = FIXTURES / "inference-perf" / "llm-d-benchmark_inference_perf_lifecycle.yaml"
FORM = {"hardware": "A100", "num_gpus": 1}
RATES = [1.0, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38]


def run_files() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(RUN.iterdir())]


def stage(n: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RUN / f"stage_{n}_lifecycle_metrics.json").read_bytes())
    return data


def test_the_run_folder_is_one_sweep_of_seven_stages_ordered_by_stage() -> None:
    [sweep] = parse(*run_files(), **FORM)
    assert sweep.source_format == "inference-perf lifecycle reports (7 stages)"
    assert [p.values["request_rate"] for p in sweep.points] == RATES
    assert [p.values["num_requests"] for p in sweep.points] == [
        60,
        1884,
        3707,
        5531,
        7355,
        9178,
        11002,
    ]
    assert all(p.values["num_failed"] == 0 for p in sweep.points)
    assert [p.extra["stage"] for p in sweep.points] == list(range(7))
    assert sweep.meta["model"] == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert sweep.meta["engine"] == "vllm"
    assert sweep.meta["workload"] == "shared_prefix"
    assert sweep.meta["source_tool"] == "inference-perf"
    assert (
        sweep.meta["sweep"]
        == "Meta-Llama-3-8B-Instruct · inference-perf · constant load, linear sweep"
    )
    assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("A100", 1)
    assert "measured_at" not in sweep.meta  # the reports carry no date


def test_seconds_become_milliseconds_and_tpot_and_pooled_itl_stay_apart() -> None:
    [sweep] = parse(*run_files(), **FORM)
    v = sweep.points[0].values
    assert v["ttft_mean_ms"] == pytest.approx(31.12733216257766)  # 0.03112733216257766 s
    assert v["ttft_p50_ms"] == pytest.approx(31.026913959067315)  # median
    assert v["ttft_p99_ms"] == pytest.approx(39.696927970508104)
    assert v["tpot_mean_ms"] == pytest.approx(3.4734172405264745)
    assert v["tpot_p50_ms"] == pytest.approx(3.468046240533825)
    assert v["tpot_p90_ms"] == pytest.approx(3.4946888832324873)
    assert v["itl_mean_ms"] == pytest.approx(3.473417240526474)
    assert v["itl_p50_ms"] == pytest.approx(0.03718049265444279)  # pooled gaps: mostly tiny
    assert v["itl_p99_ms"] == pytest.approx(7.376356361201032)
    assert v["e2el_mean_ms"] == pytest.approx(480.48226445680486)
    assert v["e2el_p50_ms"] == pytest.approx(479.6094944467768)
    assert v["output_tok_s"] == pytest.approx(64.23350089997027)
    assert v["total_tok_s"] == pytest.approx(271.83536208261364)
    assert v["requests_per_s"] == pytest.approx(1.0171575756131475)
    assert (v["input_len"], v["output_len"]) == (204.1, 63.15)
    assert "duration_s" not in v  # older schema: no benchmark_time_seconds
    last = sweep.points[6].values
    assert last["tpot_p99_ms"] == pytest.approx(9.52118719478805)
    assert last["itl_p99_ms"] == pytest.approx(48.921402770793064)
    assert last["ttft_p90_ms"] == pytest.approx(3314.1160886036234)
    assert last["e2el_p99_ms"] == pytest.approx(4549.318022641819)
    assert last["output_tok_s"] == pytest.approx(6431.058168023075)


def test_stats_without_a_column_prometheus_and_config_are_kept_in_extra() -> None:
    [sweep] = parse(*run_files(), **FORM)
    point = sweep.points[0]
    assert point.extra["ntpot_mean_ms"] == pytest.approx(7.6659232914650915)
    assert point.extra["ttft_p99.9_ms"] == pytest.approx(40.956884782877775)
    assert point.extra["itl_p0.1_ms"] == pytest.approx(0.0033066191244870424)
    lifecycle = point.extra["lifecycle"]
    assert lifecycle["successes"]["throughput"]["input_tokens_per_sec"] == 207.6018611826434
    assert lifecycle["load_summary"]["achieved_rate"] == 1.0254654214024423
    assert point.extra["prometheus"]["count"] == 937
    assert sweep.points[6].extra["prometheus"]["count"] == 21904
    # The server's prefix-cache hit percent (0 in this run) as a fraction, a covariate.
    assert point.extra["prefix_cache_hit_rate"] == 0.0
    assert point.extra["config"]["load"]["sweep"]["num_stages"] == 7
    assert point.extra["config"]["tokenizer"]["token"] == "(redacted)"
    assert not any(k.startswith("ntpot") for k in point.values)
    json.dumps(point.extra, allow_nan=False)


def test_the_yaml_lifecycle_report_from_llm_d_benchmark_is_a_point_of_its_own() -> None:
    [sweep] = parse((LIFECYCLE_YAML.name, LIFECYCLE_YAML.read_bytes()), **FORM)
    assert sweep.source_format == "inference-perf lifecycle report (YAML)"
    assert sweep.meta["sweep"] == "inference-perf · llm-d-benchmark_inference_perf_lifecycle"
    assert "model" not in sweep.meta
    [point] = sweep.points
    v = point.values
    assert v["request_rate"] == 1.0
    assert (v["num_requests"], v["num_failed"]) == (3, 0)
    assert v["duration_s"] == 2.48  # benchmark_time_seconds
    assert v["ttft_mean_ms"] == pytest.approx(33.333333333333354)
    assert v["ttft_p50_ms"] == pytest.approx(30.000000000000027)
    assert v["tpot_mean_ms"] == pytest.approx(9.279705855977042)
    assert v["tpot_p99_ms"] == pytest.approx(12.479322033898304)
    assert v["itl_mean_ms"] == pytest.approx(152.2222222222222)
    assert v["e2el_mean_ms"] == pytest.approx(490.0)
    assert v["output_tok_s"] == pytest.approx(64.51612903225806)
    assert v["total_tok_s"] == pytest.approx(306.85483870967744)
    assert v["requests_per_s"] == pytest.approx(1.2096774193548387)
    assert v["input_len"] == pytest.approx(200.33333333333334)
    assert v["output_len"] == pytest.approx(53.333333333333336)
    assert point.extra["lifecycle"]["successes"]["image"]["count"]["mean"] == 2.0
    assert point.extra["lifecycle"]["successes"]["prompt_tokens"]["total"] == 601.0


def test_the_yaml_report_uploaded_with_the_run_folder_stays_a_separate_sweep() -> None:
    sweeps = parse(*run_files(), (LIFECYCLE_YAML.name, LIFECYCLE_YAML.read_bytes()), **FORM)
    # Files are read in the order of their names: the report's name sorts first.
    assert [len(s.points) for s in sweeps] == [1, 7]
    assert "model" not in sweeps[0].meta


def test_goodput_is_read_with_the_slo_of_config_yaml_in_ms() -> None:
    data = stage(0)
    data["successes"]["goodput_metrics"] = {
        "goodput_percentage": 95.0,
        "request_goodput": 0.9663,
        "token_goodput": 258.2,
        "good_requests": 57,
        "total_requests": 60,
    }
    config = yaml.safe_load((RUN / "config.yaml").read_text())
    config["report"]["goodput"] = {"constraints": {"ttft": 0.5, "tpot": 0.05, "request_latency": 2}}
    [sweep] = parse(
        ("stage_0_lifecycle_metrics.json", as_json(data)),
        ("config.yaml", yaml.safe_dump(config).encode()),
        **FORM,
    )
    [point] = sweep.points
    assert point.values["goodput_requests_per_s"] == 0.9663
    assert point.values["goodput_slo"] == "ttft:500 tpot:50 e2el:2000"
    [alone] = parse(("stage_0_lifecycle_metrics.json", as_json(data)), **FORM)
    assert "goodput_slo" not in alone.points[0].values
    assert "config.yaml" in alone.points[0].extra["goodput_note"]


def test_a_concurrent_stage_fills_concurrency_not_request_rate() -> None:
    data = stage(2)
    data["load_summary"]["concurrency"] = 16
    [sweep] = parse(("stage_2_lifecycle_metrics.json", as_json(data)), **FORM)
    assert sweep.points[0].values["concurrency"] == 16
    assert "request_rate" not in sweep.points[0].values


def test_a_zip_and_a_tarball_of_the_run_folder_import_as_the_same_sweep() -> None:
    [direct] = parse(*run_files(), **FORM)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        for name, data in run_files():
            archive.writestr(f"reports-20251110/{name}", data)
    [from_zip] = parse(("kubecon.zip", zipped.getvalue()), **FORM)
    tarred = io.BytesIO()
    with tarfile.open(fileobj=tarred, mode="w:gz") as archive:
        for path in sorted(RUN.iterdir()):
            archive.add(path, arcname=f"./kubecon/{path.name}")
    [from_tar] = parse(("kubecon.tar.gz", tarred.getvalue()), **FORM)
    assert from_zip.content_hash() == direct.content_hash() == from_tar.content_hash()
    assert from_zip.source_file == "kubecon.zip/reports-20251110"


def test_two_runs_in_one_archive_are_two_sweeps_told_apart_by_folder() -> None:
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        for folder in ("run-a", "run-b"):
            for name, data in run_files():
                archive.writestr(f"{folder}/{name}", data)
    sweeps = parse(("runs.zip", zipped.getvalue()), **FORM)
    assert [s.name.rsplit(" · ", 1)[-1] for s in sweeps] == ["run-a", "run-b"]


def test_a_stage_twice_in_one_folder_is_refused() -> None:
    with pytest.raises(IngestError, match="stage 0 appears twice"):
        parse(
            ("stage_0_lifecycle_metrics.json", as_json(stage(0))),
            ("stage_0_lifecycle_metrics.json", as_json(stage(1))),
            **FORM,
        )


def test_summary_prometheus_and_config_files_alone_are_refused_as_incomplete() -> None:
    names = ["summary_lifecycle_metrics.json", "summary_prometheus_metrics.json", "config.yaml"]
    with pytest.raises(IngestError, match=r"no stage_<N>_lifecycle_metrics report"):
        parse(*((n, (RUN / n).read_bytes()) for n in names), **FORM)


def test_sniff_claims_every_file_of_the_run_folder_and_nothing_else() -> None:
    for name, data in run_files():
        assert IMPORTER.sniff(SourceFile(name, data)), name
    assert IMPORTER.sniff(SourceFile(LIFECYCLE_YAML.name, LIFECYCLE_YAML.read_bytes()))
    per_request = [{"start_time": 1.0, "end_time": 2.0, "request": "{}", "error": None}]
    assert IMPORTER.sniff(SourceFile("per_request_lifecycle_metrics.json", as_json(per_request)))
    assert not IMPORTER.sniff(SourceFile("x.json", b'{"successes": 1}'))
    assert not IMPORTER.sniff(SourceFile("x.yaml", b"load:\n  type: constant\n"))
    assert not IMPORTER.sniff(SourceFile("x.csv", b"a,b\n1,2\n"))


def test_a_per_request_file_uploaded_with_the_folder_is_accepted_and_left_out() -> None:
    per_request = [{"start_time": 1.0, "end_time": 2.0, "request": "{}", "error": None}]
    files = [*run_files(), ("per_request_lifecycle_metrics.json", as_json(per_request))]
    [sweep] = parse(*files, **FORM)
    assert len(sweep.points) == 7


NAME = "stage_0_lifecycle_metrics.json"


def _stage_mutated(change: Any) -> bytes:
    data = stage(0)
    change(data)
    return as_json(data)


@pytest.mark.parametrize(
    ("data", "key"),
    [
        (
            _stage_mutated(
                lambda d: d["successes"]["latency"]["time_to_first_token"].update(mean="fast")
            ),
            "successes.latency.time_to_first_token.mean",
        ),
        (
            _stage_mutated(
                lambda d: d["successes"]["throughput"].update(output_tokens_per_sec=[1])
            ),
            "successes.throughput.output_tokens_per_sec",
        ),
        (_stage_mutated(lambda d: d["successes"].pop("throughput")), "'throughput'"),
        (_stage_mutated(lambda d: d["load_summary"].pop("count")), "'count'"),
        (_stage_mutated(lambda d: d["successes"].update(count="sixty")), "successes.count"),
        (_stage_mutated(lambda d: d.update(successes=[1, 2])), "'successes' must be"),
    ],
)
def test_bad_content_is_refused_naming_the_file_and_the_key(data: bytes, key: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse((NAME, data), **FORM)
    assert NAME in str(caught.value)
    assert key in str(caught.value)


def test_truncated_json_and_broken_yaml_are_refused_naming_the_file() -> None:
    raw = (RUN / NAME).read_bytes()
    with pytest.raises(IngestError, match=r"stage_0_lifecycle_metrics\.json: not valid JSON"):
        parse((NAME, raw[: len(raw) // 2]), **FORM)
    text = LIFECYCLE_YAML.read_text() + "successes: [unclosed\n"
    with pytest.raises(IngestError, match=r"lifecycle\.yaml: not valid YAML"):
        parse((LIFECYCLE_YAML.name, text.encode()), **FORM)


def test_every_inference_perf_fixture_imports_through_the_api(client: TestClient) -> None:
    paths: list[Path] = [*sorted(RUN.iterdir()), LIFECYCLE_YAML]
    files = [("files", (p.name, p.read_bytes(), "application/octet-stream")) for p in paths]
    response = client.post("/api/sweeps", files=files, data={"hardware": "H100", "num_gpus": "8"})
    assert response.status_code == 201, response.text
    assert [s["points"] for s in response.json()["sweeps"]] == [1, 7]  # in the files' name order
    stored = client.get(f"/api/sweeps/{response.json()['sweeps'][1]['id']}").json()
    assert stored["model"] == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert stored["points"][0]["itl_p50_ms"] == pytest.approx(0.03718049265444279)
