"""One read-off: its query, figures (energy, intervals, prices per column) and document."""
