"""Run every benchmark and print one line per target: measured, baseline, ratio, verdict."""

from __future__ import annotations

import sys

from bench import explore_size, import_speed, readoff_speed, request_goodput_speed


def main() -> int:
    results = [
        *readoff_speed.run(),
        *request_goodput_speed.run(),
        *explore_size.run(),
        *import_speed.run(),
    ]
    width = max(len(r.name) for r in results)
    failed = 0
    for r in results:
        verdict = "ok" if r.ok else "MISSED"
        failed += not r.ok
        print(
            f"{r.name:<{width}}  {r.value:>12,.3f} {r.unit:<3}  target ≤ {r.target:,.3f}  "
            f"baseline {r.baseline_name} {r.baseline:,.3f} {r.unit}  "
            f"ratio {r.ratio:,.2f}×  {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
