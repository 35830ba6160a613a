"""Every definition the numbers use, with its formula: rendered on /metrics and served as JSON."""

from __future__ import annotations

from app.domain.definition import Definition
from app.domain.definitions_cost import COST_AND_PLAN
from app.domain.definitions_sessions import SESSIONS

DEFINITIONS: tuple[Definition, ...] = (
    # First: the number people come for, and the word they ask about.
    Definition(
        "goodput",
        "Goodput at an SLO",
        "goodput [tok/s/GPU] = max tok/s/GPU over the sweep's measured points that meet the SLO",
        "The highest throughput per GPU (per the accounting mode's unit, on the token basis in "
        "use) among the measured points that meet the SLO, read with that point's concurrency "
        "and interactivity: its operating point. In percentile mode a point meets the SLO when "
        "each limited statistic is within its limit (“SLO read-off, percentile mode”); in "
        "per-request mode a point's token goodput counts only the tokens of good requests and "
        "the point meets the SLO when its attainment reaches the target (“SLO read-off, "
        "per-request mode”), with request goodput (good requests ÷ duration) beside it. No "
        "passing point, no goodput: the sweep fails when every point fails and is unknown when "
        "a point could not be judged. An estimate between the last passing and the first "
        "failing load is given only when asked for, and labelled. $/Mtok and the plan's "
        "replicas are computed from it; its interval is described under “Goodput and $/Mtok "
        "interval” and “Interval from repeated runs”.",
    ),
    Definition(
        "interactivity",
        "Interactivity (x axis)",
        "interactivity [tok/s/user] = 1000 ÷ TPOT_ms at the chosen statistic",
        "TPOT is the per-request time per output token after the first, (E2EL − TTFT) ÷ (n − 1). "
        "The default statistic is the median (p50), as InferenceX uses. p90 or p99 TPOT give the "
        "interactivity of the slowest 10 % or 1 % of users, not a 90th-percentile speed. TTFT is "
        "excluded. ITL pooled over tokens is not TPOT and is never used in its place.",
    ),
    Definition(
        "throughput",
        "Throughput per GPU (y axis)",
        "tok/s/GPU = deployment tok/s ÷ all GPUs of the deployment",
        "Token basis: output tokens by default; total (input + output) or input "
        "(total − output) on request. Disaggregated serving counts prefill and decode GPUs. "
        "Every chart and table names the basis it uses.",
    ),
    Definition(
        "accounting",
        "Accounting modes (what throughput is counted per)",
        "tok/s per unit = deployment tok/s ÷ units; units = GPUs | decode GPUs | prefill GPUs | "
        "GPUs ÷ GPUs per node | GPUs × all-in kW per GPU",
        "Per total GPU by default. A disaggregated deployment (shown as 8P + 8D) can be counted "
        "per decode or prefill GPU; an aggregated one has every GPU do both, so its figures are "
        "the same in every per-GPU mode. Where the split changes along a sweep (4P + 12D … "
        "8P + 8D), each point is counted per its own decode or prefill GPUs. Per node and per kW "
        "use the catalog's GPUs per node and all-in kW (which holds PUE). Costs stay per "
        "GPU-hour in every mode. The frontier leaders are ranked per the same unit.",
    ),
    Definition(
        "pareto",
        "Pareto frontier",
        "P dominates Q ⇔ x_P ≥ x_Q ∧ y_P ≥ y_Q, one strictly",
        "Per sweep, the points no other point of the sweep dominates (higher interactivity and "
        "higher throughput are both better). Ties on x keep the highest y. Dominated points are "
        "drawn faded.",
    ),
    Definition(
        "value-at",
        "Value at an interactivity x*",
        "staircase: y of the frontier point with the smallest x ≥ x*",
        "Staircase is guaranteed: a measured configuration delivers it. Linear, log-linear "
        "(geometric) and monotone (Steffen, as d3.curveMonotoneX) interpolation between the two "
        "neighbouring frontier points are estimates and labelled so. Outside the measured range "
        "there is no value (never extrapolated).",
    ),
    Definition(
        "slo-percentile",
        "SLO read-off, percentile mode",
        "point passes ⇔ p_a(TTFT) ≤ T_ttft ∧ p_b(TPOT) ≤ T_tpot ∧ p_c(E2EL) ≤ T_e2el",
        "Each limit has its own percentile (e.g. p99 TTFT with p50 TPOT); a limit that names none "
        "uses the SLO's default percentile. Only the limits given are checked; equality passes. "
        "The value is the file's stored statistic where it has one; otherwise it is computed from "
        "the point's request samples (see “Percentiles from request samples”); otherwise the "
        "point is unknown, never passing and never failing. Goodput = the highest throughput per "
        "GPU among measured points that pass, with that point's concurrency and interactivity. "
        "An optional interpolated estimate between the last passing and the first failing load "
        "is labelled. Separate percentiles only bound the share of requests meeting all limits "
        "(Fréchet): P90 TTFT and P90 TPOT ⇒ between 80 % and 90 %; P99 TTFT and P50 TPOT ⇒ "
        "between 49 % and 50 %.",
    ),
    Definition(
        "frechet",
        "Joint attainment bound (Fréchet)",
        "max(0, Σ q_k − (K − 1)) ≤ share meeting all K limits ≤ min_k q_k",
        "q_k is the share of requests under limit k at its own percentile (p99 ⇒ 0.99, p50 ⇒ "
        "0.5), so the bound holds for any mix of percentiles. Per-request mode counts the "
        "joint share exactly.",
    ),
    Definition(
        "sample-percentiles",
        "Percentiles from request samples",
        "p_q = x₍ₖ₎ + (h − k)(x₍ₖ₊₁₎ − x₍ₖ₎), h = (n − 1) q ÷ 100, k = ⌊h⌋, x sorted ascending",
        "Linear interpolation between closest ranks, numpy.percentile's default and what vLLM "
        "bench serve reports. Any percentile from p50 to p99.9 (p75 and p99.9 included). Over "
        "the point's successful requests; TPOT over those with more than one output token (a "
        "one-token request has no TPOT: it is left out and counted). The reason then says “from "
        "N request samples”. Stored statistics answer first where the file has them, at every "
        "percentile it stores (guidellm's p75 and p99.9 too). A metric's percentiles never fall "
        "as the percentile rises, so sources are never mixed silently: a value from samples "
        "that falls below a percentile the file stores at a lower level (or rises above one at "
        "a higher level) is not used; the stored one bounds it. The check fails when even the "
        "bound breaks the limit (p99.9 ≥ stored p99 > limit), passes when even the bound meets "
        "it (p90 ≤ stored p99 ≤ limit), and is otherwise unknown, naming both values.",
    ),
    Definition(
        "slo-status",
        "Pass, fail, unknown",
        "sweep: pass ⇔ some point passes; fail ⇔ every point fails; else unknown",
        "A point is unknown when a limited statistic was not measured (neither stored nor "
        "computable from request samples); the reason names the statistic and how to get it: a "
        "percentile the file has, or per-request data. A sweep with no passing point and any "
        "unknown point is unknown, not failing: meets_slo is null in the API and the tables say "
        "“unknown”.",
    ),
    Definition(
        "range-end",
        "Ratios at a range end (Compare)",
        "headlines at quoted interactivities strictly inside [max(lo_A, lo_B), min(hi_A, hi_B)]",
        "A system's range ends where its measurements stop, so a ratio read there compares one "
        "sweep's extreme with the other's middle. Headlines are never read there; curve points "
        "and goodputs that sit at a sweep's range end (its heaviest measured load) are flagged.",
    ),
    Definition(
        "slo-requests",
        "SLO read-off, per-request mode",
        "attainment = good ÷ issued; token goodput = Σ output tokens of good requests ÷ duration "
        "÷ GPUs",
        "A request is good iff it succeeded and meets every limit (TPOT = (E2EL − TTFT) ÷ "
        "(n − 1)). A one-token request (n ≤ 1) has no TPOT: it cannot fail a TPOT limit, so it "
        "counts as meeting it and is judged on its other limits. Failed requests count as "
        "misses. A point "
        "meets the SLO iff attainment ≥ the "
        "target (default 0.9). Goodput = the best token goodput among points that meet it; on the "
        "total basis input and output tokens of good requests count. Request goodput = good ÷ "
        "duration.",
    ),
    Definition(
        "ci-level",
        "Intervals: level and methods",
        "level L ∈ [0.5, 0.999], default 0.95; z = Φ⁻¹((1 + L) ÷ 2) = 1.96 at 0.95",
        "Every read-off figure carries an interval at the level you set (the `ci_level` query "
        "parameter, “Interval level” in the form), or none with the reason in words. Per-request "
        "mode: attainment by Wilson, goodput and $/Mtok by a seeded bootstrap over the operating "
        "point's requests. Percentile mode: a t interval on the log scale (“t-log”, the "
        "geometric mean's: exp(mean ± t·s ÷ √n) of ln x, so both ends stay positive) over "
        "repeated runs at the operating point's load; with one run there is none (“one run: "
        "no interval”). Tables show ± half "
        "the interval's width, the ends and method in the cell's tooltip; charts draw error bars "
        "at the operating points. The API gives ci_low, ci_high, ci_level and ci_method beside "
        "each value.",
    ),
    Definition(
        "ci-wilson",
        "Attainment interval (Wilson score)",
        "(p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) ÷ (1 + z²/n), p̂ = good ÷ issued",
        "n is the point's issued requests, failures included. Unlike p̂ ± z·√(p̂(1 − p̂)/n) it "
        "never leaves [0, 1] and is not a point at 0 % or 100 %: 100 of 100 good gives 96.3 %–"
        "100 % at 95 %. Example: 81 of 100 good ⇒ 72.2 %–87.5 %.",
    ),
    Definition(
        "slo-borderline",
        "Borderline (per-request mode)",
        "borderline ⇔ low end < target ≤ high end of the attainment's Wilson interval",
        "A measured point whose interval straddles the attainment target is borderline: neither "
        "a sure pass nor a sure fail; more requests would settle it. It keeps its goodput when "
        "its measured attainment meets the target (meets_slo stays true), and the table says "
        "“borderline” with the interval. A sweep is borderline when its operating point is, or "
        "when nothing passes but some point is borderline. Unknown (not measured) stays unknown.",
    ),
    Definition(
        "slo-runs",
        "Repeated runs that disagree (borderline load)",
        "a load passes ⇔ all checked runs at it meet the SLO; some meet, some miss ⇒ borderline",
        "A load level is only as good as its runs. Where one run at a load meets the SLO and "
        "another misses it, the load is borderline: no run there passes and no goodput is read "
        "there, so the goodput comes from loads where the runs meet the SLO. A sweep with no "
        "such load is borderline (meets_slo false), and every view says how many runs met it: "
        "“1 of 2 runs meets the SLO at concurrency 4”. Example: p99 TTFT 762 ms and 57.6 ms at "
        "concurrency 4 against a 500 ms limit ⇒ borderline; ranked below a settled pass, and "
        "`paretoscope check` fails such a candidate. A run that could not be checked (unknown) "
        "neither confirms nor contradicts the others.",
    ),
    Definition(
        "slo-failures",
        "Failed requests at a percentile limit",
        "a point whose failed share (failed ÷ (successful + failed)) exceeds 1 − p cannot meet "
        "a p-th percentile limit",
        "A failed request is a miss at every limit, in both modes. A p-th percentile limit asks "
        "that p of the issued requests meet it; a tool's stored percentile is over its "
        "successful requests only, so it cannot show that. Example: 3 of 10 requests failed "
        "(30 %): a p99 limit allows at most 1 % and a p90 limit 10 %, so both fail whatever "
        "the p99 or p90 TTFT says; a p50 limit allows 50 % and is judged on the latencies. "
        "Exactly 1 − p is allowed (1 of 10 failed can still meet a p90 limit). Goodput counts "
        "successful requests only: with failures, request goodput = successful requests ÷ "
        "duration (7 ÷ 1.068 s = 6.55 req/s, not 10 ÷ 1.068 s = 9.36). Tables say “3 of 10 "
        "failed” beside the verdict.",
    ),
    Definition(
        "ci-bootstrap",
        "Goodput and $/Mtok interval (bootstrap over requests)",
        "B = 1000 resamples of the n issued requests with replacement (seed 0); "
        "interval = the (1 − L)/2 and (1 + L)/2 quantiles of Σ good tokens ÷ duration ÷ GPUs",
        "Only at the operating point. Each resample keeps the point's duration and GPUs and "
        "recounts good requests and their tokens; request goodput likewise from the good count. "
        "$/Mtok = k ÷ goodput, so its ends are k ÷ the goodput's ends (swapped). The fixed seed "
        "makes pages, exports, the API and tests give the same numbers.",
    ),
    Definition(
        "ci-runs",
        "Interval from repeated runs (t)",
        "x̄ ± t₍₁₊L₎/₂, n−1 · s ÷ √n over the n runs at the operating point's load that pass",
        "Percentile mode has no per-request counts, so the spread between runs of the same "
        "configuration is the evidence. With two or more passing runs at the operating "
        "load, the goodput shown is their geometric mean and the interval its t-log interval, "
        "from the same runs; the best run is kept beside it as a labelled figure. A headline "
        "on Compare uses the runs at the measured frontier point it reads; an interpolated "
        "value has no interval.",
    ),
    Definition(
        "ci-ratio",
        "Is A really faster? (ratio intervals)",
        "ln(a ÷ b) ± z·√(se_a² + se_b²), se = (ln high − ln low) ÷ 2z; "
        "two bootstraps: quantiles of the paired resample ratios",
        "A ratio whose interval spans 1× is “not distinguishable with this data”; one that "
        "excludes 1× is distinguishable. Cost ratios are the price ratio ÷ the throughput ratio, "
        "so their ends follow.",
    ),
    Definition(
        "frontier-band",
        "Confidence band on a frontier",
        "B resamples (1000, seed 0; fewer on huge sweeps, stated): each resample's frontier read "
        "at a grid of interactivity; per request: the (1 − L)/2 and (1 + L)/2 quantiles; runs: "
        "frontier ± t₍₁₊L₎/₂, k−1 · sd_B · √(k ÷ (k − 1))",
        "Turned on with “confidence bands” (bands=1), at the interval level. A sweep with "
        "request samples resamples each point's requests (point j with seed j): the point's "
        "interactivity scales by its TPOT statistic's change, its throughput by its token sum's "
        "change. Otherwise, where a load was run more than once, each configuration is the mean "
        "of its runs and the runs are resampled within it; k is the run count of the "
        "configuration read there (a percentile interval over 2–5 runs covers far less than "
        "its level; this is the t interval of one configuration's mean). A resample whose most "
        "interactive point falls short of the shown one's is read at that point. The band is "
        "pointwise: each interactivity's interval holds at its level on its own. On simulated "
        "sweeps of known distribution it covers the true frontier 94–96 % of the time at 95 %.",
    ),
    Definition(
        "stretches",
        "Where A is really better (Compare stretches)",
        "at each of 60 interactivities across the shared range: the interval of A ÷ B "
        "(paired resample ratios, else both bands on the log scale); A above ⇔ low > 1, "
        "below ⇔ high < 1",
        "Neighbouring interactivities with the same answer form a stretch, listed with the "
        "lowest low end and highest high end of its ratio intervals: “A is 1.4–1.9× B from 40 "
        "to 90 tok/s/user”. Intervals are pointwise, so a short stretch at the edge of another "
        "may be noise. The area under each frontier over the shared range (trapezoids over the "
        "grid) and its ratio come with the same resamples' interval; over a range you state "
        "(area_from, area_to) it is read on a grid of that range, and is unknown, said why, "
        "where the range reaches beyond either frontier.",
    ),
    Definition(
        "ci-power",
        "How much more data would separate them (power estimate)",
        "n' = n · ((z₍₁₊L₎/₂ + z₀.₈) · √(se_a² + se_b²) ÷ |ln(a ÷ b)|)², more = ⌈n'⌉ − n per side",
        "Two-sample, 80 % power, each side's standard error shrinking as 1 ÷ √n with more "
        "requests (per-request mode) or runs (percentile mode), the values themselves held. "
        "Runs: a t interval's standard error is its half-width ÷ its t quantile, and z₍₁₊L₎/₂ "
        "becomes t₍₁₊L₎/₂, n'−1 (solved for n'). Checked by simulation (bench calibration): "
        "following it reaches 73–79 % power. "
        "Equal values cannot be separated by any amount of data.",
    ),
    Definition(
        "public-band",
        "Against the public record (public band)",
        "ratio = G ÷ median(g₁ … gₙ); interval = [G_low ÷ max gᵢ, G_high ÷ min gᵢ]",
        "G is your sweep's goodput at your SLO and [G_low, G_high] its interval (G at both "
        "ends without one); g₁ … gₙ are the goodputs, at the same SLO, of one configuration's "
        "dated runs in the public record (InferenceX API rows or dump, source kind public), "
        "one per run: the public band. The record runs a configuration once per date, so the "
        "band's spread (max ÷ min) is its own run-to-run noise, and the interval holds your "
        "ratio to every date at every point of your own interval. A run with no goodput at "
        "the SLO is listed, said why, and left out of the band.",
    ),
    *COST_AND_PLAN,
    *SESSIONS,
)


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def names(definition: Definition) -> tuple[str, ...]:
    """What a definition answers to, in any case: its id (hyphens or spaces), its title, and
    its title without a trailing parenthesis ("Interactivity" for "Interactivity (x axis)")."""
    title = definition.title
    short = title.rsplit(" (", 1)[0] if title.endswith(")") else title
    return tuple(
        dict.fromkeys(
            _plain(n) for n in (definition.id, definition.id.replace("-", " "), title, short)
        )
    )


BY_NAME: dict[str, Definition] = {n: d for d in DEFINITIONS for n in names(d)}


def find(term: str) -> Definition | None:
    """The definition a term names (its id or plain name, any case), if any."""
    return BY_NAME.get(_plain(term))


def definitions_named(only: str | None = None) -> list[Definition]:
    """Every definition, or only the one `only` names (none when it names none)."""
    if only is None:
        return list(DEFINITIONS)
    found = find(only)
    return [] if found is None else [found]
