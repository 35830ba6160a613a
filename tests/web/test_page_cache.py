"""Explore pages kept per process (app.web.page_cache): the same address asked again is answered
with one query while nothing it shows has changed, and any change to a sweep, a tag or the
catalog, made by anyone, shows on the next page (SQLite and Postgres)."""

from __future__ import annotations

import gzip
from collections.abc import Callable

import pytest
from fastapi.responses import Response
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.http.encoding import GZIP_MINIMUM, accepts_gzip
from app.main import create_app
from app.settings import Settings
from app.store import sweeps as sweep_queries
from app.store import versions as version_tokens
from app.store.db import make_sessionmaker
from app.store.models import SloPreset
from app.web.page_cache import PageCache
from tests.conftest import trigger_events
from tests.helpers import soup, upload_by_name

SWEEPS = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,ttft_p90_ms,output_tok_s\n"
    b"first,H100,8,llama-3.1-70b,1,10,100,800\n"
    b"first,H100,8,llama-3.1-70b,8,20,150,2400\n"
    b"second,H200,8,llama-3.1-70b,4,15,120,2000\n"
)
SWEEP_TABLES = {"sweep", "sweep_tag"}


def readoff_names(client: TestClient, url: str) -> list[str]:
    rows = soup(client.get(url)).select("#readoff-table tbody tr td:first-child a")
    return [a.text for a in rows]


def picker_names_at(client: TestClient, url: str) -> list[str]:
    return [n.text for n in soup(client.get(url)).select("#picker-list .sweep-name")]


