"""The claim verdict's rules, pure: which points reach the claim's interactivity, where a
per-user claim is read, and that only the claim's hardware judges."""

from __future__ import annotations

from app.domain.claim_verdict import SweepRead, best_reaching, claim_interactivity, verdict
from app.domain.claims import Claim


def _read(hardware: str, y: float | None, x: float | None = 60.0) -> SweepRead:
    return SweepRead(1, f"s-{hardware}", hardware, "m", hardware == "H100", True, y, x)


def test_only_measured_points_at_or_above_the_claims_interactivity_count() -> None:
    xs, ys = [20.0, 50.0, 80.0, None], [900.0, 400.0, 100.0, 5000.0]
    assert best_reaching(xs, ys, 50.0) == (400.0, 50.0)  # 50 reaches 50; no interpolation
    assert best_reaching(xs, ys, 50.01) == (100.0, 80.0)
    assert best_reaching(xs, ys, 81.0) == (None, None)  # never extrapolated


def test_a_per_user_claim_is_read_at_the_speed_it_claims() -> None:
    per_user = Claim(value_tok_s=120.0, measures="per_user", token_basis="output", batch=8)
    assert claim_interactivity(per_user) == 120.0
    aggregate = Claim(value_tok_s=3000.0, measures="per_gpu", token_basis="output")
    assert claim_interactivity(aggregate) is None


def test_a_faster_gpu_never_makes_a_claim_hold() -> None:
    found = verdict(1000.0, 50.0, "H100", [_read("H100", 400.0), _read("B200", 2000.0)])
    assert found.state == "does_not_hold" and found.ratio == 2.5
    assert found.sentence == (
        "does not hold: the best measured at 50 tok/s/user is 400 tok/s/GPU (s-H100, H100), "
        "2.5× below"
    )
    other_only = verdict(1000.0, 50.0, "H100", [_read("B200", 2000.0)])
    assert other_only.state == "cannot_say" and "on other hardware the best is 2,000" in (
        other_only.sentence
    )
