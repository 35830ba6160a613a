"""The Metrics page's terms for cost, power, physics and the plan (after the read-off's terms in
`app.domain.definitions`, which lists them all in page order).

Pure: imports only the standard library and app.domain.
"""

from __future__ import annotations

from app.domain.definition import Definition

COST_AND_PLAN: tuple[Definition, ...] = (
    Definition(
        "cost",
        "Cost per million tokens",
        "$/Mtok = hourly cost per GPU × 10⁶ ÷ (3600 × goodput tok/s/GPU × utilization)",
        "The token basis follows the throughput basis. Utilization is the share of paid hours "
        "spent serving at that throughput.",
    ),
    Definition(
        "ownership",
        "Ownership hourly cost",
        "capex × CRF(r, n) ÷ 8760 + kW × PUE × $/kWh + colo $/kW-month × kW ÷ 730 "
        "+ opex %/yr × capex ÷ 8760; CRF = r(1+r)ⁿ ÷ ((1+r)ⁿ − 1)",
        "Per GPU. Straight-line capital (capex ÷ n ÷ 8760) when r = 0. Colocation is billed on IT "
        "kW; PUE applies to the electricity bill.",
    ),
    Definition(
        "tokens-per-mw",
        "Tokens per MW and energy per token",
        "tok/s/MW = tok/s/GPU × 1000 ÷ all-in kW per GPU; J/tok = all-in W ÷ tok/s/GPU",
        "All-in provisioned power per GPU (GPU, host, network and facility overhead), as "
        "SemiAnalysis uses. The token basis is the read-off's (InferenceX's tok/s/MW counts "
        "input + output tokens: choose the total basis to match it).",
    ),
    Definition(
        "tokens-per-joule",
        "Tokens per joule: measured and estimated",
        "tok/J = tok/s ÷ W; measured: deployment tok/s ÷ measured GPU power; estimate: tok/s/GPU "
        "÷ (all-in kW per GPU × 1000)",
        "Measured where a file carries the GPUs' own power (AIPerf's DCGM telemetry): board power "
        "only, no host, network or cooling. The estimate uses the catalog's provisioned all-in "
        "power. Both on the read-off's token basis, at its operating point; they answer "
        "different questions, so neither stands in for the other.",
    ),
    Definition(
        "break-even",
        "Break-even API price",
        "p_in = C ÷ (3600·10⁻⁶ × (tok/s_in + k × tok/s_out)), p_out = k × p_in",
        "The input and output prices per Mtok (output k times input) at which the revenue of one "
        "GPU-hour equals its cost C per useful hour.",
    ),
    Definition(
        "token-classes",
        "Tokens by class: uncached input, cached input, output",
        "input = uncached + cached; revenue = Σ class tok/s × 3600·10⁻⁶ × class $/Mtok; blended "
        "$/Mtok = revenue ÷ all Mtok; break-even class price = class price × C ÷ revenue",
        "Cached (prefix-hit) input tokens are input served from the server's prefix cache; each"
        " token is billed once, at its own class's price, never again at the input price. A "
        "point's cached share comes, in this order, from its own client figures (Σ cached ÷ Σ "
        "prompt tokens, else its mean cached_input_tokens ÷ input_len), its requests' "
        "cached_input_tokens ÷ input_len (client), the server's prefix-cache hit rate "
        "(measured), or a theoretical rate (never shown as measured); the source is named: "
        "measured, client, theoretical, or unknown where the file reports none. Tokens per $1 ="
        " all tokens ÷ revenue (InferenceX's cache-aware Total Tokens per $1). Break-even "
        "splits the GPU-hour C across classes in proportion to their revenue at the given "
        "prices: each class keeps the given prices' ratios. Figures are at the operating "
        "point's measured throughput, per total GPU.",
    ),
    Definition(
        "ttft-vs-context",
        "TTFT against prompt length and the prefill rate",
        "TTFT_ms = intercept + input tokens × ms per token (least squares over a point's "
        "successful requests); prefill_tok_s = 1000 ÷ ms per token; crossing = (TTFT limit − "
        "intercept) ÷ ms per token",
        "One TTFT percentile per load hides that TTFT grows with the prompt. The interval is "
        "Student's t on the slope (n − 2 degrees of freedom), inverted; a slope interval reaching "
        "0 leaves the rate without an upper end. TTFT is also grouped by power-of-two input-"
        "length buckets. The crossing is where the fitted mean TTFT reaches the limit, not a "
        "percentile. Clicking a point on Explore lists these and the requests that missed the "
        "SLO, with the limit each missed.",
    ),
    Definition(
        "roofline",
        "Decode roofline (physics limit)",
        "per-user ceiling at batch B = BW ÷ (weight bytes + B × context × KV bytes/token); "
        "aggregate = B × that; compute bound = FLOPS ÷ (2 × active params)",
        "Decode reads every (active) weight and the KV cache once per step, so memory bandwidth "
        "caps the per-user token rate. Speculative decoding "
        "multiplies by the mean accepted length. "
        "MoE batches touch the union of experts: 1 − (1 − k/E)^B of the routed weights. "
        "A model that activates other parameters per token in prefill and decode (DeepSeek "
        "V4.1-Flash: about 8B and 16B) is sized with each phase's own: decode ceilings with "
        "decode's, the prefill bound with prefill's. The curve ends at B_max, where the KV cache "
        "(bytes/token × context × batch) fills the memory left after the weights (marked ▢).",
    ),
    # Capacity planning (/plan, issue 16).
    Definition(
        "plan-demand",
        "Plan: demand, peak and headroom",
        "peak = average × peak_to_average; sized for = peak × (1 + headroom)",
        "The demand you give is the average, in one unit: requests/s, output tokens/s, or tokens "
        "per day (input + output tokens, averaged over the day). Capacity is sized for the peak. "
        "Headroom is the fraction kept free on top of the peak: 0.25 sizes for 1.25 × peak, so "
        "utilisation at peak is at most 1 ÷ 1.25 = 80 %. A demand in tokens becomes requests/s "
        "with each sweep's measured mean lengths at its operating point (the length columns, "
        "else tok/s ÷ req/s); without them the plan is unknown, never guessed.",
    ),
    Definition(
        "plan-goodput",
        "Plan: goodput per replica",
        "goodput per replica [req/s] = the read-off's request goodput at the operating point; "
        "in tokens: the read-off's token goodput × num_gpus (output tok/s), or its total "
        "(input + output) token goodput × num_gpus × 86,400 for tokens/day",
        "A replica is one whole deployment of the sweep: all num_gpus GPUs (prefill + decode "
        "when disaggregated). The operating point and goodput are exactly the read-off's "
        "(percentile mode: the point's measured req/s and tok/s; per-request mode: good "
        "requests ÷ duration, and the good requests' own tokens ÷ duration, never good "
        "requests × the mean length of all requests). On another basis than the read-off's, "
        "the same operating point's tokens on the demand's basis.",
    ),
    Definition(
        "plan-replicas",
        "Plan: replicas and GPUs",
        "replicas = ⌈peak × (1 + headroom) ÷ goodput per replica⌉; GPUs = replicas × num_gpus",
        "Demand and goodput in the same unit. Replicas are whole, so cost against demand is a "
        "step function.",
    ),
    Definition(
        "plan-utilization",
        "Plan: utilisation",
        "utilisation at peak = peak ÷ (replicas × goodput per replica); at average = average ÷ "
        "(replicas × goodput per replica)",
        "The share of the fleet's goodput at the SLO that the demand uses.",
    ),
    Definition(
        "plan-cost",
        "Plan: $/month",
        "$/month = $/GPU-hour × GPUs × 730 h",
        "Every GPU is paid for every hour, busy or not. Rental: the profile's $/GPU-hour; "
        "ownership: its hourly total (capital + power + colocation + opex), each component "
        "also shown per month. A pricing profile's own utilisation is not used: the plan "
        "computes utilisation from the demand. The cheapest option is the lowest $/month among "
        "the systems that meet the SLO, over every price that applies to their hardware.",
    ),
    Definition(
        "plan-usd-per-mtok",
        "Plan: effective $/Mtok at average load",
        "$/Mtok = $/month ÷ (average tok/s × 3600 × 730 ÷ 10⁶)",
        "Tokens on the chosen basis (output, input, or total) at the average demand, so idle "
        "capacity kept for the peak and the headroom is paid for by the tokens actually served.",
    ),
    Definition(
        "plan-power",
        "Plan: power",
        "kW = catalog all-in kW per GPU × GPUs; MWh/month = kW × 730 ÷ 1000",
        "Provisioned all-in power (GPU, host, network and facility share), not average draw.",
    ),
    Definition(
        "plan-crossover",
        "Plan: where the ranking flips",
        "breakpoints of an option: average demand = k × goodput per replica ÷ (peak_to_average "
        "× (1 + headroom)), k = 1, 2, …",
        "$/month is drawn from 0.1× to 10× your demand. Costs are constant between consecutive "
        "breakpoints of all options, so the cheapest option is decided on each of those "
        "intervals exactly; a crossover is the demand above which another option is cheapest "
        "(a tie keeps the one that was cheapest).",
    ),
    Definition(
        "plan-status",
        "Plan: pass, fail or unknown",
        "pass ⇔ a point meets the SLO; fail ⇔ every point is a measured fail; else unknown",
        "A system that fails at its lightest measured load cannot meet the SLO at any load the "
        "sweep covers. A point whose SLO statistic was not measured (or has no request samples "
        "in per-request mode) might pass, so the system is unknown with the reason, never a "
        "fail. A system that meets the SLO but lacks the request throughput or the lengths the "
        "demand unit needs is unknown too.",
    ),
)
