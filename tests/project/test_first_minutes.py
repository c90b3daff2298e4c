"""A newcomer's first minutes (issue 26, part 1): the README's tour runs as written, line by
line, from the repository's root; `scripts/run.sh` says what each step does and how to get
`netopsai` on PATH; `lab inject` says that it resets the lab (and `--keep` stacks faults), and
which lab a scenario's device was looked for in; a running server reads the names of a new lab
without a restart."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import generation, init_lab
from netopsai.lab.scenario import load_scenario
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.watch import StoreWatch
from tests.cli_helpers import run_cli
from tests.paths import REPO

README = REPO / "README.md"
MARK = "<!-- tour:"
EXIT = re.compile(r"#.*\bexit (\d+)")


def tour_lines() -> list[str]:
    """The tour block's command lines (a line that is only a comment continues the one above)."""
    text = README.read_text()
    block = text[text.index(MARK):]
    block = block[block.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NETOPSAI_", "DATABASE_URL", "VIRTUAL_ENV"))}
    env.update(NETOPSAI_HOME=str(tmp / "home"), HOME=str(tmp), NO_COLOR="1", COLUMNS="200",
               GRADIO_ANALYTICS_ENABLED="False")
    return env


def test_the_tour_block_is_found_and_starts_by_putting_netopsai_on_path() -> None:
    lines = tour_lines()
    assert lines[0].split("#")[0].strip() == "source .venv/bin/activate"
    assert all(line.startswith("netopsai ") for line in lines[1:]), lines
    assert any("lab inject --keep bench/scenarios/" in line for line in lines)
    for line in lines:  # every scenario the tour names is in the repository
        for path in re.findall(r"bench/scenarios[\w-]*/[\w.-]+\.yaml", line):
            assert (REPO / path).is_file(), path


def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    """Each line in a shell of its own, after the tour's first line, from the repository's root;
    the exit each expects (0, or the `exit N` its comment names) and no traceback."""
    if not (REPO / ".venv/bin/activate").is_file():
        pytest.skip("no .venv at the repository's root (scripts/test.sh and run.sh make it)")
    first, *rest = tour_lines()
    env = clean_env(tmp_path)
    for line in rest:
        done = subprocess.run(["bash", "-c", f"{first.split('#')[0].strip()} && {line}"], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        want = int(hit.group(1)) if (hit := EXIT.search(line)) else 0
        said = (done.stdout + done.stderr)[-2000:]
        assert done.returncode == want, f"{line}\n-> exit {done.returncode}\n{said}"
        assert "Traceback" not in said, f"{line}\n{said}"
        assert done.stdout.strip() or done.stderr.strip(), f"{line} printed nothing"


def fake_repo(tmp: Path, pip_body: str) -> Path:
    """run.sh in a folder of its own with a .venv whose pip and netopsai are scripts: what the
    newcomer sees, with no registry and no server."""
    repo = tmp / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts/run.sh", repo / "scripts/run.sh")
    for name in ("pyproject.toml", "setup.py"):
        (repo / name).write_text("")
    venv = repo / ".venv/bin"
    venv.mkdir(parents=True)
    for name, body in (("python", "exit 0"), ("pip", pip_body),
                       ("netopsai", 'echo "netopsai $*"')):
        (venv / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (venv / name).chmod(0o755)
    return repo


PIP_OK = """for i in $(seq 1 60); do echo "Collecting pkg$i>=1.0"; echo "  Downloading pkg$i.whl"; done
echo "Installing collected packages: a, b, c"; echo "Successfully installed a b c\""""


def test_run_sh_says_each_step_and_how_to_get_netopsai_on_path(tmp_path: Path) -> None:
    repo = fake_repo(tmp_path, PIP_OK)
    env = clean_env(tmp_path)
    first = subprocess.run(["bash", "scripts/run.sh", "--port", "7999"], cwd=repo, env=env,
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "[netopsai] 1/3 virtualenv .venv: already there" in out
    assert "2/3 installing netopsai and its libraries" in out and "about 2 minutes" in out
    assert "50 packages found" in out and "installing 3 packages" in out
    assert "Downloading" not in out  # pip's own lines go to the log, not the screen
    assert "3/3 starting the web app; the first run builds the embedded lab" in out
    assert "source .venv/bin/activate" in out and ".venv/bin/netopsai" in out
    assert out.rstrip().endswith("netopsai serve --port 7999")  # then it is the server
    assert "Downloading pkg1.whl" in (repo / ".venv/pip-install.log").read_text()
    again = subprocess.run(["bash", "scripts/run.sh"], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=60)
    assert "2/3 netopsai and its libraries: installed already" in again.stdout  # no pip the 2nd time


def test_run_sh_shows_pips_last_lines_when_it_fails(tmp_path: Path) -> None:
    repo = fake_repo(tmp_path, 'echo "Collecting nothing"; echo "ERROR: No matching distribution '
                               'found for nothing" >&2; exit 1')
    done = subprocess.run(["bash", "scripts/run.sh"], cwd=repo, env=clean_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "pip failed" in done.stdout and "No matching distribution found" in done.stderr
    assert "3/3" not in done.stdout


SCENARIOS = REPO / "bench/scenarios"


def test_inject_says_it_resets_and_keep_stacks_the_faults(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = run_cli(home, "lab", "inject", str(SCENARIOS / "017-link-down-leaf.yaml"))
    assert first.returncode == 0, first.stderr
    assert "injected link_down" in first.stdout
    assert "Faults injected before are gone (--keep adds to them instead)" in first.stdout
    kept = run_cli(home, "lab", "inject", "--keep", str(SCENARIOS / "008-host-down-host.yaml"))
    assert kept.returncode == 0, kept.stderr
    assert "added host_down to the faults already in lab default/small seed 7" in kept.stdout
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    with Session(engine) as s:  # both faults are in: the link is down and the host is too
        down = s.exec(select(m.Interface).where(m.Interface.device == "dc2-leaf-02",
                                                m.Interface.name == "Ethernet52")).one()
        host = s.get(m.Device, "dc1-host-03-1")
        assert down.oper_status == "down" and host is not None and host.status != "up"
    again = run_cli(home, "lab", "inject", str(SCENARIOS / "008-host-down-host.yaml"))
    assert "reset to healthy default/small seed 7" in again.stdout
    with Session(engine) as s:  # without --keep: the first fault is gone
        up = s.exec(select(m.Interface).where(m.Interface.device == "dc2-leaf-02",
                                              m.Interface.name == "Ethernet52")).one()
        assert up.oper_status == "up"


def test_keep_refuses_another_lab_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_cli(home, "lab", "init").returncode == 0
    ai = REPO / "bench/scenarios-ai/027-ai-nic-flap.yaml"
    done = run_cli(home, "lab", "inject", "--keep", str(ai))
    assert done.returncode == 2
    assert "--keep adds faults to the lab as it is (default/small seed 7)" in done.stderr
    assert "is for ai/small seed 7" in done.stderr and "Traceback" not in done.stderr


def test_a_scenario_without_lab_says_which_lab_it_needs(tmp_path: Path) -> None:
    text = (REPO / "bench/scenarios-ai/027-ai-nic-flap.yaml").read_text()
    bare = tmp_path / "no-lab.yaml"
    bare.write_text("\n".join(x for x in text.splitlines() if not x.startswith("lab:")))
    home = tmp_path / "home"
    fresh = run_cli(home, "lab", "inject", str(bare))  # no lab at all yet
    assert fresh.returncode == 2
    assert "unknown device 'dc1-gpu1-004'" in fresh.stderr
    assert "looked for in lab default/small seed 7 (the default: the scenario names no lab:)" in fresh.stderr
    assert "need `lab: {spec: ai}`" in fresh.stderr
    assert run_cli(home, "lab", "init", "--spec", "ai").returncode == 0
    store_has = run_cli(home, "lab", "inject", str(bare))
    assert store_has.returncode == 2
    assert ("the store's lab ai/small seed 7 has it: add `lab: {spec: ai, scale: small, seed: 7}`"
            in store_has.stderr)


def _store(tmp_path: Path) -> Engine:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    return engine


def test_a_running_copilot_reads_the_names_of_a_new_lab(tmp_path: Path) -> None:
    engine = _store(tmp_path)
    copilot = Copilot(lab_backends(engine))
    watch = StoreWatch(copilot, engine)
    assert "dc1-gpu1-004" not in copilot.toolbox.vocab().devices
    assert watch.check() is False  # nothing changed
    before = generation(engine)
    init_lab(engine, "ai", "small", 7)  # what `lab init --spec ai` does under a running serve
    assert generation(engine) != before
    assert watch.check() is True
    assert "dc1-gpu1-004" in copilot.toolbox.vocab().devices
    answer = copilot.answer("what is wrong with dc1-gpu1-004?", "t-ai")
    assert "not in the inventory" not in answer["answer"]


def test_an_injection_is_not_a_new_generation(tmp_path: Path) -> None:
    engine = _store(tmp_path)
    before = generation(engine)
    inject(engine, load_scenario(SCENARIOS / "008-host-down-host.yaml"))  # re-inits: its now:
    after = generation(engine)
    assert after != before
    inject(engine, load_scenario(SCENARIOS / "017-link-down-leaf.yaml"))  # same lab and now: a reset
    assert generation(engine) == after
