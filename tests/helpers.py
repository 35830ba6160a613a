"""The helpers more than one test module uses: one home, one signature each (tests/test_architecture
checks that no helper name is defined twice). Fixtures live in conftest.py.

Every helper that sends a request asserts the status it expects (`expect=`), so a test reads
what it arranges, and a failed arrangement fails there, with the answer's text.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from httpx import Response

from app.charts.shown import write
from app.ingest import IngestError, ParsedSweep, UploadFile, parse_upload
from app.settings import PROJECT_ROOT
from tests.factories import post_files


def soup(page: str | Response, expect: int | None = None) -> BeautifulSoup:
    """A page (its text, or the answer that carries it, with the status `expect`) parsed."""
    if isinstance(page, str):
        return BeautifulSoup(page, "html.parser")
    if expect is not None:
        assert page.status_code == expect, page.text
    return BeautifulSoup(page.text, "html.parser")


def upload(
    client: TestClient, *files: tuple[str, bytes], expect: int = 201, **fields: Any
) -> list[dict[str, Any]]:
    """POST /api/sweeps with these files and form fields; the stored sweeps' summaries."""
    response = post_files(client, *files, **fields)
    assert response.status_code == expect, response.text
    sweeps: list[dict[str, Any]] = response.json().get("sweeps", [])
    return sweeps


def upload_ids(client: TestClient, *files: tuple[str, bytes], **fields: Any) -> list[int]:
    """The ids of the sweeps an upload stored, in order."""
    return [int(s["id"]) for s in upload(client, *files, **fields)]


def upload_id(client: TestClient, *files: tuple[str, bytes], **fields: Any) -> int:
    """The id of the one sweep an upload stored."""
    ids = upload_ids(client, *files, **fields)
    assert len(ids) == 1, f"expected one sweep, the upload stored {len(ids)}"
    return ids[0]


def upload_by_name(client: TestClient, *files: tuple[str, bytes], **fields: Any) -> dict[str, int]:
    """The ids of the sweeps an upload stored, by sweep name."""
    sweeps = upload(client, *files, **fields)
    by_name = {s["name"]: int(s["id"]) for s in sweeps}
    assert len(by_name) == len(sweeps), "two stored sweeps share a name"
    return by_name


def parse(*files: tuple[str, bytes | dict[str, Any]], **form: Any) -> list[ParsedSweep]:
    """The sweeps these files (bytes, or a JSON object) parse to with these form fields (no
    database): every importer's tests call it with their own form."""
    uploads = [
        UploadFile(n, d if isinstance(d, bytes) else json.dumps(d).encode()) for n, d in files
    ]
    return parse_upload(uploads, form)


def parse_errors(defaults: dict[str, Any], *files: tuple[str, bytes]) -> str:
    """Why parse() refuses these files with a tool's form defaults (it must refuse them): an
    importer's tests bind theirs, `errors_of_aiperf = partial(parse_errors, DEFAULTS)`."""
    with pytest.raises(IngestError) as caught:
        parse(*files, **defaults)
    return str(caught.value)


def bytes_in(folder: Path, name: str) -> bytes:
    """A file's bytes: a fixture folder's tests bind it, `raw_vllm = partial(bytes_in, DIR)`."""
    return (folder / name).read_bytes()


def json_changed(document: Any, change: Callable[[Any], object]) -> bytes:
    """A copy of a JSON document, changed in place by `change`, as the bytes of a file."""
    copied = copy.deepcopy(document)
    change(copied)
    return json.dumps(copied).encode()


def only(sweeps: list[ParsedSweep]) -> ParsedSweep:
    assert len(sweeps) == 1
    return sweeps[0]


def as_json(data: Any) -> bytes:
    return json.dumps(data).encode()


def jsonl(records: list[dict[str, Any]]) -> bytes:
    """One JSON object a line, each line ended."""
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def doc(printed: str) -> object:
    """The doc's printed number, matched to within half its last printed digit."""
    text = printed.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return pytest.approx(float(text), abs=0.5 * 10.0**-decimals)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


ARTIFACTS = PROJECT_ROOT / "test-artifacts"


# Screenshots are for a person to look at after a run, so they are taken only when asked for
# (`PARETOSCOPE_SCREENSHOTS=1 make test`): a full page cost Chromium ~0.35 CPU-s to draw and
# encode, and the browser tests took ~145 of them, ~40 s of the suite.
SCREENSHOTS = os.environ.get("PARETOSCOPE_SCREENSHOTS") == "1"


def shoot(page: Any, name: str, *, full_page: bool = True) -> None:
    """A screenshot of a browser page as test-artifacts/<name>.png (when SCREENSHOTS)."""
    if SCREENSHOTS:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def shoot_element(locator: Any, name: str) -> None:
    """A screenshot of one element as test-artifacts/<name>.png (when SCREENSHOTS); without,
    the element is still waited for as the screenshot would (visible), so what follows runs as
    it would after one."""
    if not SCREENSHOTS:
        locator.wait_for(state="visible")
        return
    ARTIFACTS.mkdir(exist_ok=True)
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def with_hover(trace: dict[str, Any]) -> dict[str, Any]:
    """A trace as static/js/charts.js hands it to Plotly: hover numbers sent as columns
    (meta.hover) become customdata rows of the texts the browser writes (app.charts.shown);
    shared texts (meta.texts) and each point's index into them (meta.text) become its text."""
    meta = trace.get("meta")
    if not isinstance(meta, dict) or not ("hover" in meta or "texts" in meta):
        return trace
    drawn = {
        **trace,
        "meta": {k: v for k, v in meta.items() if k not in ("hover", "texts", "text")},
    }
    if "hover" in meta:
        texts = [
            [v if isinstance(v, str) else write(v) for v in column] for column in meta["hover"]
        ]
        drawn["customdata"] = [[column[k] for column in texts] for k in range(len(trace["x"]))]
    if "texts" in meta:
        drawn["text"] = [meta["texts"][i] for i in meta["text"]]
    return drawn


