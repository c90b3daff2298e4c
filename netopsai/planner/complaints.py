"""How on-calls say something is wrong: between two ends (a connectivity complaint) or with one
device (a device diagnosis).

The words are the ones in operators' tickets and chats (tests/data/phrasings/hurried.yaml):
"times out", "hangs", "freezes", "stalls", "lost", "not pinging", "not able to ping", "won't
connect", "doesn't answer", "no response", "connection refused", "flaky"; of a switch, "crashed",
"dead", "offline", "hung", "stopped forwarding", "high cpu", "something's off with". Read after
planner/hurried.py, so "cant", "wont", "whats", "w/" arrive as "can't", "won't", "what's", "with".
Gaps between words are bounded (NEAR): an unbounded one rescanned the rest of the question from
each word (issue 23, B6).
"""

from __future__ import annotations

import re


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


NEAR = r".{0,200}"  # "can A reach B", "is X ... healthy": the two words at most this far apart
# a negation before a verb of reaching: "can't ssh", "won't connect", "never answers"
_NEG = (r"(?:can'?t|cannot|can not|couldn'?t|unable to|fails? to|failing to|failed to|won'?t|will not"
        r"|doesn'?t|does not|don'?t|do not|didn'?t|did not|isn'?t|aren'?t|not able to|never)")
_VERB = (r"(?:reach|ping|connect|talk|communicat\w*|get (?:on)?to|get through|see|ssh|telnet|access"
         r"|log ?in(?:to)?|open|load|respond\w*|answer\w*|reply|work\w*|pass|establish)")
DIAG = _rx(r"\bnot\s+(?:able to\s+)?(?:communicat\w*|talk\w*|reach\w*|working|connect\w*|respond\w*"
           r"|ping\w*|answer\w*|replying|load\w*|pass\w*)"
           r"|\b" + _NEG + r"\s+(?:be able to\s+)?(?:even\s+)?" + _VERB + r"\b"
           # "ssh to B doesn't (from A)": the negation ends the clause
           r"|\b(?:doesn'?t|does not|won'?t|will not|isn'?t|don'?t)(?=\s*+(?:from\b|[.?!,;]|$))"
           r"|\bunreachable\b|\breachab\w*"
           r"|\bcan\b" + NEAR + r"\b(?:reach|ping|talk to|connect to|communicate)\b"
           r"|\bno (?:connectivity|reachability|route|responses?|reply|replies|answer|ping)\b"
           r"|\bconnectivity\b|\bpacket[\s-]?loss\b|\blos(?:s|t|e|es|ing)\b|\bdropp?\w*|\bslow\w*"
           r"|\blatency\b|\btime[\s-]?outs?\b|\btim(?:es|ing|ed) out\b|\bjitter\b|\bbroken\b"
           r"|\bflak(?:e?y|iness)\b|\bintermittent\w*|\bmtu\b|\bjumbo\b|\bissues?\b|\bproblems?\b"
           r"|\bdown\b|\bhang(?:s|ing)?\b|\bhung\b|\bfreez\w*|\bfroz(?:e|en)\b|\bstall(?:s|ed|ing)?\b"
           r"|\bstuck\b|\brefused\b|\bdenied\b|\bfail(?:s|ed|ing|ures?)\b|\bcrash\w*"
           r"|\bconnection (?:reset|closed)\b|\bunresponsive\b|\bdisconnect\w*|\binterrupt\w*"
           r"|\bterminat\w*|\bendless\w*|\bforever\b|\binaccessible\b|\bnot pingable\b")
# One way works, the other does not (issue 25 item 2): "SYNs arrive but nothing comes back",
# "one-way", "they see our requests", "their side sees our echo requests", "SYN goes out",
# "replies never come back", "asymmetric". Between two ends a connectivity diagnosis, which
# traces the way back too (diagnosis/context.baseline_calls).
ONE_WAY = _rx(r"\bone[\s-]?way\b|\bunidirectional\b|\basymmetric\w*|\basymmetry\b"
              r"|\bnothing (?:comes?|coming|came) back\b|\bno (?:return traffic|way back)\b"
              r"|\b(?:repl(?:y|ies)|responses?|answers?|syn[-/ ]?acks?|return traffic|echo[- ]repl(?:y|ies))"
              r"\b.{0,40}?\b(?:never|don'?t|doesn'?t|do not|does not|not|aren'?t|isn'?t|didn'?t)"
              r"\b.{0,20}?\b(?:come|coming|came|get|gets|getting|make|makes|arriv\w*|return\w*|back)\b"
              r"|\bno (?:syn[-/ ]?acks?|echo[- ]repl(?:y|ies))\b"
              r"|\b(?:see|sees|seeing|saw|receiv\w*)\s++(?:\w++\s++){0,3}?(?:requests?|syns?|pings?|"
              r"echo[- ]requests?|packets|traffic)\b"
              r"|\bsyns?\b.{0,40}?\b(?:arriv\w*|goes? out|go(?:ing)? out|went out|leav\w*|sent|reach\w*)"
              r"|\b(?:only )?(?:goes|go|going|works?|working) (?:out|one direction|in one direction)\b")
