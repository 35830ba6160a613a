"""API docs work with no network beyond this server: Swagger UI is vendored."""

from __future__ import annotations

from typing import Any


def test_api_docs_render_every_operation_with_outside_requests_blocked(page: Any) -> None:
    outside: list[str] = []

    def only_this_server(route: Any) -> None:
        if route.request.url.startswith(page.base):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_server)
    page.goto(f"{page.base}/docs")
    page.wait_for_selector(".opblock", timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/readoff" in [p.replace("\u200b", "") for p in paths]
    assert outside == []
    assert page.problems == []
