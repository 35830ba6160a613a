"""Application factory: settings in, FastAPI app out."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

import anyio.to_thread
from fastapi import APIRouter, FastAPI
from starlette.types import ASGIApp

from app import __version__
from app.http import errors
from app.http.body_limit import BodyLimitMiddleware
from app.http.encoding import GZIP_MINIMUM, GZipMiddleware
from app.http.nul_guard import NulQueryGuard
from app.http.security import SecurityMiddleware
from app.http.static import STATIC_DIR, VersionedStatic
from app.http.timing import ServerTimingMiddleware
from app.mcp import require_sdk
from app.settings import Settings, get_settings
from app.store.db import POOL_OVERFLOW, make_engine, make_sessionmaker, session_scope
from app.views import refusals
from app.views.templating import templates
from app.web.page_cache import PageCache


class Paretoscope(FastAPI):
    """FastAPI with the security layer outermost, so even a 500 page carries its headers."""

    def build_middleware_stack(self) -> ASGIApp:
        settings: Settings = self.state.settings
        return SecurityMiddleware(
            super().build_middleware_stack(),
            settings.trusted_hosts,
            public_url=settings.public_url,
            trusted_proxies=settings.trusted_proxies,
        )


def create_app(settings: Settings | None = None, *, migrate: bool = True) -> FastAPI:
    settings = settings or get_settings()
    app = Paretoscope(
        title="Paretoscope",
        version=__version__,
        description="Throughput-versus-interactivity Pareto analysis of LLM inference sweeps.",
        lifespan=_lifespan(migrate),
        # Served from vendored files by app.web.docs, so they work offline.
        docs_url=None,
        redoc_url=None,
    )
    attach_database(app, settings)
    app.state.warm_on_start = False  # `serve` renders Explore's default page once at start
    app.state.warmed = None  # the status of that page, None when not rendered
    app.add_middleware(NulQueryGuard)
    app.add_middleware(ServerTimingMiddleware)
    app.add_middleware(BodyLimitMiddleware, max_upload_bytes=settings.max_upload_bytes)
    # Outermost: compress HTML, JSON and static text (Plotly 1.2 MB -> ~0.4 MB on the wire);
    # a kept page comes already gzipped (app.web.page_cache) and passes as it is.
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM, compresslevel=settings.gzip_level)
    app.mount("/static", VersionedStatic(directory=STATIC_DIR), name="static")
    errors.install(app)
    refusals.install(app)
    for router in _routers():
        app.include_router(router)
    app.state.mcp = None
    if settings.mcp_http:
        # Imported only when enabled: the SDK is an optional extra, not loaded by a server that
        # does not serve it; without it the app refuses to start, saying what to install.
        require_sdk("PARETOSCOPE_MCP_HTTP (the MCP server at /mcp)")
        from app.mcp.http import mount

        app.state.mcp = mount(app)
    return app


def _lifespan(migrate: bool) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start and stop: migrate (or check the schema), seed, warm, run the MCP server."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Read from the app's state, not captured here: `attach_database` may rebind it.
        settings: Settings = app.state.settings
        engine = app.state.engine
        # Plain `def` routes run on this pool; one thread per pooled database connection.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threads
        if migrate:
            from app.services.seed import seed_if_empty
            from app.store.migrate import upgrade_to_head

            upgrade_to_head(settings.database_url)
            if settings.seed_on_start:
                with session_scope(app.state.sessionmaker) as session:
                    seed_if_empty(session)
        else:
            from app.store.migrate import schema_mismatch

            # On the app's own engine: a new one would connect and learn the server anew.
            mismatch = await anyio.to_thread.run_sync(
                schema_mismatch, settings.database_url, engine
            )
            if mismatch:
                raise RuntimeError(f"not serving {engine.url!r}: {mismatch}")
        if app.state.warm_on_start:  # bounded: see app.web.warm
            from app.web import warm

            app.state.warmed = await warm.at_start(app)
        async with AsyncExitStack() as running:
            if app.state.mcp is not None:
                await running.enter_async_context(app.state.mcp.running())
            yield
        engine.dispose()

    return lifespan


def _routers() -> tuple[APIRouter, ...]:
    """Every router, the API's first, in the order their routes are matched."""
    from app.api import catalog as api_catalog
    from app.api import check as api_check
    from app.api import claims as api_claims
    from app.api import compare as api_compare
    from app.api import explore as api_explore
    from app.api import exports as api_exports
    from app.api import history as api_history
    from app.api import metrics as api_metrics
    from app.api import plan as api_plan
    from app.api import pricing as api_pricing
    from app.api import production as api_production
    from app.api import production_upload as api_production_upload
    from app.api import readoff as api_readoff
    from app.api import sweeps as api_sweeps
    from app.api import tags as api_tags
    from app.api import uploads as api_uploads
    from app.web import catalog as catalog_pages
    from app.web import claims as claims_pages
    from app.web import (
        compare,
        docs,
        explore,
        history,
        pages,
        plan,
        pricing,
        production,
        production_upload,
        reports,
        sweeps,
        uploads,
    )

    return (
        api_sweeps.router,
        api_tags.router,
        api_check.router,
        api_uploads.router,
        api_pricing.router,
        api_readoff.router,
        api_plan.router,
        api_exports.router,
        api_claims.router,
        api_catalog.router,
        api_explore.router,
        api_compare.router,
        api_history.router,
        api_metrics.router,
        api_production.router,
        api_production_upload.router,
        claims_pages.router,
        catalog_pages.router,
        explore.router,
        compare.router,
        plan.router,
        reports.router,
        history.router,
        pages.router,
        docs.router,
        sweeps.router,
        uploads.router,
        pricing.router,
        production_upload.router,
        production.router,
    )


