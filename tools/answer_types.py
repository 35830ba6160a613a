"""Write app/schemas/answers/typed.py: a TypedDict for every answer model, derived from it.

An answer's keys are declared once, in its pydantic model (app/schemas/answers). A service
that builds that answer as a plain dict annotates its builder with the model's TypedDict, so
mypy holds every key and value of the literal to the model: a key the model lacks, a key it
requires and the builder leaves out, or a value of another type fails `make test`. The dicts
stay dicts at run time (no validation cost, every answer byte as before).

    python tools/answer_types.py          # rewrite typed.py
    python tools/answer_types.py --check  # exit 1 if typed.py is not what the models give
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
import subprocess
import sys
import types
import typing
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = ROOT / "app" / "schemas" / "answers" / "typed.py"
PACKAGE = "app.schemas.answers"
SUFFIX = "Dict"

HEADER = '''"""A TypedDict for every answer model of app.schemas.answers, written from the models
themselves by tools/answer_types.py (`make test` fails when it differs): a builder annotated
with one is held by mypy to its model's keys and value types. Do not edit by hand."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict
'''


def answer_models() -> list[type[BaseModel]]:
    """Every answer model, in module then declaration order."""
    from app.schemas.answers.common import Answer

    package = importlib.import_module(PACKAGE)
    found: dict[str, type[BaseModel]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name == "typed":
            continue
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Answer)
                and value.__module__ == module.__name__
            ):
                found.setdefault(value.__name__, value)
    return list(found.values())


class Renderer:
    def __init__(self, models: set[str]) -> None:
        self.models = models
        self.imports: dict[str, set[str]] = {}

    def type_text(self, annotation: object) -> str:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation is None or annotation is type(None):
            return "None"
        if annotation is typing.Any:
            return "Any"
        if origin is typing.Annotated:
            return self.type_text(args[0])
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.type_text(a) for a in args)
        if origin is typing.Literal:
            return f"Literal[{', '.join(repr(a) for a in args)}]"
        if origin in (list, dict, tuple, set, frozenset):
            return f"{origin.__name__}[{', '.join(self.type_text(a) for a in args)}]"
        if isinstance(annotation, type):
            if issubclass(annotation, BaseModel):
                if annotation.__name__ not in self.models:
                    raise TypeError(f"{annotation!r} is not an answer model")
                return annotation.__name__ + SUFFIX
            if annotation in (int, float, str, bool, bytes):
                return annotation.__name__
            if issubclass(annotation, enum.Enum):
                self.imports.setdefault(annotation.__module__, set()).add(annotation.__name__)
                return annotation.__name__
        if annotation is Ellipsis:
            return "..."
        if getattr(annotation, "__name__", None) == "JsonValue":
            return "Any"  # pydantic's JsonValue: any JSON value (a recursive alias)
        raise TypeError(f"cannot write {annotation!r} as a type")

    def typed_dict(self, model: type[BaseModel]) -> str:
        lines = [f"class {model.__name__}{SUFFIX}(TypedDict):"]
        doc = f'    """{model.__module__}.{model.__name__}"""'
        lines.append(doc)
        lines.append("")
        for name, field in model.model_fields.items():
            text = self.type_text(field.annotation)
            if not field.is_required():
                text = f"NotRequired[{text}]"
            lines.append(f"    {name}: {text}")
        return "\n".join(lines)


def render() -> str:
    models = answer_models()
    renderer = Renderer({m.__name__ for m in models})
    classes = [renderer.typed_dict(m) for m in models]
    imports = "".join(
        f"from {module} import {', '.join(sorted(names))}\n"
        for module, names in sorted(renderer.imports.items())
    )
    # A TypedDict refers to ones declared after it: the annotations are strings (PEP 563).
    text = HEADER + imports + "\n\n" + "\n\n\n".join(classes) + "\n"
    ruff = Path(sys.executable).parent / "ruff"
    return subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(TARGET), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python tools/answer_types.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
