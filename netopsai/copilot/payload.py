"""The copilot's answer as a front end receives it, typed: an evidence record in its JSON form
(`Thread.evidence`, `Copilot.answer`'s `evidence`: `Evidence.model_dump(mode="json")`) and the
answer `ask --json` prints. Front ends read them through `dumps_of` / `answer_of` and take an
evidence record's rows and facts through `dump_rows` / `dump_facts` with the tool's row and facts
types (backends/rows.py, tools/facts.py), so mypy checks every key the web app, Slack and the
API name. Like `rows_of`, these are casts: the very dicts the thread's state holds, nothing
copied or checked at run time, and nothing shown changes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NotRequired, Required, TypedDict, TypeVar, cast


class EvidenceArgs(TypedDict, total=False):
    """A tool call's arguments as its evidence records them: every field of the tools' args
    models (tools/*.py), each left out when the call does not name it (tests/copilot/
    test_typed_doors.py keeps the names in step with the models)."""

    at: str | None
    category: str | None
    correlate: bool
    devices: list[str] | None
    dst: str
    interface: str | None
    ip: str | None
    job: str | None
    limit: int
    metric: str
    mnemonic: str | None
    name: str | None
    peer_role: str | None
    pod: str | None
    port_role: str | None
    query: str
    role: str | None
    site: str | None
    size: int
    source: str | None
    src: str
    state: str
    text: str | None
    ticket: str | None
    top: int
    window: str | dict[str, str] | None
    zone: str | None


class EvidenceDump(TypedDict, total=False):
    """One `Evidence` as JSON. Only `tool` is required: a planned call's header is drawn from
    its tool and args before it has an id."""

    id: str
    tool: Required[str]
    args: EvidenceArgs
    window: dict[str, str] | None
    summary: str
    columns: list[str]
    rows: list[dict[str, Any]]
    facts: dict[str, Any]
    partial: bool
    errors: list[str]


class RootCause(TypedDict):
    """The diagnosis' verdict as an answer names it."""

    label: str
    device: str | None
    interface: str | None
    confidence: Any


class Answer(TypedDict):
    """`Copilot.result` (and `Copilot.answer`, with its steps and time): what `ask --json`
    prints."""

    answer: str
    root_cause: RootCause | None
    ruled_out: list[Any] | None
    citations: list[str]
    evidence: list[EvidenceDump]
    tokens: dict[str, int]
    llm_calls: int
    intent: str | None
    input_errors: list[str]
    steps: NotRequired[list[dict[str, Any]]]
    elapsed_ms: NotRequired[float]


RowT = TypeVar("RowT")
FactsT = TypeVar("FactsT")


def dumps_of(evidence: Iterable[Mapping[str, Any]]) -> list[EvidenceDump]:
    """Evidence dicts (a thread's, an answer's) read as `EvidenceDump`s: the same list, or a
    list of the same dicts when given another iterable."""
    return cast(list[EvidenceDump], evidence if isinstance(evidence, list) else list(evidence))


def dump_of(ev: Mapping[str, Any]) -> EvidenceDump:
    """One evidence dict read as an `EvidenceDump` (the very dict)."""
    return cast(EvidenceDump, ev)


def answer_of(result: Mapping[str, Any]) -> Answer:
    """`Copilot.answer`'s dict read as an `Answer` (the very dict)."""
    return cast(Answer, result)


def dump_rows(ev: EvidenceDump, row: type[RowT]) -> list[RowT]:
    """An evidence record's rows as `row`, the tool's row type (none when it has no rows)."""
    return cast(list[RowT], ev.get("rows", []))


def dump_facts(ev: EvidenceDump, facts: type[FactsT]) -> FactsT:
    """An evidence record's facts as `facts`, the tool's facts type (a failed call's are empty:
    read what it may lack with `.get`)."""
    return cast(FactsT, ev.get("facts", {}))
