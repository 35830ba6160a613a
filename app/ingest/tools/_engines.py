"""The serving engine a load generator's `backend` field names, when it names one.

vLLM `bench serve` (`--backend`, `endpoint_request_func.py`) and SGLang `bench_serving`
(`--backend`) pick the client request format by the target server: `vllm`, `sglang`,
`sglang-oai`, `lmdeploy`, `tgi`, `tensorrt-llm`/`trt`, … name it; `openai`, `openai-chat` and
the like are generic OpenAI-compatible clients and name no engine. guidellm's `vllm_python`
backends run vLLM in process. The field is the tool's default when the user did not pass one
(older `benchmark_serving.py` defaulted to `vllm`, `bench_serving` to `sglang`), so it only
fills an engine the file and the user left empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# Backend name, lower case, suffixes like "-chat" removed → canonical engine label.
ENGINE_BY_BACKEND: dict[str, str] = {
    "vllm": "vllm",
    "vllm_python": "vllm",
    "vllm_python_batch": "vllm",
    "sglang": "sglang",
    "lmdeploy": "lmdeploy",
    "tgi": "tgi",
    "tensorrt-llm": "trt-llm",
    "trt": "trt-llm",
    "scalellm": "scalellm",
    "llama.cpp": "llama.cpp",
    "deepspeed-mii": "deepspeed-mii",
}
_SUFFIXES = ("-oai-chat", "-oai", "-native", "-chat", "-pooling")


def engine_for_backend(backend: Any) -> str | None:
    """`"sglang-oai"` → "sglang", `"openai"` → None."""
    if not isinstance(backend, str):
        return None
    name = backend.strip().lower()
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return ENGINE_BY_BACKEND.get(name)


def fill_engine(meta: dict[str, Any], backends: Iterable[Any], defaults: Mapping[str, Any]) -> None:
    """Set meta["engine"] from the backends of a sweep's runs when they agree on one engine,
    the file states none and the user gave none."""
    if meta.get("engine") or defaults.get("engine"):
        return
    engines = {engine_for_backend(b) for b in backends}
    if len(engines) == 1 and (engine := engines.pop()) is not None:
        meta["engine"] = engine
