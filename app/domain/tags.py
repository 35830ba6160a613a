"""Sweep tags (`baseline:main`, `nightly`): what a tag may be, and how a field of them splits."""

from __future__ import annotations

import re

TAG_MAX_CHARS = 64
MAX_TAGS_PER_SWEEP = 32
# Letters, digits and . _ : @ + - : fits a URL path segment as is, and no tag is all digits,
# so a reference to a sweep by id never names a tag.
_TAG = re.compile(r"[A-Za-z0-9._:@+-]+")
_SPLIT = re.compile(r"[\s,]+")


def tag_problem(tag: str) -> str | None:
    """Why `tag` cannot be a tag, or None when it can."""
    if not tag:
        return "a tag cannot be empty"
    shown = repr(tag if len(tag) <= 40 else tag[:40] + "…")
    if len(tag) > TAG_MAX_CHARS:
        return f"{shown} is longer than {TAG_MAX_CHARS} characters"
    if not _TAG.fullmatch(tag):
        return f"{shown} may hold only letters, digits and . _ : @ + -"
    if tag.isdigit():
        return f"{shown} is all digits, which names a sweep by id"
    return None


def split_tags(values: list[str]) -> list[str]:
    """Tags from form values, each value split on commas and spaces; repeats dropped, order kept."""
    tags = [t for value in values for t in _SPLIT.split(value.strip()) if t]
    return list(dict.fromkeys(tags))
