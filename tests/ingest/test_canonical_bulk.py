"""Canonical CSV at scale: per-request files read in typed chunks, clean point files judged and
grouped as columns. Both must give exactly what the careful row-by-row reading gives, and a
problem anywhere in a large file is still named by file, row and column."""

from __future__ import annotations

import codecs
import hashlib
import random
from typing import Any

import polars as pl
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.ingest import (
    IngestError,
    UploadFile,
    canonical,
    canonical_requests,
    canonical_rows,
    frames,
    parse_upload,
    parse_upload_files,
    parsed,
)
from app.ingest.canonical_requests import RequestGroup, parse_requests_csv
from app.ingest.sample_digest import CSV, point_digests
from app.services.upload import save as uploads
from app.store import sweep_save
from app.store.models import SampleBlock, Sweep
from tests.ingest.hash_reference import reference_hash

HEADER = "sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok"


def request_rows(n: int, points: int = 3, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        if i % 17 == 16:
            rows.append(f"s,{i % points + 1},,,,512,false")
            continue
        ttft = rng.uniform(20, 900)
        out = rng.randint(1, 900)
        rows.append(f"s,{i % points + 1},{ttft:.3f},{ttft + out * 11.5:.3f},{out},512,true")
    return rows


def as_bytes(rows: list[str], header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def summary(groups: list[RequestGroup]) -> list[tuple[Any, ...]]:
    return [(g.sweep, g.concurrency, g.request_rate, g.first_row, g.samples.rows()) for g in groups]


def test_a_per_request_file_read_in_many_chunks_gives_what_one_read_gives() -> None:
    data = as_bytes(request_rows(3000))
    whole = parse_requests_csv("r.csv", data)
    chunked = parse_requests_csv("r.csv", data, chunk_rows=40)  # 75 chunks
    assert summary(chunked) == summary(whole)
    assert [g.first_row for g in whole] == [2, 3, 4]
    assert [g.samples.height for g in whole] == [1000, 1000, 1000]
    first = whole[0].samples.row(0, named=True)
    assert first["ok"] is True and first["input_len"] == 512


def test_the_chunked_read_gives_what_the_careful_text_read_gives() -> None:
    rows = request_rows(400)
    fast = parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=20)
    # A whole-number cell written as 512.0 does not parse as an integer at once: the careful
    # read (every cell as text, typed column by column) takes over and accepts it.
    careful = parse_requests_csv("r.csv", as_bytes([r.replace(",512,", ",512.0,") for r in rows]))
    assert summary(careful) == summary(fast)


def test_ok_written_as_other_words_in_some_chunks_reads_as_true_and_false_does() -> None:
    rows = request_rows(3000)
    words = {"true": ["1", "yes", " OK ", "True"], "false": ["0", "no", "Failed", "FALSE"]}
    # Only rows past the first chunks get other words: the file is read again as words.
    mixed = [
        r if i < 1500 else r.rsplit(",", 1)[0] + "," + words[r.rsplit(",", 1)[1]][i % 4]
        for i, r in enumerate(rows)
    ]
    plain = parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=40)
    assert summary(parse_requests_csv("r.csv", as_bytes(mixed), chunk_rows=40)) == summary(plain)
    assert plain[0].samples.schema["ok"] == pl.Boolean
    assert plain[0].samples.schema["output_len"] == pl.Int32


@pytest.mark.parametrize(
    ("change", "reads"),
    [
        (lambda r: r, 1),  # the common file: once, as it streams
        (lambda r: r.replace(",,,,", ",NA,NA,NA,"), 2),  # again with the null words
        (lambda r: r.replace(",true", ",1").replace(",false", ",0"), 3),  # then as words
        (lambda r: r.replace(",512,", ",512.0,"), 4),  # no way streams it: then carefully
    ],
    ids=["common", "null words", "ok as 1 and 0", "a count as 512.0"],
)
def test_a_per_request_file_is_streamed_once_and_again_only_when_it_reads_otherwise(
    change: Any, reads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = request_rows(3000)
    streamed: list[int] = []
    real = pl.scan_csv

    def scan(*args: Any, **kwargs: Any) -> pl.LazyFrame:
        streamed.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pl, "scan_csv", scan)
    expected = summary(parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=40))
    streamed.clear()
    got = parse_requests_csv("r.csv", as_bytes([change(r) for r in rows]), chunk_rows=40)
    assert len(streamed) == reads
    assert summary(got) == expected


