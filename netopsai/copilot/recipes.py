"""The offline analysis library: one pandas recipe per recipe the planner names
(planner/rules.py PLANNED_RECIPES); RECIPES is the one table of them.

Each recipe's code is a string that runs in the sandbox, never in-process, over the evidence
tables of the calls the planner makes for it (planner/rules.py `_calls`):
- top_per_pod: telemetry calls, one per PoD (and per role), any metric -> the worst N per PoD;
- flaps_vs_changes: telemetry metric=flaps + changelog, same window -> each flapping port with
  the change on its device whose [start, end] widened by `window_min` holds a down event;
- alarms_vs_changes: alarms + changelog -> each alarm with the change it was raised near;
- path_alarms / path_changes: traceroute + alarms / changelog over all devices -> one row per
  device of the traced path, in hop order, with what it had (zero when it was clean);
- port_timeline: events + telemetry oper_status + alarms of one port -> one row per thing that
  happened to it (log lines, traps, state changes, alarms raised and cleared), in device time.
A recipe's `describe` turns its (small) result table into the one-paragraph summary, in-process.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from netopsai.backends.rows import Neighbor
from netopsai.common.registry import Registry
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence, rows_of

Rows = list[dict[str, Any]]

# Shared by every recipe; runs in the sandbox (INPUTS, TABLES, PARAMS, pd come from child.py).
HELPERS = '''
def frames(tool):
    """Every input table of one tool, stacked; `_input` names the evidence each row came from."""
    parts = [TABLES[k].assign(_input=k) for k, m in INPUTS.items() if m.get("tool") == tool]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["_input"])


def utc(col):
    """Telemetry's '2025-11-04 19:35:00' and the ISO '...Z' of changes and alarms, as UTC."""
    return pd.to_datetime(col, utc=True, errors="coerce", format="mixed")


def iso(col):
    return col.dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def line_up(events, changes, minutes):
    """For each event row (device, at): the nearest change on the same device whose
    [start, end] widened by `minutes` holds it. Indexed like `events`' rows."""
    cols = ["ticket", "change_start", "change_summary", "minutes_from_change"]
    if events.empty or changes.empty:
        return pd.DataFrame(columns=cols)
    changes = changes.drop_duplicates(["ticket", "device"])
    start, end = utc(changes["start"]), utc(changes["end"])
    ch = pd.DataFrame({"device": changes["device"], "ticket": changes["ticket"], "start": start,
                       "end": end.fillna(start), "change_summary": changes["summary"]})
    pairs = events[["device", "at"]].rename_axis("_row").reset_index().merge(ch, on="device")
    w = pd.Timedelta(minutes=minutes)
    pairs = pairs[(pairs["at"] >= pairs["start"] - w) & (pairs["at"] <= pairs["end"] + w)]
    pairs = pairs.assign(change_start=iso(pairs["start"]), minutes_from_change=(
        (pairs["at"] - pairs["start"]).dt.total_seconds() / 60).round(1))
    best = pairs.loc[pairs["minutes_from_change"].abs().groupby(pairs["_row"]).idxmin()]
    return best.set_index("_row")[cols]


def path_devices():
    """The traced path's devices in hop order (where it stopped included), first hop each."""
    hops = frames("traceroute").reindex(columns=["_input", "hop", "device"]).dropna()
    seen = dict(hops.sort_values(["_input", "hop"]).drop_duplicates("device")[["device", "hop"]]
                .itertuples(index=False))
    for meta in INPUTS.values():
        facts = (meta.get("facts") or {}) if meta.get("tool") == "traceroute" else {}
        for device in [*facts.get("path_devices", []), facts.get("stopped_at")]:
            if device:
                seen.setdefault(device, None)
    return pd.DataFrame({"hop": pd.array(list(seen.values()), dtype="Int64"),
                         "device": pd.Series(list(seen), dtype=object)})  # object even when empty
