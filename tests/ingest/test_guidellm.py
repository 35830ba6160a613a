"""guidellm results: the real v2 `benchmarks.json` fixture, and its YAML, CSV (3-row header),
older-layout and per-request variants built from it here.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import zipfile
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from app.ingest import IngestError, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.tools.guidellm import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import as_json, parse

FIXTURE = FIXTURES / "guidellm" / "llm-d-benchmark_guidellm_report_v2.json"
NAME = "benchmarks.json"
FORM = {"hardware": "M4", "num_gpus": 1}


def guidellm_doc() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_bytes())
    return data


def one_guidellm_sweep(name: str, data: bytes) -> ParsedSweep:
    [sweep] = parse((name, data), **FORM)
    return sweep


def guidellm_percentile(values: list[float], q: float) -> float:
    """guidellm's `Percentiles.from_pdf`: the smallest value whose cumulative share ≥ q."""
    ordered = sorted(values)
    for i, value in enumerate(ordered):
        if (i + 1) / len(ordered) >= q - 1e-12:
            return value
    return ordered[-1]


def to_guidellm_csv(report: dict[str, Any]) -> bytes:
    """What guidellm's `outputs/csv.py` writes for this report (3-row header, one row each)."""
    header: list[tuple[str, str, str]] = []
    rows: list[list[Any]] = []
    for bench in report["benchmarks"]:
        cols: list[tuple[tuple[str, str, str], Any]] = []
        config, metrics = bench["config"], bench["metrics"]
        cols += [
            (("Run Info", "Run ID", ""), config["run_id"]),
            (("Run Info", "Run Index", ""), config["run_index"]),
            (("Run Info", "Profile", ""), json.dumps(config["profile"])),
            (("Run Info", "Requests", ""), json.dumps(config["requests"])),
            (("Run Info", "Backend", ""), json.dumps(config["backend"])),
            (("Benchmark", "Type", ""), bench["type_"]),
            (("Benchmark", "ID", ""), config["id_"]),
            (("Benchmark", "Strategy", ""), config["strategy"]["type_"]),
        ]
        start = dt.datetime.fromtimestamp(bench["scheduler_metrics"]["start_time"], tz=dt.UTC)
        cols.append((("Timings", "Start Time", ""), start.strftime("%Y-%m-%d %H:%M:%S")))
        for field, key in (("Duration", "duration"), ("Warmup", "warmup_duration")):
            cols.append((("Timings", field, "Sec"), bench[key]))
        for status in ("successful", "incomplete", "errored", "total"):
            cols.append(
                (("Request Counts", status.capitalize(), ""), metrics["request_totals"][status])
            )
        for metric, group, units in (
            ("request_latency", "Request Latency", "Sec"),
            ("time_to_first_token_ms", "Time to First Token", "ms"),
            ("time_per_output_token_ms", "Time per Output Token", "ms"),
            ("inter_token_latency_ms", "Inter Token Latency", "ms"),
            ("requests_per_second", "Server Throughput", "Requests/Sec"),
            ("request_concurrency", "Server Throughput", "Concurrency"),
            ("prompt_token_count", "Token Metrics", "Input Tokens"),
            ("output_token_count", "Token Metrics", "Output Tokens"),
            ("output_tokens_per_second", "Token Throughput", "Output Tokens/Sec"),
            ("tokens_per_second", "Token Throughput", "Total Tokens/Sec"),
        ):
            for status in ("successful", "incomplete", "errored"):
                dist = metrics[metric][status]
                if dist["total_sum"] == 0.0:
                    continue
                p = dist["percentiles"]
                keys = ("p001", "p01", "p05", "p10", "p25", "p75", "p90", "p95", "p99")
                pct = ", ".join(str(v) for v in (dist["min"], *(p[k] for k in keys), dist["max"]))
                field = f"{status.capitalize()} {units}"
                cols += [
                    ((group, field, "Mean"), dist["mean"]),
                    ((group, field, "Median"), dist["median"]),
                    ((group, field, "Std Dev"), dist["std_dev"]),
                    ((group, field, "Percentiles"), f"[{pct}]"),
                ]
        cols.append((("Runtime Info", "Metadata", ""), json.dumps(report["metadata"])))
        cols.append((("Runtime Info", "Arguments", ""), json.dumps(report["config"])))
        header = header or [label for label, _ in cols]
        rows.append([value for _, value in cols])
    out = io.StringIO()
    writer = csv.writer(out)
    for level in range(3):
        writer.writerow([label[level] for label in header])
    writer.writerows(rows)
    return out.getvalue().encode()


