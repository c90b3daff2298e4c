"""Slurm hostlist expressions ("gpu-[001-004,010],login1") expanded to host names, as Slurm's
`scontrol show hostnames` does: commas inside brackets are ranges, outside they separate names;
a range keeps its low bound's zero padding; several bracket groups in one name multiply.

Sized before built (issue 23, B2): an expression is parsed into its brackets' ranges, and the
number of names it stands for (the product of the bracket sizes, summed over the names) is
checked against a limit before a single name exists; `hosts` then yields them one at a time.
Three brackets of a thousand each are a billion names: refused in microseconds, not found by
the kernel's OOM killer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from netopsai.common.errors import NetopsError

MAX_HOSTS = 1_000_000  # per expression: a typo like [1-999999999] must not take the machine's memory
MAX_DIGITS = 18  # a host number longer than this is no host number (and int() of 5,000 digits raises)
# a host name is at most 253 characters (DNS), and a list of them is sized in bytes as well as
# names: 100,000 names of 4 KB each are 400 MB though "only" 100,000 names
MAX_NAME = 253
BYTES_PER_NAME = 64  # the byte budget of a list is its name limit times this
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
_BRACKET = re.compile(r"\[([^\]]*)\]")
NONE = ("none assigned", "(null)", "none")

Ranges = tuple[tuple[int, int, int], ...]  # (low, high, zero-padded width) of one bracket


@dataclass(frozen=True)
class Name:
    """One comma-separated name of an expression: literal pieces around its brackets."""

    pieces: tuple[str, ...]  # len(brackets) + 1 literals
    brackets: tuple[Ranges, ...]

    def size(self, limit: int) -> int:
        """How many names it stands for; stops counting past `limit` (so a billion-name typo
        costs a few multiplications, never a billion-digit number)."""
        n = 1
        for ranges in self.brackets:
            n *= sum(hi - lo + 1 for lo, hi, _ in ranges)
            if n > limit:
                return n
        return n

    def width(self) -> int:
        """The length of its longest name."""
        return sum(map(len, self.pieces)) + sum(
            max(max(len(str(hi)), width) for _, hi, width in ranges) for ranges in self.brackets)

    def names(self) -> Iterator[str]:
        """Its names in Slurm's order (the first bracket varies slowest), built one at a time
        (itertools.product would hold every bracket's numbers first)."""
        return _names(self.pieces, self.brackets, "")


def _names(pieces: tuple[str, ...], brackets: tuple[Ranges, ...], head: str) -> Iterator[str]:
    if not brackets:
        yield head + pieces[0]
        return
    for number in _numbers(brackets[0]):
        yield from _names(pieces[1:], brackets[1:], head + pieces[0] + number)


def _numbers(ranges: Ranges) -> Iterator[str]:
    return (f"{n:0{width}d}" for lo, hi, width in ranges for n in range(lo, hi + 1))


def split_top(text: str) -> list[str]:
    """Split at the commas outside brackets (one pass over the text)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise NetopsError(f"bad hostlist {_short(text)}: nested brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise NetopsError(f"bad hostlist {_short(text)}: ']' without '['")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise NetopsError(f"bad hostlist {_short(text)}: '[' without ']'")
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]


def _ranges(body: str, text: str) -> Ranges:
    out = []
    for part in body.split(","):
        m = _RANGE.match(part.strip())
        if not m:
            raise NetopsError(f"bad hostlist {_short(text)}: range {part.strip()[:20]!r} is not N or N-M")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if max(len(lo), len(hi)) > MAX_DIGITS:
            raise NetopsError(f"bad hostlist {_short(text)}: a host number has more than "
                              f"{MAX_DIGITS} digits")
        if int(hi) < int(lo):
            raise NetopsError(f"bad hostlist {_short(text)}: range {part.strip()!r} runs backwards")
        out.append((int(lo), int(hi), len(lo)))
    return tuple(out)


def _name(part: str, text: str) -> Name:
    pieces, brackets, at = [], [], 0
    for m in _BRACKET.finditer(part):
        pieces.append(part[at:m.start()])
        brackets.append(_ranges(m.group(1), text))
        at = m.end()
    name = Name((*pieces, part[at:]), tuple(brackets))
    if name.width() > MAX_NAME:
        raise NetopsError(f"bad hostlist {_short(text)}: a host name of more than {MAX_NAME} "
                          "characters")
    return name


def parse(text: str) -> list[Name]:
    """The names of an expression, parsed but not expanded ('' / 'None assigned' / '(null)':
    none). Bad syntax is a one-line NetopsError."""
    text = text.strip()
    if not text or text.lower() in NONE:
        return []
    return [_name(part, text) for part in split_top(text)]


def size(text: str, limit: int = MAX_HOSTS) -> int:
    """How many names `text` stands for, duplicates included, computed from the bracket sizes
    (a number above `limit` only says it is too many)."""
    return _total(parse(text), limit)


def _total(names: list[Name], limit: int) -> int:
    total = 0
    for name in names:
        total += name.size(limit - total)
        if total > limit:
            break
    return total


def hosts(text: str, limit: int = MAX_HOSTS) -> Iterator[str]:
    """The names of `text`, in order, duplicates dropped, built lazily after the whole
    expression is sized: more than `limit` names is a NetopsError before the first is built."""
    names = parse(text)
    if _total(names, limit) > limit:  # checked here, not at the first next()
        raise NetopsError(f"bad hostlist {_short(text)}: more than {limit:,} hosts")
    if sum(n.size(limit) * n.width() for n in names) > limit * BYTES_PER_NAME:
        raise NetopsError(f"bad hostlist {_short(text)}: more than "
                          f"{limit * BYTES_PER_NAME >> 20 or 1:,} MB of host names")
    return _unique(names)


def _unique(names: list[Name]) -> Iterator[str]:
    seen: set[str] = set()
    for name in names:
        for host in name.names():
            if host not in seen:
                seen.add(host)
                yield host


def expand(text: str, limit: int = MAX_HOSTS) -> list[str]:
    """Host names in order, duplicates dropped; '' / 'None assigned' / '(null)' are none."""
    return list(hosts(text, limit))


def _short(text: str) -> str:
    """The expression as an error quotes it: a 100 KB NodeList is not repeated whole."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


_TAIL = re.compile(r"^(.*?)(\d+)$")


def compress(names: list[str]) -> str:
    """Host names as a Slurm hostlist ("gpu-[001-004,010]"): the inverse of expand, for
    names that end in a number; the others are listed as they are."""
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for n in dict.fromkeys(names):
        m = _TAIL.match(n)
        if m:
            groups.setdefault((m.group(1), len(m.group(2))), []).append(int(m.group(2)))
        else:
            plain.append(n)
    out = []
    for (prefix, width), nums in groups.items():
        if len(nums) == 1:
            out.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        runs: list[list[int]] = []
        for x in sorted(set(nums)):
            if runs and x == runs[-1][-1] + 1:
                runs[-1].append(x)
            else:
                runs.append([x])
        body = ",".join(f"{r[0]:0{width}d}" + (f"-{r[-1]:0{width}d}" if len(r) > 1 else "")
                        for r in runs)
        out.append(f"{prefix}[{body}]")
    return ",".join(out + plain)
