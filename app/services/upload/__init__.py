"""Uploads: parse, stage, check and store all or nothing; sweep details."""
