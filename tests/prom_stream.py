"""A synthetic request stream written two ways: per-request records, and the Prometheus text a
vLLM V1 server would expose at any moment of it (its real bucket bounds, counted on finish).

Shared by the histograms-against-records oracle and the test exporter a real Prometheus scrapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# vLLM V1's bucket bounds (vllm/v1/metrics/loggers.py), seconds.
TTFT_S = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)  # fmt: skip
TPOT_S = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0)  # fmt: skip
E2EL_S = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
          120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)  # fmt: skip
HISTOGRAMS = (
    ("vllm:time_to_first_token_seconds", "ttft_s", TTFT_S),
    ("vllm:request_time_per_output_token_seconds", "tpot_s", TPOT_S),
    ("vllm:e2e_request_latency_seconds", "e2el_s", E2EL_S),
)


@dataclass(frozen=True)
class Stream:
    """Requests as columns; time 0 is the stream's start (add `origin_s` for Unix time)."""

    arrival_s: np.ndarray
    ttft_s: np.ndarray
    tpot_s: np.ndarray
    output_len: np.ndarray
    input_len: np.ndarray
    engine: np.ndarray  # 0 or 1: two data-parallel engines, each its own series

    @property
    def e2el_s(self) -> np.ndarray:
        return np.asarray(self.ttft_s + self.tpot_s * (self.output_len - 1))

    @property
    def finish_s(self) -> np.ndarray:
        return np.asarray(self.arrival_s + self.e2el_s)

    def finished(self, t0: float, t1: float) -> np.ndarray:
        """The records of a window: requests that finished in (t0, t1]."""
        f = self.finish_s
        return (f > t0) & (f <= t1)

    def exposition(self, t: float, *, model: str = "m", scraped_at: float | None = None) -> str:
        """/metrics at time t: everything that finished by t counted, the running gauge read."""
        lines = [] if scraped_at is None else [f"# scraped_at {scraped_at!r}"]
        done = self.finish_s <= t
        running = (self.arrival_s <= t) & ~done
        for name, column, bounds in HISTOGRAMS:
            lines.append(f"# TYPE {name} histogram")
            values = getattr(self, column)
            for engine in (0, 1):
                mine = values[done & (self.engine == engine)]
                base = f'engine="{engine}",model_name="{model}"'
                for le in bounds:
                    lines.append(f'{name}_bucket{{{base},le="{le}"}} {float((mine <= le).sum())}')
                lines.append(f'{name}_bucket{{{base},le="+Inf"}} {float(mine.size)}')
                lines.append(f"{name}_count{{{base}}} {float(mine.size)}")
                lines.append(f"{name}_sum{{{base}}} {float(mine.sum())!r}")
        for name, column in (
            ("vllm:generation_tokens_total", "output_len"),
            ("vllm:prompt_tokens_total", "input_len"),
        ):
            lines.append(f"# TYPE {name} counter")
            for engine in (0, 1):
                tokens = getattr(self, column)[done & (self.engine == engine)].sum()
                lines.append(f'{name}{{engine="{engine}",model_name="{model}"}} {float(tokens)}')
        lines.append("# TYPE vllm:num_requests_running gauge")
        for engine in (0, 1):
            count = (running & (self.engine == engine)).sum()
            labels = f'engine="{engine}",model_name="{model}"'
            lines.append(f"vllm:num_requests_running{{{labels}}} {float(count)}")
        return "\n".join(lines) + "\n"


def make_stream(n: int = 3000, duration_s: float = 900.0, seed: int = 36) -> Stream:
    rng = np.random.default_rng(seed)
    return Stream(
        arrival_s=np.sort(rng.uniform(0, duration_s, n)),
        ttft_s=rng.lognormal(np.log(0.3), 0.8, n),
        tpot_s=rng.lognormal(np.log(0.03), 0.4, n),
        output_len=rng.integers(16, 600, n).astype(float),
        input_len=rng.integers(64, 4000, n).astype(float),
        engine=rng.integers(0, 2, n),
    )
