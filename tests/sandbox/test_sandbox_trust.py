"""Issue 23, B1 and B12: another local account must never become root through the sandbox.

Replayed with a second local account made for the test (`mallory`), on both run paths:
- (a) the runs folder made first by mallory, with links planted for the run's output names —
  at e47b4d3 root truncated any file through them and read any file back as a run's stdout;
- (b) mallory swapping the run dir / spec.json for one that turns the uid drop and seccomp off
  — at e47b4d3 the code ran as uid 0 with full capabilities;
- (B12) a run that plants links in its own dir for the files the parent reads back.
What must hold: the run's code is the unprivileged user with no capability, mallory's links are
never followed, a runs folder anyone else could have touched is refused with a one-line reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from netopsai.sandbox import SandboxSettings, prestart, prison, run_code, rundir, worker
from tests.sandbox_helpers import (
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a second local account needs root")
MALLORY = "netopsai-mallory"
NOBODY = 65534
WHO = ("import os\nst = open('/proc/self/status').read().splitlines()\n"
       "caps = [l.split()[1] for l in st if l.startswith(('CapEff', 'CapPrm', 'CapBnd'))]\n"
       "result = [os.getuid(), os.geteuid(), caps]")


@pytest.fixture(scope="module")
def mallory() -> Iterator[pwd.struct_passwd]:
    """A second local account, made for this module and removed after it."""
    subprocess.run(["userdel", MALLORY], capture_output=True)
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                    MALLORY], check=True, capture_output=True)
    try:
        yield pwd.getpwnam(MALLORY)
    finally:
        subprocess.run(["userdel", MALLORY], capture_output=True)


def as_user(who: pwd.struct_passwd, script: str, wait: bool = True) -> subprocess.Popen[str]:
    """A shell script run as `who` (no groups), as another account's process would."""
    proc = subprocess.Popen(["/bin/sh", "-c", script], user=who.pw_uid, group=who.pw_gid,
                            extra_groups=[], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd="/")
    if wait:
        proc.wait(timeout=30)
    return proc


@pytest.fixture(name="shared")
def shared_fixture() -> Iterator[Path]:
    """A world-writable sticky dir under /tmp that every account can reach, as /tmp itself
    (pytest's own temp dirs are closed to other users)."""
    shared = Path(tempfile.mkdtemp(prefix="netopsai-shared-", dir="/tmp"))
    shared.chmod(0o1777)
    try:
        yield shared
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture(name="shared_tmp")
def shared_tmp_fixture(shared: Path, monkeypatch: pytest.MonkeyPatch,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The shared dir as the process's system temp dir (pytest's own found first). The
    process's runs folder and warm worker are made afresh in it: an earlier test in this
    process may have made them under /tmp already, out of the racer's sight."""
    tmp_path_factory.getbasetemp()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setattr(rundir, "_OWN", {})
    worker.shutdown()
    yield shared
    worker.shutdown()  # its runs folder goes with the shared dir


def held_nothing(value: list[Any]) -> bool:
    uid, euid, caps = value
    return bool(uid == euid == NOBODY and all(int(str(c), 16) == 0 for c in caps))


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_runs_folder_made_first_by_another_account_is_never_used(
        warm: bool, mallory: pwd.struct_passwd, shared_tmp: Path) -> None:
    """(a): mallory makes the old fixed folder and plants links for every name the runs used;
    the process makes its own folder instead, and nothing mallory planted is touched."""
    victim = shared_tmp / "root-only"
    victim.write_text("root's data\n")
    victim.chmod(0o600)
    planted = shared_tmp / "netopsai-sandbox"
    as_user(mallory, f"mkdir -m 777 {planted} && for n in $(seq 1 50); do "
                     f"ln -s {victim} {planted}/netopsai-sbx-$n.out; done; "
                     f"ln -s /etc/shadow {planted}/shadow.out")
    s = SandboxSettings(warm=warm, audit_hook=False, seccomp=False)
    for _ in range(3):
        res = run_code(WHO, settings=s)
        assert res.ok and held_nothing(res.value), (res.error, res.value)
        assert "root:" not in res.stdout
    assert victim.read_text() == "root's data\n"
    assert [os.lstat(p).st_uid for p in planted.iterdir()] == [mallory.pw_uid] * 51


