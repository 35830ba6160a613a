"""The files `import` reads: files as given, and folders as a tool wrote them, read the way an
archive is (the same bounds; logs, text, images and hidden files skipped unread)."""

from __future__ import annotations

import os
from pathlib import Path

from app.ingest import IngestError, UploadFile
from app.ingest.skipped import OUTSIDE_LINK
from app.ingest.source import MAX_ARCHIVE_MEMBERS, is_side_file


def read_inputs(paths: list[Path], max_bytes: int) -> tuple[list[UploadFile], list[str]]:
    """Every file given, and every file under every folder given (named by its path from the
    folder's parent, so files keep their folder as they would in an archive). Side files by
    name are skipped without being read: their names (a hidden folder's ends in "/") are the
    second list. Raises IngestError past MAX_ARCHIVE_MEMBERS files or
    `max_bytes` in all (PARETOSCOPE_MAX_UNPACKED_MB), OSError when a file cannot be read."""
    files: list[UploadFile] = []
    skipped: list[str] = []
    total = 0
    for path in paths:
        if not path.is_dir():
            files.append(UploadFile(path.name, path.read_bytes()))
            continue
        for found in _walk(path, skipped):
            name = found.relative_to(path.parent).as_posix()
            if is_side_file(name):
                skipped.append(name)
                continue
            if len(files) >= MAX_ARCHIVE_MEMBERS:
                raise IngestError.one(
                    str(path), f"the folder holds more than {MAX_ARCHIVE_MEMBERS} files; refused"
                )
            total += found.stat().st_size
            if total > max_bytes:
                raise IngestError.one(
                    str(path),
                    f"{name}: the folder holds more than {max_bytes / 1048576:g} MB; refused "
                    "(PARETOSCOPE_MAX_UNPACKED_MB)",
                )
            files.append(UploadFile(name, found.read_bytes()))
    return files, skipped


def _walk(folder: Path, skipped: list[str]) -> list[Path]:
    """Regular files under `folder`, sorted; hidden folders (.git) are skipped whole,
    symbolic links to folders are not followed, and a link to a file outside the folder is
    listed as skipped, unread (a link inside it is read: its target is the user's too)."""
    out: list[Path] = []
    inside = folder.resolve()
    for root, dirs, names in os.walk(folder):
        here = Path(root)
        for d in sorted(dirs):
            if d.startswith(".") or d == "__MACOSX":
                rel = (here / d).relative_to(folder.parent).as_posix() + "/"
                skipped.append(rel)
        dirs[:] = sorted(d for d in dirs if not (d.startswith(".") or d == "__MACOSX"))
        for n in sorted(names):
            path = here / n
            if path.is_symlink() and not path.resolve().is_relative_to(inside):
                skipped.append(path.relative_to(folder.parent).as_posix() + OUTSIDE_LINK)
            elif path.is_file():
                out.append(path)
    return out
