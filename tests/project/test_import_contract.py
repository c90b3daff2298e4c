"""Issue 27 items 2 and 8: the import contract in pyproject.toml ([tool.importlinter]) holds on
the code as it is, and it catches a new forbidden import. lint-imports runs where
scripts/test.sh runs it: in a view of the package as it installs (tools/ and ui/ inside
netopsai/), built here in a temporary directory."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests.paths import DATA, REPO

ROOT = REPO
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def package_view() -> ModuleType:
    spec = importlib.util.spec_from_file_location("package_view", ROOT / "scripts" / "package_view.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lint_imports(view: Path) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} is missing: install the test extra (pip install -e '.[test]')")
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=view, capture_output=True, text=True,
                          timeout=300)


def unfold(view: Path, room: str) -> Path:
    """Turn the view's links down to ROOM ("ui/gradio") into directories of links, so a test can
    add a file to the room without writing into the checkout."""
    here = view / "netopsai"
    for part in room.split("/"):
        here = here / part
        target = here.resolve()
        if here.is_symlink():
            here.unlink()
            here.mkdir()
            for entry in target.iterdir():
                if entry.name != "__pycache__":
                    (here / entry.name).symlink_to(entry)
    return here


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """One lint-imports run over the code as it is."""
    view = tmp_path_factory.mktemp("view")
    package = package_view().build(view)
    assert (package / "tools" / "__init__.py").exists() and (package / "ui" / "__init__.py").exists()
    return lint_imports(view)


def test_the_contract_names_every_room() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = {c["id"]: c for c in config["contracts"]}
    layers = contracts["layers"]["layers"]
    assert layers[0] == "launch : __main__"  # the process entry, above every front end
    assert layers[1].split(" | ") == ["ui", "api", "cli", "batch", "arena"]  # independent siblings
    rooms = {r.strip() for layer in layers for r in layer.replace("|", ":").split(":")}
    on_disk = {p.name for p in (ROOT / "netopsai").iterdir() if (p / "__init__.py").exists()}
    mapped = {m.removeprefix("netopsai.") for m in package_view().mapped_folders(ROOT)}
    assert on_disk | mapped <= rooms
    assert contracts["layers"]["exhaustive"] is True  # a room with no layer breaks the contract
    assert set(contracts["front-ends"]["forbidden_modules"]) == {
        "netopsai.store", "netopsai.planner", "netopsai.diagnosis"}
    assert "netopsai.launch" in contracts["front-ends"]["source_modules"]


def test_only_the_evidence_record_is_ignored_by_design() -> None:
    """The `netopsai` command starts the other front ends from the launcher room above them
    (netopsai/launch/), so the layers need no excuse for it: the only by-design ignores left are
    the three rooms that return Evidence, the copilot room's record."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    ignored = next(c for c in config["contracts"] if c["id"] == "layers")["ignore_imports"]
    assert ignored == [f"netopsai.{room}.** -> netopsai.copilot.evidence"
                       for room in ("tools", "diagnosis", "planner")]
    script = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["netopsai"]
    assert script == "netopsai.launch.thin:run"  # the console script enters through the launcher


FRONT_END_NAMED = re.compile(r"""(?:^\s*(?:from|import)\s+|["'])netopsai\.(ui|api|batch|arena|launch)\b""",
                             flags=re.M)


def test_the_command_line_names_no_other_front_end_nor_the_launcher() -> None:
    """Not even out of the import graph's sight (a string handed to importlib or runpy): what
    starts the web app, the bot, the API, batch or the arena is the launcher's. `python -m
    netopsai.cli` hands the process to `python -m netopsai` by the package's name."""
    naming = {str(p.relative_to(ROOT)): sorted(set(FRONT_END_NAMED.findall(p.read_text())))
              for p in (ROOT / "netopsai" / "cli").rglob("*.py")}
    assert not {path: rooms for path, rooms in naming.items() if rooms}
    assert FRONT_END_NAMED.findall("    from netopsai.ui.gradio.app import serve\n"
                                   "x = import_module('netopsai.launch.app')\n") == ["ui", "launch"]


def test_the_code_keeps_the_contract(checked: subprocess.CompletedProcess[str]) -> None:
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Contracts: 3 kept, 0 broken." in checked.stdout


