"""Pure domain math: no web, no database, no settings imports. Units live in names."""
