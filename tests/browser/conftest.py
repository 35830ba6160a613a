"""Real-browser fixtures: a uvicorn server on a free port and Debian's Chromium via Playwright.

Without Chromium the tests are skipped with a message; CI sets PARETOSCOPE_REQUIRE_BROWSER=1,
which turns that skip into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.settings import PROJECT_ROOT
from tests.helpers import free_port

ARTIFACTS = PROJECT_ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


# Debian's old headless shell first (package chromium-headless-shell, the build Playwright
# itself drives headless): the suite's browser tests took 152 CPU-s in it against 262 in full
# Chromium's new headless mode, which runs the whole browser, GPU process and all.
CANDIDATES = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")


def chromium_path() -> str | None:
    configured = os.environ.get("PARETOSCOPE_CHROMIUM")
    for candidate in (configured, *CANDIDATES, shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group("browser"))
            # One worker runs them all (one session server, one Chromium), the other the rest.
            # xdist 3.8 groups by a `@group` suffix on the id it collects, which it writes to
            # item._nodeid; pytest 9 reads item._id, so the mark alone is inert: set the id.
            if getattr(config.option, "loadgroup", False):  # an xdist worker, --dist loadgroup
                item._id = type(item._id).parse(f"{item.nodeid}@browser")  # type: ignore[attr-defined]


def _missing(reason: str) -> None:
    if os.environ.get("PARETOSCOPE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and PARETOSCOPE_REQUIRE_BROWSER=1 requires the browser tests")
    pytest.skip(f"{reason}: apt-get install -y chromium-headless-shell (Debian's) to run them")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        _missing(f"no Chromium found at {' or '.join(CANDIDATES)} or PARETOSCOPE_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield PooledBrowser(browser)
        browser.close()


# A context made with only these options is lent from a pool rather than made anew.
POOLED_OPTIONS = frozenset({"viewport", "accept_downloads"})
# Calls a context and a page both have that leave state beyond their pages, document and viewport.
_BOTH_LASTING = frozenset(
    {
        "add_init_script",
        "expose_binding",
        "expose_function",
        "route",
        "route_from_har",
        "route_web_socket",
        "set_default_navigation_timeout",
        "set_default_timeout",
        "set_extra_http_headers",
    }
)
# Calls that leave state on a context beyond its pages and cookies: the context is then closed
# for good when the test gives it back, not lent again.
LASTING_CALLS = _BOTH_LASTING | {
    "grant_permissions",
    "on",
    "once",
    "set_geolocation",
    "set_offline",
}


class PooledBrowser:
    """The session's Chromium, lending browser contexts and their pages: a test's
    `new_context(viewport=…)` gets a context another test gave back with the same options, its
    cookies cleared, so that its HTTP and compiled-script caches stay warm; and the context's
    first `new_page()` gets the page an earlier test left in it, emptied (about:blank, its
    listeners removed, its viewport set back), so that its renderer process stays warm too.

    Measured per page load of a chart page (Chromium's CPU): a fresh context cost ~0.85 s more
    than a lent one (Plotly fetched and compiled again; Explore 1.17 against 0.33 CPU-s), and a
    new page in a lent context ~0.25 s more than a lent page (0.52 against 0.27: a renderer
    process started and its V8 and Blink set up again). Safe because the app keeps no state in
    the browser (no cookies, no storage: its state is in its URLs), and its static files are
    versioned by content. A context made with other options, or given lasting state
    (LASTING_CALLS), is its own and closes for good; so does a page given lasting state."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self._free: dict[str, list[Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def new_context(self, **options: Any) -> Any:
        if not set(options) <= POOLED_OPTIONS:
            return self.real.new_context(**options)
        free = self._free.setdefault(json.dumps(options, sort_keys=True), [])
        while free and free[-1].closed:  # closed for good by a test (`page.context.close()`)
            free.pop()
        real = free.pop() if free else _watched(self.real.new_context(**options))
        return _LentContext(real, free.append, options.get("viewport", DEFAULT_VIEWPORT))


# Playwright's viewport when a context is made without one.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}


def _watched(context: Any) -> Any:
    """The context, marked `closed` when it closes (a test's `page.context.close()` closes it
    for good), with no page kept yet."""
    context.closed = False
    context.kept_page = None

    def closed(_: Any) -> None:
        context.closed = True

    context.on("close", closed)
    return context


class _LentContext:
    """A pooled context as one test sees it: `close()` gives it back (its cookies cleared, one
    page kept emptied for the next test, the others closed) unless the test gave it lasting
    state."""

    def __init__(self, real: Any, give_back: Callable[[Any], None], viewport: Any) -> None:
        self._real = real
        self._give_back = give_back
        self._viewport = viewport
        self._lasting = False
        self._returned = False
        self._lent: list[_LentPage] = []

    def __getattr__(self, name: str) -> Any:
        if name in LASTING_CALLS:
            self._lasting = True
        return getattr(self._real, name)

    def new_page(self) -> Any:
        kept, self._real.kept_page = self._real.kept_page, None
        page = _LentPage(kept if kept is not None else self._real.new_page(), self)
        self._lent.append(page)
        return page

    def close(self, **options: Any) -> None:
        if self._returned:
            return
        self._returned = True
        if self._lasting or self._real.closed:
            if not self._real.closed:
                self._real.close(**options)
            return
        keep = next((p for p in self._lent if p.reusable()), None)
        for page in list(self._real.pages):
            if keep is None or page is not keep.real:
                page.close()
        if keep is not None and keep.emptied(self._viewport):
            self._real.kept_page = keep.real
        self._real.clear_cookies()
        self._give_back(self._real)


# Page calls that leave state beyond its listeners, document and viewport: the page then
# closes with its test instead of being kept.
PAGE_LASTING_CALLS = _BOTH_LASTING | {"add_locator_handler", "emulate_media"}


class _LentPage:
    """A page as one test sees it: the listeners it adds are recorded so that they can be
    removed before the page is lent again; `context` is the lent context (closing it gives it
    back). Attributes a test sets (`problems`, `base`) live on this wrapper, not the page."""

    def __init__(self, real: Any, context: _LentContext) -> None:
        self.real = real
        self.context = context
        self._listeners: list[tuple[str, Any]] = []
        self._lasting = False

    def __getattr__(self, name: str) -> Any:
        if name in PAGE_LASTING_CALLS:
            self._lasting = True
        return getattr(self.real, name)

    def on(self, event: str, handler: Any) -> None:
        self._listeners.append((event, handler))
        self.real.on(event, handler)

    def once(self, event: str, handler: Any) -> None:
        self._listeners.append((event, handler))
        self.real.once(event, handler)

    def reusable(self) -> bool:
        return not self._lasting and not self.real.is_closed()

    def emptied(self, viewport: Any) -> bool:
        """The page as a new one would be: its listeners removed, on about:blank, at the
        context's viewport; False (and closed) when that failed."""
        for event, handler in self._listeners:
            with contextlib.suppress(Exception):  # a `once` listener already called is gone
                self.real.remove_listener(event, handler)
        try:
            self.real.goto("about:blank")
            if viewport is not None and self.real.viewport_size != viewport:
                self.real.set_viewport_size(viewport)
        except Exception:  # a crashed or hung page is not lent again
            self.real.close()
            return False
        return True


@pytest.fixture(scope="session")
def site_folder(
    tmp_path_factory: pytest.TempPathFactory, sqlite_seeded_template: Path
) -> Callable[[str], Path]:
    """site_folder(name) → a new folder holding a copy of the seeded template database, so a
    server started on it neither migrates nor seeds (each start did both, ~2 s)."""

    def make(name: str) -> Path:
        folder = tmp_path_factory.mktemp(name)
        shutil.copy(sqlite_seeded_template, folder / "browser.db")
        return folder

    return make


@contextmanager
def run_server(folder: Path, **env_overrides: str) -> Iterator[str]:
    """`paretoscope serve` on the SQLite database in `folder` (seeded at start when there is
    none; site_folder gives one seeded already); yields its URL."""
    port = free_port()
    env = {
        **os.environ,
        "PARETOSCOPE_DATABASE_URL": f"sqlite:///{folder / 'browser.db'}",
        "PARETOSCOPE_PORT": str(port),
        **env_overrides,
    }
    env.pop("PARETOSCOPE_WRITE_TOKEN", None)
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"server exited early; see {log.name}") from None
                time.sleep(0.2)
        else:
            raise RuntimeError("server did not answer /healthz within 60 s")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture(scope="session")