def paid_debts(stdout: str) -> list[str]:
    """The ignored imports lint-imports found no match for ("No matches for ignored import A ->
    B."): debts paid whose lines are still listed. Rich wraps a warning longer than the terminal
    (80 columns with none) onto the next lines, at a space or, for a longer word, inside it, so
    an item is its "- " line and every non-blank line after it up to the next item."""
    items: list[list[str]] = []
    open_item = False
    for line in stdout.splitlines():
        if line.startswith("- "):
            items.append([line[2:]])
            open_item = True
        elif line.strip() and open_item:
            items[-1].append(line)
        else:
            open_item = False
    paid = []
    for item in items:
        found = re.fullmatch(r"No matches for ignored import (.+)\.", "".join(item).strip())
        if found:
            paid.append(re.sub(r"\s*->\s*", " -> ", found.group(1)))
    return paid


def test_every_listed_debt_is_still_owed(checked: subprocess.CompletedProcess[str]) -> None:
    paid = paid_debts(checked.stdout)
    assert not paid, "debts paid: delete their lines from pyproject.toml: " + "; ".join(paid)


def test_a_paid_debt_is_read_however_its_warning_wraps() -> None:
    """lint-imports' own output (tests/data/import_contract): 36 warnings, many wrapped after
    their arrow, one name longer than a line wrapped inside the word."""
    out = (DATA / "import_contract" / "lint_imports_wrapped.txt").read_text()
    paid = paid_debts(out)
    assert len(paid) == out.count("\n- No matches for ignored import ") == 36
    assert all(re.fullmatch(r"netopsai(\.\w+)+ -> netopsai(\.\w+)+", p) for p in paid), paid
    assert "netopsai.api.tokens -> netopsai.store.engine" in paid  # one line
    assert "netopsai.cli.snapshots -> netopsai.store.snapshots" in paid  # wrapped, the last item
    assert ("netopsai.arena.generate_ai -> netopsai.diagnosis.a_module_name_so_long_that_it_"
            "cannot_fit_on_one_line_of_eighty_columns") in paid  # three lines


def test_a_new_forbidden_import_breaks_the_contract(tmp_path: Path) -> None:
    package_view().build(tmp_path)
    # common imports no other room (an arrow that runs up from the bottom layer) ...
    (unfold(tmp_path, "common") / "zz_probe_up.py").write_text("from netopsai.store import engine\n")
    # ... and a front end reaches the diagnosis only through Copilot
    (unfold(tmp_path, "ui/gradio") / "zz_probe_door.py").write_text("import netopsai.diagnosis.engine\n")
    # ... and a tool reads the network through the backends, not the store's tables
    (unfold(tmp_path, "tools") / "zz_probe_store.py").write_text("from netopsai.store import tables\n")
    # ... and the command line does not start the other front ends: the launcher above it does
    (unfold(tmp_path, "cli") / "zz_probe_launch.py").write_text("from netopsai.launch import serving\n")
    run = lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Contracts: 0 kept, 3 broken." in run.stdout
    assert "netopsai.tools.zz_probe_store -> netopsai.store" in run.stdout
    assert "netopsai.common.zz_probe_up -> netopsai.store" in run.stdout
    assert "netopsai.ui.gradio.zz_probe_door -> netopsai.diagnosis.engine" in run.stdout
    assert "netopsai.cli.zz_probe_launch -> netopsai.launch.serving" in run.stdout


def test_bench_scripts_import_without_editing_sys_path() -> None:
    """bench/ is a package run with `python -m bench.NAME` (docs/architecture.md, "Packaging"):
    its scripts reach each other, and the suite's helpers through the installed netopsai_testkit,
    without sys.path edits and without importing the test suite — every script (bench/arena's
    too)."""
    scripts = list((ROOT / "bench").rglob("*.py"))
    editing = {str(p.relative_to(ROOT)) for p in scripts
               if re.search(r"^\s*sys\.path\.(insert|append)\(", p.read_text(), flags=re.M)}
    assert not editing, sorted(editing)
    from_tests = {str(p.relative_to(ROOT)) for p in scripts
                  if re.search(r"^\s*(from|import)\s+tests(\.|\s|$)", p.read_text(), flags=re.M)}
    assert not from_tests, sorted(from_tests)
    import netopsai_testkit  # installed (scripts/test.sh), not found through the working directory
    assert Path(netopsai_testkit.__file__).parent.parent == ROOT / "testkit"
    # every folder holding scripts is a package, so `python -m bench.arena.run_public` finds it
    folders = {p.parent for p in scripts}
    assert all((d / "__init__.py").is_file() for d in folders), sorted(map(str, folders))
