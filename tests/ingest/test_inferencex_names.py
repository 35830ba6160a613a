"""InferenceX CI rows carry no date or run id (issue 51 §5): sweeps of one named configuration
that differ in a setting the name leaves out (image, router) are named by it, never by "(2)".
The rows are the real Kimi-K2.5 agg rows (../shared/fixtures/inferencemax/SOURCES.md); the
other images and the router are the same rows with only that key changed, as a later nightly
image or a router run writes them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.ingest.tools._inferencex_names import tell_configs_apart
from tests.helpers import parse

SHARED = Path(__file__).parents[3] / "shared" / "fixtures" / "inferencemax"
NIGHTLY = "vllm/vllm-openai-rocm:nightly-20260602"
DIGEST = "vllm/vllm-openai-rocm:nightly-20260609@sha256:5921361fcf358cdde4df1968c941c14157f4"
COUNTED = re.compile(r"\(\d+\)$")
BASE = "Kimi-K2.5 · InferenceX · mi355x vllm int4 mtp · 8192/1024 · TP8"


def kimi_rows() -> list[dict[str, Any]]:
    return [json.loads(p.read_bytes()) for p in sorted(SHARED.glob("agg_kimi*.json"))]


def test_ci_rows_of_one_named_configuration_are_named_by_image_and_router_not_counted() -> None:
    rows = kimi_rows()
    assert [r["conc"] for r in rows] == [32, 64] and "date" not in rows[0]
    listed = [
        *rows,
        *(dict(r, image=NIGHTLY) for r in rows),
        *(dict(r, image=DIGEST) for r in rows),
        *(dict(r, router="kv-aware") for r in rows),
    ]
    sweeps = parse(("results_bmk/agg_bmk.json", json.dumps(listed).encode()))
    names = sorted(s.name for s in sweeps)
    # Before this change 2 of these 4 names ended "(2)" ("… · 0.21.0 (2)", "… · no
    # engine_version (2)"); now none does.
    assert [n for n in names if COUNTED.search(n)] == []
    assert names == [
        f"{BASE} · image nightly-20260602 · router none",
        f"{BASE} · image nightly-20260609 · router none",
        f"{BASE} · image v0.21.0 · router kv-aware",
        f"{BASE} · image v0.21.0 · router none",
    ]
    assert all(len(s.points) == 2 for s in sweeps)


def test_a_lone_configuration_keeps_its_name() -> None:
    sweeps = parse(("agg_bmk.json", json.dumps(kimi_rows()).encode()))
    assert [s.name for s in sweeps] == [BASE]


class _Sweep:
    def __init__(self, name: str) -> None:
        self.meta: dict[str, Any] = {"sweep": name}

    @property
    def name(self) -> str:
        return str(self.meta["sweep"])


def test_a_run_id_and_date_tell_sweeps_apart_before_the_image() -> None:
    a, b = _Sweep("x"), _Sweep("x")
    rows = [{"run_id": 1, "image": "a:1"}, {"run_id": 2, "image": "a:1"}]
    tell_configs_apart([a, b], rows, ("image",))  # type: ignore[list-item]
    assert (a.name, b.name) == ("x · run id 1", "x · run id 2")
