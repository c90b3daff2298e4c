"""Slurm hostlist expressions ("gpu-[001-004,010],login1") expanded to host names, as Slurm's
`scontrol show hostnames` does: commas inside brackets are ranges, outside they separate names;
a range keeps its low bound's zero padding; several bracket groups in one name multiply."""

from __future__ import annotations

import re

from netopsai.errors import NetopsError

MAX_HOSTS = 1_000_000  # a typo like [1-999999999] must not take the machine's memory
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def split_top(text: str) -> list[str]:
    """Split at the commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise NetopsError(f"bad hostlist {text!r}: nested brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise NetopsError(f"bad hostlist {text!r}: ']' without '['")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise NetopsError(f"bad hostlist {text!r}: '[' without ']'")
    return [p.strip() for p in [*parts, cur] if p.strip()]


def _numbers(body: str, text: str) -> list[str]:
    out: list[str] = []
    for part in body.split(","):
        m = _RANGE.match(part.strip())
        if not m:
            raise NetopsError(f"bad hostlist {text!r}: range {part!r} is not N or N-M")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise NetopsError(f"bad hostlist {text!r}: range {part!r} runs backwards")
        if int(hi) - int(lo) >= MAX_HOSTS:
            raise NetopsError(f"bad hostlist {text!r}: range {part!r} is too large")
        out += [f"{n:0{len(lo)}d}" for n in range(int(lo), int(hi) + 1)]
    return out


def _expand_one(name: str, text: str) -> list[str]:
    m = re.search(r"\[([^\]]*)\]", name)
    if not m:
        return [name]
    head, tail = name[:m.start()], name[m.end():]
    rest = _expand_one(tail, text)
    out = [f"{head}{n}{r}" for n in _numbers(m.group(1), text) for r in rest]
    if len(out) > MAX_HOSTS:
        raise NetopsError(f"bad hostlist {text!r}: more than {MAX_HOSTS} hosts")
    return out


def expand(text: str) -> list[str]:
    """Host names in order, duplicates dropped; '' / 'None assigned' / '(null)' are none."""
    text = text.strip()
    if not text or text.lower() in ("none assigned", "(null)", "none"):
        return []
    seen: dict[str, None] = {}
    for part in split_top(text):
        for host in _expand_one(part, text):
            seen.setdefault(host)
    return list(seen)


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
