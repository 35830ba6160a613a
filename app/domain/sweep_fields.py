"""A sweep's descriptive fields, defined once: name, type, label and help, and what each is for.

Every list of sweep fields is built from SWEEP_COLUMNS with a flag, never written again: the
canonical CSV's sweep columns, the upload's form fields and details, the CLI's import options,
what a PATCH may edit, the text bounds checked before storing, what the content hash reads, the
answer models' keys, the export columns. The store's `sweep` table and the analysis's SweepMeta
are typed classes of their own; tests/test_sweep_fields.py holds them to this definition.

Pure data: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from app.domain.column import Column

Hashed = Literal["always", "when given", "never"]


@dataclass(frozen=True)
class SweepColumn(Column):
    """A sweep-level column: may be given per row (one file may hold several sweeps), as a form
    field or an import option, and is stored on the sweep."""

    # Longest text a file, a form or an edit may give (the store's column length); None: not
    # bounded here (a number, a date, or a text not yet bounded before storing).
    max_chars: int | None = None
    stored_null: bool = True  # the store may keep no value
    required: bool = False  # every sweep needs one before it is stored
    editable: bool = True  # a PATCH or the sweep page's form may change it
    detail: bool = False  # the upload page asks for it for each sweep
    option: bool = False  # `paretoscope import` takes it as --a-flag
    # The content hash: read always (hash format 2), only when given (a later column: every
    # sweep stored before it keeps its hash), or never (who ran the harness, not what it
    # measured).
    hashed: Hashed = "always"
    # A key hashed only when given: the order the later keys joined the hash (1: speculative
    # decoding's, 2: the run's, 3: the scenario's, 4: the config); sweeps of one name told
    # apart are named by them in this order.
    joined_hash: int = 0
    # The analysis reads it (app.domain.sweep_meta.SweepMeta; `sweep` as `name`).
    analysed: bool = True


SWEEP_COLUMNS: tuple[SweepColumn, ...] = (
    SweepColumn(
        "sweep",
        "str",
        "Sweep name",
        help="Name of the sweep this row belongs to.",
        max_chars=300,
        stored_null=False,
        required=True,
        detail=True,
        option=True,
    ),
    SweepColumn(
        "hardware",
        "str",
        "Hardware",
        help="GPU key from the hardware catalog, e.g. H100.",
        max_chars=100,
        stored_null=False,
        required=True,
        detail=True,
        option=True,
    ),
    SweepColumn(
        "num_gpus",
        "int",
        "GPUs",
        help="All GPUs of the deployment (prefill + decode for disaggregated serving).",
        stored_null=False,
        required=True,
        detail=True,
        option=True,
    ),
    SweepColumn("model", "str", "Model", max_chars=200, detail=True, option=True),
    SweepColumn(
        "engine",
        "str",
        "Engine",
        help="Serving engine, e.g. vllm, sglang, trt-llm.",
        max_chars=100,
        detail=True,
        option=True,
    ),
    SweepColumn("engine_version", "str", "Engine version", max_chars=100),
    SweepColumn(
        "precision",
        "str",
        "Precision",
        help="Weight precision, e.g. bf16, fp8, fp4.",
        max_chars=50,
        detail=True,
        option=True,
    ),
    SweepColumn(
        "spec_decode",
        "str",
        "Speculative decoding",
        help="e.g. none, mtp, eagle.",
        max_chars=100,
    ),
    SweepColumn(
        "draft_model",
        "str",
        "Draft model",
        help="Speculative decoding's draft model.",
        max_chars=200,
        hashed="when given",
        joined_hash=1,
    ),
    SweepColumn(
        "num_spec_tokens",
        "int",
        "Speculative tokens",
        "tokens",
        "Tokens proposed per step.",
        hashed="when given",
        joined_hash=1,
    ),
    SweepColumn(
        "isl", "int", "ISL", "tokens", "Nominal input sequence length.", detail=True, option=True
    ),
    SweepColumn(
        "osl", "int", "OSL", "tokens", "Nominal output sequence length.", detail=True, option=True
    ),
    SweepColumn(
        "workload",
        "str",
        "Workload",
        help="Free-form workload tag, e.g. random, sharegpt.",
        max_chars=200,
    ),
    SweepColumn(
        "scenario",
        "str",
        "Scenario",
        help="fixed-seq-len, chat-multiturn, agentic-coding, ... (what kind of traffic).",
        max_chars=100,
        hashed="when given",
        joined_hash=3,
    ),
    SweepColumn(
        "trace_dataset",
        "str",
        "Trace dataset",
        help="The trace a multi-turn run replays.",
        max_chars=200,
        hashed="when given",
        joined_hash=3,
    ),
    SweepColumn(
        "num_prefill_gpus", "int", "Prefill GPUs", help="Disaggregated serving only.", option=True
    ),
    SweepColumn(
        "num_decode_gpus", "int", "Decode GPUs", help="Disaggregated serving only.", option=True
    ),
    SweepColumn(
        "config",
        "str",
        "Config",
        help="What sets this sweep apart from its siblings, as key=value pairs: a swept server "
        "setting (max_num_seqs=8) or the parallelism layout (tp=8 ep=8 dp_attention=true).",
        max_chars=500,
        hashed="when given",
        joined_hash=4,
        analysed=False,
    ),
    SweepColumn(
        "source_kind",
        "str",
        "Source kind",
        help="measured, public, vendor or demo (synthetic).",
        max_chars=20,
        stored_null=False,
        hashed="never",
    ),
    SweepColumn(
        "source_tool",
        "str",
        "Source tool",
        help="Benchmark tool that wrote the results.",
        max_chars=100,
        editable=False,
        hashed="never",
        analysed=False,
    ),
    SweepColumn(
        "harness",
        "str",
        "Harness",
        help="Benchmark harness that produced the numbers.",
        max_chars=100,
        option=True,
        hashed="never",
    ),
    SweepColumn(
        "harness_version",
        "str",
        "Harness version",
        help="e.g. an MLPerf round, v4.1.",
        max_chars=100,
        option=True,
        hashed="never",
    ),
    SweepColumn(
        "provenance",
        "str",
        "Provenance",
        help="independent (MLPerf, InferenceX, your own run) or vendor (the vendor's own setup).",
        detail=True,
        max_chars=20,
        option=True,
        hashed="never",
    ),
    # A Text column: the bound is ours, not the database's.
    SweepColumn("notes", "str", "Notes", max_chars=10_000, analysed=False),
    SweepColumn("measured_at", "date", "Measured at", help="Date the benchmark ran (YYYY-MM-DD)."),
    SweepColumn(
        "run_id",
        "str",
        "Run id",
        help="The CI run that measured it (InferenceX: the GitHub Actions run id).",
        max_chars=40,
        hashed="when given",
        joined_hash=2,
    ),
    SweepColumn(
        "run_url",
        "str",
        "Run URL",
        help="Where that run's logs and artifacts are.",
        max_chars=500,
        hashed="when given",
        joined_hash=2,
    ),
    SweepColumn(
        "image",
        "str",
        "Image",
        help="Container image the server ran, as the file names it.",
        max_chars=300,
        hashed="when given",
        joined_hash=2,
        analysed=False,
    ),
)


def _named(columns: Iterable[SweepColumn]) -> tuple[str, ...]:
    return tuple(c.name for c in columns)


SWEEP_COLUMN_NAMES: tuple[str, ...] = _named(SWEEP_COLUMNS)
REQUIRED_META: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.required)
EDITABLE: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.editable)
DETAIL_FIELDS: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.detail)
IMPORT_OPTIONS: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.option)
SWEEP_TEXT_LIMITS: dict[str, int] = {
    c.name: c.max_chars for c in SWEEP_COLUMNS if c.max_chars is not None
}
SWEEP_INT_FIELDS: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.kind == "int")
HASHED_ALWAYS: tuple[str, ...] = _named(c for c in SWEEP_COLUMNS if c.hashed == "always")
HASHED_WHEN_GIVEN: tuple[str, ...] = _named(
    sorted((c for c in SWEEP_COLUMNS if c.hashed == "when given"), key=lambda c: c.joined_hash)
)
