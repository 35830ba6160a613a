"""Plotly figure specs as plain dicts, built from service results; no web or database writes."""
