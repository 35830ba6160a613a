"""The answer TypedDicts (app/schemas/answers/typed/) are the answer models' own keys: written
from them by tools/answer_types.py, so a builder annotated with one is held to its model."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import answer_types  # noqa: E402

FOUND = [m for models in answer_types.answer_models().values() for m in models]
MODELS = [m for m in FOUND if isinstance(m, type)]
PARTS = [m for m in FOUND if not isinstance(m, type)]


def test_the_typed_modules_are_what_the_answer_models_give() -> None:
    assert answer_types.main(["--check"]) == 0


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_each_typed_dict_has_its_models_keys_and_requires_what_the_model_requires(
    model: type,
) -> None:
    short = model.__module__.rsplit(".", 1)[1]
    typed = getattr(
        importlib.import_module(f"app.schemas.answers.typed.{short}"), f"{model.__name__}Dict"
    )
    fields = model.model_fields  # type: ignore[attr-defined]
    # Keys as the answer writes them: a field's alias where it has one ("pricing profiles").
    keys = [f.serialization_alias or f.alias or name for name, f in fields.items()]
    assert list(typed.__annotations__) == keys
    # The annotations are text (PEP 563), which a TypedDict does not read for NotRequired.
    optional = {
        k for k, v in typed.__annotations__.items() if annotation_text(v).startswith("NotRequired[")
    }
    assert optional == {
        f.serialization_alias or f.alias or k for k, f in fields.items() if not f.is_required()
    }


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.name)
def test_a_part_of_a_model_has_the_models_keys_but_those_it_leaves_out(part: Any) -> None:
    short = part.model.__module__.rsplit(".", 1)[1]
    typed = getattr(
        importlib.import_module(f"app.schemas.answers.typed.{short}"), f"{part.name}Dict"
    )
    kept = [name for name in part.model.model_fields if name not in part.keys]
    assert list(typed.__annotations__) == kept
    assert set(part.keys) <= set(part.model.model_fields)


def test_the_production_parts_are_a_window_and_a_frontier_without_what_the_report_adds() -> None:
    from app.schemas.answers.production import (
        FRONTIER_READ,
        WINDOW_READ,
        FrontierUsed,
        WindowOut,
    )

    assert PARTS == [WINDOW_READ, FRONTIER_READ]
    assert WINDOW_READ.model is WindowOut
    assert WINDOW_READ.keys == ("id", "source", "selector")
    assert FRONTIER_READ.model is FrontierUsed
    assert FRONTIER_READ.keys == ("matched",)


def test_a_typed_dict_refers_to_another_models_typed_dict_not_to_the_model() -> None:
    from app.schemas.answers.typed.readoff import ReadoffResultDict

    annotations = ReadoffResultDict.__annotations__
    assert annotation_text(annotations["sessions"]) == "SessionsOutDict"
    assert annotation_text(annotations["operating_point"]) == "OperatingPointDict | None"
    assert annotation_text(annotations["points"]) == "NotRequired[list[PointVerdictDict] | None]"


def annotation_text(annotation: object) -> str:
    return str(getattr(annotation, "__forward_arg__", annotation))


def test_mypy_refuses_a_builder_whose_dict_lacks_a_key_or_names_one_the_model_lacks(
    tmp_path: Path,
) -> None:
    from mypy import api

    builder = tmp_path / "builder.py"
    builder.write_text(
        "from app.schemas.answers.typed.readoff import TurnsOutDict\n"
        "def turns() -> TurnsOutDict:\n"
        '    return {"ttft_first_ms": 1.0, "ttft_later_ms": None, "first_requests": 3,\n'
        '            "later_requests": None, "percentiel": 90.0}\n',
        encoding="utf-8",
    )
    out, _, status = api.run(
        [str(builder), "--no-incremental", "--follow-imports=silent", "--config-file", ""]
    )
    assert status == 1
    assert 'Missing key "percentile" for TypedDict "TurnsOutDict"' in out
    assert 'Extra key "percentiel" for TypedDict "TurnsOutDict"' in out
