"""A canonical file's points kept as one table: sweeps are slices of it until `.points` is read.

The table path must give what the point list gives: the same content hash (byte for byte the
pinned definition), the same stored rows on both databases, and every problem still named by
file, row and column.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.columns import POINT_COLUMN_NAMES, TPOT_COLUMN_NAMES
from app.ingest import IngestError, UploadFile, canonical, content_hash, parse_upload, parsed
from app.ingest.json_text import json_string_texts
from app.ingest.parsed import ParsedSweep
from app.ingest.point_table import POSITION, ROW, SWEEP, PointTable
from app.services.exports import sweeps_csv
from app.services.upload import save as uploads
from app.services.upload import staging
from app.settings import PROJECT_ROOT
from app.store import sweep_save
from app.store import sweeps as q
from app.store.models import PointBlock, Sweep
from app.views import uploads as upload_json
from tests.ingest.hash_reference import reference_hash
from tests.ingest.test_all_fixtures import FIELDS, FOLDERS, files_of

SEED_SWEEPS = PROJECT_ROOT / "seed_data" / "sweeps"


@pytest.fixture(autouse=True)
def small_files_as_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table path for files of any size here (a small file is read row by row)."""
    monkeypatch.setattr(canonical, "COLUMNS_MIN_ROWS", 0)


def table_sweeps(text: str) -> list[ParsedSweep]:
    sweeps = canonical.parse_sweeps_csv("p.csv", text, {})
    assert all(s.table_rows is not None for s in sweeps)
    return sweeps


# --- doubles as the hash reads them; text as JSON ---------------------------------------------


def random_doubles(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)  # every exponent
    # Random mantissas with exponents around the fixed-notation range (1e-6 .. 1e17).
    exponent = rng.integers(1003, 1080, n, dtype=np.uint64) << np.uint64(52)
    mantissa = rng.integers(0, 2**52, n, dtype=np.uint64)
    near = (exponent | mantissa | (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))).view(
        np.float64
    )
    digits = rng.integers(0, 9, n)
    decimals = np.round(rng.uniform(-1e6, 1e6, n) * 10.0**digits) / 10.0**digits
    magnitudes = 10.0 ** rng.uniform(-7, 17, n) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([bits, near, decimals, magnitudes])


def test_the_hash_reads_each_double_by_its_bits_with_one_zero_and_one_nan() -> None:
    doubles = random_doubles(5_000, seed=3).tolist()
    nan_payload = np.array([0x7FF8000000000001], dtype=np.uint64).view(np.float64)[0].item()
    doubles += [0.0, -0.0, math.nan, -math.nan, nan_payload, math.inf, -math.inf, 5e-324]
    points = [{"output_tok_s": v, "num_requests": i} for i, v in enumerate(doubles)]
    frame = pl.DataFrame(points, schema={"output_tok_s": pl.Float64, "num_requests": pl.Int64})
    meta = {"sweep": "d", "hardware": "H100", "num_gpus": 8}
    head = content_hash.head(content_hash.meta_json(meta, parsed.HASHED_META))
    expected = reference_hash(meta, points)
    assert content_hash.from_frame(frame).digest(head) == expected
    assert content_hash.from_values(points).digest(head) == expected

    def one(value: float) -> str:
        return content_hash.from_values([{"output_tok_s": value}]).digest(head)

    assert one(0.0) == one(-0.0) and one(math.nan) == one(nan_payload) == one(-math.nan)
    assert one(1.0) != one(math.nextafter(1.0, 2.0)) and one(math.inf) != one(-math.inf)
    assert content_hash.from_values([{}]).digest(head) != one(0.0)  # unmeasured is not zero


def test_text_is_escaped_exactly_as_json_dumps_escapes_it() -> None:
    samples = [
        "ttft:200 tpot:50", "", " ", 'say "hi"', "back\\slash", "tab\there", "line\nbreak",
        "del\x7f", "nul\x00", "é", "日本", "emoji 😀", "'single'", "~!@#$%^&*()_+{}|:<>?", None,
    ]  # fmt: skip
    texts = json_string_texts(pl.Series("s", samples, dtype=pl.String)).to_list()
    assert texts == [None if s is None else json.dumps(s) for s in samples]


# --- the content hash on random tables and on every canonical fixture -----------------------


