"""Write app/schemas/answers/typed/: a TypedDict for every answer model, derived from it.

An answer's keys are declared once, in its pydantic model (app/schemas/answers/<concept>.py).
A service or view that builds that answer as a plain dict annotates its builder with the
model's TypedDict (app/schemas/answers/typed/<concept>.py, `<Model>Dict`), so mypy holds every
key and value of the literal to the model: a key the model lacks, a key it requires and the
builder leaves out, or a value of another type fails `make test`. The dicts stay dicts at run
time (no validation cost, every answer byte as before).

    python tools/answer_types.py          # rewrite app/schemas/answers/typed/
    python tools/answer_types.py --check  # exit 1 if it is not what the models give
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types
import typing
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo

if typing.TYPE_CHECKING:
    from app.schemas.answers.common import Without

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PACKAGE = "app.schemas.answers"
TYPED = "typed"
TARGET = ROOT / "app" / "schemas" / "answers" / TYPED
SUFFIX = "Dict"

PACKAGE_DOC = '''"""A TypedDict for every answer model of app.schemas.answers, one module per
concept, written from the models themselves by tools/answer_types.py (`make test` fails when
it differs): a builder annotated with one is held by mypy to its model's keys and value
types. Do not edit these modules by hand."""
'''

MODULE_HEAD = '''"""The TypedDicts of {source}: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict
'''


def answer_models() -> dict[str, list[type[BaseModel] | Without]]:
    """Every answer model by its module's short name, in module then declaration order, and
    the parts of them (`Without`) the module names."""
    from app.schemas.answers.common import Answer, Without

    package = importlib.import_module(PACKAGE)
    found: dict[str, list[type[BaseModel] | Without]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name == TYPED:
            continue
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        found[info.name] = [
            value
            for value in vars(module).values()
            if isinstance(value, Without)
            or (
                isinstance(value, type)
                and issubclass(value, Answer)
                and value is not Answer
                and value.__module__ == module.__name__
            )
        ]
    return found


class Renderer:
    """The TypedDicts of one module's models; what they take from other modules is noted."""

    def __init__(self, short: str, home: dict[str, str]) -> None:
        self.short = short
        self.home = home  # model name -> its module's short name
        self.siblings: dict[str, set[str]] = {}
        self.imports: dict[str, set[str]] = {}  # needed at run time: bases in other modules

    def type_text(self, annotation: object) -> str:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation is None or annotation is type(None):
            return "None"
        if annotation is typing.Any or getattr(annotation, "__name__", None) == "JsonValue":
            return "Any"  # pydantic's JsonValue: any JSON value (a recursive alias)
        if origin is typing.Annotated:
            return self.type_text(args[0])
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.type_text(a) for a in args)
        if origin is typing.Literal:
            return f"Literal[{', '.join(repr(a) for a in args)}]"
        if origin in (list, dict, tuple):
            return f"{origin.__name__}[{', '.join(self.type_text(a) for a in args)}]"
        if isinstance(annotation, type):
            return self._named(annotation)
        # Anything else (an enum, a set, a variadic tuple) fails here until an answer uses it.
        raise TypeError(f"cannot write {annotation!r} as a type")

    def _named(self, kind: type) -> str:
        if issubclass(kind, BaseModel):
            if kind.__name__ not in self.home:
                raise TypeError(f"{kind!r} is not an answer model")
            name = kind.__name__ + SUFFIX
            module = self.home[kind.__name__]
            if module != self.short:
                self.siblings.setdefault(module, set()).add(name)
            return name
        if kind in (int, float, str, bool):
            return kind.__name__
        raise TypeError(f"cannot write {kind!r} as a type")

    def part(self, part: Without) -> str:
        """A model's keys but some: what one builder writes and another completes."""
        model = part.model
        unknown = set(part.keys) - model.model_fields.keys()
        if unknown:
            raise TypeError(f"{part.name}: {model.__name__} has no {sorted(unknown)}")
        lines = [
            f"class {part.name}{SUFFIX}(TypedDict):",
            f'    """{model.__module__}.{model.__name__} without {", ".join(part.keys)}"""',
            "",
        ]
        for name, field in model.model_fields.items():
            if name not in part.keys:
                text = self.type_text(field.annotation)
                if not field.is_required():
                    text = f"NotRequired[{text}]"
                lines.append(f"    {name}: {text}")
        return "\n".join(lines)

    def typed_dict(self, model: type[BaseModel]) -> str:
        if any(_key(name, field) != name for name, field in model.model_fields.items()):
            return self._functional(model)
        base = self._base(model)
        inherited = {} if base is None else base.model_fields
        parent = "TypedDict" if base is None else self._parent(base)
        lines = [
            f"class {model.__name__}{SUFFIX}({parent}):",
            f'    """{model.__module__}.{model.__name__}"""',
            "",
        ]
        for name, field in model.model_fields.items():
            if name in inherited:
                continue
            text = self.type_text(field.annotation)
            if not field.is_required():
                text = f"NotRequired[{text}]"
            lines.append(f"    {name}: {text}")
        if not model.model_fields.keys() - inherited.keys():
            lines.append("    pass")
        return "\n".join(lines)

    def _functional(self, model: type[BaseModel]) -> str:
        """A model whose keys are its aliases (a key with a space, say): TypedDict's call
        syntax, which takes any key (its types are read when the module runs)."""
        items = []
        for name, field in model.model_fields.items():
            text = self.type_text(field.annotation)
            if not field.is_required():
                text = f"NotRequired[{text}]"
            items.append(f"{_key(name, field)!r}: {text}")
        name = f"{model.__name__}{SUFFIX}"
        source = f'"""{model.__module__}.{model.__name__}"""'
        return f'{name} = TypedDict("{name}", {{{", ".join(items)}}})\n{source}'

    def _base(self, model: type[BaseModel]) -> type[BaseModel] | None:
        """The answer model this one extends, when it keeps that model's fields as they are
        (a TypedDict may add keys to its base's, not change them)."""
        base = model.__bases__[0]
        if not issubclass(base, BaseModel) or base.__name__ not in self.home:
            return None
        own = model.model_fields
        for name, field in base.model_fields.items():
            if (
                name not in own
                or own[name].annotation != field.annotation
                or own[name].is_required() != field.is_required()
            ):
                return None
        return base

    def _parent(self, base: type[BaseModel]) -> str:
        name = base.__name__ + SUFFIX
        module = self.home[base.__name__]
        if module != self.short:
            # A base is needed when the class is made, not only by mypy.
            self.imports.setdefault(f"{PACKAGE}.{TYPED}.{module}", set()).add(name)
        return name

    def module(self, models: list[type[BaseModel] | Without]) -> str:
        classes = [self.typed_dict(m) if isinstance(m, type) else self.part(m) for m in models]
        head = MODULE_HEAD.format(source=f"{PACKAGE}.{self.short}")
        head += "".join(
            f"from {module} import {', '.join(sorted(names))}\n"
            for module, names in sorted(self.imports.items())
        )
        # Only mypy follows one module's TypedDicts into another's: nothing runs at import,
        # so the modules may refer to each other both ways.
        head += "\nif TYPE_CHECKING:\n" + "".join(
            f"    from {PACKAGE}.{TYPED}.{module} import {', '.join(sorted(names))}\n"
            for module, names in sorted(self.siblings.items())
        )
        if not self.siblings:
            head += "    pass\n"
        return head + "\n\n" + "\n\n\n".join(classes) + "\n"


def _key(name: str, field: FieldInfo) -> str:
    """The key an answer writes for a field: its alias where it has one."""
    return str(field.serialization_alias or field.alias or name)


def formatted(path: Path, text: str) -> str:
    ruff = Path(sys.executable).parent / "ruff"
    fixed = subprocess.run(
        [str(ruff), "check", "--fix-only", "--quiet", "--stdin-filename", str(path), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(path), "-"],
        input=fixed,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout


def render() -> dict[Path, str]:
    """Each file of the typed package and its text."""
    by_module = answer_models()
    home = {
        m.__name__: short
        for short, models in by_module.items()
        for m in models
        if isinstance(m, type)
    }
    files = {TARGET / "__init__.py": PACKAGE_DOC}
    for short, models in by_module.items():
        if models:
            path = TARGET / f"{short}.py"
            files[path] = formatted(path, Renderer(short, home).module(models))
    return files


def main(argv: list[str]) -> int:
    files = render()
    written = set(TARGET.glob("*.py")) if TARGET.exists() else set()
    if "--check" in argv:
        stale = sorted(
            str(p.relative_to(ROOT))
            for p in set(files) | written
            if p not in files or not p.exists() or p.read_text(encoding="utf-8") != files[p]
        )
        if stale:
            print(f"stale: {', '.join(stale)}: run python tools/answer_types.py")
            return 1
        return 0
    TARGET.mkdir(exist_ok=True)
    for path in written - set(files):
        path.unlink()
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
