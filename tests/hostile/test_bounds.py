"""The bounds themselves: bombs stop early and small, the loaders' limits sit exactly where
documented, text limits match the database columns, and edits and catalogs obey them too."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import String, select
from sqlalchemy.orm import Session

from app.cli import main
from app.domain.sweep_fields import SWEEP_TEXT_LIMITS
from app.ingest import IngestError, UploadFile, limits, parse_upload, safe_load
from app.ingest.limits import MAX_CSV_COLUMNS, SOURCE_FILE_LIMIT
from app.ingest.safe_load import (
    MAX_DEPTH,
    MAX_JSON_CONTAINERS,
    MAX_JSON_KEYS,
    MAX_NUMBER_DIGITS,
    load_yaml,
    loads_json,
)
from app.main import create_app
from app.settings import Settings, get_settings
from app.store import point_blocks
from app.store.migrate import upgrade_to_head
from app.store.models import PricingProfile, Sweep
from tests.conftest import FIXTURES
from tests.factories import MINIMAL, count, post_files
from tests.hostile.corpus import HEADER, csv_rows, good_row, tar_gz_bomb, wide_csv, zip_bomb_1gib

VLLM_DIR = FIXTURES / "vllm"
FIELDS = {"hardware": "H100", "num_gpus": 8}


def refused_in(data: bytes, name: str) -> tuple[str, int]:
    """The refusal and the peak of memory traced while it was reached."""
    tracemalloc.start()
    try:
        with pytest.raises(IngestError) as caught:
            parse_upload([UploadFile(name, data)], FIELDS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(caught.value), peak


@pytest.mark.parametrize(
    ("name", "build"), [("bomb.zip", zip_bomb_1gib), ("bomb.tar.gz", lambda: tar_gz_bomb(1 << 30))]
)
def test_a_1_mb_archive_expanding_to_1_gib_is_refused_early_using_little_memory(
    name: str, build: Callable[[], bytes]
) -> None:
    data = build()
    assert len(data) < 1.1 * 2**20
    message, peak = refused_in(data, name)
    assert message.startswith(f"{name}: member ")
    assert "200× its compressed size" in message
    # Early: refused at the ratio cap, so far less than the 1 GiB was ever held (no clock: on a
    # loaded machine a time bound is flaky, and it shows nothing the memory bound misses).
    assert peak < 64 * 2**20


def test_real_results_zipped_or_tarred_still_import_exactly_as_loose_files() -> None:
    files = {p.name: p.read_bytes() for p in sorted(VLLM_DIR.glob("*.json"))}
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(f"run/{name}", data)
    tarred = io.BytesIO()
    with tarfile.open(fileobj=tarred, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"run/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    loose = parse_upload([UploadFile(n, d) for n, d in files.items()], FIELDS)
    for upload in (UploadFile("r.zip", zipped.getvalue()), UploadFile("r.tgz", tarred.getvalue())):
        packed = parse_upload([upload], FIELDS)
        assert [s.content_hash() for s in packed] == [s.content_hash() for s in loose]


def test_the_unpacked_cap_counts_every_archive_of_one_upload_together() -> None:
    from app.ingest.limits import Limits

    member = MINIMAL * 2000  # ~170 KB, compresses well below the ratio cap's grace
    archives = [
        UploadFile(f"a{i}.zip", _zip({f"p{i}.csv": member.replace(b"mini", f"m{i}".encode())}))
        for i in range(3)
    ]
    limits = Limits(max_unpacked_bytes=2 * len(member) + 10)
    with pytest.raises(IngestError) as caught:
        parse_upload(archives, FIELDS, limits=limits)
    assert "a2.zip: member 'p2.csv': the archive unpacks to more than" in str(caught.value)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_a_sweep_with_more_points_than_a_point_id_can_number_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A point's id is its sweep's id x 10^7 + its position, so a sweep may have at most
    9,999,999 points (shown here with the bound lowered to 3; the ids follow the bound)."""
    assert point_blocks.POINT_ID_STRIDE == limits.MAX_POINTS_PER_SWEEP + 1 == 10**7
    monkeypatch.setattr(limits, "MAX_POINTS_PER_SWEEP", 3)
    rows = "".join(f"big,H100,8,{c},10,{100 * c}\n" for c in range(1, 5))
    csv = ("sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + rows).encode()
    with pytest.raises(IngestError) as refused:
        parse_upload([UploadFile("big.csv", csv)], {})
    assert str(refused.value) == (
        "big.csv, row 2: sweep 'big' has 4 points; a sweep may have at most 3 (a point's id is "
        "its sweep's and its place)"
    )
    assert len(parse_upload([UploadFile("ok.csv", csv.rsplit(b"big", 1)[0])], {})) == 1


def test_json_depth_and_digit_limits_sit_exactly_at_the_documented_values() -> None:
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "f.json") is not None
    with pytest.raises(IngestError, match="f.json: JSON nested deeper than 100 levels"):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "f.json")
    assert loads_json("[" + "7" * MAX_NUMBER_DIGITS + "]", "f.json") == [int("7" * 100)]
    with pytest.raises(IngestError, match="a number of 101 characters"):
        loads_json("[" + "7" * (MAX_NUMBER_DIGITS + 1) + "]", "f.json")
    # Brackets and digit runs inside strings are text, not structure or numbers.
    text = json.dumps({"s": "[" * 500 + "9" * 500, "e": '\\"[[[['})
    assert loads_json(text, "f.json") == json.loads(text)
    assert loads_json("[Infinity, NaN]", "f.json")[0] == float("inf")


