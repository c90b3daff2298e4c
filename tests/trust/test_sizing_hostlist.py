"""Hostlists are sized before they are built (issue 23, B2): a Slurm hostlist of three big
brackets stands for a hundred million names; it is refused from the bracket sizes alone, in a
`jobs import` line and in a question, under an address-space limit, so a regression fails the
test instead of taking the machine's memory."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
import tracemalloc
from itertools import islice
from pathlib import Path

import pytest

from netopsai.common.errors import MalformedFile, NetopsError
from netopsai.common.hostlist import MAX_HOSTS, expand, hosts, size
from netopsai.store import jobs_import
from tests.cli_helpers import run_cli, small_lab_home

BOMB = "gpu-[0-999]x[0-999]y[0-99]"  # 100,000,000 names
HEADER = "JobID|JobName|User|State|Start|End|NodeList"
LIMIT_1G = 1 << 30  # a bare interpreter doing the parsing
LIMIT_2G = 2 << 30  # the whole `netopsai` command (its libraries map a lot of address space)


def _limit(n: int) -> object:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return apply


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter held to 1 GiB of address space."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, preexec_fn=_limit(LIMIT_1G))


def test_the_size_comes_from_the_brackets() -> None:
    assert size("gpu-[001-004,010],login1") == 6
    assert size("a[1-2]-n[08-09]") == 4
    assert size(BOMB) > MAX_HOSTS  # counted, not built
    assert size("n[1-3],n[2-4]") == 6 and expand("n[1-3],n[2-4]") == ["n1", "n2", "n3", "n4"]


def test_a_bomb_is_refused_before_the_first_name() -> None:
    with pytest.raises(NetopsError, match="more than 1,000,000 hosts"):
        hosts(BOMB)  # raised by the call itself, not at the first next()
    with pytest.raises(NetopsError, match="more than 10 hosts"):
        expand("n[1-11]", limit=10)
    with pytest.raises(NetopsError, match="more than 18 digits"):
        expand("n[1-" + "9" * 5000 + "]")  # int() of 5,000 digits would raise ValueError


def test_names_are_built_one_at_a_time() -> None:
    tracemalloc.start()
    try:
        first = list(islice(hosts("n[0000001-1000000]"), 3))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first == ["n0000001", "n0000002", "n0000003"]
    assert peak < 1 << 20, peak  # a million names held at once would be tens of MB


def test_bad_syntax_is_still_one_line() -> None:
    for bad, why in (("n[3-1]", "backwards"), ("n[1-2", "without"), ("n[a-b]", "N or N-M"),
                     ("n[[1]]", "nested")):
        with pytest.raises(NetopsError, match=why) as err:
            expand(bad)
        assert "\n" not in str(err.value)
    long = "n[" + ",".join(str(i) for i in range(3000)) + ",x]"
    with pytest.raises(NetopsError) as err:
        expand(long)
    assert len(str(err.value)) < 200  # a 15 KB expression is not quoted whole


def test_an_import_line_with_three_big_brackets_is_refused_under_1_gib() -> None:
    done = _python(f"""
        from netopsai.common.errors import MalformedFile
        from netopsai.store.jobs_import import parse_slurm
        text = "{HEADER}\\n1|ok|a|RUNNING|2025-11-04T14:00:00|Unknown|n[1-2]\\n"
        text += "2|bomb|b|RUNNING|2025-11-04T14:00:00|Unknown|{BOMB}\\n"
        try:
            parse_slurm(text, "bomb.txt")
        except MalformedFile as exc:
            print(exc)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "line 3" in done.stdout and "more than 1,000,000 hosts" in done.stdout, done.stdout


def test_a_question_with_a_bomb_is_planned_under_1_gib() -> None:
    done = _python(f"""
        from netopsai.planner.jobs import find_job
        ask = find_job("NCCL timeouts on {BOMB} since 14:00", {{}})
        print(ask.problems)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "more than 100,000 hosts" in done.stdout, done.stdout


def test_a_question_s_hostlists_share_one_budget() -> None:
    from netopsai.planner.jobs import QUESTION_HOSTS, find_job

    half = f"gpu-[1-{QUESTION_HOSTS * 3 // 4}]"
    ask = find_job(f"NCCL timeouts on {half} and {half.replace('gpu', 'cpu')}", {})
    assert ask is not None
    assert any("at most 100,000" in p for p in ask.problems), ask.problems


def test_a_file_of_many_big_lines_is_refused_past_its_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs_import, "FILE_HOSTS", 1000)
    lines = [HEADER] + [f"{i}|j|a|RUNNING|2025-11-04T14:00:00|Unknown|n{i}-[1-400]"
                        for i in range(1, 5)]
    with pytest.raises(MalformedFile) as err:
        jobs_import.parse_slurm("\n".join(lines), "many.txt")
    assert "line 4" in str(err.value) and "more than 1,000 hosts in all" in str(err.value)
    assert len(jobs_import.parse_slurm("\n".join(lines[:3]), "two.txt")) == 2  # 800 hosts: fine


def test_jobs_import_of_a_bomb_is_one_line(tmp_path: Path) -> None:
    home = small_lab_home(tmp_path)
    bomb = tmp_path / "bomb.txt"
    bomb.write_text(f"{HEADER}\n7001|bomb|eve|RUNNING|2025-11-04T14:00:00|Unknown|{BOMB}\n")
    done = run_cli(home, "jobs", "import", str(bomb), preexec_fn=_limit(LIMIT_2G))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "line 2" in done.stderr and "more than 1,000,000 hosts" in done.stderr
    asked = run_cli(home, "ask", f"NCCL timeouts on {BOMB}", "--json", preexec_fn=_limit(LIMIT_2G))
    assert asked.returncode == 0, asked.stderr[-2000:]
    assert "more than 100,000 hosts" in json.loads(asked.stdout)["answer"]


# the second hostile pass: a name-count budget alone lets long names through (100,000 names of
# 4 KB are 400 MB; a 60 KB import line with [1-99999] was 6 GB)
LONG = "g" * 3900 + "[1-99999]"


def test_long_names_are_refused_by_their_length_before_any_is_built() -> None:
    with pytest.raises(NetopsError, match="a host name of more than 253 characters"):
        hosts(LONG)
    with pytest.raises(NetopsError, match="MB of host names"):
        hosts("n" * 200 + "[1-99999]", 100_000)  # within both limits alone, not together
    assert len(expand("gpu-[001-004,010]", 100_000)) == 5  # real names are untouched


def test_an_import_line_of_long_names_is_refused_under_1_gib() -> None:
    done = _python(f"""
        from netopsai.common.errors import MalformedFile
        from netopsai.store.jobs_import import parse_slurm
        text = "{HEADER}\\n1|x|u|RUNNING|2026-11-27T05:00:00|Unknown|" + "g" * 60000 + "[1-99999]\\n"
        try:
            parse_slurm(text, "long.txt")
        except MalformedFile as exc:
            print(exc)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "line 2" in done.stdout and "more than 253 characters" in done.stdout, done.stdout


def test_a_question_of_long_names_is_planned_under_1_gib() -> None:
    done = _python(f"""
        from netopsai.planner.jobs import find_job
        ask = find_job("why is job slow on {LONG}", {{}})
        print(ask.problems if ask else None)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "more than 253 characters" in done.stdout, done.stdout


def test_a_spent_budget_is_said_as_such() -> None:
    from netopsai.planner.jobs import find_job

    ask = find_job("NCCL timeouts on a[1-50000],b[1-50000],c[1-5]", {})
    assert ask is not None and not any("more than 0 hosts" in p for p in ask.problems)
