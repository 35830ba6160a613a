"""Compare: ratio curves, bands, intervals and the public record of two sweeps."""