def test_a_csv_header_of_1000_columns_imports_and_one_more_is_refused_on_the_header_line() -> None:
    assert MAX_CSV_COLUMNS == 1000
    known = HEADER.count(",") + 1
    fits = wide_csv(HEADER, good_row(), MAX_CSV_COLUMNS - known)
    (sweep,) = parse_upload([UploadFile("fits.csv", fits)], {})
    assert len(sweep.points[0].extra) == MAX_CSV_COLUMNS - known
    wide = wide_csv(HEADER, good_row(), MAX_CSV_COLUMNS - known + 1)
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile("wide.csv", wide)], {})
    assert (
        str(caught.value)
        == "wide.csv, row 1: the header names 1,001 columns; at most 1,000 are read"
    )
    # A quoted name holding commas is one column: 2,000 commas, 8 columns.
    quoted = csv_rows(good_row() + ",1", header=HEADER + ',"' + "," * 2000 + '"')
    (sweep,) = parse_upload([UploadFile("quoted.csv", quoted)], {})
    assert list(sweep.points[0].extra) == ["," * 2000]


def test_json_key_and_container_limits_sit_exactly_at_the_documented_values() -> None:
    keys = {f"k{i}": i for i in range(MAX_JSON_KEYS)}
    assert loads_json(json.dumps(keys), "f.json") == keys
    with pytest.raises(IngestError) as caught:
        loads_json(json.dumps({**keys, "one more": 0}), "f.json")
    assert str(caught.value) == "f.json: a JSON object with 10,001 keys is refused; at most 10,000"
    lists = "[" + "[]," * (MAX_JSON_CONTAINERS - 2) + "[]]"
    assert len(loads_json(lists, "f.json")) == MAX_JSON_CONTAINERS - 1
    with pytest.raises(IngestError) as caught:
        loads_json("[{}," + lists[1:], "f.json", row=3)
    assert str(caught.value) == (
        "f.json, row 3: line 3: JSON of 200,001 objects and lists is refused; at most 200,000"
    )
    # Colons and brackets inside strings are text: neither keys nor lists.
    text = json.dumps({"s": ":" * 20_000 + "[" * 300_000})
    assert loads_json(text, "f.json") == json.loads(text)