'''

TOP_KEYS = {"errors": ("total", False), "discards": ("total", False),
            "utilization": ("max_pct", False), "rx_power": ("min_dbm", True),
            "flaps": ("flaps", False), "oper_status": ("down_s", False)}

TOP_PER_POD = f'''
KEYS = {TOP_KEYS!r}
tel = {{k: m for k, m in INPUTS.items() if m.get("tool") == "telemetry"}}
metric = next((m["args"].get("metric") for m in tel.values()), "errors")
key, ascending = KEYS.get(metric, ("total", False))
parts = [TABLES[k].assign(pod=m["args"].get("pod") or m["args"].get("site") or "all")
         for k, m in tel.items()]
ports = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
first = ["pod", "device", "interface", key]
ports = ports.reindex(columns=first + [c for c in ports.columns if c not in (*first, "events")])
if metric not in ("utilization", "rx_power"):
    ports = ports[ports[key] > 0]  # a port without errors (flaps ...) is not an error port
ports = ports.drop_duplicates(["pod", "device", "interface"])
ports = ports.sort_values(key, ascending=ascending, kind="stable")
ports.insert(1, "rank", ports.groupby("pod").cumcount() + 1)
result = ports[ports["rank"] <= int(PARAMS.get("top", 5))].sort_values(["pod", "rank"])
result = result.reset_index(drop=True)
'''

FLAPS_VS_CHANGES = '''
ports = frames("telemetry").reindex(columns=["device", "interface", "flaps", "events"])
ports = ports[ports["flaps"].fillna(0) > 0].drop_duplicates(["device", "interface"])
downs = ports.assign(event=ports["events"].fillna("").str.split("; ")).explode("event")
downs = downs[downs["event"].str.endswith(" down", na=False)]
downs = downs.assign(at=utc(downs["event"].str[:-5]))
ports = ports.assign(first_down=iso(downs.groupby(level=0)["at"].min()).reindex(ports.index))
best = line_up(downs, frames("changelog"), PARAMS.get("window_min", 30))
result = ports.drop(columns="events").join(best)
result["lined_up"] = result["ticket"].notna()
result = result.sort_values(["lined_up", "flaps"], ascending=False, kind="stable")
'''

ALARMS_VS_CHANGES = '''
alarms = frames("alarms").reindex(columns=["id", "raised_at", "state", "kind", "device", "interface"])
alarms = alarms.drop_duplicates("id").rename(columns={"id": "alarm_id"})
best = line_up(alarms.assign(at=utc(alarms["raised_at"])), frames("changelog"),
               PARAMS.get("window_min", 30))
result = alarms.join(best)
result["lined_up"] = result["ticket"].notna()
result = result.sort_values(["lined_up", "raised_at"], ascending=False, kind="stable")
'''

PATH_ALARMS = '''
path = path_devices()
alarms = frames("alarms").reindex(columns=["id", "device", "interface", "kind", "state", "raised_at"])
alarms = alarms[alarms["device"].isin(path["device"])].drop_duplicates("id")
alarms = alarms.assign(is_open=alarms["state"].eq("open"), label=alarms["kind"] + (
    " " + alarms["interface"]).fillna("") + " (" + alarms["state"] + ")")
per = alarms.groupby("device").agg(alarms=("kind", "size"), open=("is_open", "sum"),
                                   kinds=("label", lambda s: "; ".join(dict.fromkeys(s))),
                                   first_raised=("raised_at", "min"), last_raised=("raised_at", "max"))
result = path.merge(per, on="device", how="left")
result[["alarms", "open"]] = result[["alarms", "open"]].fillna(0).astype(int)
'''

PATH_CHANGES = '''
path = path_devices()
changes = frames("changelog").reindex(columns=["ticket", "device", "start", "summary", "status"])
changes = changes[changes["device"].isin(path["device"])].drop_duplicates(["ticket", "device"])
changes = changes.sort_values("start").assign(
    label=changes["ticket"] + " at " + changes["start"] + ' "' + changes["summary"] + '"')
per = changes.groupby("device").agg(changes=("ticket", "size"), tickets=("label", "; ".join),
                                    last_change=("start", "max"))
result = path.merge(per, on="device", how="left")
result["changes"] = result["changes"].fillna(0).astype(int)
'''

PORT_TIMELINE = '''
events = frames("events").reindex(columns=["at", "source", "mnemonic", "kind", "message", "interface"])
states = frames("telemetry").reindex(columns=["device", "interface", "events"]).dropna().astype(str)
ports = set(events["interface"].dropna()) | set(states["interface"].dropna())
flips = states.assign(event=states["events"].str.split("; ")).explode("event").dropna()
flips = pd.DataFrame({"at": utc(flips["event"].str.rsplit(" ", n=1).str[0]), "source": "state",
                      "what": "oper " + flips["event"].str.rsplit(" ", n=1).str[-1]})
