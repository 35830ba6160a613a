"""vLLM `bench serve`'s speculative-decoding results as covariates (issue 37).

With a speculative model behind a vLLM server, bench serve reads the server's spec-decode
counters before and after the run and writes (vllm/benchmarks/serve.py `spec_decode_*`):
`spec_decode_num_drafts`, `spec_decode_draft_tokens`, `spec_decode_accepted_tokens`,
`spec_decode_acceptance_rate` (accepted ÷ draft tokens × 100: a PERCENTAGE),
`spec_decode_acceptance_length` (1 + accepted tokens ÷ drafts: tokens per decode step, the
verified one included) and `spec_decode_per_position_acceptance_rates`. All stay in the point's
extra fields as written; the acceptance rate (a fraction, from the two counts when both are
given) and the mean acceptance length are also kept as the point's covariates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.covariates import ACCEPTANCE_LENGTH, ACCEPTANCE_RATE
from app.domain.numbers import finite_number


def spec_decode_covariates(data: Mapping[str, Any]) -> dict[str, float]:
    """The covariates a vLLM result's spec_decode_* keys give; {} when it has none."""
    out: dict[str, float] = {}
    draft, accepted = finite_number(data.get("spec_decode_draft_tokens")), None
    if draft is not None and draft > 0:
        accepted = finite_number(data.get("spec_decode_accepted_tokens"))
    percent = finite_number(data.get("spec_decode_acceptance_rate"))
    if accepted is not None and draft is not None and 0 <= accepted <= draft:
        out[ACCEPTANCE_RATE] = accepted / draft
    elif percent is not None and 0 <= percent <= 100:
        out[ACCEPTANCE_RATE] = percent / 100
    length = finite_number(data.get("spec_decode_acceptance_length"))
    if length is not None and length >= 1:
        out[ACCEPTANCE_LENGTH] = length
    return out