def server(site_folder: Callable[[str], Path]) -> Iterator[str]:
    """The shared server of the browser tests (seeded; tests may add to it)."""
    with run_server(site_folder("browser")) as url:
        yield url


@contextmanager
def sharing(server: str) -> Iterator[str]:
    """The session's server for a module that adds sweeps of its own: what the module stores
    is deleted when it ends, so that no other module's default view (the largest comparable
    group, Plan's systems) sees it. A server of its own cost ~2 s of CPU to start."""
    before = _sweep_ids(server)
    try:
        yield server
    finally:
        for sweep_id in _sweep_ids(server) - before:
            request = urllib.request.Request(f"{server}/api/sweeps/{sweep_id}", method="DELETE")
            urllib.request.urlopen(request, timeout=30).close()


@pytest.fixture(scope="module")
def module_site(server: str) -> Iterator[str]:
    """The session's server, for a module whose own sweeps go when it ends (sharing)."""
    with sharing(server) as url:
        yield url


def _favicon_cut_off(request: Any) -> bool:
    """Chromium fetches the icon on its own and aborts it when the test navigates on: not a
    request of the page's."""
    return "/favicon" in request.url and request.failure == "net::ERR_ABORTED"


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A fresh page that records console errors and failed requests."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.on(
        "requestfailed",
        lambda r: None if _favicon_cut_off(r) else page.problems.append(f"failed {r.url}"),
    )
    page.base = server
    # The session server is shared: what a test stored goes, so no test's default view (the
    # largest comparable group of sweeps, Plan's systems) depends on which tests ran before.
    with sharing(server):
        yield page
        context.close()


