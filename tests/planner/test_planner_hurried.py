"""Words typed in a hurry, read as meant (issue 25 item 3; netopsai/planner/hurried.py and
complaints.py): shorthand, apostrophes left out, an address with its port, the complaint words
between two ends and the failure words of one switch — and the questions that must keep their
intent when such words appear in them. The phrasings here are our own, not the fuzz set's
(tests/planner/test_phrasings_hurried.py scores that one).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from netopsai.backends.base import Backends
from netopsai.planner import Vocabulary, plan
from netopsai.planner.hurried import normalise
from netopsai.planner.llm import LLMPlanner, as_meant
from netopsai_testkit.fake_openai import FakeOpenAI, fake_openai_fixture, text  # noqa: F401  (the fixture)

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)  # tests/conftest.py CLOCK


@pytest.fixture(scope="module")
def vocab(backends: Backends) -> Vocabulary:
    return Vocabulary.from_inventory(backends.inventory)


# --- the normalisation alone --------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "meant"), [
    ("issues w/ dc1-leaf-03?", "issues with dc1-leaf-03?"),
    ("whats up w/DC1-LEAF-03", "what's up with DC1-LEAF-03"),
    ("reroute w/o the spine", "reroute without the spine"),
    ("loss b/w pods", "loss between pods"),
    ("pls check thru the spines rn", "please check through the spines right now"),
    ("CANT REACH IT PLS", "CAN'T REACH IT PLEASE"),
    ("it wont connect and isnt pinging, doesnt answer", "it won't connect and isn't pinging, doesn't answer"),
    ("hosts r nt pinging", "hosts r not pinging"),
    ("can’t reach", "can't reach"),
    ("intf errs lst 24 hrs", "interface errs last 24 hrs"),
    ("rx pwr and retrans & pfcwd", "rx power and retransmits and pfc watchdog"),
    ("keeps loosing pkts", "keeps losing packets"),
])
def test_shorthand_and_missing_apostrophes(typed: str, meant: str) -> None:
    assert normalise(typed).text == meant


@pytest.mark.parametrize("text", [
    "dc1-leaf-03 Ethernet52 swp1 et-0/0/1 gpu-[001-004] ml/bert-sweep",  # names keep their letters
    "w/e", "aw/b", "b/wx", "10.1.3.20 22:00", "port 3 on dc1-leaf-01 down?",
    "ping 10.1.1.1 100 times", "between 10.1.3.20 and 10.2.1.40 10 minutes ago",
    "AT&T circuit", "nt4", "pls-01",
])
def test_what_is_not_hurried_stays_as_typed(text: str) -> None:
    said = normalise(text)
    assert (said.text, said.ports, said.read_as) == (text, [], {})


@pytest.mark.parametrize(("typed", "port"), [
    ("10.2.1.40:8443 hangs", 8443),
    ("10.2.1.40 port 22 refused", 22),
    ("10.2.1.40 on port 443 times out", 443),
    ("10.2.1.40 tcp/179 from 10.1.2.40", 179),
    ("telnet 10.2.2.40 179 from 10.1.2.40", 179),
    ("nc -zv 10.2.11.20 5432", 5432),
])
def test_the_port_beside_an_address_is_kept_apart(typed: str, port: int) -> None:
    said = normalise(typed)
    assert said.ports == [port]
    assert len(said.text) == len(typed) and str(port) not in said.text.replace("10.", "")
    assert "10.2." in said.text  # the address stays where it was
    assert said.notes == [f"port {port} noted: the path checks read addresses, not ports"]


def test_a_port_past_65535_is_not_a_port() -> None:
    assert normalise("10.2.1.40:99999").ports == []


# --- the planner on hurried words ----------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "10.1.6.20 -> 10.2.6.20 timing out since lunch",
    "rsync dc1-host-06-1 to dc2-host-06-1 stalls halfway",
    "10.1.6.30 lost 10.2.6.30 again",
    "10.1.6.40 & 10.2.6.40 not pinging each other",
    "dc1-host-06-4 is not able to ping dc2-host-06-4",
    "dc1-host-07-2 wont connect to dc2-host-07-2",
    "10.2.7.30 doesnt answer 10.1.7.30",
    "curl 10.1.7.40 -> 10.2.7.40:8080 connection refused",
    "flakey link between 10.1.8.20 and 10.2.8.20",
    "sessions from 10.1.8.30 to 10.2.8.30 disconnect every few mins",
    "10.2.8.40 unresponsive from 10.1.8.40",
])
def test_complaints_between_two_ends_are_diagnosed(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "diagnose.connectivity", (question, p.intent)
    assert len(p.entities.endpoints) == 2


def test_one_address_or_host_alone_with_a_complaint(vocab: Vocabulary) -> None:
    for question in ("10.2.9.20:443 hangs", "dc2-host-09-3 timing out", "lost 10.1.9.40"):
        p = plan(question, vocab, CLOCK)
        assert p.intent == "diagnose.connectivity" and len(p.entities.endpoints) == 1, question


def test_the_port_reaches_the_plan_and_its_note(vocab: Vocabulary) -> None:
    p = plan("10.1.3.20 -> 10.2.1.40:22 times out", vocab, CLOCK)
    assert p.intent == "diagnose.connectivity"
    assert p.entities.endpoints == ["10.1.3.20", "10.2.1.40"] and p.entities.ports == [22]
    assert "port 22 noted" in p.note and p.calls


@pytest.mark.parametrize("question", [
    "whats wrong w/ dc1-spine-03", "dc1-leaf-05 crashed overnight", "DC2-BORDER-01 OFFLINE",
    "dc1-spine-06 hung, console dead", "dc2-leaf-11 stopped forwarding", "dc1-dci-02 cpu pegged",
    "dc2-spine-01 keeps timing out", "dc1-leaf-12 unreachable since this morning",
    "somethings off w/ dc2-leaf-04", "dc1-superspine-02 acting up",
])
def test_failure_words_on_one_switch_are_a_device_diagnosis(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "diagnose.device", (question, p.intent)
    assert len(p.entities.devices) == 1


@pytest.mark.parametrize(("question", "intent"), [
    ("any alarms on dc1-leaf-05 after it crashed?", "alarms"),  # asks for the alarms
    ("what changed on dc1-leaf-05 before it went offline", "changes"),  # asks for the changes
    ("crc errors on dc1-spine-02, is that ok?", "telemetry.errors"),  # asks for a metric
    ("rx pwr on dc2-dci-02 ok?", "telemetry.rx_power"),
    ("bgp sessions offline on dc1-spine-02", "alarms"),  # the sessions' state, not the box's
    ("ospf config changed on dc1-spine-02? changes last 6h", "changes"),
    ("any OSPF adjacency changes on dc1-spine-01?", "alarms"),
    ("is Ethernet49 on dc1-leaf-04 down?", "telemetry.status"),
    ("Ethernet49 on dc1-leaf-04 keeps going up and down", "telemetry.flaps"),
    ("is dc1-host-03-1 up?", "inventory.device"),  # a host named, no complaint
    ("who owns 10.1.3.20?", "inventory.ip"),
    ("trace 10.1.3.20 to 10.2.1.40", "trace"),
    ("which spines does 10.1.3.20 -> 10.2.1.40 go thru", "trace"),
    ("alrams on dc1-spine-04 past hr", "alarms"),
    ("rollback? what changed on dc1-leaf-03 today", "changes"),
])
def test_questions_for_data_keep_their_intent(vocab: Vocabulary, question: str, intent: str) -> None:
    assert plan(question, vocab, CLOCK).intent == intent, question


@pytest.mark.parametrize("question", ["pls restart dc1-leaf-03", "rollback the change on dc1-leaf-03"])
def test_asking_for_an_action_is_still_refused(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "unknown" and p.calls == [] and "read-only" in p.note


def test_a_misspelt_word_is_read_and_said(vocab: Vocabulary) -> None:
    p = plan("chnages on dc1-spine-05 last 2h", vocab, CLOCK)
    assert p.intent == "changes" and p.entities.window == "2h"
    assert "read 'chnages' as 'changes'" in p.note


def test_planning_hurried_text_stays_linear(vocab: Vocabulary) -> None:
    """A long question full of slips and shorthand costs a look-up per word: ten times the text
    takes about ten times as long (a quadratic pass would take a hundred)."""
    import time

    unit = "alrams w/ dc1-leaf-03 cant ping 10.1.3.20:22 nt erors b/w pods pls "

    def seconds(n: int) -> float:
        text = (unit * (n // len(unit) + 1))[:n]
        t0 = time.perf_counter()
        normalise(text)
        return time.perf_counter() - t0
    seconds(2_000)  # caches warm
    small, large = min(seconds(10_000) for _ in range(3)), min(seconds(100_000) for _ in range(3))
    assert large < 40 * small + 0.05, (small, large)


# --- the LLM planner reads the same -------------------------------------------------------------

def test_the_llm_gets_the_question_as_typed_and_as_read() -> None:
    assert as_meant("trace 10.1.3.20 to 10.2.1.40") == "trace 10.1.3.20 to 10.2.1.40"
    shown = as_meant("whats wrong w/ dc1-leaf-03, alrams?")
    assert shown == ("whats wrong w/ dc1-leaf-03, alrams?\n"
                     "Read as: what's wrong with dc1-leaf-03, alarms?")
    assert as_meant("10.2.1.40:22 hangs").endswith("Read as: 10.2.1.40 hangs (port 22)")


def test_the_llm_prompt_carries_the_reading(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text("ok"))
    LLMPlanner(fake_openai.chat_model()).plan("cant ping 10.2.1.40 frm 10.1.3.20", CLOCK)
    ask = fake_openai.requests[-1]["messages"][-1]["content"]
    assert ask.startswith("Question: cant ping 10.2.1.40 frm 10.1.3.20\n"
                          "Read as: can't ping 10.2.1.40 frm 10.1.3.20\n")