def load_after_load(rows: list[str]) -> list[str]:
    """The rows as a tool writes runs at several loads: each load's requests after the last's."""
    return sorted(rows, key=lambda r: int(r.split(",")[1]))  # stable: file order within a load


@pytest.mark.parametrize("chunk_rows", [10**6, 40])
def test_a_file_written_load_after_load_splits_into_what_the_split_by_key_gives(
    chunk_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = as_bytes(load_after_load(request_rows(3000)))
    sliced = parse_requests_csv("r.csv", data, chunk_rows=chunk_rows)
    monkeypatch.setattr(canonical_requests, "MAX_RUNS", 0)  # every chunk split by key instead
    split = parse_requests_csv("r.csv", data, chunk_rows=chunk_rows)
    assert summary(sliced) == summary(split)
    assert [g.concurrency for g in sliced] == [1.0, 2.0, 3.0]
    assert [g.first_row for g in sliced] == [2, 1002, 2002]
    assert [g.samples.height for g in sliced] == [1000, 1000, 1000]


@pytest.mark.parametrize("chunk_rows", [10**6, 40])
def test_interleaved_loads_split_by_a_filter_each_give_what_one_partition_gives(
    chunk_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loads written a request at a time, as a run at several loads is logged: no load is one
    # run, so each is filtered out of the chunk (at most FILTER_GROUPS loads in a chunk).
    data = as_bytes(request_rows(3000, points=5))
    filtered = parse_requests_csv("r.csv", data, chunk_rows=chunk_rows)
    monkeypatch.setattr(canonical_requests, "FILTER_GROUPS", 0)  # one partition instead
    partitioned = parse_requests_csv("r.csv", data, chunk_rows=chunk_rows)
    assert summary(filtered) == summary(partitioned)
    assert [g.concurrency for g in filtered] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert [g.first_row for g in filtered] == [2, 3, 4, 5, 6]
    assert [g.samples.height for g in filtered] == [600] * 5


def test_null_and_nan_loads_are_filtered_into_one_group_each_as_the_partition_groups_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = "sweep,concurrency,request_rate,ttft_ms,e2el_ms,output_len,ok"
    rates = ["2.5", "", "NaN", "inf"]
    rows = [f"s,{4 + i % 2},{rates[i % 4]},{i}.5,{i + 90}.5,{i + 1},true" for i in range(40)]
    chunk = pl.read_csv(as_bytes(rows, header), schema_overrides={"request_rate": pl.Float64})
    found = frames.key_groups(chunk, ["concurrency", "request_rate"], ["ttft_ms"], 8)
    assert found is not None  # each of the four a filter of its own: none left over
    assert [part.height for _, part in found] == [10, 10, 10, 10]
    filtered = parse_requests_csv("r.csv", as_bytes(rows, header))
    monkeypatch.setattr(canonical_requests, "FILTER_GROUPS", 0)
    partitioned = parse_requests_csv("r.csv", as_bytes(rows, header))
    assert repr(summary(filtered)) == repr(summary(partitioned))  # NaN is not equal to itself
    assert [g.samples.height for g in filtered] == [10, 10, 10, 10]
    assert [g.first_row for g in filtered] == [2, 3, 4, 5]


def test_more_loads_in_a_chunk_than_filters_are_worth_are_split_by_one_partition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = as_bytes(request_rows(900, points=9))
    calls: list[int] = []
    real = frames.key_groups

    def counted(*args: Any) -> Any:
        found = real(*args)
        calls.append(0 if found is None else len(found))
        return found

    monkeypatch.setattr(canonical_requests, "key_groups", counted)
    groups = parse_requests_csv("r.csv", data)
    assert calls == [0]  # 9 loads: more than FILTER_GROUPS, left to the partition
    assert [g.concurrency for g in groups] == [float(c) for c in range(1, 10)]
    assert [g.samples.height for g in groups] == [100] * 9


def test_a_load_that_comes_back_later_in_the_file_is_one_group_in_file_order() -> None:
    rows = load_after_load(request_rows(300))
    back = rows[:50] + rows[100:] + rows[50:100]  # load 1's rows 50-99 written last
    [first, second, third] = parse_requests_csv("r.csv", as_bytes(back))
    assert (first.concurrency, first.first_row, first.samples.height) == (1.0, 2, 100)
    expected = [float(r.split(",")[2]) if r.split(",")[2] else None for r in rows[:100]]
    assert first.samples["ttft_ms"].to_list() == expected
    assert [second.concurrency, third.concurrency] == [2.0, 3.0]


@pytest.mark.parametrize("word", ["NA", "N/A", "null", "None"])
def test_null_words_in_a_chunked_file_read_as_empty_cells_do(word: str) -> None:
    rows = request_rows(3000)
    # From row 1,500 on: the first chunks read without null words, then the file with them.
    worded = rows[:1500] + [r.replace(",,,,", f",{word},{word},{word},") for r in rows[1500:]]
    plain = parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=40)
    assert summary(parse_requests_csv("r.csv", as_bytes(worded), chunk_rows=40)) == summary(plain)


@pytest.mark.parametrize("word", ["NA", "null", ""])
def test_a_sweep_named_by_a_null_word_is_an_empty_sweep_in_every_chunk(word: str) -> None:
    rows = request_rows(3000)
    rows[2500] = rows[2500].replace("s,", f"{word},", 1)
    with pytest.raises(IngestError) as caught:
        parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=40)
    assert "r.csv, row 2502, column 'sweep': required value is empty" in str(caught.value)


