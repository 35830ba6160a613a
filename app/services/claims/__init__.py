"""Vendor claims: their verdicts and audits."""