def sweep_token(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT token FROM sweep_version")).scalar_one())


@pytest.fixture
def explore_url(client: TestClient) -> str:
    ids = upload_by_name(client, ("sweeps.csv", SWEEPS))
    return f"/?sweep={ids['first']}&sweep={ids['second']}&picked=1&ttft_ms=300&tpot_ms=30"


def test_the_same_address_asked_again_is_answered_with_one_query(
    client: TestClient, explore_url: str, statements: list[str]
) -> None:
    first = client.get(explore_url)
    statements.clear()
    again = client.get(explore_url)
    assert again.status_code == 200
    assert again.text == first.text
    assert again.headers["content-type"] == first.headers["content-type"]
    asked = [s for s in statements if s.lstrip().startswith("select")]
    assert len(asked) == 1
    assert "from catalog_version" in asked[0] and "from sweep_version" in asked[0]


def test_a_sweep_renamed_by_another_process_shows_on_the_next_page(
    client: TestClient, engine: Engine, explore_url: str
) -> None:
    assert readoff_names(client, explore_url) == ["first", "second"]
    with engine.begin() as conn:  # a script, psql or another replica
        conn.execute(text("UPDATE sweep SET name = 'renamed' WHERE name = 'first'"))
    assert readoff_names(client, explore_url) == ["renamed", "second"]


def test_a_deleted_sweep_leaves_the_next_page(
    client: TestClient, engine: Engine, explore_url: str
) -> None:
    search = "/?q=second"
    assert picker_names_at(client, search) == ["second"]
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM sweep WHERE name = 'second'"))
    assert picker_names_at(client, search) == []


def test_an_upload_shows_in_the_picker_of_the_next_page(
    client: TestClient, explore_url: str
) -> None:
    picker = "/?q=third"
    assert picker_names_at(client, picker) == []
    upload_by_name(
        client,
        (
            "sweeps.csv",
            b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nthird,H100,1,1,10,100\n",
        ),
    )
    assert picker_names_at(client, picker) == ["third"]


def test_a_catalog_change_shows_on_the_next_page(
    client: TestClient, engine: Engine, explore_url: str
) -> None:
    def presets() -> list[str]:
        return [o.text for o in soup(client.get(explore_url)).select("#slo-preset option")]

    assert "Later preset" not in presets()
    with make_sessionmaker(engine)() as session:
        session.add(SloPreset(key="later", name="Later preset", ttft_ms=500.0))
        session.commit()
    assert "Later preset" in presets()


def test_a_swap_and_a_whole_page_are_kept_apart(client: TestClient, explore_url: str) -> None:
    whole = client.get(explore_url)
    swap = client.get(explore_url, headers={"HX-Request": "true"})
    again = client.get(explore_url)
    assert soup(whole).find("html") is not None and "hx-push-url" not in whole.headers
    assert soup(swap).find("html") is None and swap.headers["hx-push-url"].startswith("/?")
    assert again.text == whole.text and "hx-push-url" not in again.headers
    restored = client.get(
        explore_url, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert soup(restored).find("html") is not None  # htmx restoring history wants it whole


def test_a_refused_address_is_refused_again_and_never_kept(client: TestClient) -> None:
    for _ in range(2):
        assert client.get("/?ttft_ms=-5").status_code == 422
    assert client.app.state.page_cache.size_bytes == 0  # type: ignore[attr-defined]


def test_with_no_memory_for_pages_every_request_renders(
    make_client: Callable[..., TestClient], statements: list[str]
) -> None:
    client = make_client(page_cache_mb=0)
    url = "/?sweep=" + str(upload_by_name(client, ("sweeps.csv", SWEEPS))["first"]) + "&picked=1"
    client.get(url)
    statements.clear()
    assert client.get(url).status_code == 200
    assert any("from sweep " in s or "from sweep\n" in s for s in statements)
    assert client.app.state.page_cache.size_bytes == 0  # type: ignore[attr-defined]


def test_the_sweep_tables_have_the_triggers_that_renew_the_token(engine: Engine) -> None:
    wanted = {(t, e) for t in SWEEP_TABLES for e in ("INSERT", "UPDATE", "DELETE")}
    assert trigger_events(engine, "sweep_token") == wanted


def test_each_change_to_a_sweep_or_a_tag_renews_the_token(
    client: TestClient, engine: Engine, explore_url: str
) -> None:
    changes = [
        "INSERT INTO sweep_tag (sweep_id, tag) SELECT id, 'nightly' FROM sweep LIMIT 1",
        "UPDATE sweep_tag SET tag = 'weekly'",
        "DELETE FROM sweep_tag",
        "UPDATE sweep SET notes = 'checked' WHERE name = 'second'",
        "DELETE FROM sweep WHERE name = 'second'",
    ]
    for change in changes:
        before = sweep_token(engine)
        with engine.begin() as conn:
            conn.execute(text(change))
        assert sweep_token(engine) != before, change


def test_a_change_rolled_back_leaves_the_token_as_it_was(engine: Engine, explore_url: str) -> None:
    before = sweep_token(engine)
    with engine.connect() as conn:
        conn.execute(text("UPDATE sweep SET name = 'never' WHERE name = 'first'"))
        conn.rollback()
    assert sweep_token(engine) == before


def html_response(status: int = 200, size: int = 10, **headers: str) -> Response:
    return Response(b"x" * size, status_code=status, headers=headers, media_type="text/html")


def test_pages_past_the_byte_budget_push_out_the_least_recently_used() -> None:
    pages = PageCache(max_bytes=25)
    pages.put(("a",), html_response())
    pages.put(("b",), html_response())
    assert pages.get(("a",)) is not None  # now b is the least recently used
    pages.put(("c",), html_response())
    assert pages.get(("b",)) is None
    assert pages.get(("a",)) is not None and pages.get(("c",)) is not None
    assert pages.size_bytes == 20
    pages.put(("huge",), html_response(size=26))  # larger than the whole budget: not kept at all
    assert pages.get(("huge",)) is None and pages.size_bytes == 20


def test_only_a_200_is_kept_and_with_the_headers_a_page_sets() -> None:
    pages = PageCache(max_bytes=1000)
    pages.put(("refused",), html_response(status=422))
    assert pages.get(("refused",)) is None
    pages.put(("swap",), html_response(**{"HX-Push-Url": "/?sweep=1", "X-Other": "no"}))
    kept = pages.get(("swap",))
    assert kept is not None
    answer = kept.response(None)
    assert answer.headers["hx-push-url"] == "/?sweep=1"
    assert "x-other" not in answer.headers
    assert answer.headers["content-type"].startswith("text/html")
    assert pages.get(None) is None
    pages.put(None, html_response())
    assert pages.size_bytes == len(b"x" * 10)


def test_the_filter_values_are_read_again_only_after_a_sweep_changes(
    client: TestClient, engine: Engine, explore_url: str, statements: list[str]
) -> None:
    factory = make_sessionmaker(engine)

    def facets() -> dict[str, list[object]]:
        with factory() as session:
            return sweep_queries.facet_values(session, version_tokens.read(session))

    assert facets()["hardware"] == ["H100", "H200"]
    statements.clear()
    assert facets()["hardware"] == ["H100", "H200"]
    assert not [s for s in statements if "from sweep " in s or "from sweep\n" in s]
    upload_by_name(
        client,
        (
            "sweeps.csv",
            b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nb,B200,1,1,9,90\n",
        ),
    )
    assert facets()["hardware"] == ["B200", "H100", "H200"]


def test_a_server_starting_on_a_database_whose_version_rows_were_deleted_gives_them_back(
    database_url: str, engine: Engine
) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM sweep_version"))
        conn.execute(text("DELETE FROM catalog_version"))
    settings = Settings(
        database_url=database_url, seed_on_start=False, allowed_hosts=["testserver"]
    )
    with TestClient(create_app(settings)) as client:  # migrates (a no-op here), as serve does
        url = (
            "/?sweep=" + str(upload_by_name(client, ("sweeps.csv", SWEEPS))["first"]) + "&picked=1"
        )
        client.get(url)
        assert client.app.state.page_cache.size_bytes > 0  # type: ignore[attr-defined]
    with engine.connect() as conn:
        kinds = conn.execute(text("SELECT count(*) FROM sweep_version")).scalar_one()
        assert kinds == 1
        assert conn.execute(text("SELECT count(*) FROM catalog_version")).scalar_one() == 1


def raw_answer(client: TestClient, url: str, accept: str) -> tuple[bytes, dict[str, str]]:
    """The body as it went over the wire (not unzipped) and the answer's headers."""
    with client.stream("GET", url, headers={"Accept-Encoding": accept}) as response:
        assert response.status_code == 200
        return b"".join(response.iter_raw()), dict(response.headers)


def test_a_kept_page_is_gzipped_once_and_sent_as_kept_to_a_client_that_accepts_gzip(
    client: TestClient, explore_url: str
) -> None:
    first, first_headers = raw_answer(client, explore_url, "gzip, br")
    pages: PageCache = client.app.state.page_cache  # type: ignore[attr-defined]
    [kept] = pages._pages.values()
    assert kept.encoding == "gzip"
    assert pages.size_bytes == len(kept.body)  # the budget counts compressed bytes
    again, headers = raw_answer(client, explore_url, "gzip, br")
    # The render's answer and the kept page's are the very bytes kept: nothing compressed twice.
    assert first == again == kept.body
    for h in (first_headers, headers):
        assert h["content-encoding"] == "gzip"
        assert h["vary"] == "Accept-Encoding"
        assert h["content-length"] == str(len(kept.body))
        assert h["content-type"] == "text/html; charset=utf-8"
        assert h["server-timing"].startswith("app;dur=")
        assert h["content-security-policy"].startswith("default-src 'self'")
    plain, plain_headers = raw_answer(client, explore_url, "identity")
    assert gzip.decompress(again) == plain
    assert plain.startswith(b"<!doctype html>")
    assert "content-encoding" not in plain_headers
    assert plain_headers["vary"] == "Accept-Encoding"
    assert plain_headers["content-length"] == str(len(plain))
    assert plain_headers["content-security-policy"] == headers["content-security-policy"]


def test_a_client_that_takes_no_gzip_gets_the_plain_page_also_on_the_first_answer(
    client: TestClient, explore_url: str
) -> None:
    plain, headers = raw_answer(client, explore_url, "br;q=1, gzip;q=0")
    assert plain.startswith(b"<!doctype html>")
    assert "content-encoding" not in headers and headers["vary"] == "Accept-Encoding"
    zipped, _ = raw_answer(client, explore_url, "*")
    assert gzip.decompress(zipped) == plain


@pytest.mark.parametrize(
    ("accept", "zipped"), [("gzip;q=0", False), ("*", True), ("GZIP", True), ("gzip", True)]
)
def test_an_answer_not_kept_is_gzipped_as_accepts_gzip_decides_not_as_starlette_reads_it(
    client: TestClient, accept: str, zipped: bool
) -> None:
    # Starlette's GZipMiddleware gzips wherever "gzip" appears in the header; app.http.encoding
    # rewords the header first where accepts_gzip decides otherwise.
    body, headers = raw_answer(client, "/openapi.json", accept)
    assert len(body) > GZIP_MINIMUM
    assert (headers.get("content-encoding") == "gzip") is zipped
    text = gzip.decompress(body) if zipped else body
    assert text.startswith(b'{"openapi"')


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip, deflate, br, zstd", True),
        ("gzip, br", True),
        ("GZIP", True),
        ("br;q=1.0, gzip;q=0.8", True),
        ("x-gzip", True),
        ("*", True),
        ("*;q=0.5, identity", True),
        ("gzip;q=0", False),
        ("gzip;q=0.000, *", False),
        ("*;q=0", False),
        ("identity", False),
        ("br, zstd", False),
        ("gzip;q=nonsense", False),
        ("", False),
        (None, False),
    ],
)
def test_gzip_is_sent_only_where_accept_encoding_allows_it(
    header: str | None, accepted: bool
) -> None:
    assert accepts_gzip(header) is accepted


def test_a_small_page_is_kept_and_sent_plain() -> None:
    pages = PageCache(max_bytes=10_000)
    pages.put(("small",), html_response(size=1023))
    pages.put(("large",), html_response(size=1024))
    small, large = pages.get(("small",)), pages.get(("large",))
    assert small is not None and large is not None
    assert small.encoding is None and large.encoding == "gzip"
    assert "content-encoding" not in small.response("gzip").headers
    assert large.response("gzip").headers["content-encoding"] == "gzip"
    assert gzip.decompress(large.response("gzip").body) == b"x" * 1024
    assert large.response(None).body == b"x" * 1024