@pytest.mark.parametrize("how", ["theirs", "link", "open"])
def test_a_runs_folder_anyone_else_could_touch_is_refused(
        how: str, mallory: pwd.struct_passwd, tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    runs = tmp_path / "runs"
    if how == "theirs":
        runs.mkdir(mode=0o700)
        os.chown(runs, mallory.pw_uid, mallory.pw_gid)
    elif how == "link":
        (tmp_path / "real").mkdir(mode=0o700)
        runs.symlink_to(tmp_path / "real")
    else:
        runs.mkdir()
        runs.chmod(0o777)
    res = run_code("result = 1", settings=SandboxSettings(tmp_root=str(runs), warm=False))
    assert not res.ok and (res.error or "").startswith("sandbox refused: sandbox runs folder")
    assert "\n" not in (res.error or "")


SWAP = r"""
import glob, json, os, sys, time
spec = json.dumps({"uid": None, "gid": None, "seccomp": False, "hook": False})
end, tries, refused, swapped = time.time() + float(sys.argv[2]), 0, set(), 0
while time.time() < end:
    for root in glob.glob(os.path.join(sys.argv[1], "netopsai-sandbox*")):
        try:
            for name in os.listdir(root):
                d = os.path.join(root, name)
                if not os.path.isdir(d) or name.endswith(".old"):
                    continue
                os.rename(d, d + ".old")
                os.mkdir(d)
                open(os.path.join(d, "spec.json"), "w").write(spec)
                swapped += 1
        except OSError as exc:
            refused.add(exc.errno)
    tries += 1
print(tries, swapped, sorted(refused))
"""


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_another_account_cannot_swap_a_run_for_one_that_keeps_root(
        warm: bool, mallory: pwd.struct_passwd, shared_tmp: Path) -> None:
    """(b): mallory makes the old fixed folder first and races for the whole test to swap any
    run dir in any runs folder it can find for one whose spec turns the uid drop and seccomp
    off. Each run is still nobody with no capability: the runs folder is the process's own,
    and mallory's look inside it is refused."""
    as_user(mallory, f"mkdir -m 777 {shared_tmp / 'netopsai-sandbox'}")
    script = shared_tmp / "swap.py"
    script.write_text(SWAP)
    script.chmod(0o644)
    s = SandboxSettings(warm=warm, audit_hook=False, seccomp=False)
    assert not warm or prestart(s, wait=True), "the warm worker did not start"
    racer = as_user(mallory, f"exec /usr/bin/python3 {script} {shared_tmp} 6", wait=False)
    try:
        for _ in range(5):
            res = run_code(WHO, settings=s)
            assert res.ok and res.warm == warm and held_nothing(res.value), (res.error, res.value)
    finally:
        out, _ = racer.communicate(timeout=30)
    tries, swapped, refused = out.split(" ", 2)
    assert int(tries) > 0 and int(swapped) == 0, out
    assert "13" in refused, out  # EACCES: the process's own runs folder, found and refused


@pytest.mark.skipif(not prison.available((NOBODY, NOBODY)), reason="needs bubblewrap")
def test_without_its_own_steps_a_prisoned_run_still_holds_no_capability(tmp_path: Path) -> None:
    """The prison starts unprivileged (setpriv, then bwrap in a user namespace): a run whose
    spec asks for no uid drop, no filter and no hook holds no capability of the host."""
    res = run_code(WHO, settings=SandboxSettings(tmp_root=str(tmp_path), warm=False,
                                                 audit_hook=False, seccomp=False))
    assert res.ok and held_nothing(res.value), (res.error, res.value)
    assert "prison" in res.isolation


PLANT = """
import os
for name in ('result.json', 'spec.json', 'stdout', 'x.out', 'x.err'):
    try:
        os.symlink('/etc/shadow', name)
    except OSError:
        pass
print('planted')
result = sorted(n for n in os.listdir('.') if os.path.islink(n))
"""


@pytest.mark.parametrize("prisoned", [True, False], ids=["prison", "no-prison"])
def test_links_a_run_plants_in_its_dir_are_never_followed(
        prisoned: bool, path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    """B12: the parent reads the result and output through descriptors it opened before the
    run, never by name, so a run's links to /etc/shadow bring back nothing of it."""
    res = run_by(path, PLANT, tmp_path, audit_hook=False, prison=prisoned)
    assert res.ok, res.error
    assert "result.json" in res.value and res.stdout.strip() == "planted"
    assert "root:" not in res.stdout + str(res.value) + str(res.error)
    assert list(tmp_path.iterdir()) == []  # the run dir and its links are gone


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_private_umask_still_lets_the_run_read_its_files(warm: bool, tmp_path: Path) -> None:
    """The CLI runs with umask 077 (NETOPSAI_HOME stays private): the run dir's files are made
    readable by the run's user whatever the umask, or every analysis fails on spec.json."""
    old = os.umask(0o077)
    try:
        s = SandboxSettings(tmp_root=str(tmp_path / "runs"), warm=warm)
        assert not warm or prestart(s, wait=True), "the warm worker did not start"
        res = run_code("result = len(E1)", {"E1": {"columns": ["a"], "rows": [{"a": 1}]}}, settings=s)
    finally:
        os.umask(old)
    assert (res.ok, res.value) == (True, 1), res.error
