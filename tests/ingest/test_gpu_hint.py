"""A GPU count suggested by a results folder (issue 47 item 9): `tp8` in the file names, or the
vLLM / SGLang serve command of a `.commands` file beside the results; never over what the file
or the user says, and nothing when the folder disagrees with itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest import UploadFile, parse_upload_files
from app.ingest.gpu_hint import command_hints
from tests.conftest import FIXTURES

QPS1 = FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"


def gpus_and_hints(files: list[tuple[str, bytes]], **defaults: object) -> list[tuple[object, list]]:
    upload = parse_upload_files([UploadFile(n, d) for n, d in files], defaults, require_meta=False)
    return [
        (s.meta.get("num_gpus"), [w for w in s.warnings if w.startswith("GPUs: ")])
        for s in upload.sweeps
    ]


def test_tp8_in_the_file_name_suggests_eight_gpus_and_says_so(tmp_path: Path) -> None:
    [(gpus, notes)] = gpus_and_hints([("qwen_h100_tp8_rate1.json", QPS1.read_bytes())])
    assert gpus == 8
    assert notes == [
        "GPUs: 8 suggested by `tp8` in the file name (the result file does not say how many "
        "GPUs served it): check it before saving"
    ]


@pytest.mark.parametrize(
    ("command", "gpus", "flags"),
    [
        (
            "vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --tensor-parallel-size 4",
            4,
            "--tensor-parallel-size 4",
        ),
        ("vllm serve m -tp 2 -pp 2", 4, "-tp 2 -pp 2"),
        (
            "vllm serve m --tensor-parallel-size=8 --data-parallel-size=2",
            16,
            "--tensor-parallel-size 8 --data-parallel-size 2",
        ),
        ("python3 -m sglang.launch_server --model-path m --tp 4 --port 30000", 4, "--tp 4"),
        (
            "python -m sglang.launch_server --tp-size 8 --dp 8 --enable-dp-attention",
            8,
            "--tp-size 8 --dp 8 --enable-dp-attention",
        ),
        (
            "python -m sglang.launch_server --model-path m --tp 2 --dp-size 2",
            4,
            "--tp 2 --dp-size 2",
        ),
    ],
)
def test_a_serve_command_beside_the_results_suggests_its_parallel_sizes_product(
    command: str, gpus: int, flags: str
) -> None:
    files = [("run/" + QPS1.name, QPS1.read_bytes()), ("run/bench.commands", command.encode())]
    [(got, notes)] = gpus_and_hints(files)
    assert got == gpus
    assert notes == [
        f"GPUs: {gpus} suggested by `{flags}` in run/bench.commands (the result file does not "
        "say how many GPUs served it): check it before saving"
    ]


def test_a_commands_file_in_a_parent_folder_counts_and_beats_the_file_name() -> None:
    files = [
        ("sweep/c8/result_tp8.json", QPS1.read_bytes()),
        ("sweep/server.commands", b"vllm bench serve --model m\nvllm serve m -tp 4\n"),
    ]
    [(gpus, notes)] = gpus_and_hints(files)
    assert gpus == 4 and "`-tp 4` in sweep/server.commands" in notes[0]


def test_what_the_file_or_the_user_says_wins_and_no_hint_is_added() -> None:
    # The InferenceX agg rows record tp 8 themselves: no suggestion on top.
    agg = sorted((FIXTURES / "inferencemax").glob("agg_*tp8*.json"))
    assert gpus_and_hints([(p.name, p.read_bytes()) for p in agg]) == [(8, [])]
    named = [("qwen_tp8.json", QPS1.read_bytes())]
    assert gpus_and_hints(named, num_gpus=2) == [(2, [])]


def test_commands_that_disagree_and_names_without_one_tp_suggest_nothing() -> None:
    disagree = b"vllm serve m -tp 4\nvllm serve m -tp 8\n"
    files = [("r/" + QPS1.name, QPS1.read_bytes()), ("r/x.commands", disagree)]
    assert gpus_and_hints(files) == [(None, [])]
    for name in ("stp8.json", "a_tp8_b_tp4.json", "run_dep16.json", "run_tp0.json", "tp8x.json"):
        assert gpus_and_hints([(name, QPS1.read_bytes())]) == [(None, [])], name
    assert command_hints([("a.commands", "vllm serve m --tp 'unbalanced")]) == {}