def random_float(rng: random.Random) -> float | None:
    kind = rng.randrange(12)
    if kind == 0:
        return None
    if kind == 1:
        return float(rng.randrange(-(10**6), 10**6))  # integer-valued
    if kind == 2:
        return float(rng.randrange(10**15, 10**19)) * rng.choice([1.0, 1e10, 1e290])  # huge
    if kind == 3:
        return rng.uniform(1e-9, 1e-4) * 10.0 ** -rng.randrange(0, 300)  # tiny
    if kind == 4:
        return rng.choice([math.inf, -math.inf, math.nan, -0.0, 0.0])
    if kind == 5:
        return np.array([rng.getrandbits(64)], dtype=np.uint64).view(np.float64)[0].item()
    return round(rng.uniform(-1e5, 1e5), rng.randrange(0, 8))


def random_text(rng: random.Random) -> str | None:
    alphabet = ["a", "Z", "0", " ", '"', "\\", "\n", "\x7f", "é", "日", "😀", ":", ",", "'"]
    if rng.random() < 0.2:
        return None
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def random_table(rng: random.Random) -> tuple[PointTable, list[int]]:
    rows = rng.randrange(1, 300)
    sizes: list[int] = []
    while sum(sizes) < rows:
        sizes.append(min(rng.randrange(1, 40), rows - sum(sizes)))
    chosen = [c for c in POINT_COLUMN_NAMES if rng.random() < 0.6] or ["output_tok_s"]
    columns: dict[str, pl.Series] = {
        ROW: pl.Series(ROW, range(2, rows + 2), pl.Int64),
        SWEEP: pl.Series(SWEEP, [i for i, n in enumerate(sizes) for _ in range(n)], pl.UInt32),
        POSITION: pl.Series(POSITION, [p for n in sizes for p in range(n)], pl.Int64),
    }
    for name in chosen:
        kind = canonical.COLUMNS_BY_NAME[name].kind
        if kind == "float":
            values: list[Any] = [random_float(rng) for _ in range(rows)]
            columns[name] = pl.Series(name, values, pl.Float64)
        elif kind == "int":
            values = [rng.choice([None, rng.randrange(-(2**62), 2**62)]) for _ in range(rows)]
            columns[name] = pl.Series(name, values, pl.Int64)
        else:
            columns[name] = pl.Series(name, [random_text(rng) for _ in range(rows)], pl.String)
    columns["note"] = pl.Series("note", [random_text(rng) for _ in range(rows)], pl.String)
    return PointTable(pl.DataFrame(columns), chosen, ["note"]), sizes


def slices(table: PointTable, sizes: list[int], meta: dict[str, Any]) -> list[ParsedSweep]:
    out, offset = [], 0
    for index, size in enumerate(sizes):
        rows = table.slice(index, offset, size)
        out.append(ParsedSweep(dict(meta), None, "r.csv", "test", table_rows=rows))
        offset += size
    return out


@pytest.mark.parametrize("seed", range(25))
def test_the_columnar_hash_equals_the_row_by_row_hash_on_random_tables(seed: int) -> None:
    rng = random.Random(seed)
    table, sizes = random_table(rng)
    meta = {"sweep": f"s{seed}", "hardware": "H100", "num_gpus": 8, "isl": 1024.0}
    columnar = slices(table, sizes, meta)
    listed = slices(table, sizes, meta)
    for a, b in zip(columnar, listed, strict=True):
        points = b.points  # materialised: the list path hashes it
        assert b.table_rows is None
        assert a.content_hash() == b.content_hash() == reference_hash(b, points)


def canonical_files() -> list[Path]:
    return sorted(p for p in SEED_SWEEPS.glob("*.csv") if not p.name.endswith(".requests.csv"))


@pytest.mark.parametrize("path", canonical_files(), ids=lambda p: p.name)
def test_every_canonical_seed_file_hashes_alike_as_columns_and_as_points(path: Path) -> None:
    text = path.read_text()
    for a, b in zip(table_sweeps(text), table_sweeps(text), strict=True):
        points = b.points  # materialised: hashed from the list
        assert a.content_hash() == b.content_hash() == reference_hash(b, points)


# SGLang's fixture runs measured no TPOT statistic (only a pooled ITL), and a canonical CSV
# needs one, so they cannot be exported as canonical CSV at all.
EXPORTABLE = [f for f in FOLDERS if f != "sglang"]


