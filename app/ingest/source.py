"""Uploaded files as importers see them: archives expanded, text decoded, JSON parsed once."""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import tarfile
import zipfile
from dataclasses import dataclass, field
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.limits import DEFAULT_LIMITS, MB, Limits
from app.ingest.safe_load import loads_json
from app.ingest.text import decode_text

MAX_ARCHIVE_MEMBERS = 10_000
CHUNK = 256 * 1024
ZIP_READ = 64 * 1024
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_XZ_MAGIC = b"\xfd7zXZ\x00"
LOADGEN_SUMMARY = "mlperf_log_summary.txt"
IGNORED_SUFFIXES = (
    ".pytorch.json",
    ".DS_Store",
    ".log",
    ".txt",
    ".md",
    ".html",
    ".png",
    ".jpg",
    ".jpeg",
    ".svg",
    ".gif",
    ".pdf",
)


def head_of(data: bytes, n: int | None = None, *, lstrip: bool = True) -> bytes:
    """The first n bytes (all of them without n), a leading UTF-8 BOM removed and, unless
    `lstrip` is False, the whitespace after it: where a sniffer looks for a format's opening.
    No copy of the data when there is nothing to remove."""
    head = (data if n is None else data[:n]).removeprefix(codecs.BOM_UTF8)
    return head.lstrip() if lstrip else head


@dataclass
class SourceFile:
    """One file of an upload; `name` includes the folder path inside an archive."""

    name: str
    data: bytes
    _text: str | None = field(default=None, repr=False)
    _json: Any = field(default=None, repr=False)
    _json_error: str | None = field(default=None, repr=False)
    _json_done: bool = field(default=False, repr=False)
    _json_refused: IngestError | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = decode_text(self.name, self.data)
        return self._text

    def json(self) -> Any:
        """Lenient JSON (bare Infinity and NaN are accepted, as Python's writer emits them).

        A bound that is hit (depth, digits) raises IngestError on every call, so a sniffer that
        swallows it does not leave the next caller with a silent None.
        """
        if not self._json_done:
            self._json_done = True
            try:
                self._json = loads_json(self.text, self.name)
            except json.JSONDecodeError as exc:
                self._json_error = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
            except IngestError as exc:
                self._json_refused = exc
        if self._json_refused is not None:
            raise self._json_refused
        return self._json

    def head(self, n: int | None = None, *, lstrip: bool = True) -> bytes:
        """`head_of` the file's bytes: the first n, without a BOM (nor, by default, the
        whitespace after it)."""
        return head_of(self.data, n, lstrip=lstrip)

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


def expand(
    name: str, data: bytes, limits: Limits = DEFAULT_LIMITS, unread: list[str] | None = None
) -> list[SourceFile]:
    """A .zip, .tar, .tar.gz/.tgz (or bz2/xz) becomes its member files; anything else stays one.

    Members that are never result files by their name (logs, text, images, hidden files: see
    `is_side_file`) are not read; their names are appended to `unread`, so the upload can list
    them as skipped.

    Members are read in chunks and the budget is checked while they are read, never from the
    sizes an archive declares: the total unpacked size is capped, and so is the compression
    ratio of each member (zip) or of the stream so far (tar), so a bomb stops after ~1 MB.
    """
    lowered = name.lower()
    try:
        if lowered.endswith(".zip") or data[:4] == b"PK\x03\x04":
            return _from_zip(name, data, limits, unread if unread is not None else [])
        compressed = data[:2] == b"\x1f\x8b" or data[:3] == b"BZh" or data[:6] == _XZ_MAGIC
        if lowered.endswith(TAR_SUFFIXES) or compressed:
            return _from_tar(name, data, limits, unread if unread is not None else [])
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, lzma.LZMAError) as exc:
        raise IngestError.one(name, f"not a readable archive ({exc})") from exc
    except (NotImplementedError, RuntimeError) as exc:  # unsupported method, encrypted member
        raise IngestError.one(name, f"cannot read this archive ({exc})") from exc
    return [SourceFile(name, data)]


def is_side_file(member: str) -> bool:
    """True for a file that is never a result file by its name: a log, text, Markdown, image or
    HTML file, a hidden file, macOS metadata. Such a file is not read, whether it came alone,
    from a folder or as an archive's member."""
    base = member.rsplit("/", 1)[-1]
    if base == LOADGEN_SUMMARY:
        return False  # text, yet a result file: MLPerf LoadGen's summary
    return base.startswith(".") or member.endswith(IGNORED_SUFFIXES) or "__MACOSX" in member


class _CountingBytes(io.BytesIO):
    """The archive's bytes, counting how many the decompressor has consumed so far."""

    consumed = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.consumed += len(chunk)
        return chunk


