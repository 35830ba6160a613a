"""A vendor claim against physics (metrics-and-costs §5.4): the verdict with its arithmetic.

Pure math: imports only the standard library and app.domain (no web, database or settings).
"""

from __future__ import annotations

from app.domain.claim_work import Physics, Verdict, Work
from app.domain.claims import (
    DEFAULT_ACCEPTED_LENGTH,
    Claim,
    claim_context,
    fmt,
    output_share,
    per_gpu_tok_s,
    spec_decode_state,
    weight_precision,
)
from app.domain.numbers import fmt_count
from app.domain.roofline import (
    DecodeStep,
    Deployment,
    HardwareSpec,
    ModelArch,
    bytes_per_param,
    compute_bound_tok_s,
    expert_coverage,
    kv_bytes_per_token,
    max_batch,
    moe_split_params,
    required_bandwidth_tb_s,
)


def check_physics(
    claim: Claim,
    arch: ModelArch | None,
    hw: HardwareSpec | None,
    *,
    missing: tuple[str, ...] = (),
    accepted_length: float | None = None,
    kv_precision: str = "bf16",
    bw_efficiency: float = 1.0,
    mem_frac: float = 0.9,
) -> Physics:
    """Per-user claims against the per-user ceiling; aggregate ones against B_max and compute."""
    if missing or arch is None or hw is None:
        gaps = missing or ("model spec" if arch is None else "hardware spec",)
        return Physics("cannot check", f"cannot check (missing: {', '.join(gaps)})", gaps)
    precision = weight_precision(claim.precision)
    ctx = claim_context(claim.isl, claim.osl)
    work = Work(ctx, precision or "fp4", kv_precision, claim.scope_gpus, bw_efficiency, mem_frac)
    if precision is None:
        work.assumptions.append(
            "precision not stated: fp4 weights assumed (0.5 B/param, the most generous reading)"
        )
    if claim.isl is None and claim.osl is None:
        work.assumptions.append(f"ISL/OSL not stated: a {ctx.step_tokens:,}-token context")
    if not _fit_gpus(claim, arch, hw, work):
        usable = claim.scope_gpus * hw.memory_gb * mem_frac
        weights = arch.total_params * bytes_per_param(work.precision) / 1e9
        return work.done(
            "impossible",
            f"impossible: the weights alone take {fmt(weights, 4)} GB, more than"
            f" {claim.scope_gpus} × {fmt(hw.memory_gb)} GB × {mem_frac:g} = {fmt(usable, 4)} GB",
        )
    if claim.measures == "per_user":
        return _per_user(claim, arch, hw, accepted_length, work)
    return _aggregate(claim, arch, hw, accepted_length, work)


def _fit_gpus(claim: Claim, arch: ModelArch, hw: HardwareSpec, work: Work) -> bool:
    """Whether weights and one sequence fit; a per-GPU claim may come from a bigger deployment."""

    def fits(gpus: int) -> bool:
        return _b_max(arch, hw, work, gpus) >= 1

    if fits(claim.scope_gpus):
        return True
    if claim.measures == "per_gpu" and claim.gpu_scope == "gpu":
        for gpus in (2, 4, 8, 16, 32, 64, 72, 128, 256):
            if fits(gpus):
                work.gpus = gpus
                work.assumptions.append(
                    f"the weights do not fit on 1 GPU: a {gpus}-GPU deployment assumed"
                    " (the fewest whose memory holds them)"
                )
                return True
    return False


def _b_max(arch: ModelArch, hw: HardwareSpec, work: Work, gpus: int) -> int:
    deployment = Deployment(work.precision, work.kv_precision, gpus, mem_frac=work.mem_frac)
    return max_batch(arch, hw, max(work.ctx.capacity_tokens, 1), deployment)


