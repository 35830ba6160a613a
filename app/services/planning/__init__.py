"""Capacity plans: read-offs sized for a demand and priced per month."""
