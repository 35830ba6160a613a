"""Shared-host safety: headers on every response, cross-site writes refused, a Host allow-list."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.charts.style import PALETTE
from app.cli import exposure_warnings
from app.http.security import (
    PLOTLY_STYLE_ATTRIBUTES,
    PLOTLY_STYLE_ELEMENT,
    WRITE_METHODS,
    HostPolicy,
    script_hash,
    style_hash,
)
from app.settings import PROJECT_ROOT, Settings
from app.store.models import PricingProfile, Sweep
from tests.factories import MINIMAL, count, post_files
from tests.oracles import same_origin

EVIL = "http://evil.example"
RENTAL = {"name": "H100 spot", "kind": "rental", "hardware": "H100", "usd_per_gpu_hour": 2.0}


def directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


def assert_safe_headers(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    policy = directives(headers["content-security-policy"])
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    assert "*" not in policy["script-src"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["x-frame-options"] == "DENY"


@pytest.fixture
def sweep_id(client: TestClient) -> int:
    response = post_files(client, ("mini.csv", MINIMAL))
    assert response.status_code == 201, response.text
    return int(response.json()["sweeps"][0]["id"])


# --- headers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/sweeps",
        "/upload",
        "/compare",
        "/history",
        "/claims",
        "/pricing",
        "/metrics",
        "/api/sweeps",
        "/healthz",
        "/openapi.json",
        "/static/js/charts.js",
        "/sweeps/999",  # 404 page
        "/api/sweeps/999",  # 404 JSON
        "/api/sweeps?page=zero",  # 422
    ],
)
def test_every_response_carries_the_security_headers(client: TestClient, url: str) -> None:
    response = client.get(url)
    assert response.status_code in (200, 404, 422)
    assert_safe_headers(response)


def test_pages_allow_only_their_own_scripts(client: TestClient) -> None:
    policy = directives(client.get("/").headers["content-security-policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]


def test_pages_have_no_inline_script_or_inline_event_handler(client: TestClient) -> None:
    for url in ("/", "/sweeps", "/upload", "/compare", "/history", "/claims", "/pricing"):
        page = BeautifulSoup(client.get(url).text, "html.parser")
        for script in page.find_all("script"):
            assert script.get("src") or script.get("type") == "application/json", (url, script)
        tags = page.find_all(True)
        handlers = [(tag.name, attr) for tag in tags for attr in tag.attrs if attr[:2] == "on"]
        assert handlers == [], url


PAGES = ("/", "/sweeps", "/upload", "/compare", "/history", "/claims", "/pricing", "/plan", "/docs")


def test_styles_come_from_stylesheets_and_only_plotlys_fixed_inline_styles_are_allowed(
    client: TestClient,
) -> None:
    policy = directives(client.get("/").headers["content-security-policy"])
    assert policy["style-src"] == ["'self'"]
    assert policy["style-src-elem"] == ["'self'", PLOTLY_STYLE_ELEMENT]
    assert PLOTLY_STYLE_ELEMENT == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"  # ""
    assert policy["style-src-attr"] == [
        "'unsafe-hashes'",
        *(style_hash(text) for text in PLOTLY_STYLE_ATTRIBUTES),
    ]
    assert style_hash("cursor:pointer") == "'sha256-lGP/R5jOMXytzwBHVEM5Nv4XbT9fuH6V2dET/0dje2s='"
    for values in policy.values():
        assert "'unsafe-inline'" not in values


def test_the_allowed_inline_styles_are_exactly_those_the_vendored_plotly_writes() -> None:
    bundle = (PROJECT_ROOT / "static" / "vendor" / "plotly-basic-4.1.1.min.js").read_text()
    # svg_text_utils' TAG_STYLES: the style each pseudo-HTML tag of a label gets.
    table = re.search(r"\{sup:\"font-size:70%\"[^}]*\}", bundle)
    assert table is not None
    tag_styles = set(re.findall(r':"([^"]*)"', table.group(0)))
    # plus `style=""` on colour-bar fills.
    assert '.attr("style","")' in bundle
    assert {"", *tag_styles} == set(PLOTLY_STYLE_ATTRIBUTES)


def test_pages_have_no_inline_style_element_or_attribute(client: TestClient, sweep_id: int) -> None:
    for url in (*PAGES, f"/sweeps/{sweep_id}", f"/compare?sweep={sweep_id}", f"/?sweep={sweep_id}"):
        response = client.get(url)
        assert response.status_code == 200, url
        page = BeautifulSoup(response.text, "html.parser")
        assert page.find_all("style") == [], url
        assert [tag.name for tag in page.find_all(style=True)] == [], url


def test_series_swatches_are_coloured_by_palette_classes(client: TestClient, sweep_id: int) -> None:
    page = BeautifulSoup(client.get(f"/?sweep={sweep_id}").text, "html.parser")
    swatches = page.select(".swatch")
    assert swatches
    assert {tuple(s["class"]) for s in swatches} == {("swatch", "swatch-0")}
    css = (PROJECT_ROOT / "static" / "app.css").read_text()
    for i, colour in enumerate(PALETTE):
        assert f".swatch-{i} {{ background: {colour}; }}" in css


def test_htmx_is_configured_never_to_evaluate_code_from_responses(client: TestClient) -> None:
    page = BeautifulSoup(client.get("/").text, "html.parser")
    meta = page.find("meta", attrs={"name": "htmx-config"})
    assert meta is not None
    config = str(meta["content"])
    assert '"allowEval":false' in config
    # allowScriptTags stays on: turned off, htmx deletes the JSON data blocks of swapped content.
    # The CSP already stops any inline script it would re-insert.
    assert '"includeIndicatorStyles":false' in config
    # No style="…" written by htmx, which the CSP would refuse: settling leaves the style
    # attribute alone, and Back reloads the view from the server instead of restoring a copy of
    # the page's markup (Plotly's drawn charts are full of style attributes).
    assert '"attributesToSettle":["class","width","height"]' in config
    assert '"historyCacheSize":0' in config


def test_a_server_error_page_carries_the_headers_too(
    make_client: Callable[..., TestClient],
) -> None:
    def boom() -> None:
        raise RuntimeError("boom")

    client = make_client(fresh=True)  # a route of its own: no other test's app
    client.app.router.routes.append(APIRoute("/boom-for-test", boom))  # type: ignore[attr-defined]
    response = client.get("/boom-for-test")
    assert response.status_code == 500
    assert_safe_headers(response)


def test_the_api_docs_render_under_a_policy_that_allows_exactly_their_inline_scripts(
    client: TestClient,
) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200
    for response in (docs, client.get("/redoc"), client.get("/docs/oauth2-redirect")):
        if response is not docs and response.status_code == 404:
            continue  # served only when the docs come from FastAPI's CDN pages
        assert response.status_code == 200
        assert_safe_headers(response)
        script_src = directives(response.headers["content-security-policy"])["script-src"]
        inline = re.findall(r"<script>(.*?)</script>", response.text, re.DOTALL)
        assert sorted(script_hash(body) for body in inline) == sorted(
            s for s in script_src if s.startswith("'sha256-")
        )
        # Every script the page loads is allowed by the policy.
        for src in re.findall(r'<script[^>]* src="([^"]+)"', response.text):
            origin = re.match(r"https://[^/]+", src)
            assert (origin.group(0) if origin else "'self'") in script_src, src


# --- cross-site writes ---------------------------------------------------------------------


def write_routes(routes: list[Any]) -> list[tuple[str, str]]:
    """Every (method, path) that writes, ids filled in; included routers have no prefix here."""
    out = []
    for route in routes:
        if hasattr(route, "original_router"):
            out += write_routes(route.original_router.routes)
            continue
        for method in sorted(getattr(route, "methods", None) or ()):
            if method in WRITE_METHODS:
                out.append((method, re.sub(r"\{[^}]+\}", "1", route.path)))
    return out


@pytest.mark.parametrize("token", [None, "s3cret"])
def test_every_write_route_refuses_a_cross_site_origin_token_or_not(
    make_client: Callable[..., TestClient], token: str | None
) -> None:
    client = make_client(write_token=token)
    routes = write_routes(client.app.routes)  # type: ignore[attr-defined]
    assert len(routes) >= 19
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    for method, path in routes:
        for headers in (
            {"Origin": EVIL},
            {"Origin": "null"},
            {"Origin": "http://testserver:8080"},
            {"Sec-Fetch-Site": "cross-site"},
        ):
            response = client.request(method, path, headers={**auth, **headers})
            assert response.status_code == 403, (method, path, headers, response.text)
            assert_safe_headers(response)


def test_a_cross_site_upload_stores_nothing_and_says_why(
    client: TestClient, session: Session
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", ("mini.csv", MINIMAL, "text/csv"))],
        headers={"Origin": EVIL},
    )
    assert response.status_code == 403
    detail = response.json()["detail"]
    assert "http://evil.example" in detail and "Origin" in detail
    assert count(session, Sweep) == 0


def test_a_cross_site_form_delete_leaves_the_sweep_and_shows_an_error_page(
    client: TestClient, session: Session, sweep_id: int
) -> None:
    response = client.post(f"/sweeps/{sweep_id}/delete", headers={"Origin": EVIL})
    assert response.status_code == 403
    page = BeautifulSoup(response.text, "html.parser")
    assert "403 · Cross-site write refused" in page.h1.get_text()
    response = client.post(f"/sweeps/{sweep_id}/delete", headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    assert count(session, Sweep) == 1


def test_a_cross_site_pricing_form_creates_no_profile(
    client: TestClient, session: Session, h100: None
) -> None:
    response = client.post("/pricing", data=RENTAL, headers={"Origin": EVIL})
    assert response.status_code == 403
    response = client.post("/api/pricing", json=RENTAL, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    assert count(session, PricingProfile) == 0


def test_same_origin_writes_from_the_browser_work(
    client: TestClient, session: Session, h100: None
) -> None:
    browser = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    response = client.post("/api/pricing", json=RENTAL, headers=browser)
    assert response.status_code == 201, response.text
    uploaded = client.post(
        "/api/sweeps", files=[("files", ("mini.csv", MINIMAL, "text/csv"))], headers=browser
    )
    assert uploaded.status_code == 201, uploaded.text
    sweep_id = uploaded.json()["sweeps"][0]["id"]
    response = client.post(f"/sweeps/{sweep_id}/delete", headers=browser, follow_redirects=False)
    assert response.status_code == 303
    assert count(session, PricingProfile) == 1
    assert count(session, Sweep) == 0


def test_writes_without_an_origin_work_as_from_the_cli_curl_or_ci(
    make_client: Callable[..., TestClient], session: Session, sweep_id: int
) -> None:
    client = make_client(write_token="s3cret")
    response = client.patch(
        f"/api/sweeps/{sweep_id}",
        json={"name": "renamed"},
        headers={"Authorization": "Bearer s3cret"},
    )
    assert response.status_code == 200, response.text
    # Same-site navigation metadata without an Origin (old browsers) is not refused either.
    response = client.delete(
        f"/api/sweeps/{sweep_id}",
        headers={"Authorization": "Bearer s3cret", "Sec-Fetch-Site": "same-site"},
    )
    assert response.status_code in (200, 204), response.text
    assert count(session, Sweep) == 0


def test_cross_site_reads_stay_allowed(client: TestClient) -> None:
    response = client.get("/api/sweeps", headers={"Origin": EVIL, "Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 200


def test_the_origin_comparison_follows_schemes_names_and_ports() -> None:
    assert same_origin("http://dash.example:8000", "dash.example:8000", "http")
    assert same_origin("http://DASH.example", "dash.example:80", "http")
    assert same_origin("https://dash.example:443", "dash.example", "https")
    assert same_origin("http://[::1]:8000", "[::1]:8000", "http")
    # Another scheme is another origin, whatever the name and port.
    assert not same_origin("https://127.0.0.1:8751", "127.0.0.1:8751", "http")
    assert not same_origin("https://dash.example", "dash.example", "http")
    assert not same_origin("http://dash.example", "dash.example", "https")
    assert not same_origin("http://dash.example:443", "dash.example", "https")
    assert not same_origin("https://dash.example", "dash.example:8000", "http")
    assert not same_origin("http://dash.example:8001", "dash.example:8000", "http")
    assert not same_origin("http://evil.example", "dash.example", "http")
    assert not same_origin("http://dash.example.evil.example", "dash.example", "http")
    assert not same_origin("null", "dash.example", "http")
    assert not same_origin("file://", "dash.example", "http")


def upload_status(client: TestClient, headers: dict[str, str], name: bytes = b"mini") -> int:
    """Status of an upload of one small sweep sent with `headers`."""
    content = MINIMAL.replace(b"mini", name)
    files = [("files", (f"{name.decode()}.csv", content, "text/csv"))]
    return client.post("/api/sweeps", files=files, headers=headers).status_code


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "http://testserver"}, 201),
        ({"Origin": "http://testserver:80"}, 201),
        ({"Referer": "http://testserver/upload"}, 201),
        ({"Origin": "https://testserver"}, 403),  # scheme differs
        ({"Origin": "https://testserver:80"}, 403),
        ({"Origin": "http://testserver:443"}, 403),  # port differs
        ({"Origin": "http://testserver:8000"}, 403),
        ({"Referer": "https://testserver/upload"}, 403),
        ({"Referer": "http://evil.example/page"}, 403),
    ],
)
def test_an_upload_is_accepted_only_from_this_servers_scheme_host_and_port(
    client: TestClient, session: Session, headers: dict[str, str], status: int
) -> None:
    assert upload_status(client, headers) == status
    assert count(session, Sweep) == (1 if status == 201 else 0)


def test_an_https_page_on_the_plain_http_servers_name_and_port_cannot_post_prices(
    make_client: Callable[..., TestClient], session: Session, h100: None
) -> None:
    client = make_client(allowed_hosts=[])
    local = {"Host": "127.0.0.1:8751"}
    refused = client.post(
        "/api/pricing", json=RENTAL, headers={**local, "Origin": "https://127.0.0.1:8751"}
    )
    assert refused.status_code == 403
    assert "https://127.0.0.1:8751" in refused.json()["detail"]
    assert "PARETOSCOPE_PUBLIC_URL" in refused.json()["detail"]
    assert count(session, PricingProfile) == 0
    response = client.post(
        "/api/pricing", json=RENTAL, headers={**local, "Origin": "http://127.0.0.1:8751"}
    )
    assert response.status_code == 201, response.text
    assert count(session, PricingProfile) == 1


def test_the_public_url_is_the_only_origin_on_its_name_and_local_names_keep_theirs(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    # TLS ends at a proxy that keeps the Host header: the app sees http://perf.example.com.
    client = make_client(public_url="https://perf.example.com/", allowed_hosts=["perf.example.com"])
    public = {"Host": "perf.example.com"}
    assert upload_status(client, {**public, "Origin": "https://perf.example.com"}, b"one") == 201
    assert (
        upload_status(client, {**public, "Origin": "https://perf.example.com:443"}, b"two") == 201
    )
    assert upload_status(client, {**public, "Origin": "http://perf.example.com"}) == 403
    assert upload_status(client, {**public, "Origin": "https://perf.example.com:8443"}) == 403
    assert upload_status(client, {**public, "Origin": "https://evil.example"}) == 403
    # An ssh tunnel to the box: the page is http://localhost:8000, as the server sees it.
    local = {"Host": "localhost:8000"}
    assert upload_status(client, {**local, "Origin": "http://localhost:8000"}, b"three") == 201
    assert upload_status(client, {**local, "Origin": "https://localhost:8000"}) == 403
    assert count(session, Sweep) == 3


def test_forwarded_proto_and_host_count_only_from_a_trusted_proxy(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    https = {"Origin": "https://testserver", "X-Forwarded-Proto": "https"}
    proxied = make_client(trusted_proxies=["10.0.0.0/24"], peer=("10.0.0.2", 4000))
    assert upload_status(proxied, https, b"one") == 201
    assert upload_status(proxied, {"Origin": "https://testserver"}) == 403  # no header: http
    assert upload_status(proxied, {**https, "X-Forwarded-Proto": "http"}) == 403
    # The proxy talks to the app on a loopback name and says which name the browser used.
    behind = {**https, "Host": "127.0.0.1:8000", "X-Forwarded-Host": "testserver"}
    assert upload_status(proxied, behind, b"two") == 201
    rebound = {**behind, "Origin": "https://evil.example", "X-Forwarded-Host": "evil.example"}
    response = proxied.post("/api/sweeps", headers=rebound)
    assert response.status_code == 400
    assert "'evil.example'" in response.json()["detail"]
    # The same headers from any other peer are ignored.
    direct = make_client(trusted_proxies=["10.0.0.0/24"], peer=("10.0.1.2", 4000))
    assert upload_status(direct, https) == 403
    assert upload_status(direct, behind) == 403
    assert upload_status(make_client(), https) == 403
    assert count(session, Sweep) == 2


def test_public_url_and_trusted_proxies_are_checked_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARETOSCOPE_PUBLIC_URL", "HTTPS://Perf.Example.com:8443/dash/")
    monkeypatch.setenv("PARETOSCOPE_TRUSTED_PROXIES", "10.0.0.5, 192.168.0.0/16,::1")
    settings = Settings()
    assert settings.public_url == "https://perf.example.com:8443"
    assert settings.trusted_proxies == ["10.0.0.5", "192.168.0.0/16", "::1"]
    for bad in ("perf.example.com", "ftp://perf.example.com", "https://:443"):
        with pytest.raises(ValueError, match="http:// or https://"):
            Settings(public_url=bad)
    with pytest.raises(ValueError, match="not an IP address or CIDR range: 'proxy.local'"):
        Settings(trusted_proxies="10.0.0.5,proxy.local")


# --- Host allow-list -----------------------------------------------------------------------


def test_an_unknown_host_gets_400_naming_the_setting(client: TestClient) -> None:
    response = client.get("/api/sweeps", headers={"Host": "rebound.evil.example"})
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "'rebound.evil.example'" in detail and "PARETOSCOPE_ALLOWED_HOSTS" in detail
    assert_safe_headers(response)
    page = client.get("/", headers={"Host": "rebound.evil.example:8000"})
    assert page.status_code == 400
    assert "400 · Unknown host" in BeautifulSoup(page.text, "html.parser").h1.get_text()


def test_a_write_to_an_unknown_host_is_refused_before_it_is_read(
    client: TestClient, session: Session
) -> None:
    response = post_files(client, ("mini.csv", MINIMAL))
    assert response.status_code == 201
    response = client.post(
        "/api/sweeps",
        files=[("files", ("mini.csv", MINIMAL.replace(b"mini", b"other"), "text/csv"))],
        headers={"Host": "evil.example"},
    )
    assert response.status_code == 400
    assert count(session, Sweep) == 1


def test_by_default_the_loopback_names_and_the_bind_host_are_served(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(allowed_hosts=[], host="10.1.2.3")
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST", "10.1.2.3:8000"):
        assert client.get("/healthz", headers={"Host": host}).status_code == 200, host
    for host in ("testserver", "evil.example", "10.1.2.4", "localhost.evil.example", ""):
        assert client.get("/healthz", headers={"Host": host}).status_code == 400, host


def test_a_wildcard_bind_address_is_not_a_host_name() -> None:
    assert Settings(host="0.0.0.0").trusted_hosts == ("localhost", "127.0.0.1", "[::1]")
    assert Settings(host="127.0.0.1").trusted_hosts[-1] == "127.0.0.1"


def test_allowed_hosts_come_from_a_comma_separated_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARETOSCOPE_ALLOWED_HOSTS", "dash.example.com, *.corp.example")
    settings = Settings()
    assert settings.allowed_hosts == ["dash.example.com", "*.corp.example"]
    policy = HostPolicy(settings.trusted_hosts)
    assert policy.allows("dash.example.com:443")
    assert policy.allows("perf.corp.example")
    assert policy.allows("localhost:8000")  # health checks on the box keep working
    assert not policy.allows("corp.example.evil.example")
    assert not policy.allows("evil.example")
    assert not policy.allows("dash.example.com@evil.example")
    assert HostPolicy(["*"]).allows("anything.example")


# --- serve ---------------------------------------------------------------------------------


def test_serve_warns_only_when_exposed_without_a_token() -> None:
    assert exposure_warnings("0.0.0.0", has_token=False)
    assert exposure_warnings("192.168.1.20", has_token=False)
    assert exposure_warnings("::", has_token=False)
    assert exposure_warnings("127.0.0.1", has_token=False) == []
    assert exposure_warnings("::1", has_token=False) == []
    assert exposure_warnings("localhost", has_token=False) == []
    assert exposure_warnings("0.0.0.0", has_token=True) == []


def test_serve_prints_the_warning_before_it_binds(tmp_path: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) is not on this machine: uvicorn fails to bind after the warning,
    # so nothing is ever exposed by this test.
    env = {
        **os.environ,
        "PARETOSCOPE_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.db'}",
        "PARETOSCOPE_SEED_ON_START": "false",
    }
    env.pop("PARETOSCOPE_WRITE_TOKEN", None)
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--host", "192.0.2.1", "--port", "9"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "WARNING: serving on 192.0.2.1" in result.stderr
    assert "PARETOSCOPE_WRITE_TOKEN is not set" in result.stderr
    assert "PARETOSCOPE_ALLOWED_HOSTS" in result.stderr