def attach_database(app: FastAPI, settings: Settings) -> None:
    """The app's settings and what it holds per database: engine, sessions and kept pages.

    Everything else an app builds (routes, middleware) depends on the other settings only, so
    the tests serve a fresh database per test from one app per set of settings: FastAPI
    analyses every route on an app's first request, a few hundred milliseconds each time."""
    engine = make_engine(settings.database_url, pool_size=settings.threads)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.session_capacity = settings.threads + POOL_OVERFLOW  # see deps.get_session
    # None kept while templates reload on change (`serve --reload`): a page is their output.
    page_bytes = 0 if settings.reload_templates else int(settings.page_cache_mb * 2**20)
    app.state.page_cache = PageCache(page_bytes, settings.gzip_level)


def serve_app() -> FastAPI:
    """uvicorn factory for `paretoscope serve`: the CLI has already migrated and seeded."""
    app = create_app(migrate=False)
    load_templates(reload=app.state.settings.reload_templates)
    warm_routes(app)
    tune_gc()
    app.state.warm_on_start = True  # app.web.warm: the first visitor finds the page ready
    return app


def warm_routes(app: FastAPI) -> None:
    """Let FastAPI analyse every route now, not on the first request after start (it builds
    each route's parameter and response models on first match: ~0.2 s of the first page)."""
    scope = {"type": "http", "path": "/", "method": "GET", "root_path": "", "headers": []}
    for route in app.router.routes:
        route.matches(scope)


def load_templates(reload: bool) -> None:
    """Compile every template now, not on first use (16 first requests at once compiled each
    one 16 times), and stop checking their files' times on every render unless `serve
    --reload` asked for it (a stat per template per page, each a trip through the GIL)."""
    templates.env.auto_reload = reload
    for name in templates.env.list_templates(extensions=["html"]):
        templates.env.get_template(name)


# Young objects collected per gen-0 pass (CPython's default is 700).
GC_GEN0_THRESHOLD = 10_000


def tune_gc() -> None:
    """Garbage collection for a long-running server with large caches (points, samples, memos).

    A page allocates ~100k short-lived objects; at CPython's default threshold the collector runs
    ~140 times per page and keeps re-walking survivors, a third of a page's CPU under load.
    Collecting less often (and freezing what exists at start: modules, mappers, templates, never
    garbage) leaves those passes to objects that are mostly already dead. Memory held by cycles
    waits at most a few more allocations; reference counting frees everything else at once."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)