def _weight_bytes(arch: ModelArch, batch: int, precision: str) -> tuple[float, str]:
    """Weight bytes read per step at `batch` and the formula behind them."""
    b = bytes_per_param(precision)
    shared, routed = moe_split_params(arch)
    if routed and arch.experts and arch.top_k:
        cover = expert_coverage(batch, arch.experts, arch.top_k)
        how = (
            f"(shared {fmt(shared / 1e9, 4)}e9 + coverage {fmt(cover, 5)} × routed"
            f" {fmt(routed / 1e9, 4)}e9) params × {b:g} B ({precision}); coverage ="
            f" 1 − (1 − {arch.top_k}/{arch.experts})^{batch}"
        )
        return (shared + cover * routed) * b, how
    return arch.total_params * b, f"{fmt(arch.total_params / 1e9)}e9 params × {b:g} B ({precision})"


def _kv_formula(arch: ModelArch, b: float) -> str:
    if arch.is_mla:
        return f"{arch.layers} layers × ({arch.kv_lora_rank} + {arch.rope_dim}) × {b:g} B"
    return f"2 × {arch.layers} layers × {arch.kv_heads} KV heads × {arch.head_dim} × {b:g} B"


def _step_lines(arch: ModelArch, hw: HardwareSpec, batch: int, work: Work) -> DecodeStep:
    """Writes bytes, bandwidth and times of one decode step at `batch`."""
    phases = arch.phase_words()
    if phases is not None:
        # Issue 50: a decode step reads the decode phase's active weights, not prefill's.
        work.add(
            "Active parameters by phase",
            f"{phases}: decode's used here",
            arch.decode_active_params / 1e9,
            "B params",
        )
    weights, how = _weight_bytes(arch, batch, work.precision)
    work.add("Weights read per step", how, weights / 1e9, "GB")
    b = bytes_per_param(work.kv_precision)
    kv = kv_bytes_per_token(arch, b)
    work.add("KV cache per token", f"{_kv_formula(arch, b)} ({work.kv_precision})", kv, "B/token")
    ctx = work.ctx.step_tokens
    kv_total = batch * ctx * kv
    work.add(
        "KV read per step",
        f"{fmt_count(batch, 'sequence')} × {ctx:,} tokens × {fmt(kv)} B",
        kv_total / 1e9,
        "GB",
    )
    step = work.step(arch, hw, batch)
    work.add(
        "Bytes read per step",
        f"{fmt(weights / 1e9)} GB + {fmt(kv_total / 1e9)} GB",
        step.bytes_per_step / 1e9,
        "GB",
    )
    bw = work.gpus * hw.mem_bw_tb_s * work.bw_efficiency
    eff = f" × η {work.bw_efficiency:g}" if work.bw_efficiency != 1 else ""
    work.add(
        "Memory bandwidth",
        f"{fmt_count(work.gpus, 'GPU')} × {fmt(hw.mem_bw_tb_s)} TB/s{eff}",
        bw,
        "TB/s",
    )
    work.add(
        "Memory time per step",
        f"{fmt(step.bytes_per_step / 1e9)} GB ÷ {fmt(bw)} TB/s",
        step.memory_s * 1e3,
        "ms",
    )
    tflops = hw.tflops(work.precision)
    if tflops:
        work.add(
            "Compute time per step",
            f"{fmt(step.flops_per_step / 1e12)} TFLOP (2 × active params × {batch:,} + attention)"
            f" ÷ ({work.gpus} × {fmt(tflops)} TFLOPS)",
            step.compute_s * 1e3,
            "ms",
        )
    work.add(
        "Step time (lower bound)",
        f"max(memory, compute): {step.bound}-bound",
        step.step_s * 1e3,
        "ms",
    )
    return step


