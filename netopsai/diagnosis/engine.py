"""Tiered, verification-driven diagnosis (AidAI-style), behind the copilot's `diagnose` node.

1. history: similar past incidents from incident memory; the two best labels are verified by
   their checks; a confirmed one that explains the flow's failure ends the diagnosis.
2. search: the taxonomy, ranked by symptom scores (or a chat model when the scores do not
   separate the candidates), pruned where nothing supports a branch, depth-first with
   backtracking, collecting every confirmed leaf; the primary cause is chosen by where the
   flow breaks and what verified evidence explains what (a dead device explains its links).
3. explore: nothing confirmed -> `none` when the path is healthy, else `inconclusive` with the
   hypotheses ruled out, next checks and an escalation ticket draft.

`diagnose(...)` is the API the benchmark uses: strategy "full", "cvd" (run every check, then
decide) or "history" (memory only); the Diagnosis counts tool calls and checks run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.diagnosis.answer import frame
from netopsai.diagnosis.base import Diagnosis, Verdict
from netopsai.diagnosis.context import Context, asked, baseline_calls, trace_of
from netopsai.diagnosis.episodes import past_cause
from netopsai.diagnosis.memory import IncidentMemory
from netopsai.diagnosis.rank import Ranker
from netopsai.diagnosis.report import build
from netopsai.diagnosis.search import Search
from netopsai.diagnosis.taxonomy import ROOT, Taxonomy, load_taxonomy

STRATEGIES = ("full", "cvd", "history")
HISTORY_K = 2  # past incidents' labels verified before the taxonomy search


@dataclass
class Outcome:
    diagnosis: Diagnosis
    evidence: list[Evidence] = field(default_factory=list)  # every tool result, in order
    new: list[Evidence] = field(default_factory=list)  # the ones the engine itself fetched


def run_engine(ctx: Context, strategy: str = "full", memory: IncidentMemory | None = None,
               taxonomy: Taxonomy | None = None, ranker: Ranker | None = None) -> Diagnosis:
    """Diagnose from a Context (the turn's evidence plus a tool runner)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    tax = taxonomy or load_taxonomy()
    ranker = ranker or Ranker()
    ctx.widen()
    s = Search(ctx, tax, ranker)
    tier = "history" if recall(s, memory) else ""
    if not tier and strategy == "full":
        s.taxonomy()
        tier = "search"
    elif not tier and strategy == "cvd":
        s.everything()
        tier = "search"
    d = build(ctx, s, tax, tier or "history")
    past_cause(ctx, d)  # a past window: what came and went in it, when nothing was open at its end
    frame(ctx, d)
    d.llm_calls, d.tokens = ranker.llm_calls, dict(ranker.tokens)
    return d


def _explains_failure(ctx: Context, v: Verdict) -> bool:
    """A history match may end the diagnosis only if it accounts for how the flow breaks: the
    trace reached (degradation), or the fault sits where the flow stops or on its path."""
    return bool(ctx.main and trace_of(ctx.main).get("reached") and not ctx.stops()) or v.position >= 3


def recall(s: Search, memory: IncidentMemory | None) -> bool:
    """Tier 1. True when a remembered cause is confirmed and explains the failure."""
    if memory is None:
        return False
    symptoms = s.ctx.symptom_text()
    matches = memory.search(symptoms, k=5)
    labels = list(dict.fromkeys(m.incident.label for m in matches))[:HISTORY_K]
    s.step("history", "recall", "memory",
           f"{len(matches)} similar past incident(s)" + (f"; verifying {', '.join(labels)}"
                                                         if labels else ""))
    done = False
    strongest = max((s.score(n) for n in s.tax.children(ROOT)), default=0.0)
    for label in labels:
        leaf = s.tax.leaf_for(label)
        if leaf is not None:
            lead = s.score(leaf)  # before verify: a confirmation explains (mutes) its symptoms
            v = s.verify(leaf, "history")
            # a remembered cause ends the diagnosis only when it is the strongest lead in the
            # evidence: a confirmed link alarm beside an unreachable device is an effect
            done = done or (v.confirmed and _explains_failure(s.ctx, v) and lead >= strongest)
    return done


def diagnose(backends: Any = None, *, src: str | None = None, dst: str | None = None,
             question: str = "", evidence: list[Evidence] | None = None, strategy: str = "full",
             llm: Any = None, llm_rank: str = "auto", memory: IncidentMemory | None = None,
             taxonomy: Taxonomy | None = None,
             run: Callable[[str, dict[str, Any]], Evidence] | None = None,
             window: Any = None, at: str | None = None) -> Outcome:
    """Diagnose connectivity from src to dst: trace, gather the baseline evidence, run the
    engine. Pass `evidence` to start from tool results in hand, `run` for another tool runner
    (default: the tools over `backends`). `window` (a duration such as "6h", or {start, end})
    and `at` (an ISO moment) are the question's: every read takes them and the flow is traced
    at that moment (a past window's middle), as in the copilot. Counts are on the returned
    Diagnosis."""
    if run is None:
        if backends is None:
            raise ValueError("diagnose needs backends or a tool runner")
        from netopsai.tools.registry import ToolRunner  # the runner Toolbox.runner hands out

        run = ToolRunner(backends, Ledger.following(evidence or []))

    ctx = Context(list(evidence or []), run, question)
    if not ctx.traces:
        if not (src and dst):
            raise ValueError("diagnose needs src and dst, or a traceroute in `evidence`")
        ctx.call("traceroute", {"src": src, "dst": dst})
    window, at = asked(ctx.traces, window, at)
    ctx.window, ctx.at = window, at  # the question's, now that the trace of now says when now is
    for c in baseline_calls(ctx.traces, window, at):
        ctx.call(c["tool"], c["args"])
    d = run_engine(ctx, strategy, memory, taxonomy, Ranker(llm, llm_rank))
    return Outcome(d, ctx.evidence, ctx.new)


def as_state(d: Diagnosis) -> dict[str, Any]:
    return asdict(d)
