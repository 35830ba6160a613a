"""Storage: the engine, the ORM models, migrations and data access (functions of a Session)."""