def _sweep_ids(url: str) -> set[int]:
    ids: set[int] = set()
    for number in range(1, 1000):
        with urllib.request.urlopen(f"{url}/api/sweeps?per_page=500&page={number}") as answer:
            listed = json.load(answer)
        ids.update(int(s["id"]) for s in listed["sweeps"])
        if number * 500 >= listed["total"]:
            return ids
    return ids


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """new_page(viewport) → a fresh page that records script errors (its context closes after)."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int]) -> Any:
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.problems = []
        page.on("pageerror", lambda e: page.problems.append(str(e)))
        return page

    yield make
    for context in contexts:
        context.close()


# Every chart drawn at its element's width (or still hidden, waiting for one).
CHARTS_SETTLED = """() => [...document.querySelectorAll('[data-figure]')].every((el) =>
  (el.dataset.waiting === '1' && el.clientWidth === 0)
  || (el.dataset.drawn === '1' && el._fullLayout
      && Math.abs(el._fullLayout.width - el.clientWidth) <= 1))"""


def resize(page: Any, viewport: dict[str, int]) -> None:
    """The page at another screen size once its layout has settled, as if loaded at that size:
    the media queries applied, each chart redrawn (static/js/charts.js redraws every chart when
    the screen crosses the phone width) and resized by Plotly to its element's new width."""
    page.set_viewport_size(viewport)
    page.wait_for_function("(w) => window.innerWidth === w", arg=viewport["width"])
    # Media-query changes are reported in a rendering step; Plotly's resize waits 100 ms.
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => "
        "requestAnimationFrame(() => setTimeout(done, 150))))"
    )
    page.wait_for_function(CHARTS_SETTLED, timeout=20000)