def _per_user(
    claim: Claim, arch: ModelArch, hw: HardwareSpec, accepted: float | None, work: Work
) -> Physics:
    share = output_share(claim)
    if share is None:
        gap = "ISL/OSL, to tell output tokens from input tokens"
        return Physics("cannot check", f"cannot check (missing: {gap})", (gap,), context=work.ctx)
    batch = claim.batch or 1
    step = _step_lines(arch, hw, batch, work)
    ceiling = step.interactivity_tok_s_user
    work.add("Per-user ceiling", f"1 token ÷ {fmt(step.step_s * 1e3)} ms", ceiling, "tok/s/user")
    value = claim.value_tok_s * share
    how = "as claimed" if share == 1 else f"{fmt(claim.value_tok_s)} × output share {fmt(share, 4)}"
    work.add("Claim", how, value, "tok/s/user")
    numbers: dict[str, float | int | str | None] = {
        "compared_tok_s": value,
        "compared_as": f"output tok/s per user at batch {batch}",
        "ceiling_tok_s_user": ceiling,
        "ceiling_batch": batch,
    }
    if value <= ceiling:
        text = (
            f"physically possible: {fmt(value, 5)} ≤ {fmt(ceiling, 4)} tok/s/user at batch {batch}"
        )
        return work.done("physically possible", text, **numbers)
    weights, _ = _weight_bytes(arch, batch, work.precision)
    needed_bw = required_bandwidth_tb_s(weights, value)
    work.add(
        "Bandwidth needed for the claim",
        f"{fmt(weights / 1e9)} GB of weights × {fmt(value)} steps/s (KV not even counted)",
        needed_bw,
        "TB/s",
    )
    factor = value / ceiling
    work.add(
        "Speculative acceptance needed", f"{fmt(value)} ÷ {fmt(ceiling, 4)}", factor, "tokens/step"
    )
    numbers.update(required_bandwidth_tb_s=needed_bw, required_accepted_length=factor)
    verdict, text = _spec_verdict(claim, factor, accepted, needed_bw, work.gpus * hw.mem_bw_tb_s)
    return work.done(verdict, text, **numbers)


def _aggregate(
    claim: Claim, arch: ModelArch, hw: HardwareSpec, accepted: float | None, work: Work
) -> Physics:
    gpus = work.gpus
    per_gpu, _ = per_gpu_tok_s(claim)
    total = per_gpu * gpus
    if claim.measures == "system" and gpus == claim.scope_gpus:
        how = f"as claimed for {fmt_count(gpus, 'GPU')}"
    else:
        how = f"{fmt(per_gpu)} tok/s per GPU × {fmt_count(gpus, 'GPU')}"
    work.add("Claim, all GPUs", how, total, f"{claim.token_basis} tok/s")
    b_max = _b_max(arch, hw, work, gpus)
    kv = kv_bytes_per_token(arch, bytes_per_param(work.kv_precision))
    weights = arch.total_params * bytes_per_param(work.precision) / 1e9
    work.add(
        "Largest batch in memory (B_max)",
        f"floor(({gpus} × {fmt(hw.memory_gb)} GB × {work.mem_frac:g} − {fmt(weights)} GB"
        f" weights) ÷ ({work.ctx.capacity_tokens:,} tokens × {fmt(kv)} B))",
        float(b_max),
        "sequences",
    )
    numbers: dict[str, float | int | str | None] = {"b_max": b_max}
    compute = compute_bound_tok_s(arch, hw, work.precision, gpus)
    if compute is not None:
        numbers["compute_bound_tok_s"] = compute
        work.add(
            "Compute bound",
            f"{gpus} × {fmt(hw.tflops(work.precision) or 0)} TFLOPS ÷ (2 ×"
            f" {fmt(arch.decode_active_params / 1e9)}e9 active params"
            f"{' in decode' if arch.phase_words() else ''})",
            compute,
            "tok/s",
        )
    batch = _aggregate_batch(claim, arch, hw, b_max, work)
    if batch == 0:
        speed = fmt(claim.interactivity_tok_s_user or 0)
        return work.done(
            "impossible", f"impossible: not even one user gets {speed} tok/s/user here", **numbers
        )
    step = _step_lines(arch, hw, batch, work)
    ceiling = step.aggregate_tok_s
    work.add(
        "Aggregate ceiling", f"{batch:,} × 1 token ÷ {fmt(step.step_s * 1e3)} ms", ceiling, "tok/s"
    )
    numbers.update(
        ceiling_tok_s=ceiling, ceiling_batch=batch, ceiling_tok_s_user=step.interactivity_tok_s_user
    )
    numbers.update(
        compared_tok_s=total, compared_as=f"{claim.token_basis} tok/s over {fmt_count(gpus, 'GPU')}"
    )
    if compute is not None and total > compute:
        text = (
            f"impossible: {fmt(total, 5)} tok/s exceeds the compute bound {fmt(compute, 5)} tok/s"
        )
        return work.done("impossible", text, **numbers)
    share = output_share(claim)
    if share is None:
        work.assumptions.append(
            "the claim counts input + output tokens and gives no ISL/OSL: only the compute bound"
            " applies"
        )
        text = f"physically possible: {fmt(total, 5)} ≤ compute bound {fmt(compute or 0, 5)} tok/s"
        return work.done("physically possible", text, **numbers)
    output = total * share
    if share != 1:
        work.add("Output tokens of the claim", f"{fmt(total)} × {fmt(share, 4)}", output, "tok/s")
    numbers.update(compared_tok_s=output, compared_as=f"output tok/s over {fmt_count(gpus, 'GPU')}")
    if output <= ceiling:
        text = (
            f"physically possible: {fmt(output, 5)} ≤ {fmt(ceiling, 5)} tok/s at batch {batch:,}"
            f" (B_max {b_max:,})"
        )
        return work.done("physically possible", text, **numbers)
    factor = output / ceiling
    work.add(
        "Speculative acceptance needed", f"{fmt(output)} ÷ {fmt(ceiling)}", factor, "tokens/step"
    )
    numbers["required_accepted_length"] = factor
    verdict, text = _spec_verdict(claim, factor, accepted, None, gpus * hw.mem_bw_tb_s)
    return work.done(verdict, text, **numbers)