@pytest.mark.parametrize("folder", EXPORTABLE)
def test_every_fixture_exported_as_canonical_csv_hashes_as_it_was_stored(
    session: Session, folder: str
) -> None:
    files = [UploadFile(p.name, p.read_bytes()) for p in files_of(folder)]
    saved = uploads.store(session, files, FIELDS)
    session.commit()
    stored = [
        sweep
        for sweep in q.sweeps_in_order(session, list(dict.fromkeys(s.sweep.id for s in saved)))
        # Canonical CSV needs a TPOT statistic (some sglang runs measured none).
        if any(getattr(p, c) is not None for p in sweep.points for c in TPOT_COLUMN_NAMES)
    ]
    assert stored, f"no sweep of {folder} has a TPOT statistic to export as canonical CSV"
    export = [UploadFile("export.csv", sweeps_csv(stored).encode())]
    again, listed = parse_upload(export, {}), parse_upload(export, {})
    assert all(s.table_rows is not None for s in again)
    for sweep, a, b in zip(stored, again, listed, strict=True):
        assert a.content_hash() == reference_hash(b, b.points)
        if not q.sample_counts(session, [p.id for p in sweep.points]):
            # Without samples the exported sweep is the stored one.
            assert a.content_hash() == sweep.content_hash


# --- materialisation ------------------------------------------------------------------------

POINTS = (
    "sweep,hardware,num_gpus,request_rate,tpot_p50_ms,output_tok_s,num_requests,goodput_slo,"
    "run_label,note\n"
    'a,H100,8,1,10.5,1000,50,"ttft:200 ""p90""",first,\n'
    "b,H200,4,inf,9,2500,,,,\n"
    "a,H100,8,2,11.25,1900.5,,,,'=1+2\n"
    'a,H100,8,inf,13,3500,7, ,"é, ""x""",\n'
)


def test_a_file_of_a_few_rows_is_read_row_by_row_into_the_sweeps_the_table_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    columns = table_sweeps(POINTS)
    monkeypatch.setattr(canonical, "COLUMNS_MIN_ROWS", 200)
    rows = canonical.parse_sweeps_csv("p.csv", POINTS, {})
    assert [s.table_rows for s in rows] == [None, None]
    for table, listed in zip(columns, rows, strict=True):
        assert (listed.name, listed.meta, listed.first_row) == (
            table.name,
            table.meta,
            table.first_row,
        )
        assert [(p.values, p.extra, p.row) for p in listed.points] == [
            (p.values, p.extra, p.row) for p in table.points
        ]
        assert (
            listed.content_hash() == table.content_hash() == reference_hash(listed, listed.points)
        )


def test_points_are_built_once_when_first_read_and_the_list_is_the_truth_after() -> None:
    a, b = table_sweeps(POINTS)
    assert (a.point_count, b.point_count, a.sample_count) == (3, 1, 0)
    assert a.table_rows is not None  # counting did not build the points
    before = a.content_hash()
    first = a.points
    assert a.table_rows is None and a.points is first
    assert [p.row for p in first] == [2, 4, 5]
    assert first[2].values == {
        "request_rate": math.inf,
        "tpot_p50_ms": 13.0,
        "output_tok_s": 3500.0,
        "num_requests": 7,
        "goodput_slo": "",
    }
    assert first[2].extra == {"run_label": 'é, "x"'}
    assert first[1].extra == {"note": "=1+2"}
    assert a.content_hash() == before
    first[0].values["output_tok_s"] = 999.0  # from now on the list is what is hashed
    assert a.content_hash() != before


def test_the_preview_counts_points_without_building_them(session: Session) -> None:
    result = uploads.preview(session, [UploadFile("p.csv", POINTS.encode())], {})
    assert [s.table_rows is not None for s in result.sweeps] == [True, True]
    doc = upload_json.preview_json(result, staging.Staged("token", 0, []))
    assert [(s["points"], s["request_samples"]) for s in doc["sweeps"]] == [(3, 0), (1, 0)]


def test_request_samples_attach_to_the_points_of_a_table_backed_sweep() -> None:
    requests = b"sweep,request_rate,ttft_ms,e2el_ms,output_len,ok\nb,inf,10,100,5,true\n"
    files = [UploadFile("p.csv", POINTS.encode()), UploadFile("r.csv", requests)]
    a, b = parse_upload(files, {})
    assert a.table_rows is not None and b.table_rows is None
    assert b.points[0].sample_count == 1 and b.sample_count == 1


# --- storing ---------------------------------------------------------------------------------


def stored_points(session: Session, sweep_id: int) -> list[tuple[Any, ...]]:
    session.expire_all()
    rows = session.get_one(Sweep, sweep_id).points
    return [(p.position, p.extra, *(getattr(p, c) for c in POINT_COLUMN_NAMES)) for p in rows]


