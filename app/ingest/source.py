"""Uploaded files as importers see them: archives expanded, text decoded, JSON parsed once."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from dataclasses import dataclass, field
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.text import decode_text

MAX_ARCHIVE_MEMBERS = 10_000
IGNORED_SUFFIXES = (".pytorch.json", ".DS_Store", ".log", ".png", ".txt", ".md", ".html")


@dataclass
class SourceFile:
    """One file of an upload; `name` includes the folder path inside an archive."""

    name: str
    data: bytes
    _text: str | None = field(default=None, repr=False)
    _json: Any = field(default=None, repr=False)
    _json_error: str | None = field(default=None, repr=False)
    _json_done: bool = field(default=False, repr=False)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = decode_text(self.name, self.data)
        return self._text

    def json(self) -> Any:
        """Lenient JSON (bare Infinity and NaN are accepted, as Python's writer emits them)."""
        if not self._json_done:
            self._json_done = True
            try:
                self._json = json.loads(self.text)
            except json.JSONDecodeError as exc:
                self._json_error = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        return self._json

    def json_lines(self) -> list[Any] | None:
        """Every non-empty line as JSON (JSONL), or None if any line is not JSON."""
        out = []
        for line in self.text.splitlines():
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    return None
        return out or None

    @property
    def json_error(self) -> str | None:
        self.json()
        return self._json_error

    @property
    def basename(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def folder(self) -> str:
        return self.name.rsplit("/", 1)[0] if "/" in self.name else ""


def expand(name: str, data: bytes) -> list[SourceFile]:
    """A .zip, .tar, .tar.gz or .tgz becomes its member files; anything else stays one file."""
    lowered = name.lower()
    try:
        if lowered.endswith(".zip") or data[:4] == b"PK\x03\x04":
            return _from_zip(name, data)
        if lowered.endswith((".tar.gz", ".tgz", ".tar")) or data[:2] == b"\x1f\x8b":
            return _from_tar(name, data)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise IngestError.one(name, f"not a readable archive ({exc})") from exc
    return [SourceFile(name, data)]


def _keep(member: str) -> bool:
    base = member.rsplit("/", 1)[-1]
    return (
        bool(base)
        and not base.startswith(".")
        and not member.endswith(IGNORED_SUFFIXES)
        and ("__MACOSX" not in member)
    )


def _from_zip(name: str, data: bytes) -> list[SourceFile]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.infolist() if not m.is_dir() and _keep(m.filename)]
        _check_count(name, len(members))
        return [SourceFile(f"{name}/{m.filename}", archive.read(m)) for m in members]


def _from_tar(name: str, data: bytes) -> list[SourceFile]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        members = [m for m in archive.getmembers() if m.isfile() and _keep(m.name)]
        _check_count(name, len(members))
        out = []
        for m in members:
            handle = archive.extractfile(m)
            if handle is not None:
                out.append(SourceFile(f"{name}/{m.name.removeprefix('./')}", handle.read()))
        return out


def _check_count(name: str, count: int) -> None:
    if count == 0:
        raise IngestError.one(name, "the archive holds no result files")
    if count > MAX_ARCHIVE_MEMBERS:
        raise IngestError.one(
            name, f"the archive holds {count} files; at most {MAX_ARCHIVE_MEMBERS}"
        )
