"""The offline planner: an on-call's question -> intent, entities and the first tool calls.

No LLM: keyword rules over the question after entity extraction (planner/entities.py). Rules go
from the most specific (a connectivity complaint between two addresses) to the most general
(a bare device name); a question no rule places is answered with what the planner can do,
never with a guess. Follow-ups ("and its upstream switch?", "same for the last 24h", "what
about dc2?") reuse the previous turn's intent and entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from netopsai.planner import complaints as cw
from netopsai.planner.anchors import ChangeStart, LastSeen, resolve_window
from netopsai.planner.calls import METRIC_INTENTS, ToolCall, build_calls, port_calls
from netopsai.planner.complaints import CHANGE_ASK, DOUBT, FAILING, GONE, HEALTH, NEAR
from netopsai.planner.entities import Entities, Vocabulary, extract
from netopsai.planner.followup import is_follow_up, merge
from netopsai.planner.help import ACTION, HELP_ASK, unknown_note
from netopsai.planner.hostnames import logged_only
from netopsai.planner.hurried import normalise
from netopsai.planner.job_names import JobTable, named_job
from netopsai.planner.job_thread import follows_job, job_follow_up, job_lookup
from netopsai.planner.jobs import JOB_INTENT, SYMPTOM, JobAsk, find_job, gpu_symptom, job_calls
from netopsai.planner.overview import INTENT as OVERVIEW
from netopsai.planner.overview import is_overview, overview_calls
from netopsai.planner.port_roles import port_scope


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


TRACE = _rx(r"\btrace\w*|\btracert\b|\bpaths?\b|\broutes?\b|\bhops?\b|\bwhich way\b|\bmtr\b"
            r"|\bgo(?:es)? (?:through|via)\b|\btravers\w*")
BETWEEN = _rx(r"\bbetween\b")
ALARM = _rx(r"\balarm\w*|\balert\w*|\bfiring\b|\btraps?\b|\bwarnings\b")  # "optics warnings"
SESSIONS = ("bgp", "routing")  # "which BGP sessions went down", "OSPF adjacency": their alarms
CHANGE = _rx(r"(?<!state )\bchang(?:e|es|ed|ing)\b(?!\s+state)|\bmaintenance\b|\bdeploy\w*"
             r"|\bwho touched\b|\bmodif\w*|\brollouts?\b|\bupgrade[sd]?\b|\broll ?backs?\b")
CONFIG = _rx(r"\bconfig(?:uration)?s?\b|\bcommit\w*")  # "ospf config changed": a change, not a session
GROUP = _rx(r"\bcorrelat\w*|\bgroup\w*|\bdedup\w*|\brelated\b")
PER_POD = _rx(r"\b(?:per|each|every|by)[\s-]pod\b|\bpod[\s-]by[\s-]pod\b")
UPSTREAM = _rx(r"\bup-?stream\b|\buplinks?\b|\bparent switch\w*|\b(?:which|what) (?:tor|leaf|switch)"
               r"\b|\bplugged in(?:to)?\b|\b(?:connected|attached) to which\b|\bfirst[\s-]hop\b"
               r"|\b(?:switch|tor|leaf)\s{1,3}(?:and|an|&|/)\s{1,3}ports?\b|\bports?\s{1,3}(?:and|&|/)\s{1,3}(?:switch|tor|leaf)\b")
NEIGHBORS = _rx(r"\bneighbou?r\w*|\blldp\b|\bcdp\b|\bpeers?\b|\bconnected to\b|\bwhat(?:'s| is) "
                r"(?:connected|attached)\b|\bwired to\b|\bcabling\b")
SITES = _rx(r"\bsites?\b|\bdata[\s-]?cent(?:er|re)s\b|\bdcs\b|\bregions?\b")
PODS = _rx(r"\bpods?\b")
SEGMENTS = _rx(r"\bsegments?\b|\bsubnets?\b|\bprefix(?:es)?\b|\bvlans?\b|\bcidrs?\b|\baddressing\b")
HOSTS = _rx(r"\bhosts?\b|\bservers?\b|\bmachines?\b")
INTERFACES = _rx(r"\binterfaces?\b|\bports?\b")
DEVICES = _rx(r"\bdevices?\b|\bswitch(?:es)?\b|\brouters?\b|\binventory\b|\bhow many\b|\blist\b"
              r"|\benumerate\b|\bshow (?:all|the)\b")
OWNER = _rx(r"\bwho (?:owns|has|is)\b|\bowner\b|\bwhose\b|\bbelongs?\b|\bassigned\b|\bwhich (?:device|host|"
            r"server|box)\b|\bwhat is\b|\bwhat's\b|\blook ?up\b|\bfind\b|\bwhere is\b")
DETAIL = _rx(r"\bdetails?\b|\btell me about\b|\binfo\w*|\bshow me\b|\bdescribe\b|\bwhat is\b|\bwhat's\b"
             r"|\bmodel\b|\bversion\b|\bvendor\b|\buptime\b|\bstatus of\b|\bis " + NEAR + r" (?:up|down)\b"
             r"|\bwhere is\b")
# the analyses this planner asks the coder agent for over the calls' evidence, by name; what
# each does and its code are the one table of recipes, netopsai/copilot/recipes.py RECIPES
PLANNED_RECIPES = ("top_per_pod", "flaps_vs_changes", "alarms_vs_changes", "path_alarms",
                   "path_changes", "port_timeline")
WHAT_HAPPENED = _rx(r"\bwhat (?:happened|went wrong)\b")
HISTORY = _rx(r"\bhistory\b|\btimeline\b|\bevents?\b|\blogs?\b|\bwhat happened\b|\bwhy did\b"
              r"|\b(?:went|go|gone|going) down\b|\bbounced?\b")


@dataclass
class Plan:
    intent: str
    calls: list[ToolCall]
    entities: Entities
    note: str = ""
    recipe: str | None = None


@dataclass
class _Q:
    """One question, understood: its entities and the text left after them (lower case)."""

    ent: Entities
    rest: str
    vocab: Vocabulary
    path: bool = False  # a follow-up to a trace or diagnosis: "there" is the path
    now: datetime | None = None  # the clock: a window that ends before it is in the past

    @property
    def two_ends(self) -> bool:
        """Two ends named, even if not both usable (an invalid address, an unknown name, the
        same end twice): the question is still about a path, and the calls say what is wrong."""
        ent = self.ent
        return bool(ent.repeated) or len(ent.endpoints) + len(ent.invalid) + len(ent.unknown) >= 2

    @property
    def hosts_or_ips(self) -> bool:
        """Ends that are hosts or addresses: "drops between A and B" is then a connectivity
        complaint; between two switches it is a question about their counters."""
        return bool(self.ent.ips) or any(self.vocab.meta.get(d, {}).get("role") == "host"
                                         for d in self.ent.devices)

    @property
    def on_path(self) -> bool:
        return self.two_ends and (self.path or bool(TRACE.search(self.rest) or BETWEEN.search(self.rest)))


def _recipe(q: _Q) -> tuple[str, str] | None:
    """Analysis questions first: they need more than one tool and the coder."""
    metric = q.ent.metric
    ent = q.ent
    if ent.interfaces and len(ent.devices) == 1 and not q.two_ends and (
            HISTORY.search(q.rest) or HEALTH.search(q.rest)):
        return "interface.history", "port_timeline"
    if PER_POD.search(q.rest):
        return METRIC_INTENTS[metric or "errors"], "top_per_pod"
    if ALARM.search(q.rest) and (q.on_path or CHANGE.search(q.rest)):
        return ("alarms", "path_alarms") if q.on_path else ("alarms", "alarms_vs_changes")
    if CHANGE.search(q.rest) and q.on_path:
        return "changes", "path_changes"
    if metric == "flaps" and CHANGE.search(q.rest):
        return "telemetry.flaps", "flaps_vs_changes"
    return None


def _classify(q: _Q) -> tuple[str, str | None, bool]:
    """(intent, recipe, strong): strong when the words say it, weak when only a bare name or
    address does (a follow-up's bare name keeps the previous intent)."""
    found = _recipe(q)
    if found:
        return found[0], found[1], True
    ent, rest = q.ent, q.rest
    if _about_device(q):
        return "diagnose.device", None, True
    words: list[tuple[bool, str]] = [
        (_troubled(q) and _complaint(q), "diagnose.connectivity"),
        (bool(ALARM.search(rest)) or (bool(set(SESSIONS) & set(ent.categories)) and not q.two_ends
                                      and not CONFIG.search(rest)), "alarms"),
        (bool(ent.tickets or CHANGE.search(rest)), "changes"),
        (bool(TRACE.search(rest)) and bool(q.two_ends or ent.ips), "trace"),
        (bool(ent.metric), METRIC_INTENTS.get(ent.metric or "", "")),
    ]
    intent = next((i for hit, i in words if hit), None)
    return (intent, None, True) if intent else _inventory_intent(q)


def _about_device(q: _Q) -> bool:
    """"What is wrong with X?", "why is X dropping traffic?", "X crashed", "X offline": one network
    device (no addresses, no port), asked about its health -> a device diagnosis. A doubt or words
    of failure alone give way to a question for data about it (its alarms, its changes, a
    metric); words of state ("offline") also to its routing sessions, which have their alarms."""
    ent, rest = q.ent, q.rest
    one = len(ent.devices) == 1 and not (ent.ips or ent.invalid or ent.interfaces or q.two_ends)
    if not one or q.vocab.meta.get(ent.devices[0], {}).get("role") == "host":
        return False
    if HEALTH.search(rest):
        return True
    if ALARM.search(rest) or ent.metric or CHANGE_ASK.search(rest):
        return False
    return bool(DOUBT.search(rest) or FAILING.search(rest)) or (
        bool(GONE.search(rest)) and not set(SESSIONS) & set(ent.categories))


def _troubled(q: _Q) -> bool:
    """A complaint, one-way words, or between two ends "what's wrong between A and B?"."""
    rest = q.rest
    return bool(cw.DIAG.search(rest) or cw.ONE_WAY.search(rest)
                or (q.two_ends and (HEALTH.search(rest) or _asked_then(q))))


def _asked_then(q: _Q) -> bool:
    """Two hosts or addresses asked about a past moment or window and nothing else ("between A
    and B at 12:12 today?", "what happened between A and B this morning?"): the on-call wants
    what went wrong then, so a diagnosis at that time (it traces that moment too; a trace
    alone there delivers once the fault has gone and names nothing). "trace ... at 12:12"
    and a metric asked stay what they are."""
    if q.ent.metric or not q.hosts_or_ips:
        return False
    if WHAT_HAPPENED.search(q.rest):
        return True
    return bool(q.ent.at or _past(q.ent.window, q.now)) and not TRACE.search(q.rest)


def _past(window: object, now: datetime | None) -> bool:
    """A window of clock times that ended before now ("between 12:05 and 12:20"), not one
    reaching now ("since 08:00")."""
    if not isinstance(window, dict) or now is None or not window.get("end"):
        return False
    end = datetime.fromisoformat(str(window["end"]).replace("Z", "+00:00"))
    return end < now


def _complaint(q: _Q) -> bool:
    """Connectivity trouble between two ends (or about one address or host, with no other
    topic)."""
    if q.two_ends:
        return q.hosts_or_ips or not q.ent.metric
    return q.hosts_or_ips and not ALARM.search(q.rest) and not q.ent.metric


def _inventory_intent(q: _Q) -> tuple[str, None, bool]:
    ent, rest = q.ent, q.rest
    addressed = ent.devices or ent.ips or ent.invalid
    rules: list[tuple[bool, str, bool]] = [  # (matches, intent, strong)
        (bool(UPSTREAM.search(rest)), "inventory.upstream", True),
        (bool(NEIGHBORS.search(rest)), "inventory.neighbors", True),
        (bool(SITES.search(rest)) and not addressed, "inventory.sites", True),
        (bool(PODS.search(rest)) and not ent.pods and not addressed, "inventory.pods", True),
        (bool(SEGMENTS.search(rest)), "inventory.segments", True),
        (bool(HOSTS.search(rest)), "inventory.hosts", True),
        (bool(INTERFACES.search(rest)) and bool(ent.devices), "inventory.interfaces", True),
        (bool(OWNER.search(rest)) and bool(ent.ips or ent.invalid), "inventory.ip", True),
        (bool(DEVICES.search(rest)), "inventory.devices", True),
        (bool(DETAIL.search(rest)) and bool(ent.devices or ent.unknown), "inventory.device", True),
        (bool(ent.cidrs), "inventory.segments", False),
        (bool(ent.ips or ent.invalid) and not q.two_ends, "inventory.ip", False),
        (bool(ent.roles or ent.globs or ent.pods), "inventory.devices", False),
        (bool(ent.devices) and not q.two_ends, "inventory.device", False),
        (q.two_ends, "trace", False),
    ]
    return next(((i, None, strong) for hit, i, strong in rules if hit), ("unknown", None, False))


def plan(question: str, vocab: Vocabulary, clock: datetime, previous: Entities | None = None,
         previous_intent: str | None = None, zone: str = "UTC",
         change_start: ChangeStart | None = None, last_seen: LastSeen | None = None,
         job_table: JobTable | None = None) -> Plan:
    """Map one question (and the previous turn, for follow-ups) to an intent and first calls.
    Clock times without a zone are in `zone` (the network's, or the thread's); `change_start`
    finds the change record "since the maintenance window" means: (ISO start, what it was);
    `last_seen` the latest event of the question's devices (planner/anchors.py); `job_table`
    the job table's rows, for jobs named by name (planner/job_names.py)."""
    hints = (previous.sites + [vocab.meta[d]["site"] for d in previous.devices if d in vocab.meta]
             if previous else [])
    named = named_job(question, job_table)  # "the llama-70b-pretrain job", "ml/bert-sweep"
    if named is not None:
        question = named.masked(question)
    hurried = normalise(question, vocab.name_words)  # "whats wrong w/ X", "alrams", "10.2.1.40:22"
    question = hurried.text
    job = find_job(question, vocab.meta)  # "job 4711 …", "NCCL timeouts on gpu-[001-064]"
    if named is not None:
        job = job or JobAsk(None, [], question, bool(SYMPTOM.search(question)))
        job.job = named.id
        job.problems += [named.note] if named.note else []
    ent, rest, notes = extract(job.text if job else question, vocab, clock, hints,
                               zone=(previous.zone if previous and previous.zone else zone))
    ent.ports, notes = hurried.ports, hurried.notes + notes
    if job is not None and follows_job(question, job, previous_intent):
        job.symptom = True
    if job is not None or gpu_symptom(question, ent.devices, vocab.meta):
        intent, calls, more = job_calls(job, ent)
        return Plan(intent, calls, ent, _sentences(notes + more))
    unknown = list(ent.unknown)
    if looked_up := job_lookup(question, ent, vocab.meta):
        intent, calls, read_as = looked_up  # names read as hosts are not "not in the inventory"
        kept = [n for n in notes if not any(f"'{u}'" in n for u in unknown)]
        return Plan(intent, calls, ent, _sentences(kept + read_as))
    if is_overview(rest, ent):  # "is the network ok?": cases, worst ports, changes
        calls, more = overview_calls(ent)
        return Plan(OVERVIEW, calls, ent, _sentences(notes + more))
    intent, recipe, strong = _classify(_Q(ent, rest, vocab, now=clock))
    if intent == "diagnose.connectivity":  # "replies from B never come back": A asked first
        ent.endpoints = cw.requester_first(question, ent.endpoints, vocab.addresses)
    said = intent if strong else "unknown"
    inherited = not (ent.ips or ent.devices or ent.invalid or ent.unknown)  # "there" = before
    if previous is not None and previous_intent not in (None, "unknown") and is_follow_up(
            question, rest, ent, said):
        intent, ent, more = merge(said, ent, previous, previous_intent or "", rest, vocab)
        notes += more
        if intent == JOB_INTENT and not (ACTION.search(question) or HELP_ASK.search(question)):
            intent, calls, more = job_follow_up(ent, rest)
            return Plan(intent, calls, ent, _sentences(notes + more))
        q = _Q(ent, rest, vocab, path=inherited and len(previous.endpoints) >= 2)
        found = _recipe(q)
        if found is None and q.on_path and intent in ("alarms", "changes"):
            found = intent, f"path_{intent}"  # "and the reverse?" after alarms on a path
        intent, recipe = found if found else (intent, None)
    if ACTION.search(question) or HELP_ASK.search(question) or intent == "unknown":
        return Plan("unknown", [], ent, _sentences(unknown_note(question, notes, vocab)), None)
    if ent.at is None:  # a moment asked is its own window: no anchor at a latest event
        notes += resolve_window(ent, intent, clock, change_start, last_seen,
                                getattr(vocab.logged, "stored", None))  # every stored name
    calls, more = _calls(intent, recipe, ent, vocab, rest)
    calls = port_scope(calls, question, ent.zone, ent.window)  # "uplinks", "towards the spines"
    intent, calls, logged = logged_only(intent, calls, ent, vocab)  # devices known only from logs
    more += logged
    notes += more
    if ent.unknown and calls:
        notes.append("nothing was run: a name above is not in the inventory or is ambiguous")
        calls = []
    if ent.invalid and calls:  # a bad address stops the turn: no diagnosis of what is left
        notes.append("nothing was run: fix the address above and ask again")
        calls = []
    if ent.conflicts and calls:
        notes.append("nothing was run: a name and the address given with it disagree")
        calls = []
    return Plan(intent, calls, ent, _sentences(notes), recipe)


def _sentences(notes: list[str]) -> str:
    return " ".join(n if n.endswith((".", "?", "!")) else n + "." for n in dict.fromkeys(notes))


def _calls(intent: str, recipe: str | None, ent: Entities, vocab: Vocabulary,
           rest: str) -> tuple[list[ToolCall], list[str]]:
    if recipe is None:
        calls, notes = build_calls(intent, ent, vocab)
        if intent == "alarms" and GROUP.search(rest):
            calls = [ToolCall(c.tool, {**c.args, "correlate": True}) for c in calls]
        return calls, notes
    shared = replace(ent, window=ent.window or "24h")  # one window for both sides of a comparison
    notes = [] if ent.window else ["no time window given: comparing the last 24h"]
    if recipe == "port_timeline":
        return port_calls(shared), ([] if ent.window else ["no time window given: the last 24h"])
    if recipe == "top_per_pod":
        pods = ent.pods or [p for p in vocab.pods if not ent.sites or vocab.pod_sites[p] in ent.sites]
        return build_calls(intent, replace(ent, pods=pods), vocab)[0], []
    first, second = {"flaps_vs_changes": ("telemetry.flaps", "changes"),
                     "alarms_vs_changes": ("alarms", "changes"),
                     "path_alarms": ("trace", "alarms"),
                     "path_changes": ("trace", "changes")}[recipe]
    if first == "trace":
        shared = replace(shared, devices=[], sites=[], pods=[], roles=[])  # scope is the path
        a, n = build_calls("trace", ent, vocab)
        if not a:
            return [], n
    else:
        a, n = build_calls(first, shared, vocab)
    b, m = build_calls(second, shared, vocab)
    return a + b, notes + n + m