def test_samples_throughput_is_summed_in_64_bits_though_counts_are_read_as_32() -> None:
    points = b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n"
    points += b"big,H100,8,1,1,10,100\n"
    requests = HEADER + "\n" + "big,1,10.0,20.0,1000000000,512,true\n" * 3
    files = [UploadFile("points.csv", points), UploadFile("r.csv", requests.encode())]
    [sweep] = parse_upload(files, {})
    assert sweep.points[0].samples.schema["output_len"] == pl.Int32  # type: ignore[union-attr]
    # 3e9 tokens: in 32 bits the sum wraps to a negative number and nothing would be said.
    [warning] = [w for w in sweep.warnings if "request samples give" in w]
    assert "its 3 request samples give 3e+09 output tok/s over the 1 s run" in warning


@pytest.mark.parametrize(
    ("bad_row", "cell", "column", "message"),
    [
        (2500, "abc", "ttft_ms", "'abc' is not a number"),
        (2700, "-5", "e2el_ms", "is negative"),
        (2900, "x9", "ok", "'x9' is not true or false"),
    ],
)
def test_a_problem_deep_in_a_chunked_file_names_its_row_in_the_file(
    bad_row: int, cell: str, column: str, message: str
) -> None:
    rows = request_rows(3000)
    fields = rows[bad_row].split(",")
    fields[HEADER.split(",").index(column)] = cell
    fields[6] = fields[6] if column == "ok" else "true"
    rows[bad_row] = ",".join(fields)
    with pytest.raises(IngestError) as caught:
        parse_requests_csv("r.csv", as_bytes(rows), chunk_rows=40)
    line = bad_row + 2  # the header is row 1
    assert f"r.csv, row {line}, column '{column}': {message}" in str(caught.value)


def test_a_token_count_beyond_32_bits_in_one_chunk_is_refused_naming_the_point() -> None:
    rows = request_rows(3000)
    rows[2000] = "s,3,100.0,9000.0,3000000000,512,true"
    points = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(
        f"s,H100,8,{c},10,1000\n" for c in (1, 2, 3)
    )
    files = [UploadFile("points.csv", points.encode()), UploadFile("r.csv", as_bytes(rows))]
    with pytest.raises(IngestError) as caught:
        parse_upload(files, {})
    assert "a request's output_len 3000000000 is out of range" in str(caught.value)


POINTS = (
    "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,ttft_p90_ms,e2el_p90_ms,"
    "output_tok_s,num_requests,run_label\n"
    "a,H100,8,,1,10.5,100,900.25,1000,50,first\n"
    "a,H100,8,llama,2,11.25,120,1000,1900.5,50,\n"
    "b,H200,4,,1,9,80.5,700,2500,40,other\n"
    "a,H100,8,llama,4,13,150,1200,3500,,\n"
)


def row_by_row(text: str, defaults: dict[str, Any]) -> list[parsed.ParsedSweep]:
    frame = canonical.read_frame("p.csv", text)
    kinds = {name: c.kind for name, c in canonical.COLUMNS_BY_NAME.items()}
    rows = canonical.typed_frame("p.csv", frame, kinds, []).to_dicts()
    for row in rows:
        for key, value in defaults.items():
            if row.get(key) in (None, ""):
                row[key] = value
    return canonical._group_sweeps("p.csv", rows, [])


def described(sweeps: list[parsed.ParsedSweep]) -> list[tuple[Any, ...]]:
    return [
        (
            s.meta,
            s.first_row,
            [(p.row, p.values, p.extra) for p in s.points],
            s.content_hash(),
        )
        for s in sweeps
    ]


