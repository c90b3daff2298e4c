"""A healthy pair's row straight from the paths backend, for the batch's workers.

Nearly every pair of a batch is healthy, and its row keeps only the trace's hop count and ECMP
counts, citing the trace by its id: the traceroute tool's Evidence (arguments validated again,
the summary written, the hops' table and facts checked by pydantic) was built 10,000 times to be
dropped, a fifth of a trace's cost in a 10,000-pair batch (bench/RESULTS.md, batch-speed). Here
the paths backend is asked as the tool asks it, or, for the lab pinned to the batch's state,
its forwarding model is asked only what the row keeps (lab/trace.py plainly_delivered: no hop
records, no ECMP device set; RESULTS "batch-speed-2"); a pair whose trace is not plainly healthy (not
reached, a failing ECMP member, loss on a hop, any error) gets None and goes through the tool
and, if it needs one, the diagnosis, as before. tests/batch/test_batch_frozen.py checks both
give the same row for every pair of a faulted lab."""

from __future__ import annotations

from netopsai.backends.base import Backends
from netopsai.backends.lab.pinned import SnapshotPaths
from netopsai.copilot.batch.check import PairResult, reached_result
from netopsai.copilot.batch.parse import Pair
from netopsai.copilot.evidence import Ledger
from netopsai.lab.forwarding import router_for
from netopsai.lab.trace import plainly_delivered
from netopsai.tools.traceroute import TracerouteArgs

PROBE = TracerouteArgs.model_fields["size"].default  # the size the tool probes with by default
TRACE_ID = Ledger().mint()  # a pair's trace is the first evidence of its own ledger (pairs.trace)


def healthy_result(backends: Backends, pair: Pair) -> PairResult | None:
    """The pair's row when its trace delivers on every path without loss; else None."""
    paths = backends.paths
    if type(paths) is SnapshotPaths:  # the lab pinned for the batch: ask its model directly
        try:
            router = router_for(paths.engine, paths.pin.version, paths.pin.clock)
            got = plainly_delivered(router, pair.src, pair.dst, PROBE)
        except Exception:  # the tool words the error for the row
            return None
        return None if got is None else reached_result(pair, *got, TRACE_ID)
    try:
        r = backends.paths.traceroute(pair.src, pair.dst, PROBE, None)
    except Exception:  # the tool words the error (or the failure) for the row
        return None
    hops = r["hops"]
    if not r["reached"] or r.get("failing") or any(h["loss_pct"] for h in hops):
        return None
    return reached_result(pair, len(hops), r["good_paths"], r["ecmp_paths"], TRACE_ID)
