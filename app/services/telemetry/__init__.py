"""Production telemetry: windows in, reports beside a benchmark frontier."""
