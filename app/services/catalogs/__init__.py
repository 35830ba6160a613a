"""The hardware catalog and model specs: writes, deletes, checks."""