alarms = frames("alarms").reindex(columns=["id", "kind", "interface", "raised_at", "cleared_at"])
alarms = alarms[alarms["interface"].isin(ports)].drop_duplicates("id")
raised = pd.DataFrame({"at": utc(alarms["raised_at"]), "source": "alarm",
                       "what": alarms["kind"] + " raised"})
cleared = alarms.dropna(subset=["cleared_at"])
cleared = pd.DataFrame({"at": utc(cleared["cleared_at"]), "source": "alarm",
                        "what": cleared["kind"] + " cleared"})
mnemonic, message = events["mnemonic"].fillna(""), events["message"].fillna("")
said_id = [bool(m) and m in t for m, t in zip(mnemonic, message)]  # "%LINK-3-UPDOWN: ..." names it
text = message.where(said_id, mnemonic + " " + message)
said = pd.DataFrame({"at": utc(events["at"]), "source": events["source"].fillna("log"),
                     "what": text.str.strip()})
result = pd.concat([said, flips, raised, cleared], ignore_index=True).dropna(subset=["at"])
result = result.sort_values("at", kind="stable").drop_duplicates()
result["at"] = result["at"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f").str[:-3] + "Z"
'''


def _timeline(rows: Rows, params: dict[str, Any], inputs: list[Evidence]) -> str:
    port = next((f"{e.args['devices'][0]} {e.args['interface']}" for e in inputs
                 if e.args.get("interface") and e.args.get("devices")), "the port")
    # the port story's metadata read is its link (planner/calls.py port_calls: neighbors)
    nbr = next((r for e in inputs if e.tool == "metadata" for r in rows_of(e, Neighbor)), None)
    link = (f"; it connects to {nbr['neighbor']} {nbr['neighbor_interface']} ({nbr['kind']} link, "
            f"{nbr['status']})" if nbr else "")
    if not rows:
        return f"nothing was recorded for {port} in the window{link}"
    kinds: dict[str, int] = {}
    for r in rows:
        word = str(r.get("what", "")).split(" ")[0].strip("%:") or "?"  # the message id
        kinds[word] = kinds.get(word, 0) + 1
    top = ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])[:6])
    return (f"{count(len(rows), 'entry')} for {port} from {rows[0]['at']} to {rows[-1]['at']} (device "
            f"time): first \"{rows[0]['what']}\", last \"{rows[-1]['what']}\"; {top}{link}")


def _port(r: dict[str, Any]) -> str:
    return f"{r.get('device')} {r.get('interface')}"


def _alarm(r: dict[str, Any]) -> str:
    return f"{r.get('kind')} on {r.get('device')}" + (f" {r['interface']}" if r.get("interface") else "")


def _top(rows: Rows, params: dict[str, Any], inputs: list[Evidence]) -> str:
    tel = [e.args for e in inputs if e.tool == "telemetry"]
    metric = tel[0].get("metric", "errors") if tel else "errors"
    pods = dict.fromkeys([str(a.get("pod") or a.get("site") or "all") for a in tel])
    cols = list(rows[0]) if rows else []
    key = cols[cols.index("interface") + 1] if "interface" in cols[:-1] else "value"
    ranked = {pod: [f"{_port(r)} ({key} {r.get(key)})" for r in rows if r["pod"] == pod] for pod in pods}
    quiet = [pod for pod, ports in ranked.items() if not ports]
    listed = [f"{pod}: {', '.join(ports)}" for pod, ports in ranked.items() if ports]
    return (f"worst ports by {metric}, top {params.get('top', 5)} per PoD: " + ("; ".join(listed) or "none")
            + (f"; nothing to rank in {', '.join(quiet)}" if quiet else ""))


def _lined_up(rows: Rows, params: dict[str, Any], what: str, name: Callable[[dict[str, Any]], str]) -> str:
    if not rows:
        return f"there were no {what} to line up with changes"
    hits = [r for r in rows if r.get("lined_up")]
    head = (f"{len(hits)} of {len(rows)} {what} fell within {params.get('window_min', 30)} min of a "
            f"change on the same device")
    listed = "; ".join(f"{name(r)}: {r['ticket']} \"{r.get('change_summary')}\" started at "
                       f"{r.get('change_start')} ({r.get('minutes_from_change'):+} min)" for r in hits[:6])
    return head + (f": {listed}" if hits else "")


def _path(rows: Rows, what: str, count: str, detail: str) -> str:
    hit = [r for r in rows if r.get(count)]
    if not rows:
        return "the traceroute evidence named no devices"
    listed = "; ".join(f"{r['device']} at hop {r.get('hop') or '?'} ({r.get(detail)})" for r in hit[:8])
    return (f"{len(hit)} of {len(rows)} devices on the path had {what} in the window"
            + (f": {listed}" if hit else "") + (f"; the other {len(rows) - len(hit)} had none"
                                                if hit and len(hit) < len(rows) else ""))


@dataclass(frozen=True)
class Recipe:
    name: str
    title: str  # what it is, in the on-call's words (answers never show the internal name)
    code: str
    needs: tuple[str, ...]  # input tools it reads
    describe: Callable[[Rows, dict[str, Any], list[Evidence]], str]
    purpose: str = ""  # what the planner asks it for (the planner names recipes, nothing more)

    @property
    def source(self) -> str:
        """The exact code that runs in the sandbox."""
        return HELPERS.strip() + "\n\n" + self.code.strip() + "\n"


def _adopt(name: str, obj: object) -> list[tuple[str, Recipe]]:
    """An entry point of `netopsai.recipes` names a Recipe."""
    return [(obj.name, obj)] if isinstance(obj, Recipe) else []


# the one table of recipes (the planner only names them: planner/rules.py PLANNED_RECIPES);
# a package installed from elsewhere adds one through the entry-point group `netopsai.recipes`
RECIPES: Registry[str, Recipe] = Registry("recipe", "netopsai.recipes", adopt=_adopt)
for _recipe in (
    Recipe("top_per_pod", "Worst ports per PoD", TOP_PER_POD, ("telemetry",), _top,
           "rank the worst ports of each PoD from one telemetry call per PoD"),
    Recipe("flaps_vs_changes", "Flapping ports lined up with changes", FLAPS_VS_CHANGES,
           ("telemetry", "changelog"), lambda rows, p, _: _lined_up(rows, p, "flapping ports", _port),
           "line up flapping ports with change records on the same devices"),
    Recipe("alarms_vs_changes", "Alarms lined up with changes", ALARMS_VS_CHANGES,
           ("alarms", "changelog"), lambda rows, p, _: _lined_up(rows, p, "alarms", _alarm),
           "line up alarms with change records on the same devices"),
    Recipe("path_alarms", "Alarms on the traced path", PATH_ALARMS, ("traceroute", "alarms"),
           lambda rows, p, _: _path(rows, "alarms", "alarms", "kinds"),
           "which devices on the traced path had alarms in the window"),
    Recipe("path_changes", "Changes on the traced path", PATH_CHANGES, ("traceroute", "changelog"),
           lambda rows, p, _: _path(rows, "changes", "changes", "tickets"),
           "which devices on the traced path had changes in the window"),
    Recipe("port_timeline", "What happened to the port", PORT_TIMELINE,
           ("events", "alarms"), _timeline,  # no counters for a device known only from logs
           "what happened to one port: its log lines, traps, state changes and alarms"),
):
    RECIPES.add(_recipe.name, _recipe)

TOP_RE = re.compile(r"\btop[\s-]*(\d{1,3})\b", re.I)
WITHIN_RE = re.compile(r"\bwithin\s+(\d{1,4})\s*(?:m|min|mins|minutes?)\b", re.I)


def params_for(question: str) -> dict[str, Any]:
    """What a recipe takes from the question: N of a top-N, the minutes of "within 15 min"."""
    top, within = TOP_RE.search(question), WITHIN_RE.search(question)
    return {"top": int(top.group(1)) if top else 5,
            "window_min": int(within.group(1)) if within else 30}