def test_a_table_backed_sweep_stores_exactly_what_its_point_list_stores(session: Session) -> None:
    text = POINTS.replace("10.5", "0.30000000000000004").replace("1900.5", "1.5e-07")
    columnar = table_sweeps(text)
    saved = sweep_save.save_parsed(session, columnar)
    session.commit()
    from_table = [stored_points(session, s.sweep.id) for s in saved]
    assert [s.created for s in saved] == [True, True]
    for s in saved:
        session.execute(delete(PointBlock).where(PointBlock.sweep_id == s.sweep.id))
        session.execute(delete(Sweep).where(Sweep.id == s.sweep.id))
    session.commit()
    listed = table_sweeps(text)
    for sweep in listed:
        assert sweep.points  # materialised: stored from the list
    saved = sweep_save.save_parsed(session, listed)
    session.commit()
    assert [stored_points(session, s.sweep.id) for s in saved] == from_table
    a, b = from_table
    assert a[0][:2] == (0, {"run_label": "first"})
    values = dict(zip(POINT_COLUMN_NAMES, a[0][2:], strict=True))
    assert values["tpot_p50_ms"] == 0.30000000000000004
    assert values["goodput_slo"] == 'ttft:200 "p90"' and values["num_requests"] == 50
    assert dict(zip(POINT_COLUMN_NAMES, a[1][2:], strict=True))["output_tok_s"] == 1.5e-07
    last = dict(zip(POINT_COLUMN_NAMES, a[2][2:], strict=True))
    assert a[2][:2] == (2, {"run_label": 'é, "x"'})
    assert last["request_rate"] == math.inf and last["goodput_slo"] == ""
    assert last["concurrency"] is None and last["num_failed"] is None
    assert b[0][:2] == (0, {})
    assert dict(zip(POINT_COLUMN_NAMES, b[0][2:], strict=True))["request_rate"] == math.inf


def test_a_sweep_stored_twice_in_one_upload_or_again_is_the_existing_one(
    session: Session,
) -> None:
    first = sweep_save.save_parsed(session, table_sweeps(POINTS) + table_sweeps(POINTS))
    session.commit()
    assert [s.created for s in first] == [True, True, False, False]
    assert first[0].sweep.id == first[2].sweep.id
    again = sweep_save.save_parsed(session, table_sweeps(POINTS))
    assert [(s.sweep.id, s.created) for s in again] == [(s.sweep.id, False) for s in first[:2]]
    assert first[0].sweep.name == "a" and first[1].sweep.hardware == "H200"


def test_a_content_hash_stored_meanwhile_is_the_duplicate_race_error(session: Session) -> None:
    [sweep] = table_sweeps("sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
                           "r,H100,8,1,10,100\n")  # fmt: skip
    # As if a concurrent upload stored the same content after this one looked for it.
    digest = sweep.content_hash()
    sweep_save._insert_sweeps(session, {digest: sweep})
    with pytest.raises(IntegrityError) as caught:
        sweep_save._insert_sweeps(session, {digest: sweep})
    assert sweep_save.is_duplicate_race(caught.value)
    session.rollback()


# --- a problem deep in a large file ---------------------------------------------------------

BIG_HEADER = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,goodput_slo"


def big_file(rows: int) -> list[str]:
    # Sweeps interleave (s0, s1, s2, s0, ...): slices are sorted, rows keep their file numbers.
    return [BIG_HEADER] + [
        f"s{i % 3},H100,8,{i // 3 + 1},{10 + i % 32}.25,{1000 + i}.5,ttft:200" for i in range(rows)
    ]


def test_a_bad_cell_deep_in_a_100k_row_file_is_named_by_row_and_column() -> None:
    lines = big_file(100_000)
    lines[87_654] = lines[87_654].replace(",H100,8,", ",H100,8x,")
    with pytest.raises(IngestError) as caught:
        canonical.parse_sweeps_csv("big.csv", "\n".join(lines), {})
    assert str(caught.value) == "big.csv, row 87655, column 'num_gpus': '8x' is not a whole number"


def test_a_value_too_long_to_store_deep_in_a_100k_row_file_is_named_by_row_and_column() -> None:
    lines = big_file(100_000)
    lines[91_235] = lines[91_235].replace("ttft:200", "x" * 201)
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile("big.csv", "\n".join(lines).encode())], {})
    assert str(caught.value) == (
        "big.csv, row 91236, column 'goodput_slo': is 201 characters long; at most 200"
    )
