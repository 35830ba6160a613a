"""Physics of the shown systems: decode ceilings for sweeps and claims, and a claim's verdict.

Joins the catalogs (hardware, model specs) with the domain roofline; the charts draw the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.domain.claim_physics import check_physics
from app.domain.claim_work import Physics
from app.domain.claims import DEFAULT_CONTEXT, weight_precision
from app.domain.roofline import Deployment, HardwareSpec, ModelArch, RooflinePoint, roofline_curve
from app.domain.sweep_meta import SweepMeta
from app.services.analysis import SweepAnalysis
from app.store import catalog
from app.store import claims as claim_queries
from app.store.catalog_cache import Catalog
from app.store.models import ModelSpec, VendorClaim

MAX_CURVES = 8


@dataclass(frozen=True)
class Curve:
    """One ceiling curve: what it is for and its points (B = 1 … B_max)."""

    hardware: str
    gpus: int
    model: str
    precision: str
    kv_precision: str
    ctx: int
    points: list[RooflinePoint]

    @property
    def name(self) -> str:
        return (
            f"Physics limit · {self.hardware} × {self.gpus} · {self.model} {self.precision}"
            f" · ctx {self.ctx:,}"
        )


@dataclass(frozen=True)
class ShownPhysics:
    """What Explore draws beside the sweeps: ceilings (with the index of the sweep whose colour
    each takes), the claims to mark and each claim's physics verdict."""

    curves: list[tuple[int, Curve]]
    claims: list[VendorClaim]
    verdicts: Mapping[int, str]


def ceiling_curve(
    arch: ModelArch,
    hw: HardwareSpec,
    deployment: Deployment,
    *,
    hardware: str,
    model: str,
    ctx: int,
) -> Curve:
    points = roofline_curve(arch, hw, max(ctx, 1), deployment)
    d = deployment
    return Curve(hardware, d.num_gpus, model, d.weight_precision, d.kv_precision, ctx, points)


def physics_for(
    kept: Catalog,
    claim: VendorClaim,
    *,
    params_b: float | None = None,
    accepted_length: float | None = None,
    kv_precision: str = "bf16",
) -> Physics:
    """The claim against the roofline of its catalog hardware and matched model spec, both
    from the kept catalog (no query per claim: a list of claims reads the catalog once)."""
    row = kept.hardware_row(claim.hardware)
    hw = catalog.hardware_spec(row) if row else None
    spec = kept.model_spec(claim.model)
    missing = []
    if row is None:
        missing.append(f"hardware {claim.hardware!r} in the catalog")
    elif hw is None:
        missing.append(f"memory size and bandwidth of {row.key}")
    if not claim.model:
        missing.append("the model")
    elif spec is None:
        missing.append(f"a model spec for {claim.model!r} (add it on the Catalog page)")
    arch = None
    if spec is not None:
        try:
            arch = catalog.model_arch(spec, params_b)
        except ValueError as exc:
            missing.append(f"a consistent model spec for {spec.key} ({exc})")
    return check_physics(
        claim_queries.domain_claim(claim),
        arch,
        hw,
        missing=tuple(missing),
        accepted_length=accepted_length,
        kv_precision=kv_precision,
    )


def claim_ceiling(
    kept: Catalog,
    claim: VendorClaim,
    spec: ModelSpec | None,
    physics: Physics,
    params_b: float | None = None,
) -> Curve | None:
    """The ceiling of the claim's own deployment, when hardware, model and context are known."""
    row = kept.hardware_row(claim.hardware)
    hw = catalog.hardware_spec(row) if row else None
    if spec is None or hw is None or row is None or physics.context is None:
        return None
    deployment = Deployment(
        physics.weight_precision or "bf16", physics.kv_precision, physics.num_gpus
    )
    curve = ceiling_curve(
        catalog.model_arch(spec, params_b),
        hw,
        deployment,
        hardware=row.key,
        model=spec.key,
        ctx=physics.context.step_tokens,
    )
    return curve if curve.points else None


def shown_physics(
    kept: Catalog,
    results: list[SweepAnalysis],
    *,
    model: str | None,
    precision: str | None,
    ctx: int | None,
    claims_mode: str,
) -> ShownPhysics:
    """Ceilings per hardware × GPU count of the shown sweeps, and the claims to mark, from the
    kept catalog's claims, hardware and model specs (no query).

    Worked examples (claims flagged `example`) are shown only in "examples" mode: they are
    teaching material, not anyone's claim, and would crowd the default chart.
    """
    curves = sweep_curves(kept, results, model, precision, ctx)
    if claims_mode == "none":
        return ShownPhysics(curves, [], {})
    pairs = [(str(r.meta.hardware), r.meta.model) for r in results]
    everything = claims_mode in ("all", "examples")
    claims = claim_queries.claims_among(kept.claims, pairs, everything=everything)
    if claims_mode != "examples":
        claims = [c for c in claims if not c.example]
    verdicts = {c.id: physics_for(kept, c).verdict for c in claims}
    return ShownPhysics(curves, claims, verdicts)


def sweep_curves(
    kept: Catalog,
    results: list[SweepAnalysis],
    model: str | None,
    precision: str | None,
    ctx: int | None,
) -> list[tuple[int, Curve]]:
    """One curve per distinct hardware × GPUs × precision × context, coloured as its sweep."""
    spec = kept.model_spec(model)
    if spec is None:
        return []
    arch = catalog.model_arch(spec)
    curves: list[tuple[int, Curve]] = []
    seen: set[tuple[str, int, str, int]] = set()
    for i, result in enumerate(results):
        meta = result.meta
        row = kept.hardware_row(meta.hardware)
        hw = catalog.hardware_spec(row) if row else None
        if row is None or hw is None:
            continue
        weights = precision or weight_precision(meta.precision) or "bf16"
        context = ctx or _sweep_context(meta)
        key = (row.key, meta.num_gpus, weights, context)
        if key in seen or len(curves) >= MAX_CURVES:
            continue
        seen.add(key)
        deployment = Deployment(weights, num_gpus=meta.num_gpus)
        curve = ceiling_curve(arch, hw, deployment, hardware=row.key, model=spec.key, ctx=context)
        if curve.points:
            curves.append((i, curve))
    return curves


def _sweep_context(meta: SweepMeta) -> int:
    isl, osl = meta.isl, meta.osl
    if isl is not None and osl is not None:
        return int(isl) + int(osl) // 2
    return DEFAULT_CONTEXT