def test_the_upload_is_told_its_sweeps_once_samples_are_attached_and_before_the_checks() -> None:
    rows = request_rows(3000)
    rows[2000] = "s,3,100.0,9000.0,3000000000,512,true"  # refused by the checks, after
    points = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(
        f"s,H100,8,{c},10,1000\n" for c in (1, 2, 3)
    )
    files = [UploadFile("points.csv", points.encode()), UploadFile("r.csv", as_bytes(rows))]
    told: list[list[int]] = []
    with pytest.raises(IngestError, match="3000000000 is out of range"):
        parse_upload_files(
            files, {}, attached=lambda s: told.append([p.sample_count for p in s[0].points])
        )
    assert told == [[1000, 1000, 1000]]


def test_an_upload_refused_after_its_blocks_started_encoding_stores_nothing(
    session: Session,
) -> None:
    rows = request_rows(3000)
    rows[2000] = "s,3,100.0,9000.0,3000000000,512,true"
    points = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(
        f"s,H100,8,{c},10,1000\n" for c in (1, 2, 3)
    )
    files = [UploadFile("points.csv", points.encode()), UploadFile("r.csv", as_bytes(rows))]
    before = session.query(Sweep).count()
    with pytest.raises(IngestError, match="3000000000 is out of range"):
        uploads.store(session, files, {})
    session.rollback()
    assert session.query(Sweep).count() == before
    rows[2000] = "s,3,100.0,9000.0,300,512,true"  # the same upload, its count mended
    fixed = [files[0], UploadFile("r.csv", as_bytes(rows))]
    [saved] = uploads.store(session, fixed, {})
    stored = select(func.sum(SampleBlock.rows)).where(SampleBlock.sweep_id == saved.id)
    assert session.scalar(stored) == 3000


