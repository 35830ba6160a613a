"""Data access: functions of a Session; no web imports."""
