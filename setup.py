"""The wheel's layout, which pyproject.toml cannot declare alone: templates, static files,
migrations and seed data stay at the checkout's top level (where they are edited) and ship inside
the `app` package as app/templates, app/static, app/migrations and app/seed_data.

app.settings.bundled() finds them inside the package when installed from the wheel and at the
top level in a checkout (`make`'s editable install). Everything else is in pyproject.toml.
"""

from pathlib import Path

from setuptools import find_packages, setup

BUNDLED = ("templates", "static", "migrations", "seed_data")

packages = find_packages(include=["app", "app.*"])
package_dir: dict[str, str] = {}
package_data: dict[str, list[str]] = {}
for top in BUNDLED:
    # Every directory with an importable name is a package of its own (setuptools warns about
    # data in one that is not listed); each file is data of the nearest one above it.
    dirs = [Path(top), *sorted(p for p in Path(top).rglob("*") if p.is_dir())]
    owners = [d for d in dirs if all(part.isidentifier() for part in d.parts)]
    owners = [d for d in owners if "__pycache__" not in d.parts]
    for owner in owners:
        name = ".".join(("app", *owner.parts))
        packages.append(name)
        package_dir[name] = owner.as_posix()
        package_data[name] = []
    for path in sorted(Path(top).rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        owner = max((d for d in owners if d in path.parents), key=lambda d: len(d.parts))
        package_data[".".join(("app", *owner.parts))].append(str(path.relative_to(owner)))

setup(packages=packages, package_dir=package_dir, package_data=package_data)