def test_yaml_keys_and_collections_are_bounded_as_json_s_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small limits keep it quick: YAML builds a node per value before any Python object.
    monkeypatch.setattr(safe_load, "MAX_JSON_KEYS", 5)
    monkeypatch.setattr(safe_load, "MAX_JSON_CONTAINERS", 10)
    keys = {f"k{i}": i for i in range(5)}
    assert load_yaml("a: 1\nb: " + json.dumps(keys), "f.yaml") == {"a": 1, "b": keys}
    with pytest.raises(IngestError) as caught:
        load_yaml("a: 1\nb: " + json.dumps({**keys, "one more": 0}), "f.yaml")
    assert str(caught.value) == "f.yaml, row 2: a YAML mapping with more than 5 keys is refused"
    lists = "[" + "[]," * 8 + "[]]"
    assert len(load_yaml(lists, "f.yaml")) == 9
    with pytest.raises(IngestError) as caught:
        load_yaml("[{}," + lists[1:], "f.yaml")
    assert str(caught.value) == "f.yaml, row 1: YAML of more than 10 mappings and lists is refused"


def test_yaml_anchors_alone_load_but_any_alias_is_refused_naming_the_line() -> None:
    assert load_yaml("a: &x 1\nb: 2\n", "f.yaml") == {"a": 1, "b": 2}
    with pytest.raises(IngestError) as caught:
        load_yaml("a: &x [1, 2]\nb: *x\n", "f.yaml")
    assert str(caught.value) == (
        "f.yaml, row 2: YAML aliases (*x) are refused: expand them in the file"
    )
    with pytest.raises(IngestError, match="a number of 101 characters"):
        load_yaml("n: " + "1" * 101 + "\n", "f.yaml")
    assert load_yaml("n: '" + "1" * 101 + "'\n", "f.yaml") == {"n": "1" * 101}


def test_text_limits_are_the_column_lengths_of_the_database() -> None:
    columns = Sweep.__table__.columns
    for field, limit in SWEEP_TEXT_LIMITS.items():
        column = columns["name" if field == "sweep" else field]
        if isinstance(column.type, String) and column.type.length:
            assert column.type.length == limit, field
    assert columns["source_file"].type.length == SOURCE_FILE_LIMIT


def test_a_name_at_the_limit_imports_and_one_character_more_is_refused(
    client: TestClient, session: Session
) -> None:
    row = "{name},H100,8,1,10,100\n"
    header = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    ok = post_files(client, ("ok.csv", header + row.format(name="n" * 300).encode()))
    assert ok.status_code == 201, ok.text
    bad = post_files(client, ("bad.csv", header + row.format(name="m" * 301).encode()))
    assert bad.status_code == 422
    assert bad.json()["errors"] == [
        {
            "file": "bad.csv",
            "row": 2,
            "column": "sweep",
            "message": "is 301 characters long; at most 300",
        }
    ]
    assert count(session, Sweep) == 1


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": "a\x00b"}, "sweep", "contains a NUL byte"),
        ({"model": "m" * 201}, "model", "is 201 characters long; at most 200"),
        ({"num_gpus": 2**31}, "num_gpus", "2147483648 is out of range"),
        ({"isl": 2**63}, "isl", "out of range"),
    ],
)
def test_an_edit_that_a_database_could_not_store_is_refused_naming_the_field(
    client: TestClient, session: Session, body: dict[str, object], field: str, message: str
) -> None:
    assert post_files(client, ("mini.csv", MINIMAL)).status_code == 201
    response = client.patch("/api/sweeps/1", json=body)
    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    assert (error["column"], error["file"]) == (field, "(request)")
    assert message in error["message"]
    session.expire_all()
    sweep = session.scalars(select(Sweep)).one()
    assert (sweep.name, sweep.model, sweep.num_gpus, sweep.isl) == ("mini", None, 1, None)


