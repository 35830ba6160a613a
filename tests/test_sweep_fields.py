"""A sweep's fields are defined once (app.domain.sweep_fields): the store's table, the analysis's
SweepMeta, the answer models and the import options are held to that definition, so a field
added to one and not the others fails here."""

from __future__ import annotations

import argparse
import datetime as dt
import typing
from dataclasses import fields

from sqlalchemy import Date, Integer, String, Text

from app.cli.importing import import_parser
from app.domain.sweep_fields import (
    DETAIL_FIELDS,
    EDITABLE,
    HASHED_ALWAYS,
    HASHED_WHEN_GIVEN,
    IMPORT_OPTIONS,
    REQUIRED_META,
    SWEEP_COLUMN_NAMES,
    SWEEP_COLUMNS,
    SWEEP_TEXT_LIMITS,
)
from app.domain.sweep_meta import SweepMeta
from app.ingest.grouping import TELLING
from app.ingest.limits import _META_ORDER, INT_FIELDS
from app.schemas.answers.sweeps import SweepFields
from app.schemas.answers.uploads import StagedSweepDetails
from app.schemas.sweeps import SweepQuery
from app.services.history import CONFIG_KEYS
from app.services.sweeps.likeness import DESCRIPTION
from app.store.models import Sweep
from app.store.sweep_search import SweepFilters

# The sweep table's columns that are not descriptive fields: its key, the stored name's column
# (the field `sweep`), the file it came from, when it was stored, its content hash, and the
# format of the sample digests in that hash.
NOT_FIELDS = ("id", "name", "source_file", "created_at", "content_hash", "sample_digest")
STORE_TYPES = {"str": (String, Text), "int": (Integer,), "date": (Date,)}


def stored_as(name: str) -> str:
    return "name" if name == "sweep" else name


def test_the_store_keeps_exactly_the_defined_fields_with_their_type_length_and_nullness() -> None:
    table = Sweep.__table__
    stored = [c.name for c in table.columns if c.name not in NOT_FIELDS]
    assert sorted(stored) == sorted(n for n in SWEEP_COLUMN_NAMES if n != "sweep")
    assert len(SWEEP_COLUMNS) == 28
    for spec in SWEEP_COLUMNS:
        column = table.columns[stored_as(spec.name)]
        assert isinstance(column.type, STORE_TYPES[spec.kind]), spec.name
        assert column.nullable is spec.stored_null, spec.name
        if spec.max_chars is not None and isinstance(column.type, String):
            # notes is Text: its bound is ours, not the database's.
            limit = column.type.length or spec.max_chars
            assert (spec.name, limit) == (spec.name, spec.max_chars)


def test_every_text_field_is_bounded_before_storing() -> None:
    assert [c.name for c in SWEEP_COLUMNS if c.kind == "str" and c.max_chars is None] == []
    assert len(SWEEP_TEXT_LIMITS) == 21
    assert SWEEP_TEXT_LIMITS["notes"] == 10_000


def test_the_analysis_reads_the_fields_flagged_analysed_with_their_types() -> None:
    analysed = [c.name for c in SWEEP_COLUMNS if c.analysed]
    hints = typing.get_type_hints(SweepMeta)
    meta = [f.name for f in fields(SweepMeta) if f.name not in ("id", "content_hash")]
    assert sorted(meta) == sorted(stored_as(n) for n in analysed)
    assert len(analysed) == 24
    python = {"str": str, "int": int, "date": dt.date}
    for spec in SWEEP_COLUMNS:
        if spec.analysed:
            assert python[spec.kind] in typing.get_args(hints[stored_as(spec.name)]) or (
                hints[stored_as(spec.name)] is python[spec.kind]
            ), spec.name


def test_the_answer_models_carry_every_field_in_the_defined_order() -> None:
    stored = ["id", *(stored_as(n) for n in SWEEP_COLUMN_NAMES), "source_file", "created_at"]
    assert list(SweepFields.model_fields) == stored
    assert list(StagedSweepDetails.model_fields) == list(SWEEP_COLUMN_NAMES)
    required = [n for n, f in SweepFields.model_fields.items() if f.annotation in (str, int)]
    assert required == ["id", "name", "hardware", "num_gpus", "source_kind", "created_at"]


def test_the_import_command_has_an_option_for_each_field_flagged_option_and_no_other() -> None:
    parser = argparse.ArgumentParser()
    import_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["import"]  # type: ignore[union-attr]
    dests = [a.dest for a in sub._actions if a.option_strings and a.dest in SWEEP_COLUMN_NAMES]
    assert sorted(dests) == sorted(IMPORT_OPTIONS)
    assert len(IMPORT_OPTIONS) == 13


def test_the_flags_make_the_lists_the_surfaces_used_to_spell_out() -> None:
    assert REQUIRED_META == ("sweep", "hardware", "num_gpus")
    assert DETAIL_FIELDS == (
        "sweep", "hardware", "num_gpus", "model", "engine", "precision", "isl", "osl", "provenance"
    )  # fmt: skip
    assert [n for n in SWEEP_COLUMN_NAMES if n not in EDITABLE] == ["source_tool"]
    # In the order they joined the hash: how sweeps of one name told apart are named.
    assert HASHED_WHEN_GIVEN == (
        "draft_model", "num_spec_tokens", "run_id", "run_url", "image", "scenario",
        "trace_dataset", "config",
    )  # fmt: skip
    assert len(HASHED_ALWAYS) == 15


def test_the_ordered_subsets_kept_by_their_own_surfaces_name_only_defined_fields() -> None:
    # Each keeps an order of its own that shows in answers: the list page's filters (query
    # strings, the OpenAPI parameters), what tells sweeps of one name apart, History's line
    # of one configuration, and what likeness compares.
    filters = [n for n in SweepQuery.model_fields if n not in ("q", "page", "per_page", "limit")]
    kept = {
        "SweepQuery": filters,
        "SweepFilters": [f.name for f in fields(SweepFilters) if f.name != "q"],
        "TELLING": list(TELLING),
        "CONFIG_KEYS": list(CONFIG_KEYS),
        "DESCRIPTION": list(DESCRIPTION),
    }
    for where, names in kept.items():
        assert set(names) <= set(SWEEP_COLUMN_NAMES), where


def test_refusals_list_text_fields_first_notes_last_of_them_then_gpu_counts() -> None:
    order = list(_META_ORDER)
    assert order.index("image") < order.index("notes") < order.index("num_gpus")
    assert INT_FIELDS == (
        "num_gpus", "num_prefill_gpus", "num_decode_gpus", "num_spec_tokens", "isl", "osl",
        "num_requests", "num_failed",
    )  # fmt: skip
