"""One reading of a file's start (`SourceFile.head`): a BOM never hides what the file is."""

from __future__ import annotations

import codecs

import pytest

from app.ingest import UploadFile, parse_upload_files
from app.ingest.source import SourceFile
from tests.ingest.test_all_fixtures import FOLDERS, files_of


def test_head_removes_one_byte_order_mark_and_the_whitespace_after_it() -> None:
    file = SourceFile("a.json", codecs.BOM_UTF8 + b' \r\n\t{"a": 1}\n')
    assert file.head(10) == b'{"a'  # the first 10 bytes of the file, then stripped
    assert file.head() == b'{"a": 1}\n'
    assert file.head(7, lstrip=False) == b" \r\n\t"
    assert SourceFile("b.csv", b"  x,y\n").head(lstrip=False) == b"  x,y\n"
    # Only one mark is a BOM: a second is content.
    assert SourceFile("c", codecs.BOM_UTF8 * 2 + b"{").head() == codecs.BOM_UTF8 + b"{"


def test_head_copies_nothing_when_there_is_nothing_to_remove() -> None:
    data = b'{"a": 1}' * 1000
    assert SourceFile("a.json", data).head() is data


def _sweeps(files: list[UploadFile]) -> list[tuple[str, str, int]]:
    parsed = parse_upload_files(files, {"hardware": "H100", "num_gpus": 8})
    return sorted((s.source_file, s.source_format, len(s.points)) for s in parsed.sweeps)


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_fixture_reads_the_same_behind_a_byte_order_mark(folder: str) -> None:
    plain = [UploadFile(p.name, p.read_bytes()) for p in files_of(folder)]
    marked = [UploadFile(f.name, codecs.BOM_UTF8 + f.data) for f in plain]
    expected = _sweeps(plain)
    assert expected and _sweeps(marked) == expected
