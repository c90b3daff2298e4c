"""What the offline planner says when it does not look anything up: a request to change the
network (it is read-only), a call for help, or a question no rule places — each with examples
it does answer, named from this inventory (GPU job examples only where there are GPU hosts)."""

from __future__ import annotations

import re

from netopsai.common.hostlist import compress
from netopsai.planner.entities import Vocabulary

ACTION = re.compile(r"^\s*(?:(?:and|then|now|so|ok(?:ay)?)\s+)?(?:please\s+)?(?:restart|reset|drain"
                    r"|reboot|reload|shut(?:down)?|no shut|bounce|disable|enable|configure|apply|push"
                    r"|roll ?back|clear|delete|remove|set|fix)\b(?!\s*+\?)", re.I)  # "rollback?" asks
HELP_ASK = re.compile(r"^\s*(?:help|\?|what can you do|what do you know|usage)\W*$", re.I)
HELP = ("Offline, I can answer: inventory (\"list the PoDs of {site} with their segments\", "
        "\"who owns {ip}?\", \"upstream switch of {host}\", \"neighbours of {spine}\", "
        "\"list the spines in {other}\", \"hosts in {pod}\"); alarms (\"any DCI/BBONE link alerts "
        "in the last 3h?\", \"open alarms on {leaf}\"); telemetry (\"port link status across all "
        "switches since 08:00\", \"top error ports in {site} today\", \"flapping links in the last "
        "24h\", \"utilisation of the {site} spines\", \"rx power on {dci}\"); changes (\"what "
        "changed on {spine} today\"); paths (\"trace {ip} to {ip2}\"); connectivity (\"{ip} to "
        "{ip2} not communicating\", \"packet loss from {ip} to {ip2}\"); and follow-ups (\"and its "
        "upstream switch?\", \"same for the last 24h\", \"what about {other}?\").")
JOBS = (" On the GPU fabric: training jobs (\"NCCL timeouts on {gpus}\", \"which jobs run on "
        "{gpu}?\", \"list the running jobs\", \"job <id> hit an NCCL timeout at 14:02\") and RoCE "
        "(\"PFC pause frames on the rails in the last hour\").")


def help_text(vocab: Vocabulary) -> str:
    """What the offline planner answers, with examples named from this inventory."""
    def first(role: str, site: str | None = None) -> str:
        names = vocab.named(role, site)
        return names[0] if names else f"a {role}"
    site = vocab.sites[0] if vocab.sites else "a site"
    other = vocab.sites[-1] if vocab.sites else "another site"
    host, host2 = first("host", site), first("host", other)
    text = HELP.format(site=site, other=other, host=host, spine=first("spine", site),
                       leaf=first("leaf", site), dci=first("dci", other),
                       pod=vocab.pods[0] if vocab.pods else "a PoD",
                       ip=vocab.addresses.get(host, "10.0.0.1"), ip2=vocab.addresses.get(host2, "10.0.0.2"))
    gpus = vocab.named("gpu_host")
    return text + (JOBS.format(gpus=compress(gpus[:4]), gpu=gpus[0]) if gpus else "")


def unknown_note(question: str, notes: list[str], vocab: Vocabulary) -> list[str]:
    """Why nothing was planned, what was understood, and what can be asked instead (the
    note's sentences)."""
    if HELP_ASK.search(question):
        return [help_text(vocab)]
    if ACTION.search(question):
        why = "netopsai is read-only and never changes a device; it can look things up instead"
    elif not question.strip():
        why = "the question is empty"
    else:
        why = "no rule of the offline planner (no LLM configured) matches this question"
    return [f"I could not place this: {why}.", *notes, help_text(vocab)]