class _Budget:
    """Bytes unpacked so far against the caps; names the archive and member it stops at."""

    def __init__(self, archive: str, limits: Limits) -> None:
        self.archive = archive
        self.limits = limits
        self.total = 0

    def add(self, member: str, count: int, member_out: int, member_in: int) -> None:
        self.total += count
        limits = self.limits
        if self.total > limits.max_unpacked_bytes:
            raise IngestError.one(
                self.archive,
                f"member {member!r}: the archive unpacks to more than "
                f"{limits.max_unpacked_bytes / MB:g} MB; refused (PARETOSCOPE_MAX_UNPACKED_MB)",
            )
        if member_out > limits.ratio_grace_bytes and member_out > limits.max_ratio * max(
            member_in, 1
        ):
            raise IngestError.one(
                self.archive,
                f"member {member!r} expands more than {limits.max_ratio:g}× its compressed size "
                "(a compression bomb?); refused",
            )


def _from_zip(name: str, data: bytes, limits: Limits, unread: list[str]) -> list[SourceFile]:
    raw = _CountingBytes(data)
    budget = _Budget(name, limits)
    with zipfile.ZipFile(raw) as archive:
        files = [m for m in archive.infolist() if not m.is_dir() and m.filename.rsplit("/", 1)[-1]]
        members = [m for m in files if not is_side_file(m.filename)]
        _check_count(name, len(members), at_least_one=len(files) == 0)
        unread.extend(f"{name}/{m.filename}" for m in files if is_side_file(m.filename))
        out = []
        for m in members:
            if m.flag_bits & 0x1:
                raise IngestError.one(name, f"member {m.filename!r} is encrypted; refused")
            if m.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                # bzip2/LZMA members inflate in one call, past any check; tools write deflate.
                raise IngestError.one(
                    name,
                    f"member {m.filename!r}: compression method {m.compress_type} is not "
                    "supported (use deflate)",
                )
            chunks: list[bytes] = []
            member_out = 0
            with archive.open(m) as handle:
                start = raw.consumed
                # Small reads: deflate consumes at most this much input per read, so the ratio
                # check sees a bomb after a few MB of output, not after the whole member.
                while chunk := handle.read(ZIP_READ):
                    member_out += len(chunk)
                    budget.add(m.filename, len(chunk), member_out, raw.consumed - start)
                    chunks.append(chunk)
            out.append(SourceFile(f"{name}/{m.filename}", b"".join(chunks)))
        return out


def _decompressed(raw: _CountingBytes) -> Any:
    head = raw.getbuffer()[:6].tobytes()
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if head[:3] == b"BZh":
        return bz2.BZ2File(raw, mode="rb")
    if head == _XZ_MAGIC:
        return lzma.LZMAFile(raw, mode="rb")
    return raw


class _GuardedStream(io.RawIOBase):
    """The decompressed tar stream; every byte read, headers and skipped members included,
    counts against the budget, and the ratio is taken against compressed bytes consumed."""

    def __init__(self, inner: Any, raw: _CountingBytes, budget: _Budget) -> None:
        self.inner = inner
        self.raw = raw
        self.budget = budget
        self.member = "(archive header)"
        self.out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self.inner.read(min(len(buffer), CHUNK))
        n = len(chunk)
        buffer[:n] = chunk
        self.out += n
        self.budget.add(self.member, n, self.out, self.raw.consumed)
        return n


def _from_tar(name: str, data: bytes, limits: Limits, unread: list[str]) -> list[SourceFile]:
    raw = _CountingBytes(data)
    stream = _GuardedStream(_decompressed(raw), raw, _Budget(name, limits))
    out: list[SourceFile] = []
    side = 0
    # Stream mode ("r|"): members are read in order, never all listed up front (listing a
    # .tar.gz would inflate all of it before any check could run).
    with tarfile.open(fileobj=io.BufferedReader(stream, CHUNK), mode="r|") as archive:
        for m in archive:
            stream.member = m.name
            if not m.isfile() or not m.name.rsplit("/", 1)[-1]:
                continue
            if is_side_file(m.name):
                side += 1
                # Named up to the member bound (a stream may hold a million tiny side files).
                if side <= MAX_ARCHIVE_MEMBERS:
                    unread.append(f"{name}/{m.name.removeprefix('./')}")
                elif side == MAX_ARCHIVE_MEMBERS + 1:
                    unread.append(f"{name}/(more than {MAX_ARCHIVE_MEMBERS:,} such files)")
                continue
            _check_count(name, len(out) + 1, at_least_one=False)
            handle = archive.extractfile(m)
            if handle is not None:
                chunks = []
                while chunk := handle.read(CHUNK):
                    chunks.append(chunk)
                out.append(SourceFile(f"{name}/{m.name.removeprefix('./')}", b"".join(chunks)))
    _check_count(name, len(out), at_least_one=side == 0)
    return out


def _check_count(name: str, count: int, at_least_one: bool = True) -> None:
    if count == 0 and at_least_one:
        raise IngestError.one(name, "the archive holds no files")
    if count > MAX_ARCHIVE_MEMBERS:
        raise IngestError.one(
            name, f"the archive holds more than {MAX_ARCHIVE_MEMBERS} files; refused"
        )
