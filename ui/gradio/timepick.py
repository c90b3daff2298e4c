"""A time picker any tab can reuse: a relative window (1h … 7d, or typed: 90m) or an absolute
start/end, read in the network's zone and shown there with UTC beside it.

`time_picker()` lays the components out; `window_arg()` turns their values into the `window`
argument every tool takes (tools/base.py WindowArgs): "24h", or {"start", "end"} in UTC. Times
typed without a zone are the network's (`backends.zone`); "-2h" is relative to the network's
clock (the lab's in the lab), not this server's, so gradio's own "now - 2h" is not relied on."""

from __future__ import annotations

import re
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

import gradio as gr

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import as_utc, iso, parse_duration, parse_time
from netopsai.common.zones import zone_of
from netopsai.copilot.dates import find_dates

RELATIVE, ABSOLUTE = "relative", "absolute"
_NOW = re.compile(r"now\s*(?:([-+])\s*(\S+))?", re.I)
WINDOWS = ["1h", "2h", "6h", "24h", "7d"]


def _as_typed(payload: str | None) -> str | None:
    return payload.strip() if payload and payload.strip() else None


def network_time(label: str, elem_id: str, visible: bool = True) -> gr.DateTime:
    """A gr.DateTime whose text reaches us as typed: gradio would read "now - 6h" on this
    server's clock, and the window must end at the network's (the lab's clock in the lab). The
    instance's preprocess is replaced rather than subclassing: gradio writes a .pyi stub beside
    the module of every Component subclass."""
    box = gr.DateTime(label=label, type="string", scale=2, min_width=200, elem_id=elem_id,
                      visible=visible)
    setattr(box, "preprocess", _as_typed)  # noqa: B010 - mypy forbids assigning to a method
    return box


@dataclass
class TimePicker:
    mode: gr.Radio
    window: gr.Dropdown
    start: gr.DateTime
    end: gr.DateTime

    @property
    def inputs(self) -> list[Any]:
        return [self.mode, self.window, self.start, self.end]

    @property
    def changes(self) -> list[Any]:
        """The events that should re-read: a new mode or window, a start/end typed (Enter) or
        picked from the calendar."""
        return [self.mode.change, self.window.change, self.start.change, self.start.submit,
                self.end.change, self.end.submit]


def time_picker(prefix: str, default: str = "24h", row: bool = True) -> TimePicker:
    """The picker, in a row of its own (`row`) or in the caller's; elem ids `{prefix}-mode`,
    `-window`, `-start`, `-end`. Start and end show in absolute mode only, the last-window
    dropdown in relative mode only: a picker takes the room of what it uses."""
    with gr.Row(equal_height=True) if row else nullcontext():
        mode = gr.Radio([RELATIVE, ABSOLUTE], value=RELATIVE, label="time", scale=1, min_width=230,
                        elem_id=f"{prefix}-mode")
        window = gr.Dropdown(WINDOWS, value=default, label="last", allow_custom_value=True,
                             scale=1, min_width=90, elem_id=f"{prefix}-window")
        # Shown and hidden as one block, never by updating the boxes themselves: gradio keeps an
        # updated component as a fresh copy per session, which loses network_time's preprocess
        # and reads "now - 6h" on this server's clock again.
        with (gr.Column(scale=4, min_width=400, visible=False, elem_id=f"{prefix}-span") as span,
              gr.Row(equal_height=True)):
            start = network_time("start (network zone, or now - 6h)", f"{prefix}-start")
            end = network_time("end (empty: now)", f"{prefix}-end")
    mode.change(_show_mode, mode, [window, span], show_progress="hidden", queue=False)
    return TimePicker(mode, window, start, end)


def _show_mode(mode: str) -> tuple[Any, Any]:
    absolute = mode == ABSOLUTE
    return gr.update(visible=not absolute), gr.update(visible=absolute)


def zone_info(zone: str | None) -> tzinfo:
    return (zone_of(zone) if zone else None) or UTC


def read_time(text: str, now: datetime, zone: str | None) -> datetime:
    """ISO (without a zone: the network's), now / now - 6h / -25m from the network clock, or a
    calendar date the planner reads ("Nov 24"; "yesterday" is not one: use now - 24h)."""
    rel = _NOW.fullmatch(text.strip())
    if rel:
        return parse_time(f"{rel.group(1)}{rel.group(2)}", now) if rel.group(1) else as_utc(now)
    try:
        return parse_time(text, now, zone or "UTC")
    except NetopsError:
        local = as_utc(now).astimezone(zone_info(zone))
        hits = [h for h in find_dates(text, local.replace(tzinfo=None)) if h.day]
        if len(hits) != 1 or hits[0].text.strip() != text.strip():
            raise
        day = hits[0].day
        assert day is not None
        return as_utc(datetime(day.year, day.month, day.day, tzinfo=zone_info(zone)))


def window_arg(mode: str, window: str | None, start: str | None, end: str | None,
               now: datetime, zone: str | None) -> str | dict[str, str]:
    """The tools' `window`: the relative window as typed, or start/end resolved to UTC ISO (so
    the tool cannot read them in another zone). Bad input is a NetopsError naming it."""
    if mode != ABSOLUTE:
        text = (window or "24h").strip()
        parse_duration(text)  # the tool would say the same; earlier is clearer
        return text
    if not (start or "").strip():
        raise NetopsError("absolute time: pick or type a start, e.g. 2025-11-04 08:00:00 or now - 6h")
    t0 = read_time(str(start), now, zone)
    t1 = read_time(str(end), now, zone) if (end or "").strip() else as_utc(now)
    if t1 <= t0:
        raise NetopsError(f"the end {iso(t1)} is not after the start {iso(t0)}")
    return {"start": iso(t0), "end": iso(t1)}


def local_time(value: str | datetime | None, zone: str | None, *, seconds: bool = True) -> str:
    """'2025-11-04 21:02:26 CET (20:02Z)' in the network's zone with UTC beside it; only UTC
    ('2025-11-04 20:02:26Z') when the network's zone is UTC."""
    if value is None or value == "":
        return ""
    t = as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else value)
    fmt = "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
    tz = zone_info(zone)
    if tz.utcoffset(t) == UTC.utcoffset(t) and zone in (None, "", "UTC", "utc", "Z"):
        return t.strftime(fmt) + "Z"
    here = t.astimezone(tz)
    return f"{here.strftime(fmt)} {here.tzname() or zone} ({t:%H:%M}Z)"


def describe(window: dict[str, str] | None, label: str | dict[str, str], zone: str | None) -> str:
    """How a window reads to a person: 'for the last 24h (… .. …)' or 'between … and …', in the
    network's zone with UTC beside."""
    span = ""
    if window:
        span = f"{local_time(window['start'], zone, seconds=False)} and " \
               f"{local_time(window['end'], zone, seconds=False)}"
    if isinstance(label, str):
        return f"for the last {label}" + (f" (between {span})" if span else "")
    return f"between {span}" if span else "in the chosen window"
