"""A GPU count suggested by what a results folder records when the result file does not say it:
the serve command in a `.commands` file beside the results (vLLM `--tensor-parallel-size 8`,
SGLang `--tp 8`), else `tp8` in every file name of the sweep.

Only a suggestion: the preview fills the GPU field with it and says where it came from, so the
user checks it before saving; a count the file or the user gives always wins. Nothing fuzzier
than an explicit parallel size: `dep16` or `8gpu` are not read, and commands that disagree
suggest nothing.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.ingest.parsed import ParsedSweep

COMMANDS_SUFFIX = ".commands"
MAX_COMMAND_LINES = 2000  # a `.commands` file holds a handful; more is not one
MAX_LINE_CHARS = 20_000
MAX_SIZE = 1024  # no parallel size beyond it is believed
# `tp8` as its own word of a file name: `…_mi355x_tp8_mtp_conc32.json`, `tp4-run1`.
TP_IN_NAME = re.compile(r"(?:^|[^a-z0-9])tp(\d{1,4})(?=[^a-z0-9]|$)", re.IGNORECASE)
# Flags, every spelling the CLIs accept (`-tp 8`, `--tp-size=8`, `--tensor_parallel_size 8`).
FLAGS = {
    "tp": ("-tp", "--tp", "--tp-size", "--tensor-parallel-size"),
    "pp": ("-pp", "--pp", "--pp-size", "--pipeline-parallel-size"),
    "dp": ("-dp", "--dp", "--dp-size", "--data-parallel-size"),
}
HINT_MARK = "GPUs: "  # how a suggestion's warning opens (dropped once the user gives a count)
SERVERS = ("vllm serve", "vllm.entrypoints", "sglang.launch_server", "sglang serve")


@dataclass(frozen=True)
class GpuHint:
    num_gpus: int
    why: str  # where it was read, for the preview's note

    def warning(self) -> str:
        return (
            f"{HINT_MARK}{self.num_gpus} suggested by {self.why} (the result file does not say how "
            "many GPUs served it): check it before saving"
        )


def command_hints(files: Iterable[tuple[str, str]]) -> dict[str, GpuHint]:
    """Per folder (its path with a trailing "/", "" for the top), the GPU count its `.commands`
    files' serve commands give; a folder whose commands disagree gets none."""
    found: dict[str, set[tuple[int, str]]] = {}
    for name, text in files:
        folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        for count, flags in _serve_counts(text):
            found.setdefault(folder, set()).add((count, f"`{flags}` in {name}"))
    hints: dict[str, GpuHint] = {}
    for folder, counts in found.items():
        if len({c for c, _ in counts}) == 1:
            count, why = sorted(counts)[0]
            hints[folder] = GpuHint(count, why)
    return hints


def suggest(sweep: ParsedSweep, hints: dict[str, GpuHint]) -> GpuHint | None:
    """The nearest folder's command count for the sweep's files, else `tp<N>` shared by every
    file name of the sweep; None when neither says."""
    # Importers list a sweep's files as "a, b" or "a (+3 more)"; the latter names only the first.
    listed = re.sub(r" \(\+\d+ more\)$", "", sweep.source_file)
    names = [n for n in listed.split(", ") if n]
    if not names:
        return None
    folders = {n.rsplit("/", 1)[0] + "/" if "/" in n else "" for n in names}
    if len(folders) == 1:
        [folder] = folders
        while True:
            if folder in hints:
                return hints[folder]
            if not folder:
                break
            folder = folder[:-1].rsplit("/", 1)[0] + "/" if "/" in folder[:-1] else ""
    sizes = {_tp_in_name(n) for n in names}
    if len(sizes) == 1:
        [size] = sizes
        if size is not None:
            return GpuHint(size, f"`tp{size}` in the file name")
    return None


def _tp_in_name(path: str) -> int | None:
    found = {int(m) for m in TP_IN_NAME.findall(path.rsplit("/", 1)[-1])}
    if len(found) != 1:
        return None
    [size] = found
    return size if 0 < size <= MAX_SIZE else None


def _serve_counts(text: str) -> list[tuple[int, str]]:
    """(GPUs, the flags read) of every vLLM or SGLang serve command in the text."""
    out: list[tuple[int, str]] = []
    for line in text.splitlines()[:MAX_COMMAND_LINES]:
        if len(line) > MAX_LINE_CHARS or not any(s in line for s in SERVERS):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # an unbalanced quote: not a command we can read
            continue
        sizes, read = _sizes(words)
        if "tp" not in sizes and "pp" not in sizes and "dp" not in sizes:
            continue
        # SGLang's DP attention splits attention over the tp GPUs: dp does not add GPUs there.
        if "--enable-dp-attention" in words and sizes.pop("dp", None) is not None:
            read.append("--enable-dp-attention")
        count = math.prod(sizes.values())
        if 0 < count <= MAX_SIZE:
            out.append((count, " ".join(read)))
    return out


def _sizes(words: Sequence[str]) -> tuple[dict[str, int], list[str]]:
    sizes: dict[str, int] = {}
    read: list[str] = []
    for i, word in enumerate(words):
        flag, _, value = word.partition("=")
        if not value and i + 1 < len(words):
            value = words[i + 1]
        for kind, spellings in FLAGS.items():
            if flag.replace("_", "-") in spellings and value.isdigit():
                sizes[kind] = int(value)
                read.append(f"{flag} {value}")
    return sizes, read


def is_hint(warning: str) -> bool:
    return warning.startswith(HINT_MARK) and " suggested by " in warning
