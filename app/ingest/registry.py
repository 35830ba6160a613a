"""The importer protocol and the registry that picks an importer by content, not by name."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any, Protocol

from app.ingest.parsed import ParsedSweep
from app.ingest.source import SourceFile


class Importer(Protocol):
    """Turns the files it recognises into sweeps of canonical points."""

    name: str  # e.g. "vLLM bench serve"
    priority: int  # lower is asked first; specific formats before generic ones

    def sniff(self, file: SourceFile) -> bool:
        """True if this file is this tool's output (decided by content).

        Content it cannot read (IngestError: not UTF-8, past a JSON or YAML bound) is not this
        tool's; any other exception is a bug and propagates, never read as "not mine"."""
        ...

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        """All files of this tool in one upload → sweeps (several files may form one sweep).

        Raise IngestError naming file, row or key on bad content. Fill sweep meta with what
        the files say (model, GPU counts, ...) and `defaults` where they are silent. Put
        every source field without a canonical column into the point's `extra`.
        """
        ...


def importers() -> list[Importer]:
    """Every IMPORTER in app.ingest.tools, in priority order (a new list each call)."""
    return list(_registered())


@functools.cache
def _registered() -> tuple[Importer, ...]:
    # Listed once per process: listing the package's modules on every upload cost ~1 ms.
    from app.ingest import tools

    found: list[Importer] = []
    for module in pkgutil.iter_modules(tools.__path__):
        loaded = importlib.import_module(f"{tools.__name__}.{module.name}")
        importer = getattr(loaded, "IMPORTER", None)
        if importer is not None:
            found.append(importer)
    return tuple(sorted(found, key=lambda i: (i.priority, i.name)))
