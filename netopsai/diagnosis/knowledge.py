"""What a diagnosis draws on besides the turn's evidence: incident memory and the taxonomy.
Injected into the Copilot (and so the graph), so a benchmark or a test passes its own; left at
the defaults, both come from NETOPSAI_HOME and are looked up per question, so an incident
confirmed or a taxonomy.d file added shows on the next question without a restart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from netopsai.diagnosis.memory import IncidentMemory
    from netopsai.diagnosis.taxonomy import Taxonomy

HOME: Literal["home"] = "home"


@dataclass
class Knowledge:
    memory: IncidentMemory | None | Literal["home"] = HOME  # None: no incident memory at all
    taxonomy: Taxonomy | None = None  # None: the built-in one plus NETOPSAI_HOME/taxonomy.d

    def incident_memory(self, create: bool = False) -> IncidentMemory | None:
        """The memory to search (or, with `create`, to confirm into)."""
        if self.memory == HOME:
            from netopsai.diagnosis.memory import default_memory

            return default_memory(create=create)
        return self.memory