def test_the_v2_report_is_one_sweep_of_its_two_constant_rate_benchmarks() -> None:
    sweep = one_guidellm_sweep(NAME, FIXTURE.read_bytes())
    assert sweep.source_format == "guidellm 0.8.0.dev18 benchmarks.json"
    assert [p.values["request_rate"] for p in sweep.points] == [2.0, 4.0]
    assert all("concurrency" not in p.values for p in sweep.points)
    assert sweep.meta["model"] == "e2e-mock-model"
    assert sweep.meta["sweep"] == "e2e-mock-model · guidellm · benchmarks"
    assert sweep.meta["source_tool"] == "guidellm"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (32, 8)
    assert sweep.meta["workload"] == "synthetic_text"
    assert sweep.meta["measured_at"] == dt.date(2026, 8, 14)
    assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("M4", 1)


def test_each_point_holds_the_exact_numbers_of_its_benchmark() -> None:
    first, second = one_guidellm_sweep(NAME, FIXTURE.read_bytes()).points
    v = first.values
    assert v["ttft_mean_ms"] == pytest.approx(11.481165885925293)
    assert v["ttft_p50_ms"] == pytest.approx(11.276006698608398)
    assert (
        v["ttft_p90_ms"]
        == v["ttft_p95_ms"]
        == v["ttft_p99_ms"]
        == pytest.approx(11.686325073242188)
    )
    assert v["tpot_mean_ms"] == pytest.approx(1.1508464813232422)
    assert v["tpot_p50_ms"] == pytest.approx(1.0459763663155692)
    assert v["tpot_p99_ms"] == pytest.approx(1.2557165963309151)
    # request_latency is in seconds in the file: 0.01978909969329834 s
    assert v["e2el_mean_ms"] == pytest.approx(19.78909969329834)
    assert v["e2el_p50_ms"] == pytest.approx(19.269227981567383)
    assert v["e2el_p99_ms"] == pytest.approx(20.308971405029297)
    assert v["requests_per_s"] == pytest.approx(0.39843430656414264)
    assert v["output_tok_s"] == pytest.approx(3.1950675815128577)
    assert v["total_tok_s"] == pytest.approx(31.75098409128402)
    assert v["achieved_concurrency"] == pytest.approx(0.007884656213828013)
    assert (v["input_len"], v["output_len"]) == (71.5, 8.0)
    assert (v["num_requests"], v["num_failed"]) == (2, 0)
    assert v["duration_s"] == pytest.approx(5.01964807510376)
    w = second.values
    assert w["ttft_mean_ms"] == pytest.approx(9.78386402130127)
    assert w["tpot_mean_ms"] == pytest.approx(1.0904414313180106)
    assert w["e2el_mean_ms"] == pytest.approx(17.633914947509766)
    assert w["requests_per_s"] == pytest.approx(0.7940882013937378)


def test_time_per_output_token_which_includes_ttft_never_fills_tpot_and_no_itl_is_invented() -> (
    None
):
    point = one_guidellm_sweep(NAME, FIXTURE.read_bytes()).points[0]
    kept = point.extra["guidellm_time_per_output_token_ms"]
    assert kept["time_per_output_token_mean_ms"] == pytest.approx(2.4421364068984985)
    assert point.values["tpot_mean_ms"] != pytest.approx(2.4421364068984985)
    assert not any(k.startswith("itl_") for k in point.values)
    assert "inter_token_latency_ms" in point.extra["tpot_source"]


def test_percentiles_without_a_column_and_the_raw_benchmark_are_kept_in_extra() -> None:
    point = one_guidellm_sweep(NAME, FIXTURE.read_bytes()).points[0]
    assert point.extra["ttft_p99.9_ms"] == pytest.approx(11.686325073242188)  # p999
    assert point.extra["ttft_p0.1_ms"] == pytest.approx(11.276006698608398)  # p001
    assert point.extra["e2el_p25_ms"] == pytest.approx(19.269227981567383)
    assert not any("p999" in k or "p0.1" in k for k in point.values)
    assert point.extra["benchmark"]["scheduler_state"]["num_processes"] == 10
    assert point.extra["report"]["metadata"]["guidellm_version"] == "0.8.0.dev18"
    assert point.extra["strategy"]["max_concurrency"] == 10240
    json.dumps(point.extra, allow_nan=False)


