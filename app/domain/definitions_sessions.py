"""The multi-turn terms of the Metrics page (issue 49): E2E-normalized interactivity, session
attainment, TTFT by turn, agents at your SLO and like with like. Each says its rule and a
worked example (the numbers of tests/domain/test_sessions.py)."""

from __future__ import annotations

from app.domain.definition import Definition

SESSIONS: tuple[Definition, ...] = (
    Definition(
        "e2e-normalized-interactivity",
        "E2E-normalized interactivity (the agentic x axis)",
        "E2E-normalized [tok/s/user] = 1000 ÷ p-th percentile over requests of (E2EL_ms ÷ OSL), "
        "p = 90 by default",
        "InferenceX's AgentX axis: over the profiled, successful requests with at least one "
        "output token, each request's end-to-end latency per output token, then its p-th "
        "percentile (linear between order statistics), inverted. Unlike per-token speed it "
        "counts TTFT, so slow prefill or queueing lowers it. Example: a request that waits 4 s "
        "for its first token and then streams 100 tokens in 1 s runs at about 99 tok/s per "
        "token but 100 ÷ 5 s = 20 tok/s/user E2E-normalized. Chosen with interactivity=e2e "
        "(e2e_percentile=… for another percentile); every axis, export and answer then names "
        "it. It needs request samples: a point without them has none (unknown, not zero).",
    ),
    Definition(
        "session-attainment",
        "Session attainment",
        "session attainment = sessions whose every turn met the limits ÷ sessions judged; "
        "Wilson interval at the chosen level",
        "A session (conversation, agent run) meets the SLO when every one of its turns "
        "succeeded and met each limit set (TTFT, TPOT, E2EL per turn, as a request does in "
        "per-request mode). A session whose turns seen do not run 0, 1, … k without a gap "
        "began before the profiled window or lost turns to it: it is cut, counted apart and "
        "never judged. Example: 100 sessions of 3 turns; 80 meet every turn, 10 have a slow "
        "second turn, 5 a failed third turn, 5 lack their first turn → 80 of 95 judged = "
        "84.2 %, 95 % Wilson interval 75.6 % – 90.2 %, 5 cut. Read at the read-off's operating "
        "point (`sessions` in every /api read-off result).",
    ),
    Definition(
        "ttft-by-turn",
        "TTFT by turn",
        "TTFT first = percentile of TTFT over successful turn-0 requests; TTFT later = the same "
        "over turns ≥ 1",
        "The first turn of a session prefills its whole prompt (cold); later turns reuse the "
        "session's prefix from the cache (warm), so they are shown apart. The percentile is the "
        "SLO's TTFT percentile when a TTFT limit is set, else the median. Example: first turns "
        "at 900 and 1,100 ms and later turns at 80 and 120 ms give a median first-turn TTFT of "
        "1,000 ms and a later-turn one of 100 ms (`turns` in every /api read-off result).",
    ),
    Definition(
        "agents-at-slo",
        "Agents at your SLO",
        "agents = max concurrency whose session attainment ≥ target; per GPU = agents ÷ GPUs; "
        "per MW = agents ÷ (GPUs × all-in kW per GPU ÷ 1000); per $/hour = agents ÷ (GPUs × "
        "$/GPU-hour)",
        "What AA-AgentPerf reports, at your own SLO: the most concurrent sessions the "
        "deployment serves with the target share of sessions meeting every limit. The "
        "conservative figure is the most whose Wilson lower end meets the target. Example: "
        "8 H100s at 1.4 kW all-in each, 64 concurrent sessions meeting 90 % → 8 per GPU and "
        "64 ÷ 0.0112 MW = 5,714 per MW; at $2.50/GPU-hour, 64 ÷ $20/hour = 3.2 per $/hour.",
    ),
    Definition(
        "plan-agents",
        "Plan: sized in concurrent sessions",
        "replicas = ⌈peak sessions × (1 + headroom) ÷ agents per replica⌉; conservative "
        "replicas = the same with the agents whose Wilson lower end meets the target",
        "A demand in concurrent sessions (agents) is served by replicas of a multi-turn sweep, "
        "each carrying its agents at your SLO. Example: a replica of 8 H100s holds 16 sessions "
        "with 80 of 95 judged sessions meeting every turn (84.2 %, Wilson 75.6 % – 90.2 %, "
        "target 80 %) but only 8 with the lower end at 80 %: 40 sessions with 25 % headroom "
        "need ⌈50 ÷ 16⌉ = 4 replicas (32 GPUs), or ⌈50 ÷ 8⌉ = 7 (56 GPUs) if the lower end "
        "must meet the target. A fixed-length sweep cannot be sized this way (unknown).",
    ),
)
