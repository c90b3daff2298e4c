"""User-facing errors: one line naming what was wrong and, where known, the closest valid value."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class NetopsError(Exception):
    """Bad input or an unusable request; front ends print str(err) as one line and exit non-zero."""


def closest(word: str, choices: Iterable[str], limit: int = 3) -> list[str]:
    """Closest valid names to `word` (rapidfuzz), best first."""
    from rapidfuzz import fuzz, process, utils

    pool = list(choices)
    hits = process.extract(word, pool, scorer=fuzz.WRatio, limit=limit, score_cutoff=50,
                           processor=utils.default_process)  # DC1 is dc1
    return [h[0] for h in hits]


class UnknownName(NetopsError):
    """An 'unknown X' error: what kind of name, and the word given (so a caller can retry it
    spelled as the inventory spells it)."""

    def __init__(self, message: str, kind: str, word: str) -> None:
        super().__init__(message)
        self.kind, self.word = kind, word


def unknown(kind: str, word: str, choices: Iterable[str]) -> UnknownName:
    """An 'unknown X' error with did-you-mean suggestions."""
    pool = list(choices)
    near = closest(word, pool)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    if not pool:  # an empty store, a device with no interfaces: "valid:" and nothing is no hint
        hint = "; none is known yet"
    elif not near and len(pool) <= 12:  # a short list of valid values is the best hint
        hint = f"; valid: {', '.join(pool)}"
    return UnknownName(f"unknown {kind} {word!r}{hint}", kind, word)


MAX_INPUT_BYTES = 256 << 20  # an input file read whole (a scenario, a jobs export, a history)


def read_text(path: Path, what: str) -> str:
    """An input file's text (UTF-8, a BOM allowed), or a one-line error naming the file and what
    is wrong with it: missing, a directory, unreadable, or not text at all."""
    if not path.exists():
        raise NetopsError(f"{what} not found: {path}")
    if path.is_dir():
        raise NetopsError(f"{what} {path} is a directory")
    if not path.is_file():  # /dev/zero, a FIFO: no end, or none worth waiting for
        raise NetopsError(f"{what} {path} is not a regular file")
    try:
        with path.open("rb") as f:  # sized before it is all in memory
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise NetopsError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise NetopsError(f"{what} {path} is larger than {MAX_INPUT_BYTES >> 20} MB; "
                          "split it and load the parts")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NetopsError(f"{what} {path} is not UTF-8 text") from None


class MalformedFile(NetopsError):
    """A data file that does not parse: where, the line and the parser's problem — never a
    snippet of the file (it may hold a secret)."""

    def __init__(self, where: str, kind: str, line: int | None, problem: str) -> None:
        self.line, self.problem = line, problem
        at = f" at line {line}" if line else ""
        super().__init__(f"{where}: malformed {kind}{at}: {problem}")


def parse_yaml(text: str, where: str) -> object:
    """Plain data from YAML text (safe: no tags that build objects), or a MalformedFile."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise MalformedFile(where, "YAML", mark.line + 1 if mark else None, problem) from None
    except RecursionError:
        raise MalformedFile(where, "YAML", None, "nested too deeply") from None


def parse_json(text: str, where: str) -> object:
    """Plain data from JSON text, or a MalformedFile."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedFile(where, "JSON", exc.lineno, exc.msg) from None
    except RecursionError:
        raise MalformedFile(where, "JSON", None, "nested too deeply") from None
