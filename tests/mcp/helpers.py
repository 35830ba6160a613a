"""What the MCP tests share: the SDK's client on its own event loop, a tool's answer or refusal
read from its result, JSON compared to the API's, and the API's body without its figures."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
import pytest

DASHBOARD = "http://dash.example"
T = TypeVar("T")


def json_equal(got: Any, want: Any, where: str = "") -> None:
    """Equal JSON, numbers to 1e-9 (relative), everything else exactly."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for key in want:
            json_equal(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            json_equal(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(got, bool):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), where
    else:
        assert got == want, where


def on_own_loop(drive: Callable[[], Awaitable[T]]) -> T:
    """anyio.run(drive) on a thread of its own: a browser test before this one on the same
    worker leaves Playwright's event loop running in the main thread."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(anyio.run, drive).result()


def answer_of(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    body: dict[str, Any] = result.structured_content
    assert json.loads(result.content[0].text) == body  # the text is the same JSON
    return body


def refused(result: Any) -> dict[str, Any]:
    assert result.is_error
    error: dict[str, Any] = result.structured_content
    assert result.content[0].text == error["detail"]
    return error


def without_figures(tool: str, body: dict[str, Any]) -> dict[str, Any]:
    """The API's body as a tool answers it unless asked for figures: compare without its Plotly
    specs, each pair's sampled curve and each public band's chart, plan without its cost chart."""
    if tool == "compare":
        pairs = [{k: v for k, v in p.items() if k != "curve"} for p in body["pairs"]]
        shown = {k: v for k, v in body.items() if k != "figures"}
        if body.get("public_record") is not None:
            bands = body["public_record"]
            shown["public_record"] = [{k: v for k, v in b.items() if k != "figure"} for b in bands]
        return {**shown, "pairs": pairs}
    if tool == "plan":
        return {k: v for k, v in body.items() if k != "figure"}
    return body
