"""The tool contract: a typed function with a pydantic args model, returning Evidence and
never raising into the caller. The args model's field descriptions and the docstring are
what an LLM sees, so they are written for it."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError, UnknownName, unknown
from netopsai.common.registry import Registry
from netopsai.common.timewin import Window, parse_window
from netopsai.copilot.evidence import Evidence, failed

WINDOW_HELP = ('Time window: a duration ending now such as "1h", "24h", "7d", or '
               '{"start": ISO-8601, "end": ISO-8601}. Default: the last hour.')


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WindowArgs(ToolArgs):
    window: str | dict[str, str] | None = Field(default=None, description=WINDOW_HELP)

    def resolve(self, backends: Backends) -> Window:
        return parse_window(self.window, backends.inventory.clock(), zone=backends.zone)


ToolFn = Callable[[Any, Backends], Evidence]


def as_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A backend's typed rows (backends/base.py) as an Evidence table: the same objects."""
    return cast(list[dict[str, Any]], rows)


Shown = list[str] | dict[str, list[str]]


@dataclass(frozen=True)
class Tool:
    name: str
    args_model: type[ToolArgs]
    fn: ToolFn
    # the columns an answer's table shows (all of the Evidence's when empty); per metadata
    # query, a dict keyed by the query
    shown: Shown = field(default_factory=list)

    def shown_columns(self, ev: Evidence) -> list[str]:
        cols = self.shown.get(str(ev.facts.get("query")), []) if isinstance(self.shown, dict) \
            else self.shown
        return cols or ev.columns

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.fn.__doc__ or "")  # no source indentation in the LLM's text

    def schema(self) -> dict[str, Any]:
        """The function schema an LLM binds to, without pydantic's titles and null branches:
        it goes into every planner call, so every token counts."""
        return {"name": self.name, "description": self.description,
                "parameters": _compact(self.args_model.model_json_schema())}


def _compact(node: Any) -> Any:
    if isinstance(node, list):
        return [_compact(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _compact(v) for k, v in node.items() if k != "title"}
    branches = out.get("anyOf")
    if isinstance(branches, list):  # Optional[X]: the null branch says nothing a default doesn't
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1:
            out.pop("anyOf")
            out = {**kept[0], **out}
        else:
            out["anyOf"] = kept
    if out.get("default", 0) is None:
        out.pop("default")
    return out


def _tool_modules() -> list[str]:
    from netopsai.tools import tool_names

    return [f"netopsai.tools.{name}" for name in tool_names()]


def _tool_module(name: str) -> str | None:
    """The module a built-in tool lives in (named as the tool), found without importing the
    others; None for a name no tool module has (then the whole table is read, plugins too)."""
    from importlib.util import find_spec

    from netopsai.tools import NOT_TOOLS

    if not name.isidentifier() or name in NOT_TOOLS:
        return None
    module = f"netopsai.tools.{name}"
    spec = find_spec(module)
    return module if spec is not None and spec.submodule_search_locations is None else None


def _adopt(name: str, obj: object) -> list[tuple[str, Tool]]:
    """An entry point of `netopsai.tools` names a Tool, or a module (or function) whose import
    registered one with @tool."""
    return [(obj.name, obj)] if isinstance(obj, Tool) else []


# every tool, one module each found by file name (netopsai.tools.tool_names), which registers
# itself with @tool on import; a package installed from elsewhere through `netopsai.tools`
REGISTRY: Registry[str, Tool] = Registry("tool", "netopsai.tools", _tool_modules, _adopt, _tool_module)


def tool(name: str, args_model: type[ToolArgs], shown: Shown | None = None) -> Callable[[ToolFn], ToolFn]:
    """Register a tool: its args model and docstring are its LLM contract, `shown` the columns
    an answer's table shows."""
    def register(fn: ToolFn) -> ToolFn:
        REGISTRY.add(name, Tool(name, args_model, fn, shown or []))
        return fn
    return register


_UNION_TAG = re.compile(r"^(str|int|float|bool|dict\[.*\]|list\[.*\]|function-.*)$")


def validation_message(exc: ValidationError) -> str:
    err = exc.errors()[0]
    # pydantic puts union members in the location (window.str): keep only the field path
    loc = ".".join(str(x) for x in err["loc"] if not _UNION_TAG.match(str(x))) or "arguments"
    if err["type"] == "extra_forbidden":
        return f"unknown argument {loc!r}"
    return f"bad argument {loc}: {err['msg'].removeprefix('Value error, ')}"


def run_tool(name: str, args: dict[str, Any] | str, backends: Backends,
             evidence_id: str = "") -> Evidence:
    """Validate the arguments and call the tool; every failure comes back as Evidence.errors.
    `evidence_id` is minted by a Ledger (Copilot.tool, Toolbox); without one the evidence is
    unnumbered (a script or test reading rows), never given an id of its own."""
    if name not in REGISTRY:
        ev = failed(name, {}, str(unknown("tool", name, REGISTRY)))
    else:
        ev = _call(REGISTRY[name], args, backends)
    ev.id = evidence_id
    return ev


def _call(t: Tool, args: dict[str, Any] | str, backends: Backends) -> Evidence:
    raw: Any = args
    if isinstance(args, str):
        try:
            raw = json.loads(args or "{}")
        except json.JSONDecodeError as exc:
            return failed(t.name, {}, f"malformed JSON arguments: {exc.msg} at column {exc.colno}")
        except RecursionError:
            return failed(t.name, {}, "malformed JSON arguments: nested too deeply")
    if not isinstance(raw, dict):
        return failed(t.name, {}, "arguments must be a JSON object")
    try:
        parsed = t.args_model.model_validate(raw)
    except ValidationError as exc:
        return failed(t.name, raw, validation_message(exc))
    try:
        try:
            ev = t.fn(parsed, backends)
        except UnknownName as exc:  # "DC1-LEAF-03": run again as the inventory spells it
            respelled = _respelled(parsed, exc, backends)
            if respelled is None:
                raise
            parsed, ev = respelled, t.fn(respelled, backends)
    except NetopsError as exc:
        return failed(t.name, parsed.model_dump(exclude_none=True), str(exc))
    except Exception as exc:  # a backend failure must not crash the agent loop
        return failed(t.name, parsed.model_dump(exclude_none=True),
                      f"backend error: {type(exc).__name__}: {exc}")
    ev.args = parsed.model_dump(exclude_none=True)
    return ev


NAME_FIELDS = ("name", "devices")  # the arguments that carry device names


def _respelled(parsed: ToolArgs, exc: UnknownName, backends: Backends) -> ToolArgs | None:
    """The arguments with device names in the inventory's case, or None when that changes
    nothing (the name is unknown in any case)."""
    if exc.kind != "device":
        return None
    given = {f: getattr(parsed, f) for f in NAME_FIELDS if getattr(parsed, f, None)}
    names = [n for v in given.values() for n in (v if isinstance(v, list) else [v])]
    spelled = backends.inventory.spelled(names)
    if exc.word not in spelled:
        return None
    fixed = {f: [spelled.get(n, n) for n in v] if isinstance(v, list) else spelled.get(v, v)
             for f, v in given.items()}
    return parsed.model_copy(update=fixed)