def test_two_pricing_profiles_with_an_empty_key_are_both_stored_without_a_key(
    client: TestClient, session: Session
) -> None:
    body = {"name": "spot", "kind": "rental", "usd_per_gpu_hour": 2.0, "key": ""}
    assert [client.post("/api/pricing", json=body).status_code for _ in range(2)] == [201, 201]
    session.expire_all()
    assert [p.key for p in session.scalars(select(PricingProfile))] == [None, None]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/pricing", {"name": "a\x00", "kind": "rental", "usd_per_gpu_hour": 1}, "name"),
        (
            "/api/pricing",
            {"name": "a", "kind": "rental", "usd_per_gpu_hour": 1, "tier": "t" * 51},
            "tier",
        ),
        (
            "/api/claims",
            {"vendor": "v\x00", "hardware": "H100", "value_tok_s": 1, "measures": "per_gpu",
             "token_basis": "output"},
            "vendor",
        ),
        (
            "/api/claims",
            {"vendor": "v", "hardware": "H100", "value_tok_s": 1, "measures": "per_gpu",
             "token_basis": "output", "notes": "n\x00"},
            "notes",
        ),
    ],
)  # fmt: skip
def test_pricing_and_claims_refuse_nul_bytes_and_over_long_text_naming_the_field(
    client: TestClient, catalog: None, path: str, body: dict[str, object], field: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    assert [e["field"] for e in response.json()["errors"]] == [field]


def test_a_subnormal_minimum_interactivity_is_a_422_on_the_page_and_its_json_twin(
    client: TestClient, session: Session
) -> None:
    assert post_files(client, ("mini.csv", MINIMAL)).status_code == 201
    for path in ("/", "/api/explore"):
        response = client.get(path, params={"min_tok_s_user": "5e-324", "logx": "true"})
        assert response.status_code == 422, path
        assert "min_tok_s_user" in response.text
    fine = client.get("/api/explore", params={"min_tok_s_user": "1e-300", "logx": "true"})
    assert fine.status_code == 200


def test_a_request_body_nested_100k_deep_is_a_4xx(client: TestClient) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for method, path in (("POST", "/api/pricing"), ("PATCH", "/api/sweeps/1")):
        response = client.request(
            method, path, content=deep, headers={"content-type": "application/json"}
        )
        assert 400 <= response.status_code < 500, (path, response.status_code)


def test_the_cli_refuses_out_of_range_ids_and_options_with_status_2_and_no_traceback(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    source = tmp_path / "mini.csv"
    source.write_bytes(MINIMAL.replace(b",1,", b",,"))
    try:
        assert main(["export", str(2**63)]) == 2
        assert main(["import", str(source), "--gpus", str(2**31)]) == 2
        assert main(["import", str(tmp_path)]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"no sweep {2**63}" in err
    assert "--num-gpus: 2147483648 is out of range" in err


@pytest.mark.postgres
def test_a_sweep_exported_from_sqlite_imports_into_postgres_unchanged(
    tmp_path: Path, sqlite_template: Path, postgres_migrated: str
) -> None:
    sqlite_path = tmp_path / "lite.db"
    shutil.copy(sqlite_template, sqlite_path)
    edge = (
        b"sweep,hardware,num_gpus,model,notes,goodput_slo,num_requests,concurrency,"
        b"tpot_p50_ms,output_tok_s\n"
        + ",".join(
            ["\u00e9" * 300, "H100", str(2**31 - 1), "m" * 200, "n" * 10_000, "g" * 200,
             str(2**31 - 1), "1", "10", "100"]
        ).encode()
        + b"\n"
    )  # fmt: skip
    clients = []
    for url in (f"sqlite:///{sqlite_path}", postgres_migrated):
        upgrade_to_head(url)
        client = TestClient(
            create_app(
                Settings(database_url=url, seed_on_start=False, allowed_hosts=["testserver"]),
                migrate=False,
            )
        )
        clients.append(client.__enter__())
    lite, pg = clients
    try:
        created = post_files(lite, ("edge.csv", edge))
        assert created.status_code == 201, created.text
        sweep_id = created.json()["sweeps"][0]["id"]
        exported = lite.get("/api/export/sweeps.csv", params={"sweep": sweep_id})
        assert exported.status_code == 200
        imported = post_files(pg, ("exported.csv", exported.content))
        assert imported.status_code == 201, imported.text
        new_id = imported.json()["sweeps"][0]["id"]
        a, b = lite.get(f"/api/sweeps/{sweep_id}").json(), pg.get(f"/api/sweeps/{new_id}").json()
        keys = ("name", "num_gpus", "model", "notes")
        assert [a[k] for k in keys] == [b[k] for k in keys]
        assert b["num_gpus"] == 2**31 - 1 and len(b["name"]) == 300
    finally:
        for client in clients:
            client.__exit__(None, None, None)


@pytest.mark.parametrize("path", ["/api/pricing", "/api/sweeps", "/sweeps", "/api/explore"])
def test_a_nul_byte_in_any_query_parameter_is_a_422_naming_it(
    client: TestClient, path: str
) -> None:
    response = client.get(path, params={"hardware": "H1\x0000"})
    assert response.status_code == 422
    if path.startswith("/api/"):
        assert response.json()["errors"] == [
            {"field": "hardware", "message": "contains a NUL byte"}
        ]
    else:
        assert "hardware: contains a NUL byte" in response.text


@pytest.mark.parametrize(
    "path",
    [
        "/api/sweeps/2147483648",
        "/api/pricing/0",
        "/api/claims/-1",
        "/api/readoff?sweep=9223372036854775808",
        "/api/roofline?sweep=2147483648",
        "/api/explore?sweep=2147483648",
        "/api/readoff?sweep=1&pricing=2147483648",
    ],
)
def test_ids_outside_1_to_2_to_the_31_are_a_422_not_a_database_error(
    client: TestClient, path: str
) -> None:
    response = client.get(path)
    assert response.status_code == 422, response.text


def _sglang_without_osl() -> bytes:
    first = (FIXTURES / "sglang/datacrunch_deepseek_dp_mla_output.jsonl").read_text()
    line = json.loads(first.splitlines()[0])
    line["random_output_len"] = None
    return json.dumps(line).encode()


def _llmperf_with_timestamp(stamp: float) -> list[UploadFile]:
    folder = FIXTURES / "llmperf"
    files = []
    for path in sorted(folder.glob("*_together_70b.json")):
        data = path.read_bytes()
        if path.name.startswith("summary"):
            doc = json.loads(data)
            doc["timestamp"] = stamp
            data = json.dumps(doc).encode()
        files.append(UploadFile(path.name, data))
    return files


def _guidellm_with_errored(value: object) -> bytes:
    doc = json.loads((FIXTURES / "guidellm/llm-d-benchmark_guidellm_report_v2.json").read_bytes())
    doc["benchmarks"][0]["requests"]["errored"] = value
    return json.dumps(doc).encode()


def test_odd_values_found_by_fuzzing_the_real_files_are_refused_or_imported_never_a_crash() -> None:
    [sweep] = parse_upload([UploadFile("sg.jsonl", _sglang_without_osl())], FIELDS)
    assert "/?" in sweep.name  # the label says the output length is unknown
    with pytest.raises(IngestError, match="key 'timestamp': 1e[+]308 is not a date"):
        parse_upload(_llmperf_with_timestamp(1e308), FIELDS)
    with pytest.raises(IngestError, match="'errored': expected a list"):
        parse_upload([UploadFile("benchmarks.json", _guidellm_with_errored(1e308))], FIELDS)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/sweeps/2147483648"),
        ("POST", "/sweeps/2147483648/delete"),
        ("GET", "/claims/2147483648"),
        ("POST", "/pricing/2147483648/delete"),
    ],
)
def test_pages_answer_an_out_of_range_id_with_a_4xx_page_not_a_500(
    client: TestClient, method: str, path: str
) -> None:
    response = client.request(method, path)
    assert 400 <= response.status_code < 500, response.status_code


def test_a_harness_longer_than_its_stored_column_is_refused_by_upload_and_by_edit(
    client: TestClient, session: Session
) -> None:
    # harness and harness_version are 100 characters in the store: a longer one reached the
    # database (a 500 on Postgres, kept on SQLite) until they were bounded like the others.
    bad = post_files(client, ("m.csv", MINIMAL), harness="h" * 101)
    assert bad.status_code == 422, bad.text
    assert bad.json()["errors"] == [
        {
            "file": "(form)",
            "row": None,
            "column": "harness",
            "field": "harness",
            "message": "is 101 characters long; at most 100",
        }
    ]
    ok = post_files(client, ("m.csv", MINIMAL))
    assert ok.status_code == 201, ok.text
    sweep_id = ok.json()["sweeps"][0]["id"]
    edit = client.patch(f"/api/sweeps/{sweep_id}", json={"harness_version": "v" * 101})
    assert edit.status_code == 422, edit.text
    assert edit.json()["errors"][0]["message"] == "is 101 characters long; at most 100"
    assert count(session, Sweep) == 1
