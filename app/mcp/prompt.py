"""The one prompt: "price this sweep at my SLO", which walks an assistant through asking for the
SLO and the price before it reads the sweep off."""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError

PROMPT = types.Prompt(
    name="price_sweep_at_slo",
    title="Price this sweep at my SLO",
    description="Ask for the SLO limits and a price, then read the sweep off with `readoff` and "
    "report its goodput and $/Mtok with the provenance.",
    arguments=[
        types.PromptArgument(name="sweep", description="sweep id (see list_sweeps)", required=True),
        types.PromptArgument(name="slo", description="your SLO in words, if you know it"),
        types.PromptArgument(name="price", description="$/GPU-hour, a price set or a profile"),
    ],
)
LONGEST = 500  # characters kept of each argument: it is quoted into the prompt


def messages(arguments: dict[str, str]) -> types.GetPromptResult:
    sweep = (arguments.get("sweep") or "").strip()
    if not (sweep.isascii() and sweep.isdigit() and len(sweep) <= 10):
        raise MCPError(types.INVALID_PARAMS, "sweep: give a sweep id (a whole number)")
    slo = _given(arguments.get("slo"))
    price = _given(arguments.get("price"))
    text = "\n".join(
        [
            f"Price Paretoscope sweep {sweep} at my SLO.",
            "",
            "1. SLO. "
            + (
                f"I said: {slo}. Turn it into the readoff tool's limits;"
                if slo
                else "Ask me for my limits first: TTFT (ttft_ms), TPOT (tpot_ms) or the "
                "slowest tokens/s per user (min_tok_s_user), end-to-end latency (e2el_ms);"
            )
            + " ask which percentile each holds at (p50 … p99.9, e.g. p99 TTFT with p50 TPOT: "
            "ttft_percentile, tpot_percentile) and whether it is per percentile or the share of "
            "requests meeting every limit (mode=requests, attainment). A limit I do not give is "
            "not checked; never invent one.",
            "2. Price. "
            + (
                f"I said: {price}. Use it as usd_per_gpu_hour, a price_set (tier@date) or "
                "pricing profile ids;"
                if price
                else "Ask me for a price: $/GPU-hour (usd_per_gpu_hour), a dated price set "
                "(price_set, see list_prices) or pricing profile ids (pricing);"
            )
            + " a sweep on a GPU the price does not cover has no $/Mtok (its reason says so).",
            f"3. Call readoff with sweep=[{sweep}] and those arguments. Report the status "
            "(pass, fail or unknown with its reason), goodput in tok/s per GPU, the operating "
            "point and $/Mtok with its interval at ci_level.",
            "4. Quote the provenance: the sweep's name and content hash, the SLO and prices as "
            "used, the app version, and the dashboard_url so I can open the same view. Use "
            "explain_metric for any definition I ask about.",
        ]
    )
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description=PROMPT.description, messages=[message])


def _given(value: str | None) -> str:
    text = " ".join((value or "").replace("\x00", "").split())
    return text[:LONGEST]