def test_the_yaml_rendering_imports_the_same_points() -> None:
    from_json = one_guidellm_sweep(NAME, FIXTURE.read_bytes())
    from_yaml = one_guidellm_sweep("benchmarks.yaml", yaml.safe_dump(guidellm_doc()).encode())
    assert from_yaml.source_format == "guidellm 0.8.0.dev18 benchmarks.yaml"
    assert [p.values for p in from_yaml.points] == [p.values for p in from_json.points]
    assert from_yaml.meta == from_json.meta


def test_the_csv_with_its_three_row_header_imports_the_same_points() -> None:
    from_json = one_guidellm_sweep(NAME, FIXTURE.read_bytes())
    from_csv = one_guidellm_sweep("benchmarks.csv", to_guidellm_csv(guidellm_doc()))
    assert from_csv.source_format == "guidellm 0.8.0.dev18 benchmarks.csv"
    assert [p.values for p in from_csv.points] == [p.values for p in from_json.points]
    assert from_csv.meta["model"] == "e2e-mock-model"
    assert (from_csv.meta["isl"], from_csv.meta["osl"]) == (32, 8)
    assert from_csv.meta["measured_at"] == dt.date(2026, 8, 14)
    first = from_csv.points[0]
    assert first.extra["ttft_max_ms"] == pytest.approx(11.686325073242188)
    assert first.extra["ttft_p0.1_ms"] == pytest.approx(11.276006698608398)
    assert "ttft_p99.9_ms" not in first.extra  # the CSV's Percentiles list stops at p99
    assert first.extra["time_per_output_token_mean_ms"] == pytest.approx(2.4421364068984985)
    assert first.extra["Benchmark / ID"] == "03cd36d4-db55-4692-b777-d7e40306f811"


@pytest.mark.parametrize(
    ("strategies", "expected"),
    [
        (
            [{"type_": "throughput", "max_concurrency": 512}, {"type_": "synchronous"}],
            [{"concurrency": 1.0}, {"request_rate": math.inf}],
        ),
        (
            [{"type_": "concurrent", "streams": 16}, {"type_": "concurrent", "streams": 4}],
            [{"concurrency": 4.0}, {"concurrency": 16.0}],
        ),
        (
            [{"type_": "poisson", "rate": 3.5}, {"type_": "constant", "rate": 1.25}],
            [{"request_rate": 1.25}, {"request_rate": 3.5}],
        ),
    ],
)
def test_strategy_types_become_load_levels_ordered_by_load(
    strategies: list[dict[str, Any]], expected: list[dict[str, float]]
) -> None:
    data = guidellm_doc()
    for bench, strategy in zip(data["benchmarks"], strategies, strict=True):
        bench["config"]["strategy"] = strategy
    sweep = one_guidellm_sweep(NAME, as_json(data))
    loads = [
        {k: p.values[k] for k in ("concurrency", "request_rate") if k in p.values}
        for p in sweep.points
    ]
    assert loads == expected


