"""Paretoscope: throughput-versus-interactivity Pareto analysis of LLM inference sweeps."""

__version__ = "0.1.0"
