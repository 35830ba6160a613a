"""Like with like: what differs between the systems compared, on the seeded sweeps' descriptions
(seed_data/sweeps) and the guidellm mock-server fixture as the importer reads it."""

from __future__ import annotations

import csv
from typing import Any

from app.domain.likeness import (
    DEMO,
    MEASURED,
    MOCK,
    between,
    source_of,
    system_of,
    work_key,
    work_label,
)
from app.ingest import UploadFile, parse_upload
from app.services.seed import SEED_DIR
from app.services.sweeps.likeness import differences_json
from tests.conftest import FIXTURES


def seeded_descriptions() -> dict[str, dict[str, Any]]:
    """Each seeded sweep's description (its first row), by name."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((SEED_DIR / "sweeps").glob("*.csv")):
        if ".requests" in path.name:
            continue
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                out.setdefault(row["sweep"], {k: v or None for k, v in row.items()})
    return out


SEEDED = seeded_descriptions()
H100 = "Demo · Llama 3.1 70B · 8×H100 · vLLM · FP8"
H200 = "Demo · Llama 3.1 70B · 8×H200 · vLLM · FP8"
H100_BF16 = "Demo · Llama 3.1 70B · 4×H100 · vLLM · BF16"
LLAMA_8B = (
    "Llama-3-8B-Instruct · vLLM · 1×A100 · inference-perf shared-prefix rate sweep "
    "(KubeCon NA 2025 demo)"
)
MOCK_SWEEP = (
    "e2e-mock-model · guidellm mock server · constant-rate smoke test (llm-d-benchmark fixture)"
)
AIPERF = "gpt-oss-20b · vLLM · 1×A100 · AIPerf concurrency 1 (wellflat/k8s-dev)"
GENAI_PERF = "gpt-oss-20b · vLLM · 1×A100 · GenAI-Perf concurrency 1 (wellflat/k8s-dev)"


def texts(*names: str) -> list[str]:
    return [d.text for d in between(*(SEEDED[n] for n in names)).differences]


def test_the_seed_marks_demo_sweeps_and_the_mock_server_and_nothing_else() -> None:
    sources = {name: system_of(meta).source for name, meta in SEEDED.items()}
    assert sorted(n for n, s in sources.items() if s == DEMO) == sorted(
        n for n in SEEDED if n.startswith("Demo · ")
    )
    assert [n for n, s in sources.items() if s == MOCK] == [MOCK_SWEEP]
    assert sum(s == MEASURED for s in sources.values()) == 9
    # A workload named "synthetic" is the prompt set (random tokens), not a synthetic source.
    assert SEEDED[AIPERF]["workload"] == "synthetic"
    assert system_of(SEEDED[AIPERF]).source == MEASURED


def test_the_guidellm_mock_server_fixture_is_known_by_its_model_as_imported() -> None:
    path = FIXTURES / "guidellm" / "llm-d-benchmark_guidellm_report_v2.json"
    defaults = {"hardware": "M4", "num_gpus": 1}
    [sweep] = parse_upload([UploadFile(path.name, path.read_bytes())], defaults)
    assert (sweep.meta["model"], sweep.meta.get("engine")) == ("e2e-mock-model", None)
    assert system_of(sweep.meta).source == MOCK
    # The words decide, not a substring: "hammock" is no mock server.
    assert source_of("measured", "vllm", "hammock-7b") == MEASURED
    assert source_of(None, "Mock", None) == MOCK
    assert source_of("demo", "vllm", "llama-3.1-70b") == DEMO


def test_two_gpus_of_one_model_and_workload_differ_in_hardware_only() -> None:
    found = between(SEEDED[H200], SEEDED[H100])
    assert [d.text for d in found.differences] == [
        "hardware differs: H200 vs H100",
        "both are demo (synthetic data), not a measurement of a real system",
    ]
    assert [d.kind for d in found.differing] == ["system"]
    assert found.different_work == ()
    assert not found.same_configuration


def test_gpu_count_and_precision_are_named_each() -> None:
    assert texts(H100_BF16, H100) == [
        "GPU count differs: 4 GPUs vs 8 GPUs",
        "precision differs: bf16 vs fp8",
        "both are demo (synthetic data), not a measurement of a real system",
    ]


def test_every_difference_is_listed_between_another_model_and_a_demo_sweep() -> None:
    found = between(SEEDED[LLAMA_8B], SEEDED[H100])
    assert [d.text for d in found.differences] == [
        "model differs: llama-3-8b vs llama-3.1-70b",
        "workload differs: shared-prefix vs random",
        "ISL/OSL differs: 192/64 vs 1024/1024",
        "hardware differs: A100 vs H100",
        "GPU count differs: 1 GPU vs 8 GPUs",
        "precision differs: bf16 vs fp8",
        "source differs: measured vs demo (synthetic data)",
    ]
    assert [d.field for d in found.different_work] == ["model", "workload", "isl_osl", "source"]
    assert differences_json(found)[0] == {
        "field": "model",
        "label": "model",
        "kind": "served",
        "values": ["llama-3-8b", "llama-3.1-70b"],
        "differs": True,
        "text": "model differs: llama-3-8b vs llama-3.1-70b",
    }


def test_a_mock_server_against_a_measured_sweep_is_different_work() -> None:
    found = between(SEEDED[MOCK_SWEEP], SEEDED[LLAMA_8B])
    assert found.differences[-1].text == "source differs: mock server vs measured"
    assert "source" in [d.field for d in found.different_work]


def test_the_same_configuration_differs_in_nothing_and_names_are_compared_as_written() -> None:
    one = SEEDED[AIPERF]
    assert between(one, dict(one)).differences == ()
    assert between(one, dict(one)).same_configuration
    # Case, spaces and an organisation prefix do not make another model or precision.
    other = {**one, "model": " openai/GPT-OSS-20B ", "precision": "FP4", "engine": "sglang"}
    assert between(one, other).same_configuration
    # A value given on one side only is a difference: nobody can say they are the same.
    assert [d.text for d in between(one, {**one, "precision": None}).differences] == [
        "precision differs: fp4 vs not given"
    ]
    # Only the ISL differs between the two wellflat exports (200 vs 150 tokens in).
    assert texts(AIPERF, GENAI_PERF) == ["ISL/OSL differs: 200/300 vs 150/300"]


def test_three_or_more_systems_list_each_value_once_in_the_order_given() -> None:
    found = between(SEEDED[H100], SEEDED[H200], SEEDED[H100_BF16])
    assert [d.text for d in found.differing] == [
        "hardware differs: H100 vs H200",
        "GPU count differs: 8 GPUs vs 4 GPUs",
        "precision differs: fp8 vs bf16",
    ]
    assert between(SEEDED[H100]).differing == ()


def test_a_work_group_is_model_workload_and_isl_osl() -> None:
    assert work_key(system_of(SEEDED[H100])) == work_key(system_of(SEEDED[H200]))
    assert work_key(system_of(SEEDED[AIPERF])) != work_key(system_of(SEEDED[GENAI_PERF]))
    assert work_label(system_of(SEEDED[LLAMA_8B])) == "llama-3-8b · shared-prefix · 192/64"
    assert work_label(system_of({"hardware": "H100"})) == "model not given"