@pytest.mark.parametrize("defaults", [{}, {"num_gpus": 2, "engine": "vllm"}])
def test_a_clean_points_file_grouped_as_columns_matches_the_row_by_row_grouping(
    defaults: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(canonical, "COLUMNS_MIN_ROWS", 0)  # as columns, however few rows
    fast = canonical.parse_sweeps_csv("p.csv", POINTS, dict(defaults))
    assert all(s.table_rows is not None for s in fast)
    assert described(fast) == described(row_by_row(POINTS, defaults))
    a, b = fast
    assert a.meta["model"] == "llama" and a.meta["num_gpus"] == 8
    assert [p.row for p in a.points] == [2, 3, 5] and b.first_row == 4
    assert a.points[0].extra == {"run_label": "first"} and a.points[1].extra == {}
    assert a.points[2].values == {
        "concurrency": 4.0,
        "tpot_p50_ms": 13.0,
        "ttft_p90_ms": 150.0,
        "e2el_p90_ms": 1200.0,
        "output_tok_s": 3500.0,
    }


def test_a_file_without_sweep_columns_groups_every_row_into_one_unnamed_sweep() -> None:
    # The upload preview: the name, hardware and GPU count are asked for afterwards.
    bare = "concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n8,14,700\n"
    [sweep] = canonical.parse_sweeps_csv("bare.csv", bare, {}, require_meta=False)
    assert sweep.name == "" and sweep.meta == {}
    assert [p.values["concurrency"] for p in sweep.points] == [1.0, 8.0]
    assert described([sweep]) == described(row_by_row(bare, {}))


def test_the_column_screen_flags_every_row_the_row_checks_would_refuse() -> None:
    kinds = {name: c.kind for name, c in canonical.COLUMNS_BY_NAME.items()}
    required = ("sweep", "hardware", "num_gpus", "output_tok_s")

    def screened(text: str) -> bool:
        frame = canonical.typed_frame("p.csv", canonical.read_frame("p.csv", text), kinds, [])
        return canonical_rows.clean(frame, required, canonical.NON_NEGATIVE)

    assert screened(POINTS)
    for broken in (
        POINTS.replace("1900.5", "-1"),  # negative throughput
        POINTS.replace("a,H100,8,,1,", "a,H100,0,,1,"),  # no GPUs
        POINTS.replace("150,1200", "1500,1200"),  # TTFT above E2EL
        POINTS.replace("80.5", "inf"),  # an infinite latency
        POINTS.replace("b,H200", "b,"),  # hardware missing
        POINTS.replace("a,H100,8,llama,4", "a,H100,,llama,4"),  # GPU count missing
    ):
        assert not screened(broken)


def test_a_problem_in_a_large_points_file_is_still_named_by_row_and_column() -> None:
    lines = ["sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s"]
    lines += [f"s{i // 32},H100,8,{i % 32 + 1},{10 + i % 32},{1000 + i}" for i in range(5000)]
    lines[4001] = lines[4001].replace(",H100,8,", ",H100,-8,")
    with pytest.raises(IngestError) as caught:
        canonical.parse_sweeps_csv("big.csv", "\n".join(lines), {})
    assert str(caught.value) == "big.csv, row 4002, column 'num_gpus': -8 must be greater than 0"


def test_the_content_hash_is_format_2_as_its_definition_reads() -> None:
    sweeps = canonical.parse_sweeps_csv("p.csv", POINTS, {})
    for sweep in sweeps:
        assert sweep.content_hash() == reference_hash(sweep, sweep.points)
    # Pinned: a change of format changes every stored hash, so it needs a migration.
    assert (
        sweeps[0].content_hash()
        == "13311d8f5c01e924d1406b97ef62f9c4ea9bacd48692bb98594e2ccf63b98433"
    )


def test_a_points_file_read_as_bytes_with_a_bom_and_crlf_reads_as_its_text_does() -> None:
    as_text = canonical.parse_sweeps_csv("p.csv", POINTS, {})
    windows = codecs.BOM_UTF8 + POINTS.replace("\n", "\r\n").encode()
    for data in (POINTS.encode(), windows):
        [*as_bytes] = parse_upload([UploadFile("p.csv", data)], {})
        assert [s.content_hash() for s in as_bytes] == [s.content_hash() for s in as_text]
        assert [(p.values, p.extra) for s in as_bytes for p in s.points] == [
            (p.values, p.extra) for s in as_text for p in s.points
        ]
    broken = POINTS.encode().replace(b"H200", b"H\xff200")
    with pytest.raises(IngestError, match="not UTF-8 text: byte 0xff"):
        parse_upload([UploadFile("p.csv", broken)], {})


def test_a_sweeps_request_samples_enter_its_hash_by_their_digest() -> None:
    [group, *_] = parse_requests_csv("r.csv", as_bytes(request_rows(300)))
    with_samples = parsed.ParsedPoint({"concurrency": 1.0}, samples=group.samples)
    meta = {"sweep": "s", "hardware": "H100", "num_gpus": 8}
    sweep = parsed.ParsedSweep(
        meta, [with_samples, parsed.ParsedPoint({"concurrency": 2})], "r", "t"
    )
    digest = point_digests([with_samples]).get(0)
    assert digest is not None
    assert sweep.content_hash() == reference_hash(sweep, sweep.points, [(0, digest)])
    without = parsed.ParsedSweep(
        meta,
        [parsed.ParsedPoint({"concurrency": 1.0}), parsed.ParsedPoint({"concurrency": 2})],
        "r",
        "t",
    )
    assert without.content_hash() == reference_hash(without, without.points)
    assert without.content_hash() != sweep.content_hash()


def test_a_points_samples_hash_in_format_1_as_the_sha256_of_their_typed_csv_text() -> None:
    [group, *_] = parse_requests_csv("r.csv", as_bytes(request_rows(300)))
    point = parsed.ParsedPoint({"concurrency": 1}, samples=group.samples)
    # The session and phase columns are hashed only when given (issue 49): these have none.
    frame = point.samples_frame().drop("session_id", "turn_index", "phase")
    text = frame.write_csv(float_precision=None)
    assert point_digests([point], CSV).get(0) == hashlib.sha256(text.encode()).hexdigest()
    assert point_digests([parsed.ParsedPoint({"concurrency": 1})]).get(0) is None


@pytest.mark.postgres_twin  # what the store writes
def test_points_store_the_columns_they_give_and_leave_the_others_empty(
    session: Session,
) -> None:
    sweeps = canonical.parse_sweeps_csv("p.csv", POINTS, {})
    [a, b] = sweep_save.save_parsed(session, sweeps)
    session.commit()
    stored = session.get_one(Sweep, a.sweep.id).points
    assert [p.concurrency for p in stored] == [1.0, 2.0, 4.0]
    assert [p.num_requests for p in stored] == [50, 50, None]
    assert [p.itl_p50_ms for p in stored] == [None, None, None]
    assert [p.extra for p in stored] == [{"run_label": "first"}, {}, {}]
    assert pl.Series([p.e2el_p90_ms for p in stored]).to_list() == [900.25, 1000.0, 1200.0]
