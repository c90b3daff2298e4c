"""The search over hypotheses: verify a leaf by its checks (verdicts shared per diagnosis),
walk the taxonomy depth-first in ranked order, prune branches with no symptom, backtrack on
rejection and collect every confirmed leaf. Every move is recorded as a visible Step."""

from __future__ import annotations

from dataclasses import asdict

from netopsai.diagnosis.base import CONFIRMED, REJECTED, UNKNOWN, Step, Verdict, unknown
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.rank import Ranker, score
from netopsai.diagnosis.registry import resolve
from netopsai.diagnosis.taxonomy import ROOT, Node, Taxonomy


class Search:
    def __init__(self, ctx: Context, tax: Taxonomy, ranker: Ranker) -> None:
        self.ctx, self.tax, self.ranker = ctx, tax, ranker
        self.steps: list[Step] = []
        self.found: list[Verdict] = []
        self.ruled_out: list[Verdict] = []
        self.undecided: list[Verdict] = []
        self.tested: set[str] = set()
        self.explained: set[str] = set()  # symptoms a confirmed fault accounts for
        self._scores: dict[str, float] = {}

    def step(self, tier: str, action: str, node: str, text: str, status: str = "",
             cites: list[str] | None = None) -> None:
        self.steps.append(Step(tier, action, node, text, status, list(cites or [])))

    def score(self, node: Node) -> float:
        return score(self.ctx, self.tax, node, self._scores, frozenset(self.explained))

    def _explain(self, leaf: Node) -> None:
        """A confirmed leaf accounts for the symptoms that pointed at it: hypotheses that only
        those symptoms support are not worth a check any more (early stop)."""
        from netopsai.diagnosis.rank import symptom_value

        self.explained |= {s for s in leaf.symptoms if symptom_value(self.ctx, s) > 0}
        self._scores.clear()

    def _run_check(self, name: str) -> Verdict:
        """One check, once per diagnosis; a failing check is `unknown`, never an exception."""
        if name not in self.ctx.verdicts:
            self.ctx.checks_run += 1
            try:
                v = resolve("check", name)(self.ctx)
            except Exception as exc:  # a user's check must not break the diagnosis
                v = unknown(f"check {name} failed: {type(exc).__name__}: {exc}")
            v.check = name
            # cite what exists only; a failed tool call is no support for a confirmed cause
            known = {e.id for e in self.ctx.evidence if not (v.confirmed and e.errors)}
            v.cites = [c for c in dict.fromkeys(v.cites) if c in known]
            self.ctx.verdicts[name] = v
        return self.ctx.verdicts[name]

    def verify(self, leaf: Node, tier: str) -> Verdict:
        verdicts = [self._run_check(c) for c in leaf.checks]
        v = (next((x for x in verdicts if x.status == CONFIRMED), None)
             or next((x for x in verdicts if x.status == UNKNOWN), None)
             or (verdicts[0] if verdicts else unknown("the node has no checks")))
        v = Verdict(**{**asdict(v), "label": leaf.result_label})
        if leaf.id not in self.tested:
            self.tested.add(leaf.id)
            {CONFIRMED: self.found, REJECTED: self.ruled_out}.get(v.status, self.undecided).append(v)
            if v.confirmed:
                self._explain(leaf)
        where = f" at {v.device}{' ' + v.interface if v.interface else ''}" if v.confirmed else ""
        self.step(tier, "check", leaf.id, f"{v.status}{where}: {v.text}", v.status, v.cites)
        return v

    def taxonomy(self, node_id: str = ROOT, tier: str = "search") -> None:
        """Depth-first in ranked order; unsupported branches are pruned, a rejected leaf sends
        the search back to its next sibling, and every confirmed leaf is kept."""
        parent = self.tax.nodes.get(node_id)
        cands = [(k, self.score(k)) for k in self.tax.children(node_id)]
        ordered, how = self.ranker.order(self.ctx, parent, cands)
        live = [(k, s) for k, s in ordered if s > 0]
        pruned = [k.id for k, s in ordered if s <= 0]
        self.step(tier, "rank", node_id, f"under {node_id}, by {how}: "
                  + (", ".join(f"{k.id} ({s:.2f})" for k, s in live) or "nothing plausible")
                  + (f"; pruned (no symptom): {', '.join(pruned)}" if pruned else ""))
        for kid, _ in live:
            if self.explained and self.score(kid) <= 0:
                self.step(tier, "prune", kid.id, f"{kid.id}: its symptoms are explained by "
                          "what was confirmed; not checked")
                continue
            if self.tax.children(kid.id):
                self.taxonomy(kid.id, tier)
            elif kid.checks and kid.id not in self.tested:
                v = self.verify(kid, tier)
                if v.status != CONFIRMED:
                    self.step(tier, "backtrack", kid.id, f"{kid.id} not confirmed; next hypothesis",
                              v.status)

    def everything(self, tier: str = "search") -> None:
        """Every leaf's checks, no ranking and no pruning, then decide (the CVD baseline)."""
        for leaf in self.tax.leaves():
            if leaf.id not in self.tested:
                self.verify(leaf, tier)