def _aggregate_batch(
    claim: Claim, arch: ModelArch, hw: HardwareSpec, b_max: int, work: Work
) -> int:
    """Batch to check at: the stated one, else the largest that fits and keeps the stated speed."""
    top = b_max
    if claim.batch is not None and claim.batch <= b_max:
        top = claim.batch
    elif claim.batch is not None:
        work.assumptions.append(
            f"the stated batch {claim.batch:,} exceeds B_max {b_max:,}: checked at B_max"
        )
    target = claim.interactivity_tok_s_user
    if target is None:
        return top
    if work.step(arch, hw, 1).interactivity_tok_s_user < target:
        return 0
    low, high = 1, top  # per-user speed falls as the batch grows: bisect for the last ≥ target
    while low < high:
        mid = (low + high + 1) // 2
        if work.step(arch, hw, mid).interactivity_tok_s_user >= target:
            low = mid
        else:
            high = mid - 1
    if low < top:
        work.assumptions.append(
            f"at {fmt(target)} tok/s/user at most {low:,} users fit in one step time"
        )
    return low


def _spec_verdict(
    claim: Claim, factor: float, accepted: float | None, needed_bw: float | None, bw: float
) -> tuple[Verdict, str]:
    """Above the ceiling: only more tokens per step (speculative decoding) could explain it."""
    state = spec_decode_state(claim.spec_decode)
    allowed = accepted or DEFAULT_ACCEPTED_LENGTH
    need = f"; it needs {fmt(needed_bw, 4)} TB/s, not {fmt(bw, 4)} TB/s" if needed_bw else ""
    if state == "none":
        return "impossible", f"impossible: above the ceiling and speculative decoding is off{need}"
    if factor <= allowed:
        said = "stated" if state == "stated" else "not stated: ask"
        return (
            "possible only with speculative decoding",
            f"possible only with speculative decoding accepting ≥ {fmt(factor, 3)} tokens per"
            f" step ({said})",
        )
    return (
        "impossible",
        f"impossible without ~{factor:.0f}× speculative acceptance (more than the {allowed:g}"
        f" tokens per step allowed){need}",
    )