HEALTH = _rx(r"\bwhat(?:'s| is| was)? (?:wrong|going on|happening)\b"
             r"|\bwhat(?:'s| is| was)? up (?:with|on|at)\b"
             r"|\bwhat happened (?:to|on|with)\b|\bwhy (?:is|are|does|do|did|was)\b"
             r"|\bin trouble\b|\bhealth\w*|\btroubleshoot\w*|\bdiagnos\w*"
             r"|\b(?:any|some)thing(?:'s| is)? (?:wrong|off|weird|broken)\b")
# Weaker: a doubt about one device, or its failure in a ticket's words. A device diagnosis unless
# the question asks for data about it ("rx power on X, is that ok?": the metric; "alarms on X
# after it crashed": the alarms)
DOUBT = _rx(r"\bis\b" + NEAR + r"\b(?:ok(?:ay)?|fine|alright|sick|broken|unhealthy)\b"
            r"|\b(?:issues?|problems?|trouble) (?:with|on|at|since|after)\b")
FAILING = _rx(r"\bcrash\w*|\bhung\b|\bhang(?:s|ing)?\b|\bfreez\w*|\bfroz(?:e|en)\b|\bstuck\b"
              r"|\bunresponsive\b|\bnot respon\w*|\b(?:do|does|did) ?n(?:o|')t respon\w*"
              r"|\bstop(?:s|ped)? (?:forwarding|working|responding|passing)\b|\bhigh cpu\b"
              r"|\bcpu (?:is )?(?:high|spik\w*|pegged)|\bhosed\b|\bacting up\b|\bmisbehav\w*"
              r"|\bslow(?:s|ed)? down\b|\bgot (?:\w+ )?slow\b|\btime[\s-]?outs?\b|\btim(?:es|ing|ed) out\b"
              r"|\binaccessible\b|\bnot (?:pingable|accessible)\b|\bunpingable\b"
              r"|\breboot(?:s|ed|ing)? (?:itself|on its own|unexpected\w*|randomly|by itself)")
# Words of state, said of a box and of its routing sessions alike: "bgp neighbor goes offline"
# asks for the sessions' alarms, "dc1-border-02 offline" for a diagnosis
GONE = _rx(r"\bdead\b|\bdown hard\b|\boffline\b|\bunreachable\b|\bnot reachable\b")
CHANGE_ASK = _rx(r"\b(?:what|which|any|recent|list|show)\s++(?:\w++\s++){0,2}?(?:chang|modif)\w*"
                 r"|\bwho (?:touched|changed)\b|\bchanges? (?:on|to|for|made)\b"
                 r"|\b(?:some|any)(?:one|body) (?:chang|modif|touch)\w*")

# "replies from B never come back to A", "no answers from B": B is the end that answers, so the
# flow (and its forward trace) starts at the other end
_REPLY_FROM = _rx(r"\b(?:repl(?:y|ies)|responses?|answers?|syn[-/ ]?acks?|return traffic"
                  r"|echo[- ]repl(?:y|ies))\b(?:\s++[\w']++){0,4}?\s++from\s++(?:host\s++|the\s++)?"
                  r"([\w.:-]++)")


def requester_first(question: str, ends: list[str], addresses: dict[str, str]) -> list[str]:
    """The two ends with the one that asks first, when the question names the other as the
    one whose replies do not come back (names read through `addresses`)."""
    m = _REPLY_FROM.search(question)
    if len(ends) != 2 or m is None:
        return ends
    said = m.group(1).rstrip(".:,")
    return ends[::-1] if addresses.get(said, said) == ends[0] else ends
