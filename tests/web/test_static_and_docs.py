"""Compressed responses, cache headers on versioned static URLs, and API docs with no CDN."""

from __future__ import annotations

import gzip
import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.http.static import SCRIPTS, STATIC_DIR, content_hash, static_url


def test_html_pages_are_gzipped_when_the_client_accepts_it(client: TestClient) -> None:
    r = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in r.headers["vary"]


def test_json_answers_are_gzipped_and_plain_for_clients_that_do_not_ask(
    client: TestClient,
) -> None:
    zipped = client.get("/api/metrics", headers={"Accept-Encoding": "gzip"})
    plain = client.get("/api/metrics", headers={"Accept-Encoding": "identity"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert zipped.json() == plain.json()


def test_plotly_goes_over_the_wire_at_under_half_a_megabyte(client: TestClient) -> None:
    url = static_url("vendor/plotly-basic-4.1.1.min.js")
    with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as r:
        wire = b"".join(r.iter_raw())
    assert r.headers["content-encoding"] == "gzip"
    raw = (STATIC_DIR / "vendor/plotly-basic-4.1.1.min.js").read_bytes()
    assert gzip.decompress(wire) == raw
    assert len(wire) < 500_000 < len(raw)


def test_pages_link_static_files_by_content_hash(client: TestClient) -> None:
    soup = BeautifulSoup(client.get("/").text, "html.parser")
    css = soup.find("link", rel="stylesheet")["href"]
    scripts = [s["src"] for s in soup.find_all("script", src=True)]
    assert css == f"/static/app.css?v={content_hash('app.css')}"
    for script in SCRIPTS:
        assert f"/static/{script}?v={content_hash(script)}" in scripts
    assert all(re.search(r"\?v=[0-9a-f]{12}$", src) for src in scripts)


def test_a_versioned_static_url_is_cached_for_a_year_and_a_stale_one_revalidates(
    client: TestClient,
) -> None:
    fresh = client.get(static_url("app.css"))
    stale = client.get("/static/app.css?v=000000000000")
    bare = client.get("/static/app.css")
    assert fresh.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert stale.headers["cache-control"] == "no-cache"
    assert bare.headers["cache-control"] == "no-cache"
    assert fresh.content == stale.content == bare.content


def test_api_docs_load_swagger_ui_from_this_server_only(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200
    soup = BeautifulSoup(r.text, "html.parser")
    urls = [t.get("src") or t.get("href") for t in soup.find_all(["script", "link"])]
    assert urls and all(u.startswith("/static/") for u in urls)
    assert not soup.find_all("script", src=False)
    for url in urls:
        assert client.get(url).status_code == 200
    assert soup.find(id="swagger-ui")["data-openapi-url"] == "/openapi.json"
    assert client.get("/redoc").status_code == 404
