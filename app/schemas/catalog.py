"""HardwareIn and ModelSpecIn: catalog rows as they cross the API or a form, checked per field."""

from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator, model_validator

from app.schemas.bounds import not_tiny
from app.schemas.text import StorableText

# Keys appear in URLs, CSV cells and price-set names: letters, digits, dot, dash, underscore.
HARDWARE_KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$"
MODEL_KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"

HARDWARE_NUMBER_FIELDS: tuple[str, ...] = (
    "memory_gb",
    "mem_bw_tb_s",
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "tdp_w",
    "allin_kw",
    "gpus_per_node",
)
MODEL_NUMBER_FIELDS: tuple[str, ...] = (
    "total_params_b",
    "active_params_b",
    "prefill_active_params_b",
    "decode_active_params_b",
)
MODEL_INT_FIELDS: tuple[str, ...] = (
    "layers",
    "d_model",
    "kv_heads",
    "head_dim",
    "kv_lora_rank",
    "rope_dim",
    "experts",
    "top_k",
)


def _positive(description: str) -> float | None:
    return Field(default=None, gt=0, le=1e7, allow_inf_nan=False, description=description)


class HardwareIn(StorableText):
    """One GPU of the catalog; every figure optional (missing is unknown, never 0)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    key: str = Field(pattern=HARDWARE_KEY_PATTERN, description="short key, e.g. H100PCIE")
    name: str = Field(min_length=1, max_length=200, description="full name, e.g. NVIDIA H100 PCIe")
    vendor: str | None = Field(default=None, max_length=50)
    memory_gb: float | None = _positive("usable memory per GPU, GB")
    memory_kind: str | None = Field(default=None, max_length=50, description="HBM3e, GDDR6, …")
    mem_bw_tb_s: float | None = _positive("memory bandwidth per GPU, TB/s")
    bf16_tflops: float | None = _positive("dense BF16 tensor TFLOPS")
    fp8_tflops: float | None = _positive("dense FP8 tensor TFLOPS")
    fp4_tflops: float | None = _positive("dense FP4 tensor TFLOPS")
    tdp_w: float | None = _positive("board power, W")
    allin_kw: float | None = _positive("all-in provisioned kW per GPU (host, network, facility)")
    gpus_per_node: int | None = Field(
        default=None, ge=1, le=1024, description="GPUs per node (throughput per node)"
    )
    aliases: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="other names tools write for this GPU, e.g. 'NVIDIA H100 PCIe'",
    )
    source: str | None = Field(default=None, max_length=4000)

    _tiny = field_validator(*HARDWARE_NUMBER_FIELDS[:-1])(not_tiny)

    @field_validator("aliases", mode="before")
    @classmethod
    def _split_text(cls, value: object) -> object:
        # A form sends one text field: one alias per line, or separated by "|".
        if isinstance(value, str):
            return value.replace("\n", "|").split("|")
        return value

    @field_validator("aliases")
    @classmethod
    def _clean_aliases(cls, value: list[str]) -> list[str]:
        out = [a.strip() for a in value if a and a.strip()]
        too_long = [a for a in out if len(a) > 100]
        if too_long:
            raise ValueError(f"an alias is at most 100 characters: {too_long[0][:40]!r}…")
        return list(dict.fromkeys(out))


class ModelSpecIn(StorableText):
    """A model's shape for the physics limits; parameters in billions."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    key: str = Field(pattern=MODEL_KEY_PATTERN, description="short key, e.g. llama-3.1-70b")
    name: str = Field(min_length=1, max_length=200, description="e.g. Llama 3.1 70B")
    total_params_b: float = Field(gt=0, le=100_000, allow_inf_nan=False)
    active_params_b: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        allow_inf_nan=False,
        description="MoE: active per token",
    )
    prefill_active_params_b: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        allow_inf_nan=False,
        description="active per prompt token in prefill, where it differs from decode",
    )
    decode_active_params_b: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        allow_inf_nan=False,
        description="active per token in decode, where it differs from prefill",
    )
    layers: int = Field(ge=1, le=10_000)
    d_model: int | None = Field(default=None, ge=1, le=1_000_000)
    kv_heads: int | None = Field(default=None, ge=1, le=10_000)
    head_dim: int | None = Field(default=None, ge=1, le=100_000)
    kv_lora_rank: int | None = Field(default=None, ge=1, le=100_000, description="MLA only")
    rope_dim: int | None = Field(default=None, ge=1, le=100_000, description="MLA only")
    experts: int | None = Field(default=None, ge=1, le=100_000, description="MoE routed experts")
    top_k: int | None = Field(default=None, ge=1, le=100_000, description="MoE experts per token")
    source: str | None = Field(default=None, max_length=4000)

    _tiny = field_validator(*MODEL_NUMBER_FIELDS)(not_tiny)

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpecIn:
        if self.active_params_b is None:
            self.active_params_b = self.total_params_b
        if self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b cannot exceed total_params_b")
        for name in ("prefill_active_params_b", "decode_active_params_b"):
            value = getattr(self, name)
            if value is not None and value > self.total_params_b:
                raise ValueError(f"{name} cannot exceed total_params_b")
        mla = self.kv_lora_rank is not None or self.rope_dim is not None
        if mla and (self.kv_lora_rank is None or self.rope_dim is None):
            raise ValueError("an MLA model needs both kv_lora_rank and rope_dim")
        if not mla and (self.kv_heads is None or self.head_dim is None):
            raise ValueError(
                "the KV cache size needs kv_heads and head_dim (or kv_lora_rank and rope_dim "
                "for an MLA model)"
            )
        if (self.experts is None) != (self.top_k is None):
            raise ValueError("a mixture-of-experts model needs both experts and top_k")
        if self.experts is not None and self.top_k is not None and self.top_k > self.experts:
            raise ValueError("top_k cannot exceed experts")
        return self
