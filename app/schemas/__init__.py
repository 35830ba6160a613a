"""Validated input shapes (pydantic) for pricing profiles and vendor claims."""