def hover_texts(trace: dict[str, Any]) -> list[str]:
    """Each point's hover as Plotly fills the trace's template from its customdata rows."""
    drawn = with_hover(trace)
    template = drawn["hovertemplate"]
    return [
        re.sub(r"%\{customdata\[(\d+)\]\}", lambda m, row=row: row[int(m.group(1))], template)
        for row in drawn["customdata"]
    ]


def battery() -> list[float]:
    """Numbers of every size the formatter meets: ties, round values, both signs, edges."""
    rng = random.Random(34)
    values = [0.0, 1.0, 12.25, 2.5, 0.125, 999.5, 999.6, 1000.0, 13320.79, 0.00099951, 0.001]
    values += [1e15, 9.99e14, 9.9951e14, 123456789012.5, 1.5e-7, 2**53 + 2.0, 0.30000000000000004]
    for exponent in range(-7, 17):
        values += [rng.uniform(1, 10) * 10**exponent for _ in range(12)]
    return values + [-v for v in values if v]


def details_form(page: BeautifulSoup) -> dict[str, str]:
    """The upload details form's fields as the browser would send them (radios and boxes only
    when checked)."""
    form = page.select_one("#details-form")
    assert form is not None
    return {
        i["name"]: i.get("value", "")
        for i in form.select("input[name]")
        if i.get("type") not in ("checkbox", "radio") or i.has_attr("checked")
    }


# The real guidellm v2 report in ../shared/fixtures (read, never copied).
GUIDELLM_V2 = "guidellm/llm-d-benchmark_guidellm_report_v2.json"


def guidellm_conversations() -> dict[str, Any]:
    """Benchmark 0: 2 warm-up requests before the window, then 4 conversations of 3 turns
    inside it (conversation c2's turn 1 at 900 ms TTFT, c3's turn 2 errored), 1 cool-down
    request after it."""
    doc: dict[str, Any] = json.loads(
        (PROJECT_ROOT.parent / "shared" / "fixtures" / GUIDELLM_V2).read_bytes()
    )
    bench = doc["benchmarks"][0]
    t0 = bench["scheduler_metrics"]["measure_start_time"]
    bench["scheduler_metrics"]["measure_end_time"] = t0 + 600.0

    def listed(start: float, conv: str, turn: int, ttft: float) -> dict[str, Any]:
        timings = {"request_start": start, "request_end": start + 10.0}
        return {
            "prompt_tokens": 500 + 300 * turn,
            "output_tokens": 100,
            "request_latency": 10.0,
            "time_to_first_token_ms": ttft,
            "info": {"conversation_id": conv, "turn_index": turn, "timings": timings},
        }

    warm = [listed(t0 - 100 + 20 * i, f"w{i}", 0, 3000.0) for i in range(2)]
    inside = [
        listed(t0 + 40 * (3 * c + turn), f"c{c}", turn, 900.0 if (c, turn) == (2, 1) else 150.0)
        for c in range(4)
        for turn in range(3)
        if (c, turn) != (3, 2)
    ]
    errored = [dict(listed(t0 + 500, "c3", 2, 0.0), time_to_first_token_ms=None)]
    cool = [listed(t0 + 700, "c9", 0, 150.0)]
    bench["requests"] = {"successful": warm + inside + cool, "errored": errored, "incomplete": []}
    bench["metrics"]["request_totals"] = {"successful": 11, "errored": 1, "incomplete": 0}
    doc["benchmarks"] = [bench]
    return doc


# vLLM's prefix-cache counters, (queried, cached) tokens per engine at 0, 300 and 600 s of
# tests.prom_stream's scrapes: windows 0-300 s and 300-600 s cache 62 % and 60 % (issue 50).
PREFIX_CACHE_COUNTERS = {
    0: ((0, 0), (0, 0)),
    300: ((60_000, 40_000), (40_000, 22_000)),
    600: ((100_000, 66_000), (80_000, 44_000)),
}


def prefix_cache_lines(t: int) -> str:
    """Exposition lines of vLLM's prefix-cache counters at `t` s (PREFIX_CACHE_COUNTERS)."""
    (q0, h0), (q1, h1) = PREFIX_CACHE_COUNTERS[t]
    return (
        "# TYPE vllm:prefix_cache_queries_total counter\n"
        f'vllm:prefix_cache_queries_total{{engine="0",model_name="m"}} {q0}.0\n'
        f'vllm:prefix_cache_queries_total{{engine="1",model_name="m"}} {q1}.0\n'
        "# TYPE vllm:prefix_cache_hits_total counter\n"
        f'vllm:prefix_cache_hits_total{{engine="0",model_name="m"}} {h0}.0\n'
        f'vllm:prefix_cache_hits_total{{engine="1",model_name="m"}} {h1}.0\n'
    )
