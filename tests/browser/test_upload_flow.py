"""The upload page in Chromium: a refusal never leaves it stuck, the files go up once, each sweep
has its own details, and saving ends on a summary that opens the sweeps on Explore."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import run_server
from tests.conftest import FIXTURES
from tests.helpers import shoot

LLMPERF = sorted((FIXTURES / "llmperf").glob("*.json"))  # 4 files, 2 sweeps, 125 KB
CAP_MB = 0.5
BAD_CSV = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,fast,1\n"


@pytest.fixture(scope="module")
def capped_site(site_folder: Callable[[str], Path]) -> Iterator[str]:
    """A server of its own with a small upload cap, so a too-large file is quick to make."""
    with run_server(site_folder("upload"), PARETOSCOPE_MAX_UPLOAD_MB=str(CAP_MB)) as url:
        yield url


@pytest.fixture
def upload_page(browser: Any, capped_site: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    # Every request that carries a body: where to, its content type and (when Chromium exposes
    # it; it does not for file parts) its size. Files go only as multipart/form-data.
    page.bodies = []
    page.on(
        "request",
        lambda r: (
            page.bodies.append(
                (
                    r.url.removeprefix(capped_site),
                    r.headers.get("content-type", ""),
                    len(r.post_data_buffer or b""),
                )
            )
            if r.method != "GET"
            else None
        ),
    )
    page.goto(capped_site + "/upload")
    page.evaluate("() => { window.__sameDocument = true; }")
    yield page
    context.close()


def file_payloads(*pairs: tuple[str, bytes]) -> list[dict[str, Any]]:
    return [{"name": n, "mimeType": "application/octet-stream", "buffer": b} for n, b in pairs]


def pick(page: Any, files: list[dict[str, Any]]) -> None:
    page.set_input_files("#upload-form input[name=files]", files=files)


def refusal_shown(page: Any) -> str:
    page.wait_for_selector("#upload-result [role=alert]", timeout=15000)
    return str(page.inner_text("#upload-result [role=alert]"))


def with_files(requests: list[tuple[str, str, int]]) -> list[str]:
    return [url for url, kind, _ in requests if kind.startswith("multipart/form-data")]


def changed(page: Any) -> None:
    """Wait until htmx has swapped in a new details form and settled it: htmx wires the new
    form's change trigger only when it settles, so a field typed into before that sends
    nothing (seen once in CI on a loaded machine)."""
    page.wait_for_function(
        "() => !document.querySelector('#details-form').dataset.seen"
        " && !document.querySelector('.htmx-settling, .htmx-swapping')"
    )


def mark(page: Any) -> None:
    page.evaluate("() => { document.querySelector('#details-form').dataset.seen = '1'; }")


def test_a_refused_upload_leaves_the_page_working_and_the_files_go_up_once(
    upload_page: Any,
) -> None:
    page = upload_page
    too_large = b"x" * int(3 * 1024 * 1024)  # over the cap and its 1 MB envelope
    pick(page, file_payloads(("huge.json", too_large)))
    shown = refusal_shown(page)
    assert "Upload too large" in shown and f"limit of {CAP_MB:g} MB" in shown

    # A file over the cap but inside the envelope is read and refused by the upload reader.
    pick(page, file_payloads(("big.json", b"y" * int(0.8 * 1024 * 1024))))
    page.wait_for_function(
        "() => document.querySelector('#upload-result').innerText.includes('Upload too large')"
    )

    pick(page, file_payloads(("bad.csv", BAD_CSV)))
    page.wait_for_function(
        "() => document.querySelector('#upload-result').innerText.includes(\"'fast' is not\")"
    )

    page.bodies.clear()
    pick(page, file_payloads(*((p.name, p.read_bytes()) for p in LLMPERF)))
    page.wait_for_selector("#details-form")
    cards = page.locator("#upload-preview article")
    assert cards.count() == 2
    assert page.evaluate("() => window.__sameDocument") is True  # no reload on the way
    assert page.input_value("input[name='s0.model']") == "meta-llama/Llama-2-70b-chat-hf"
    assert with_files(page.bodies) == ["/upload/stage"]
    shoot(page, "upload-preview")

    # Edits send the details only.
    mark(page)
    page.fill("input[name='s0.hardware']", "H100")
    page.press("input[name='s0.hardware']", "Tab")
    changed(page)
    mark(page)
    page.fill("input[name='s0.num_gpus']", "8")
    page.press("input[name='s0.num_gpus']", "Tab")
    changed(page)
    assert page.locator("#sweep-0 .missing").count() == 0
    assert "Missing: Hardware, GPUs" in page.inner_text("#sweep-1 .missing")
    mark(page)
    page.fill("#all-hardware", "H100")
    page.press("#all-hardware", "Tab")
    changed(page)  # one edit previewed at a time: the answer replaces the form
    page.fill("#all-num_gpus", "2")
    page.press("#all-num_gpus", "Tab")
    page.wait_for_function("() => !document.querySelector('#sweep-1 .missing')")
    assert page.input_value("input[name='s1.num_gpus']") == "2"
    previews = [u for u, _, _ in page.bodies if u == "/upload/preview"]
    assert len(previews) >= 3
    assert with_files(page.bodies) == ["/upload/stage"]
    assert all(size < 4000 for u, _, size in page.bodies if u == "/upload/preview")

    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    assert with_files(page.bodies) == ["/upload/stage"]
    assert page.evaluate("() => window.__sameDocument") is True
    rows = page.locator("#saved-sweeps tbody tr")
    assert rows.count() == 2
    names = rows.locator("td:first-child a").all_inner_texts()
    assert names == [
        "Llama-2-70b-chat-hf · LLMPerf · anyscale",
        "llama-2-70b-chat · LLMPerf · together",
    ]
    hrefs = rows.locator("td:first-child a").evaluate_all("links => links.map(a => a.href)")
    assert all(re.search(r"/sweeps/\d+$", h) for h in hrefs)
    shoot(page, "upload-summary")

    page.click("#open-on-explore")
    page.wait_for_url(re.compile(r"sweep=\d+&sweep=\d+&picked=1"))
    page.wait_for_selector("#readoff-table tbody tr")
    table = page.inner_text("#readoff-table")
    for name in names:
        assert name in table
    assert page.problems == []


def test_an_edit_typed_while_a_preview_is_in_flight_survives_the_swap(upload_page: Any) -> None:
    page = upload_page
    # A sweep no other test stores: a stored one would come back prefilled (a re-upload is a
    # no-op, issue 47), with no field missing and nothing to type.
    header = "sweep,model,concurrency,tpot_p50_ms,output_tok_s\n"
    fresh = f"{header}in-flight-{uuid.uuid4().hex},m,1,10,100\n"
    pick(page, file_payloads(("in-flight.csv", fresh.encode())))
    page.wait_for_selector("#details-form")
    held: list[Any] = []

    def hold(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/upload/preview", hold)  # hold the first preview's answer back
    page.fill("input[name='s0.hardware']", "H100")
    page.press("input[name='s0.hardware']", "Tab")  # change: a preview leaves
    a_preview_is_held(page, held)
    assert len(held) == 1
    page.keyboard.type("8")  # into the GPUs field, while that preview is out
    held[0].continue_()
    # The answer replaces the form; the 8 is carried over and previewed in turn.
    page.wait_for_function("() => !document.querySelector('#sweep-0 .missing')")
    assert page.input_value("input[name='s0.num_gpus']") == "8"
    assert page.input_value("input[name='s0.hardware']") == "H100"
    assert page.problems == []


def test_an_edit_made_after_a_preview_swaps_in_but_before_it_settles_is_previewed(
    upload_page: Any,
) -> None:
    page = upload_page
    header = "sweep,model,concurrency,tpot_p50_ms,output_tok_s\n"
    fresh = f"{header}settling-{uuid.uuid4().hex},m,1,10,100\n"
    pick(page, file_payloads(("settling.csv", fresh.encode())))
    page.wait_for_selector("#details-form")
    # htmx wires the new form's triggers only when it settles (~20 ms after the swap): a GPUs
    # count typed and committed in that window raises a change that nothing hears.
    page.evaluate(
        """() => document.addEventListener("htmx:afterSwap", () => {
            const gpus = document.querySelector("input[name='s0.num_gpus']");
            gpus.value = "8";
            gpus.dispatchEvent(new Event("input", {bubbles: true}));
            gpus.dispatchEvent(new Event("change", {bubbles: true}));
        }, {once: true})"""
    )
    page.fill("input[name='s0.hardware']", "H100")
    page.press("input[name='s0.hardware']", "Tab")  # change: a preview leaves
    page.wait_for_function("() => !document.querySelector('#sweep-0 .missing')")
    assert page.input_value("input[name='s0.num_gpus']") == "8"
    assert page.input_value("input[name='s0.hardware']") == "H100"
    assert page.problems == []


def test_an_upload_of_150_sweeps_saves_from_the_page_with_the_all_sweeps_row_on_every_sweep(
    upload_page: Any,
) -> None:
    page = upload_page
    header = "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n"
    rows = "".join(f"big-{k:03d},H100,8,m,1,10,100\n" for k in range(150))
    pick(page, file_payloads(("big.csv", (header + rows).encode())))
    page.wait_for_selector("#details-form")
    assert page.locator("#upload-preview article.preview").count() == 100
    assert page.locator("#more-sweeps tbody tr").count() == 50
    mark(page)
    page.fill("#all-engine", "vLLM")
    page.press("#all-engine", "Tab")
    changed(page)
    assert (
        page.inner_text("#rest-given") == "Set on all of them from the All sweeps row: Engine vLLM."
    )
    assert page.input_value("input[name='s99.engine']") == "vLLM"
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    assert page.locator("#saved-sweeps tbody tr").count() == 150
    last = page.locator("#saved-sweeps tbody tr td:first-child a").last
    assert last.inner_text() == "big-149"
    last.click()
    page.wait_for_url(re.compile(r"/sweeps/\d+$"))
    assert "vLLM" in page.inner_text("main")
    assert page.problems == []


VLLM_FOLDER = FIXTURES / "vllm"  # 5 real `vllm bench serve` results and their SOURCES.md
WHOLE_FOLDER = sorted(p for p in VLLM_FOLDER.iterdir() if p.is_file())
RESULTS_ONLY = sorted(VLLM_FOLDER.glob("*.json"))


def hold_previews(page: Any) -> tuple[list[Any], dict[str, bool]]:
    """Hold every preview's answer back until the test lets it go: the in-flight window is
    certain, not a matter of timing."""
    held: list[Any] = []
    holding = {"on": True}
    page.route("**/upload/preview", lambda r: held.append(r) if holding["on"] else r.continue_())
    return held, holding


def a_preview_is_held(page: Any, held: list[Any], within_s: float = 10) -> None:
    """Wait (letting Playwright dispatch the route events) until a preview is held."""
    deadline = time.monotonic() + within_s
    while not held:
        assert time.monotonic() < deadline, f"no preview left within {within_s:g} s"
        page.wait_for_timeout(25)  # a poll, not a wait: the loop ends as soon as one is held


def answer_one(page: Any, held: list[Any]) -> None:
    """Let the oldest held preview answer, and wait until its answer is in the page."""
    a_preview_is_held(page, held)
    mark(page)
    held.pop(0).continue_()
    changed(page)


def focused(page: Any) -> tuple[str, str, int]:
    return tuple(  # type: ignore[return-value]
        page.evaluate(
            "() => [document.activeElement.id, document.activeElement.value,"
            " document.activeElement.selectionStart]"
        )
    )


@pytest.mark.parametrize(
    "chosen", [WHOLE_FOLDER, RESULTS_ONLY], ids=["whole-folder-with-SOURCES.md", "the-5-results"]
)
def test_a_real_vllm_folder_goes_up_once_and_saves_what_was_typed_while_previews_were_in_flight(
    browser: Any, capped_site: str, chosen: list[Any]
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    posts: list[tuple[str, str, bytes]] = []
    page.on(
        "request",
        lambda r: (
            posts.append(
                (
                    r.url.removeprefix(capped_site),
                    r.headers.get("content-type", ""),
                    r.post_data_buffer or b"",
                )
            )
            if r.method == "POST"
            else None
        ),
    )
    page.goto(capped_site + "/upload")
    if chosen is WHOLE_FOLDER:  # the folder input, given the folder itself, as a user picks it
        page.set_input_files("#upload-folder", str(VLLM_FOLDER))
    else:
        page.set_input_files("#upload-form input[name=files]", files=[str(p) for p in chosen])
    page.wait_for_selector("#details-form, #upload-result [role=alert]", timeout=15000)
    refused = page.locator("#upload-result [role=alert]")
    assert refused.count() == 0, refused.inner_text()  # a side file is skipped, not refused
    if chosen is WHOLE_FOLDER:
        assert page.locator("#skipped-files li").all_inner_texts() == [
            "vllm/SOURCES.md: not a result file: skipped"
        ]
    assert page.locator("#upload-preview article.preview").count() == 2
    # Chosen files go up once; the upload form sends nothing more (its button is hidden).
    assert page.locator("#upload-form button[type=submit]").is_hidden()
    page.evaluate("() => document.querySelector('#upload-form').requestSubmit()")

    held, holding = hold_previews(page)
    # Sweep 1: its name, then "A100" typed while the name's preview is out, across its answer.
    page.click("#s0-sweep")
    page.keyboard.press("Control+A")
    page.keyboard.type("qwen-7b rate sweep")
    page.keyboard.press("Tab")  # change: a preview leaves, held
    a_preview_is_held(page, held)
    page.keyboard.type("A1")
    answer_one(page, held)  # the answer replaces the form; the field being typed in stays
    assert focused(page) == ("s0-hardware", "A1", 2)
    page.keyboard.type("00")
    page.keyboard.press("Tab")
    page.keyboard.type("1")  # GPUs, while the preview of "A1" is out
    answer_one(page, held)
    assert focused(page) == ("s0-num_gpus", "1", 1)
    # Sweep 2: its GPUs, then its name typed across an answer, then its hardware. Leaving the
    # GPUs field sends a preview unless one is out already (the "1" of sweep 1 may have gone
    # with the last one or be previewed again): either way one is held while the name is typed.
    page.click("#s1-num_gpus")
    page.keyboard.type("1")
    page.click("#s1-sweep")
    page.keyboard.press("Control+A")
    page.keyboard.type("qwen-7b")
    answer_one(page, held)
    assert focused(page) == ("s1-sweep", "qwen-7b", 7)
    page.keyboard.type(" burst")
    page.keyboard.press("Tab")
    page.keyboard.type("A100")
    page.keyboard.press("Tab")
    holding["on"] = False
    while held:
        held.pop(0).continue_()
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request') &&"
        " !document.querySelector('#upload-preview .missing')"
    )
    typed = {
        "s0-sweep": "qwen-7b rate sweep",
        "s0-hardware": "A100",
        "s0-num_gpus": "1",
        "s1-sweep": "qwen-7b burst",
        "s1-hardware": "A100",
        "s1-num_gpus": "1",
    }
    assert {k: page.input_value(f"#{k}") for k in typed} == typed
    # The upload form submitted again (its hidden button, Enter): nothing goes up, nothing is
    # reset to the files' details.
    page.evaluate("() => document.querySelector('#upload-form').requestSubmit()")
    shoot(page, "upload-vllm-folder-preview")

    page.click("button[formaction='/upload/preview']")  # "Update preview": the details only
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    assert {k: page.input_value(f"#{k}") for k in typed} == typed
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    ids = [
        int(i)
        for i in page.locator("#saved-sweeps tbody tr").evaluate_all(
            "rows => rows.map(r => r.dataset.sweepId)"
        )
    ]
    stored = [page.request.get(f"{capped_site}/api/sweeps/{i}").json() for i in ids]
    assert [(s["name"], s["hardware"], s["num_gpus"]) for s in stored] == [
        ("qwen-7b rate sweep", "A100", 1),
        ("qwen-7b burst", "A100", 1),
    ]
    assert [len(s["points"]) for s in stored] == [4, 1]
    # Exactly one request carried files: the staging; every other one only the details.
    assert [u for u, kind, _ in posts if kind.startswith("multipart/")] == ["/upload/stage"]
    rest = [(u, body) for u, kind, body in posts if not kind.startswith("multipart/")]
    assert {u for u, _ in rest} == {"/upload/preview", "/upload/confirm"}
    assert all(b"output_throughput" not in body and b"staging=" in body for _, body in rest)
    assert problems == []
    context.close()
