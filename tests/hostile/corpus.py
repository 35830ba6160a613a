"""A corpus of hostile uploads, built in memory (nothing big is committed).

Each case is one file (or archive) plus the form fields it is sent with; every case must be
refused with a 4xx whose message names `names` (the file, or the form field at fault), and
nothing may be stored. Bombs are generated in chunks so building them stays cheap in memory.
"""

from __future__ import annotations

import bz2
import functools
import io
import json
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

MB = 1024 * 1024
FIELDS = {"hardware": "H100", "num_gpus": "8"}
HEADER = "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s"


@dataclass(frozen=True)
class Case:
    id: str
    filename: str
    build: Callable[[], bytes]
    fields: dict[str, str] = field(default_factory=lambda: dict(FIELDS))
    settings: dict[str, object] = field(default_factory=dict)
    names: str = ""  # what the message must name; the file by default

    @property
    def must_name(self) -> str:
        return self.names or self.filename

    def payload(self) -> bytes:
        """The file's bytes, built once per test session (bombs take a second to build)."""
        if self.id not in _BUILT:
            _BUILT[self.id] = self.build()
        return _BUILT[self.id]


_BUILT: dict[str, bytes] = {}


def csv_rows(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def good_row(**changes: str) -> str:
    row = {
        "sweep": "s",
        "hardware": "H100",
        "num_gpus": "8",
        "model": "m",
        "concurrency": "4",
        "tpot_p50_ms": "12.5",
        "output_tok_s": "400",
    }
    row.update(changes)
    return ",".join(row.values())


def fixture(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()


VLLM = "vllm/stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
SGLANG = "sglang/datacrunch_llama_3_3_70b_online_output.jsonl"
LLM_D = "llm-d/br_v0_2_example.yaml"
GUIDELLM = "guidellm/llm-d-benchmark_guidellm_report_v2.json"


def vllm_with(**changes: object) -> bytes:
    doc = json.loads(fixture(VLLM))
    doc.update(changes)
    return json.dumps(doc).encode()


def vllm_raw(key: str, literal: str) -> bytes:
    """The vLLM result with one value replaced by a literal JSON text (e.g. a huge number)."""
    doc = json.loads(fixture(VLLM))
    doc[key] = "__HERE__"
    return json.dumps(doc).replace('"__HERE__"', literal).encode()


def vllm_details(**value: object) -> bytes:
    """The vLLM result with --save-detailed arrays, one of them filled with `value`."""
    doc = json.loads(fixture(VLLM))
    n = doc["completed"]
    arrays: dict[str, object] = {
        "input_lens": 10, "output_lens": 5, "ttfts": 0.1, "itls": [0.01], "errors": ""
    }  # fmt: skip
    arrays.update(value)
    doc.update({k: [v] * n for k, v in arrays.items()})
    return json.dumps(doc).encode()


# --- archives -----------------------------------------------------------------------------


def deflate_zeros(size: int, prefix: bytes = b"") -> tuple[bytes, int]:
    """Raw deflate of `prefix` + `size` zero bytes, and its CRC-32.

    One fully flushed block of 1 MB of zeros is compressed once and repeated (each full flush
    ends byte-aligned with a fresh history), so a 1 GiB bomb costs a second, not ten.
    """
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = first.compress(prefix) + first.flush(zlib.Z_FULL_FLUSH)
    zeros = b"\0" * MB
    repeat = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = repeat.compress(zeros) + repeat.flush(zlib.Z_FULL_FLUSH)
    final = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty last block
    crc = zlib.crc32(prefix)
    for _ in range(size // MB):
        crc = zlib.crc32(zeros, crc)
    return head + block * (size // MB) + final, crc


def zeros_zip(member: str, size: int) -> bytes:
    """A zip holding `size` zero bytes in one deflated member (sizes < 4 GiB: no zip64)."""
    data, crc = deflate_zeros(size)
    name = member.encode()
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(name), 0
    )
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII",
        0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size, len(name), 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    offset = len(local) + len(name) + len(data)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central) + len(name), offset, 0)
    return local + name + data + central + name + end


@functools.cache
def zip_bomb_1gib() -> bytes:
    return zeros_zip("results/bomb.json", 1024 * MB)


def tar_gz_bomb(size: int) -> bytes:
    """A .tar.gz with one member of about `size` zero bytes (the last KB ends the archive)."""
    info = tarfile.TarInfo("bomb.csv")
    info.size = size - 1024
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    data, crc = deflate_zeros(size, header)
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    trailer = struct.pack("<II", crc, (len(header) + size) % 2**32)
    return gzip_header + data + trailer


def tar_of(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def zeros_tar(size: int, compress: Callable[[bytes], bytes]) -> bytes:
    """A tar with one member of `size` zero bytes, compressed as one stream."""
    info = tarfile.TarInfo("bomb.csv")
    info.size = size
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    return compress(header + b"\0" * size + b"\0" * 1024)


def zip_of(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def encrypted_zip() -> bytes:
    """A zip whose member is flagged as encrypted (general purpose bit 0, in both headers)."""
    data = bytearray(zip_of({"a.csv": csv_rows(good_row())}))
    data[6] |= 1  # local file header flags
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 1  # central directory flags
    return bytes(data)


def many_members() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for i in range(10_001):
            archive.writestr(f"r/{i}.csv", b"x")
    return out.getvalue()


def noise(size: int) -> bytes:
    """Text that compresses about 2:1 (hex digits of a counter hash), so only caps apply."""
    import hashlib

    out = bytearray()
    i = 0
    while len(out) < size:
        out += hashlib.sha256(str(i).encode()).hexdigest().encode() + b"\n"
        i += 1
    return bytes(out[:size])


# --- wide files ---------------------------------------------------------------------------


def wide_csv(header: str, row: str, columns: int) -> bytes:
    """A CSV whose header and one row go on with `columns` more short columns."""
    names = ",".join(f"c{i}" for i in range(columns))
    return csv_rows(row + "," + ",".join(["1"] * columns), header=header + "," + names)


def short_key(i: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        i, r = divmod(i, 36)
        out = digits[r] + out
        if not i:
            return "k" + out


def vllm_with_keys(count: int) -> bytes:
    """The vLLM result with `count` more keys, written compactly (100,000 fit in 1 MB)."""
    doc = json.loads(fixture(VLLM))
    doc.update({short_key(i): 0 for i in range(count)})
    return json.dumps(doc, separators=(",", ":")).encode()


def sglang_long_line(size: int) -> bytes:
    """An SGLang result line of about `size` bytes, padded with empty lists: each costs a
    parser 64 bytes of memory for 3 of input."""
    first = fixture(SGLANG).split(b"\n", 1)[0].rstrip()
    return first[:-1] + b', "pad": [' + b"[]," * (size // 3) + b"[]]}\n"


# --- YAML ---------------------------------------------------------------------------------


def laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels):
        refs = ", ".join(f"*a{i - 1}" for _ in range(width))
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def guidellm_yaml_bomb() -> bytes:
    return (laughs() + "benchmarks:\n  - type_: generative_benchmark\n    x: *a8\n").encode()


def llm_d_yaml_bomb() -> bytes:
    return (fixture(LLM_D).decode() + "\n" + laughs().replace("a0:", "bomb0:", 1)).encode()


def inference_perf_config_bomb() -> bytes:
    return (laughs() + "load:\n  type: constant\n  stages: *a8\nserver:\n  type: vllm\n").encode()


def deep_yaml() -> bytes:
    depth = 5000
    return ("version: '0.2'\nrun: {}\nscenario: {}\nresults: " + "[" * depth + "]" * depth).encode()


def huge_int_yaml() -> bytes:
    return (fixture(LLM_D).decode().replace("replicas: 2", "replicas: " + "9" * 5000, 1)).encode()


# --- the corpus ---------------------------------------------------------------------------


def cases() -> list[Case]:
    long = "x" * 5000
    return [
        # Archives: bombs, caps, broken and odd archives.
        Case("zip bomb: 1 MB zip expanding to 1 GiB", "bomb.zip", zip_bomb_1gib),
        Case("zip member at ratio 1000", "ratio.zip", lambda: zeros_zip("r/a.csv", 50 * MB)),
        Case(
            "zip over the unpacked cap",
            "big.zip",
            lambda: zip_of({"r/a.csv": noise(3 * MB)}),
            settings={"max_unpacked_mb": 1},
        ),
        Case("tar.gz bomb: 1 MB expanding to 1 GiB", "bomb.tar.gz", lambda: tar_gz_bomb(1024 * MB)),
        Case("tar.bz2 bomb", "bomb.tar.bz2", lambda: zeros_tar(8 * MB, bz2.compress)),
        Case(
            "tar.xz bomb",
            "bomb.tar.xz",
            lambda: zeros_tar(8 * MB, lambda d: lzma.compress(d, preset=0)),
        ),
        Case(
            "plain tar over the unpacked cap",
            "big.tar",
            lambda: tar_of({"a.csv": noise(2 * MB)}, "w"),
            settings={"max_unpacked_mb": 1},
        ),
        Case(
            "zip with a bzip2 member",
            "bz.zip",
            lambda: zip_of({"a.csv": csv_rows(good_row())}, zipfile.ZIP_BZIP2),
        ),
        Case("zip with 10,001 members", "many.zip", many_members),
        Case("zip with no result file", "empty.zip", lambda: zip_of({"pic.png": b"\x89PNG"})),
        Case(
            "truncated zip",
            "cut.zip",
            lambda: zip_of({"a.csv": csv_rows(good_row()) * 50})[:300],
        ),
        Case("zip with an encrypted member", "locked.zip", encrypted_zip),
        Case(
            "truncated tar.gz",
            "cut.tar.gz",
            lambda: tar_of({"r/a.csv": noise(200_000)})[:5000],
        ),
        Case("gzip of garbage", "junk.tar.gz", lambda: b"\x1f\x8b\x08\x00garbage" * 10),
        Case(
            "zip holding a zip",
            "outer.zip",
            lambda: zip_of({"inner.zip": zip_of({"a.csv": csv_rows(good_row())})}),
        ),
        Case(
            "zip member path of 600 characters",
            "longpath.zip",
            lambda: zip_of({"d" * 600 + "/a.csv": csv_rows(good_row())}),
        ),
        Case(
            "tar.gz holding a bad CSV",
            "bad.tar.gz",
            lambda: tar_of({"r/a.csv": csv_rows(good_row(output_tok_s="fast"))}),
        ),
        # YAML: alias bombs in each YAML format, depth, huge numbers, bad syntax.
        Case("guidellm YAML alias bomb", "benchmarks.yaml", guidellm_yaml_bomb),
        Case("llm-d YAML alias bomb", "report.yaml", llm_d_yaml_bomb),
        Case("inference-perf config.yaml alias bomb", "config.yaml", inference_perf_config_bomb),
        Case("YAML nested 5,000 deep", "deep.yaml", deep_yaml),
        Case("YAML with a 5,000-digit integer", "digits.yaml", huge_int_yaml),
        Case(
            "YAML with a tab indent",
            "tabs.yaml",
            lambda: fixture(LLM_D).replace(b"  uid:", b"\tuid:", 1),
        ),
        Case(
            "YAML alias in a zip",
            "yaml.zip",
            lambda: zip_of({"r/benchmarks.yaml": guidellm_yaml_bomb()}),
        ),
        # JSON: depth, digits, truncation, wrong types.
        Case("JSON nested 100k deep", "deep.json", lambda: b"[" * 100_000 + b"]" * 100_000),
        Case(
            "JSON objects nested 5,000 deep",
            "deep_objects.json",
            lambda: b'{"a":' * 5000 + b"1" + b"}" * 5000,
        ),
        Case(
            "vLLM JSON with a 5,000-digit integer",
            "vllm_int.json",
            lambda: vllm_raw("completed", "9" * 5000),
        ),
        Case(
            "vLLM JSON with a 5,000-digit float",
            "vllm_float.json",
            lambda: vllm_raw("output_throughput", "1." + "1" * 5000),
        ),
        Case(
            "vLLM JSON with a 400-digit integer throughput",
            "vllm_400.json",
            lambda: vllm_raw("output_throughput", "9" * 400),
        ),
        Case(
            "vLLM JSON nested 200 deep in an extra key",
            "vllm_deep.json",
            lambda: vllm_raw("tag", "[" * 200 + "]" * 200),
        ),
        Case("truncated vLLM JSON", "vllm_cut.json", lambda: fixture(VLLM)[:700]),
        Case(
            "vLLM JSON with a word for a throughput",
            "vllm_word.json",
            lambda: vllm_with(output_throughput="fast"),
        ),
        Case(
            "vLLM JSON with a list for a latency",
            "vllm_list.json",
            lambda: vllm_with(mean_ttft_ms=[1, 2]),
        ),
        Case(
            "vLLM JSON with a negative TPOT",
            "vllm_negative.json",
            lambda: vllm_with(p50_tpot_ms=-5.0, median_tpot_ms=-5.0, mean_tpot_ms=-5.0),
        ),
        Case(
            "vLLM JSON with an infinite throughput",
            "vllm_inf.json",
            lambda: vllm_raw("output_throughput", "1e999"),
        ),
        Case("JSON that is a string", "string.json", lambda: b'"hello"'),
        Case(
            "SGLang JSONL with a deep line",
            "sglang_deep.jsonl",
            lambda: fixture(SGLANG).split(b"\n", 1)[0] + b"\n" + b"[" * 5000 + b"]" * 5000,
        ),
        Case(
            "SGLang JSONL with a 5,000-digit number",
            "sglang_int.jsonl",
            lambda: (
                fixture(SGLANG)
                .split(b"\n", 1)[0]
                .replace(b'"completed": 300', b'"completed": ' + b"7" * 5000)
            ),
        ),
        Case(
            "SGLang JSONL with a broken second line",
            "sglang_broken.jsonl",
            lambda: fixture(SGLANG).split(b"\n", 1)[0] + b'\n{"backend": "sglang", ',
        ),
        Case(
            "guidellm JSON with a 5,000-digit number",
            "guidellm_digits.json",
            lambda: fixture(GUIDELLM).replace(b'"version": 2', b'"version": ' + b"2" * 5000, 1),
        ),
        # Text: NUL bytes, over-long values, integers out of range.
        Case(
            "CSV starting with NUL bytes", "nul_start.csv", lambda: b"\0\0" + csv_rows(good_row())
        ),
        Case(
            "CSV with a NUL in the model after 64 KB",
            "nul_late.csv",
            lambda: csv_rows(
                *[good_row(concurrency=str(i + 1)) for i in range(4000)],
                good_row(sweep="t", concurrency="9999", model="a\0b"),
            ),
        ),
        Case(
            "sweep name of 301 characters",
            "longname.csv",
            lambda: csv_rows(good_row(sweep="n" * 301)),
        ),
        Case("model of 5,000 characters", "longmodel.csv", lambda: csv_rows(good_row(model=long))),
        Case(
            "hardware of 101 characters",
            "longhw.csv",
            lambda: csv_rows(good_row(hardware="H" * 101)),
        ),
        Case(
            "notes of 20,000 characters",
            "longnotes.csv",
            lambda: csv_rows(good_row() + "," + "n" * 20_000, header=HEADER + ",notes"),
        ),
        Case(
            "goodput_slo of 201 characters",
            "longslo.csv",
            lambda: csv_rows(good_row() + "," + "g" * 201, header=HEADER + ",goodput_slo"),
        ),
        Case(
            "vLLM model id of 1,000 characters",
            "vllm_longmodel.json",
            lambda: vllm_with(model_id="m" * 1000),
        ),
        Case(
            "vLLM model id with a NUL",
            "vllm_nul.json",
            lambda: vllm_with(model_id="qwen\u0000evil"),
        ),
        Case(
            "vLLM extra key holding a NUL",
            "vllm_extra_nul.json",
            lambda: vllm_with(tag="a\u0000b"),
        ),
        Case(
            "form field with a NUL",
            "ok_for_nul_field.csv",
            lambda: csv_rows(good_row(model="")),
            fields={**FIELDS, "model": "a\x00b"},
            names="model",
        ),
        Case(
            "form field of 1,000 characters",
            "ok_for_long_field.csv",
            lambda: csv_rows(good_row(engine="")),
            fields={**FIELDS, "engine": "e" * 1000},
            names="engine",
        ),
        Case(
            "form GPU count of 2^31",
            "ok_for_gpus.csv",
            lambda: csv_rows(good_row(num_gpus="")),
            fields={"hardware": "H100", "num_gpus": str(2**31)},
            names="num_gpus",
        ),
        Case(
            "form GPU count of 5,000 digits",
            "ok_for_digits_field.csv",
            lambda: csv_rows(good_row(num_gpus="")),
            fields={"hardware": "H100", "num_gpus": "9" * 5000},
            names="num_gpus",
        ),
        Case(
            "a 100 KB word for a throughput",
            "huge_word.csv",
            lambda: csv_rows(good_row(output_tok_s="w" * 100_000)),
        ),
        Case(
            "GPU count of 2^31 in the CSV",
            "gpus31.csv",
            lambda: csv_rows(good_row(num_gpus=str(2**31))),
        ),
        Case(
            "GPU count of 2^63 in the CSV",
            "gpus63.csv",
            lambda: csv_rows(good_row(num_gpus=str(2**63))),
        ),
        Case(
            "num_requests of 2^40",
            "requests40.csv",
            lambda: csv_rows(good_row() + f",{2**40}", header=HEADER + ",num_requests"),
        ),
        Case(
            "request sample output_len of 2^33",
            "samples_big.zip",
            lambda: zip_of(
                {
                    "points.csv": csv_rows(good_row()),
                    "requests.csv": b"sweep,concurrency,ttft_ms,e2el_ms,output_len,ok\ns,4,10,100,"
                    + str(2**33).encode()
                    + b",true\n",
                }
            ),
        ),
        Case(
            "vLLM per-request output length of 1e30",
            "vllm_detail_1e30.json",
            lambda: vllm_details(output_lens=1e30),
        ),
        Case(
            "vLLM per-request input length of 2^40",
            "vllm_detail_2_40.json",
            lambda: vllm_details(input_lens=2**40),
        ),
        # Extra fields: one giant cell, many columns.
        Case(
            "an extra cell of 300 KB",
            "giant_extra.csv",
            lambda: csv_rows(good_row() + "," + "e" * 300_000, header=HEADER + ",my_note"),
        ),
        Case(
            "3,000 extra columns of 100 bytes",
            "wide_extra.csv",
            lambda: csv_rows(
                good_row() + "," + ",".join(["v" * 100] * 3000),
                header=HEADER + "," + ",".join(f"c{i}" for i in range(3000)),
            ),
        ),
        Case(
            "vLLM JSON with a 300 KB extra value",
            "vllm_giant_extra.json",
            lambda: vllm_with(zz_notes="t" * 300_000),
        ),
        # Wide files: refused on the header line or while parsing, before memory grows.
        Case(
            "canonical CSV of 889 KB with 100,000 extra columns",
            "wide_100k.csv",
            lambda: wide_csv(HEADER, good_row(), 100_000),
        ),
        Case(
            "canonical CSV with 1,001 columns",
            "wide_1001.csv",
            lambda: wide_csv(HEADER, good_row(), 1001 - 7),
        ),
        Case(
            "per-request CSV with 100,000 extra columns",
            "wide_requests.csv",
            lambda: wide_csv(
                "sweep,concurrency,ttft_ms,e2el_ms,output_len,ok", "s,4,1,2,3,true", 100_000
            ),
        ),
        Case(
            "GenAI-Perf CSV with 100,000 columns",
            "wide_genai.zip",
            lambda: zip_of(
                {
                    "run/profile_export_genai_perf.csv": wide_csv(
                        "Metric,avg,min,max,p99", "Time To First Token (ms),1,1,1,1", 100_000
                    )
                }
            ),
        ),
        Case(
            "AIPerf CSV with 100,000 columns",
            "wide_aiperf.zip",
            lambda: zip_of(
                {
                    "run/profile_export_aiperf.csv": wide_csv(
                        "Metric,avg,min,max,p99", "Time to First Token (ms),1,1,1,1", 100_000
                    )
                }
            ),
        ),
        Case(
            "vLLM summary.csv with 100,000 columns",
            "wide_summary.zip",
            lambda: zip_of(
                {
                    "summary.csv": wide_csv(
                        ",model_id,num_prompts,completed,request_throughput,output_throughput",
                        "0,m,10,10,1.0,100.0",
                        100_000,
                    )
                }
            ),
        ),
        Case(
            "guidellm CSV with 100,000 columns",
            "wide_guidellm.zip",
            lambda: zip_of(
                {"benchmarks.csv": wide_csv("Run Info,Benchmark", "Name,Strategy", 100_000)}
            ),
        ),
        Case("vLLM JSON with 100,000 keys", "vllm_keys.json", lambda: vllm_with_keys(100_000)),
        Case(
            "JSON object with 100,000 keys",
            "keys.json",
            lambda: json.dumps(
                {short_key(i): 0 for i in range(100_000)}, separators=(",", ":")
            ).encode(),
        ),
        Case(
            "SGLang JSONL with one 50 MB line",
            "sglang_50mb.jsonl",
            lambda: sglang_long_line(50_000_000),
        ),
        Case(
            "SGLang JSONL with one 1 MB line of empty lists",
            "sglang_1mb.jsonl",
            lambda: sglang_long_line(1_000_000),
        ),
        Case(
            "guidellm YAML of 1 MB of empty lists",
            "lists.yaml",
            lambda: (
                b"benchmarks:\n  - type_: generative_benchmark\n    x: ["
                + b"[]," * 330_000
                + b"[]]\n"
            ),
        ),
        Case(
            "guidellm YAML mapping with 100,000 keys",
            "keys.yaml",
            lambda: (
                b"benchmarks:\n  - type_: generative_benchmark\n    x: {"
                + b",".join(b"%s: 0" % short_key(i).encode() for i in range(100_000))
                + b"}\n"
            ),
        ),
        # Duplicate columns, canonical and tool CSVs.
        Case(
            "duplicate tpot_p50_ms column",
            "dup_tpot.csv",
            lambda: csv_rows(good_row() + ",13", header=HEADER + ",tpot_p50_ms"),
            names="tpot_p50_ms",
        ),
        Case(
            "duplicate sweep column",
            "dup_sweep.csv",
            lambda: csv_rows(good_row() + ",other", header=HEADER + ",sweep"),
        ),
        Case(
            "duplicate column in a requests CSV",
            "dup_requests.csv",
            lambda: b"sweep,concurrency,ttft_ms,e2el_ms,output_len,ok,ttft_ms\ns,4,1,2,3,true,1\n",
        ),
        Case(
            "duplicate column in a vLLM summary.csv",
            "summary.csv",
            lambda: (
                b",model_id,num_prompts,completed,request_throughput,output_throughput,completed\n"
                b"0,m,10,10,1.0,100.0,10\n"
            ),
        ),
        Case(
            "duplicate column in a GenAI-Perf CSV",
            "profile_export_genai_perf.csv",
            lambda: b"Metric,avg,min,max,p99,p90,p75,avg\nTime To First Token (ms),1,1,1,1,1,1,1\n",
        ),
        Case(
            "duplicate column in a guidellm CSV",
            "benchmarks.csv",
            lambda: (
                b"Run Info,Run Info,Benchmark,Benchmark\n"
                b"Name,Name,Strategy,Strategy\n"
                b",,,\n"
                b"a,a,constant,constant\n"
            ),
        ),
        # Encoding, emptiness, truncation, types.
        Case(
            "Latin-1 CSV",
            "latin1.csv",
            lambda: csv_rows(good_row(model="cafe")).replace(b"cafe", b"caf\xe9"),
        ),
        Case("UTF-16 CSV", "utf16.csv", lambda: csv_rows(good_row()).decode().encode("utf-16")),
        Case("empty file", "empty.csv", lambda: b""),
        Case("whitespace only", "blank.csv", lambda: b"  \n\n \t\n"),
        Case("header without rows", "header_only.csv", lambda: csv_rows()),
        Case(
            "a word for a throughput",
            "word.csv",
            lambda: csv_rows(good_row(output_tok_s="fast")),
            names="output_tok_s",
        ),
        Case("negative TPOT", "negative.csv", lambda: csv_rows(good_row(tpot_p50_ms="-1"))),
        Case("infinite throughput", "inf.csv", lambda: csv_rows(good_row(output_tok_s="1e400"))),
        Case("unterminated quote", "quote.csv", lambda: csv_rows('"s,H100,8,m,4,12.5,400')),
        Case("PNG bytes named .json", "picture.json", lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64),
        Case("random bytes", "noise.bin", lambda: bytes(range(256)) * 64),
        Case(
            "CSV with a 5,000-digit number",
            "digits.csv",
            lambda: csv_rows(good_row(output_tok_s="9" * 5000)),
        ),
    ]


IMPOSSIBLE_HEADER = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,duration_s,output_tok_s"


def impossible_cases() -> list[Case]:
    """Issue 31 §2: values no run can have measured, each refused naming the file and field
    (tests/hostile/test_impossible.py checks the field and the reason)."""
    return [
        Case(
            "vLLM p99 TPOT below its median",
            "falling_tpot.json",
            lambda: vllm_with(p99_tpot_ms=1.0, median_tpot_ms=50.0, p95_tpot_ms=50.0),
        ),
        Case(
            "canonical TTFT p99 below its p50",
            "falling_ttft.csv",
            lambda: csv_rows(
                "s,H100,8,4,12.5,500,1,400",
                header="sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p50_ms,ttft_p99_ms,"
                "output_tok_s",
            ),
        ),
        Case(
            "canonical extra p99.9 below the p99 column",
            "falling_p99_9.csv",
            lambda: csv_rows(
                "s,H100,8,4,12.5,500,100,400",
                header="sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p99_ms,"
                "ttft_p99.9_ms,output_tok_s",
            ),
        ),
        Case(
            "canonical mean outside min and max",
            "mean_outside.csv",
            lambda: csv_rows(
                "s,H100,8,4,12.5,500,1,100,400",
                header="sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_mean_ms,"
                "ttft_min_ms,ttft_max_ms,output_tok_s",
            ),
        ),
        Case(
            "vLLM failed above num_prompts",
            "counts.json",
            lambda: vllm_with(failed=1000, num_prompts=150),
        ),
        Case(
            "vLLM fractional max_concurrency",
            "fractional_concurrency.json",
            lambda: vllm_with(max_concurrency=1.5),
        ),
        Case(
            "canonical fractional concurrency",
            "fractional_concurrency.csv",
            lambda: csv_rows("s,H100,8,1.5,12.5,60,400", header=IMPOSSIBLE_HEADER),
        ),
        Case("vLLM zero duration", "zero_duration.json", lambda: vllm_with(duration=0)),
        Case(
            "canonical zero duration",
            "zero_duration.csv",
            lambda: csv_rows("s,H100,8,4,12.5,0,400", header=IMPOSSIBLE_HEADER),
        ),
    ]


# Where each impossible case is refused: (row or None, field) of its first error.
IMPOSSIBLE_AT: dict[str, tuple[int | None, str]] = {
    "falling_tpot.json": (None, "tpot_p99_ms"),
    "falling_ttft.csv": (2, "ttft_p99_ms"),
    "falling_p99_9.csv": (2, "ttft_p99.9_ms"),
    "mean_outside.csv": (2, "ttft_mean_ms"),
    "counts.json": (None, "num_failed"),
    "fractional_concurrency.json": (None, "concurrency"),
    "fractional_concurrency.csv": (2, "concurrency"),
    "zero_duration.json": (None, "duration_s"),
    "zero_duration.csv": (2, "duration_s"),
}
AIPERF = "aiperf/wellflat_k8s-dev_profile_export_aiperf.json"


def doc_with(relative: str, change: Callable[[dict[str, Any]], None]) -> bytes:
    """A real fixture's JSON with one change made in place."""
    doc = json.loads(fixture(relative))
    change(doc)
    return json.dumps(doc).encode()


def _min_above_p50(doc: dict[str, Any]) -> None:
    latency = doc["request_latency"]
    for low in ("p1", "p5", "p10", "p25"):
        del latency[low]
    latency["min"] = latency["p50"] + 100


def stated_order_cases() -> list[Case]:
    """Issue 46 §4: what a file states beyond the latency columns (AIPerf's and guidellm's
    statistics objects, llmperf's flat keys) keeps min ≤ percentiles ≤ max and min ≤ mean ≤
    max; rates are fractions or percentages; each refused naming the file, row and field."""
    return [
        Case(
            "AIPerf TTFT mean above its max",
            "profile_export_aiperf.json",
            lambda: doc_with(AIPERF, lambda d: d["time_to_first_token"].update(avg=500.0)),
        ),
        Case(
            "AIPerf request latency min above its p50",
            "min_above_p50_profile_export_aiperf.json",
            lambda: doc_with(AIPERF, _min_above_p50),
        ),
        Case(
            "guidellm prompt length mean above its max",
            "guidellm_mean_above_max.json",
            lambda: doc_with(
                GUIDELLM,
                lambda d: d["benchmarks"][0]["metrics"]["prompt_token_count"]["successful"].update(
                    mean=1e6
                ),
            ),
        ),
        Case(
            "llmperf TTFT p99 above its max",
            "summary_p99_above_max.json",
            lambda: doc_with(
                "llmperf/summary_anyscale_70b.json",
                lambda d: d.update(results_ttft_s_quantiles_p99=3.0),
            ),
        ),
        Case(
            "canonical acceptance rate of 5",
            "acceptance_5.csv",
            lambda: csv_rows(
                "s,H100,8,4,12.5,400,5",
                header="sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,"
                "spec_acceptance_rate",
            ),
        ),
        Case(
            "vLLM acceptance rate of 500 %",
            "acceptance_500.json",
            lambda: vllm_with(spec_decode_acceptance_rate=500.0),
        ),
        Case(
            "canonical prefix-cache hit rate of 1.5",
            "cache_hits.csv",
            lambda: csv_rows(
                "s,H100,8,4,12.5,400,1.5",
                header="sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,"
                "prefix_cache_hit_rate",
            ),
        ),
    ]


REQUEST_HEADER = "sweep,concurrency,ttft_ms,e2el_ms,output_len,ok"


def ceiling_cases() -> list[Case]:
    """Errors with a ceiling: blank lines are skipped (so a million cost a read, not a million
    problems), a file of bad rows lists 50 problems and counts the rest, and a lone surrogate
    (no database can store one) is refused."""
    bad = good_row(tpot_p50_ms="-1")
    return [
        Case(
            "header, 1,000,000 blank lines, one bad row",
            "blank_lines.csv",
            lambda: (HEADER + "\n" * 1_000_000 + bad + "\n").encode(),
        ),
        Case(
            "600 KB of rows of empty cells, one bad row",
            "empty_cells.csv",
            lambda: (HEADER + "\n" + ",,,,,,\n" * 88_000 + bad + "\n").encode(),
        ),
        Case(
            "1 MB of rows with five problems each",
            "many_problems.csv",
            lambda: (HEADER + "\n" + "x,,,,,,\n" * 130_000).encode(),
        ),
        Case(
            "request CSV: 1,000,000 blank lines, one bad row",
            "blank_requests.csv",
            lambda: (REQUEST_HEADER + "\n" * 1_000_000 + "s,4,10,100,-5,true\n").encode(),
        ),
        Case(
            "a vLLM result with a lone surrogate",
            "surrogate.json",
            lambda: (
                json.dumps(json.loads(fixture(VLLM)))
                .replace('"model_id": "', '"model_id": "\\ud800', 1)
                .encode()
            ),
        ),
    ]


IMPOSSIBLE_AT.update(
    {
        "profile_export_aiperf.json": (None, "time_to_first_token.avg"),
        "min_above_p50_profile_export_aiperf.json": (None, "request_latency.p50"),
        "guidellm_mean_above_max.json": (
            0,
            "benchmark.metrics.prompt_token_count.successful.mean",
        ),
        "summary_p99_above_max.json": (None, "results_ttft_s_max"),
        "acceptance_5.csv": (2, "spec_acceptance_rate"),
        "acceptance_500.json": (None, "spec_decode_acceptance_rate"),
        "cache_hits.csv": (2, "prefix_cache_hit_rate"),
    }
)

SPLIT_HEADER = "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s," + (
    "num_prefill_gpus,num_decode_gpus"
)


def split_cases() -> list[Case]:
    """Issue 46 §4: prefill and decode GPUs that do not add up to the deployment's GPUs, from
    a file or the form, refused once every detail is applied (tests/hostile/test_refused.py
    checks the file, row and field)."""
    return [
        Case(
            "canonical split 100P + 100D on 8 GPUs",
            "split_100_100.csv",
            lambda: csv_rows(good_row() + ",100,100", header=SPLIT_HEADER),
        ),
        Case(
            "a point's own split 4P + 12D on 8 GPUs",
            "split_point.csv",
            lambda: csv_rows(
                good_row() + ",4,4",
                good_row(concurrency="8") + ",4,12",
                header=SPLIT_HEADER,
            ),
        ),
        Case(
            "form split 100P + 100D on 8 GPUs",
            "split_form.json",
            lambda: fixture(VLLM),
            fields={**FIELDS, "num_prefill_gpus": "100", "num_decode_gpus": "100"},
        ),
    ]


SPLITS = split_cases()
IMPOSSIBLE = [*impossible_cases(), *stated_order_cases()]
CEILING = ceiling_cases()
CASES = [*cases(), *IMPOSSIBLE, *SPLITS, *CEILING]


def write(case: Case, directory: Path) -> Path:
    path = directory / case.filename
    path.write_bytes(case.payload())
    return path
