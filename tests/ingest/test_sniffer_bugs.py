"""A bug in a sniffer fails loudly: only unreadable content (IngestError) reads as "not mine"."""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest import UploadFile, parse_upload_files
from app.ingest.errors import IngestError
from app.ingest.source import SourceFile
from app.settings import PROJECT_ROOT

FIELDS = {"hardware": "H100", "num_gpus": 8}
DEMO = PROJECT_ROOT / "seed_data" / "sweeps" / "demo_llama70b_1k1k.csv"
PLAIN = UploadFile("other.json", b'{"something": "else"}\n')


class SnifferBug(RuntimeError):
    pass


def _bug(*_args: Any, **_kwargs: Any) -> Any:
    raise SnifferBug("a bug in a sniffer")


@pytest.mark.parametrize(
    ("module", "helper"),
    [
        ("app.ingest.tools.aiperf", "csv_kind"),
        ("app.ingest.tools.genai_perf", "csv_kind"),
        ("app.ingest.tools.llmperf", "summary_doc"),
        ("app.ingest.tools.guidellm", "_kind"),
        ("app.ingest.tools.inference_perf", "_sniff"),
    ],
)
def test_a_bug_inside_a_sniffer_propagates_instead_of_reading_as_an_unrecognised_file(
    monkeypatch: pytest.MonkeyPatch, module: str, helper: str
) -> None:
    monkeypatch.setattr(f"{module}.{helper}", _bug)
    with pytest.raises(SnifferBug):
        parse_upload_files([PLAIN], FIELDS)


def test_a_bug_while_a_sniffer_reads_json_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside a result file (so the upload is not refused, which would read the file again),
    a file headed like a genai-perf/aiperf export that only the sniffers parse."""
    monkeypatch.setattr(SourceFile, "json", _bug)
    export = UploadFile("profile_export.data", b'{"request_latency": {"unit": "ms"}}\n')
    canonical = UploadFile(DEMO.name, DEMO.read_bytes())
    assert parse_upload_files([canonical], FIELDS).sweeps
    with pytest.raises(SnifferBug):
        parse_upload_files([export, canonical], FIELDS)


def test_without_a_bug_the_same_file_is_refused_as_unrecognised() -> None:
    with pytest.raises(IngestError) as refused:
        parse_upload_files([PLAIN], FIELDS)
    assert "not a recognised result file" in refused.value.errors[0].message


@pytest.mark.parametrize(
    "data",
    [
        b'{"benchmarks": [' + b"[" * 200 + b"]" * 200 + b'], "x": "generative_benchmark"}',
        b'[{"start_time": 1, "end_time": 2, "request": "\xff"}]',
        b"load: {a: 1}\nserver: [unclosed\n",
        b'{"performance": {"x_tok_s": 1}, "world_info": ' + b"9" * 200 + b"}",
    ],
    ids=["json-too-deep", "not-utf8", "broken-yaml", "number-too-long"],
)
def test_content_a_sniffer_cannot_read_is_still_not_its_file(data: bytes) -> None:
    """guidellm, inference-perf (JSON and YAML) and trtllm-bench meet what they cannot read:
    the upload says what is wrong with the file, no sniffer crashes."""
    with pytest.raises(IngestError) as refused:
        parse_upload_files([UploadFile("result.dat", data)], FIELDS)
    assert refused.value.errors[0].file == "result.dat"