def test_the_0_2_to_0_3_layout_with_args_strategy_and_benchmark_level_totals_is_read() -> None:
    data: dict[str, list[Any]] = {"benchmarks": []}
    for bench in guidellm_doc()["benchmarks"]:
        metrics = bench["metrics"]
        legacy = {
            "type_": "generative_benchmark",
            "args": {"strategy": bench["config"]["strategy"]},
            "run_stats": {"start_time": bench["start_time"]},
            "worker": {"backend_model": "meta-llama/Llama-3.1-8B-Instruct"},
            "request_loader": {"data": "prompt_tokens=512,output_tokens=256"},
            "request_totals": metrics.pop("request_totals"),
            "metrics": metrics,
            "duration": bench["duration"],
        }
        data["benchmarks"].append(legacy)
    sweep = one_guidellm_sweep(NAME, as_json(data))
    assert sweep.source_format == "guidellm (0.2-0.3 layout) benchmarks.json"
    assert sweep.meta["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert sweep.meta["sweep"] == "Llama-3.1-8B-Instruct · guidellm · benchmarks"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (512, 256)
    assert [p.values["num_requests"] for p in sweep.points] == [2, 2]
    assert sweep.points[0].values["tpot_mean_ms"] == pytest.approx(1.1508464813232422)


def test_the_0_4_to_0_7_layout_takes_the_model_from_top_level_args() -> None:
    data = guidellm_doc()
    data["metadata"] = {"version": 1, "guidellm_version": "0.5.1"}
    del data["config"]
    data["args"] = {
        "model": "Qwen/Qwen3-8B",
        "data": ['{"prompt_tokens": 1024, "output_tokens": 128}'],
    }
    sweep = one_guidellm_sweep(NAME, as_json(data))
    assert sweep.source_format == "guidellm 0.5.1 benchmarks.json"
    assert sweep.meta["model"] == "Qwen/Qwen3-8B"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (1024, 128)


def test_sampled_requests_become_samples_that_reproduce_the_reported_percentiles() -> None:
    data = guidellm_doc()
    bench = data["benchmarks"][0]
    ttfts = [11.276006698608398, 11.686325073242188]
    latencies = [0.019269227981567383, 0.020308971405029297]
    bench["requests"] = {
        "successful": [
            {
                "request_latency": lat,
                "time_to_first_token_ms": ttft,
                "output_tokens": 8,
                "prompt_tokens": prompt,
                "output": "generated text is dropped",
            }
            for lat, ttft, prompt in zip(latencies, ttfts, (51, 92), strict=True)
        ],
        "errored": [{"prompt_tokens": 40, "output_tokens": None, "error": "boom"}],
        "incomplete": [],
        "total": None,
    }
    point = one_guidellm_sweep(NAME, as_json(data)).points[0]
    assert point.samples is not None and len(point.samples) == 3
    ok = [s for s in point.samples if s[4]]
    assert [s[2:4] for s in ok] == [(8, 51), (8, 92)]
    assert point.samples[2] == (None, None, None, 40, False)
    sample_ttft = [s[0] for s in ok]
    for q, column in ((0.5, "ttft_p50_ms"), (0.9, "ttft_p90_ms"), (0.99, "ttft_p99_ms")):
        assert guidellm_percentile(sample_ttft, q) == pytest.approx(point.values[column])
    assert sum(s[1] for s in ok) / 2 == pytest.approx(point.values["e2el_mean_ms"])
    assert "generated text" not in json.dumps(point.extra)


def test_sniff_claims_json_yaml_and_csv_reports_but_not_other_json() -> None:
    assert IMPORTER.sniff(SourceFile(NAME, FIXTURE.read_bytes()))
    assert IMPORTER.sniff(SourceFile("b.yaml", yaml.safe_dump(guidellm_doc()).encode()))
    assert IMPORTER.sniff(SourceFile("b.csv", to_guidellm_csv(guidellm_doc())))
    assert not IMPORTER.sniff(SourceFile("x.json", b'{"benchmarks": []}'))
    assert not IMPORTER.sniff(SourceFile("x.csv", b"a,b\n1,2\n"))
    assert not IMPORTER.sniff(SourceFile("empty.json", b""))


def _guidellm_mutated(change: Any) -> bytes:
    data = guidellm_doc()
    change(data["benchmarks"][0]["metrics"])
    return as_json(data)


@pytest.mark.parametrize(
    ("data", "key"),
    [
        (
            _guidellm_mutated(
                lambda m: m["time_to_first_token_ms"]["successful"].update(mean="fast")
            ),
            "benchmarks[0].metrics.time_to_first_token_ms.successful.mean",
        ),
        (
            _guidellm_mutated(
                lambda m: m["request_latency"]["successful"]["percentiles"].update(p99=[1, 2])
            ),
            "benchmarks[0].metrics.request_latency.successful.percentiles.p99",
        ),
        (_guidellm_mutated(lambda m: m.pop("inter_token_latency_ms")), "inter_token_latency_ms"),
        (
            _guidellm_mutated(lambda m: m.pop("request_totals")),
            "benchmarks[0].metrics.request_totals",
        ),
    ],
)
def test_bad_content_is_refused_naming_the_file_and_the_key(data: bytes, key: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse((NAME, data), **FORM)
    assert NAME in str(caught.value)
    assert key in str(caught.value)


def test_truncated_json_and_yaml_are_refused_naming_the_file() -> None:
    raw = FIXTURE.read_bytes()
    with pytest.raises(IngestError, match=r"benchmarks\.json: not valid JSON"):
        parse((NAME, raw[: len(raw) // 2]), **FORM)
    text = yaml.safe_dump(guidellm_doc())
    with pytest.raises(IngestError, match=r"benchmarks\.yaml: not valid YAML"):
        parse(("benchmarks.yaml", (text + "broken: [unclosed\n").encode()), **FORM)
    cut = text[: text.index("inter_token_latency_ms:")]  # truncated YAML is still YAML
    with pytest.raises(
        IngestError,
        match=r"benchmarks\.yaml: required key '\w+' is missing in benchmarks\[0\]\.metrics",
    ):
        parse(("benchmarks.yaml", (cut + "type_: generative_benchmark\n").encode()), **FORM)


def test_a_csv_cell_that_is_not_a_number_is_refused_naming_row_and_column() -> None:
    rows = list(csv.reader(io.StringIO(to_guidellm_csv(guidellm_doc()).decode())))
    column = list(zip(rows[0], rows[1], rows[2], strict=True)).index(
        ("Time to First Token", "Successful ms", "Mean")
    )
    rows[4][column] = "fast"
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    with pytest.raises(IngestError) as caught:
        parse(("benchmarks.csv", out.getvalue().encode()), **FORM)
    message = str(caught.value)
    assert "benchmarks.csv, row 5, column 'Time to First Token / Successful ms / Mean'" in message
    strategy = list(zip(rows[0], rows[1], strict=True)).index(("Benchmark", "Strategy"))
    for row in rows:
        del row[strategy]
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    with pytest.raises(IngestError, match="Benchmark / Strategy"):
        parse(("benchmarks.csv", out.getvalue().encode()), **FORM)


def test_a_zipped_report_imports_as_the_same_sweep() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"run-1/{NAME}", FIXTURE.read_bytes())
    [zipped] = parse(("guidellm.zip", buffer.getvalue()), **FORM)
    direct = one_guidellm_sweep(NAME, FIXTURE.read_bytes())
    assert zipped.content_hash() == direct.content_hash()


def test_the_report_and_its_yaml_and_csv_renderings_import_through_the_api(
    client: TestClient,
) -> None:
    files = [
        ("files", (NAME, FIXTURE.read_bytes(), "application/octet-stream")),
        (
            "files",
            (
                "benchmarks.yaml",
                yaml.safe_dump(guidellm_doc()).encode(),
                "application/octet-stream",
            ),
        ),
        ("files", ("benchmarks.csv", to_guidellm_csv(guidellm_doc()), "application/octet-stream")),
    ]
    response = client.post("/api/sweeps", files=files, data={"hardware": "H100", "num_gpus": "8"})
    assert response.status_code == 201, response.text
    created = response.json()["sweeps"]
    assert [s["points"] for s in created] == [2, 2, 2]
    stored = client.get(f"/api/sweeps/{created[0]['id']}").json()
    assert stored["model"] == "e2e-mock-model"
    assert stored["points"][0]["tpot_mean_ms"] == pytest.approx(1.1508464813232422)


def test_an_in_process_vllm_backend_fills_the_engine_and_openai_http_names_none() -> None:
    assert guidellm_doc()["config"]["spec"]["backend"]["kind"] == "openai_http"
    assert "engine" not in one_guidellm_sweep(NAME, FIXTURE.read_bytes()).meta
    data = guidellm_doc()
    data["config"]["spec"]["backend"]["kind"] = "vllm_python"
    assert one_guidellm_sweep(NAME, as_json(data)).meta["engine"] == "vllm"


def test_a_yaml_report_after_comments_is_claimed_and_a_csv_naming_the_marker_is_not() -> None:
    text = yaml.safe_dump(guidellm_doc()).encode()
    assert IMPORTER.sniff(SourceFile("b.yaml", b"# written by hand\n\n" + text))
    assert IMPORTER.sniff(SourceFile("b.yaml", b"---\n" + text))
    csv = b"sweep,concurrency,note\nx,1,generative_benchmark\nbenchmarks: no\n"
    assert not IMPORTER.sniff(SourceFile("requests.csv", csv))
