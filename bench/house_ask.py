"""house_same.py's child: in one tree's netopsai (first on PYTHONPATH), build
the bench lab, ask every question through the CLI's `ask --json` in process, then each arena
scenario on its own lab; write {key: {"exit", "stdout"}} as JSON.

    python bench/house_ask.py PLAN.json OUT.json      # NETOPSAI_HOME: an empty directory

Run as a file, not as `-m bench.house_ask`: -m would put the current checkout's netopsai first.
It imports nothing of bench/, only the tree's netopsai, so both trees run the same driver."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any


def where() -> dict[str, str]:
    """The files the answers come from: both must lie in the tree under test."""
    import netopsai
    import netopsai.tools

    return {"netopsai": str(Path(netopsai.__file__).resolve().parent),
            "tools": str(Path(netopsai.tools.__file__).resolve().parent)}


def ask(runner: Any, app: Any, question: str, thread: str) -> dict[str, Any]:
    got = runner.invoke(app, ["ask", question, "--json", "--thread", thread])
    return {"exit": got.exit_code, "stdout": got.stdout}


def root_app() -> Any:
    """The `netopsai` command's typer app wherever the tree keeps it: the CLI's app.py before
    33aa9ef, the launcher room since (both trees must run this one driver). The old home is
    tried first: the checkout is last on the path, so an older tree would find the checkout's
    launcher room too, and that imports modules the older tree does not have."""
    import importlib

    for module in ("netopsai.cli.app", "netopsai.launch.app"):
        try:
            return importlib.import_module(module).app
        except ModuleNotFoundError as gone:
            if gone.name not in (module, module.rsplit(".", 1)[0]):
                raise
    raise SystemExit("house_ask: this tree has neither netopsai.launch.app nor netopsai.cli.app")


def main() -> None:
    plan = json.loads(Path(sys.argv[1]).read_text())
    from typer.testing import CliRunner

    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab, reset_lab
    from netopsai.lab.scenario import Scenario, load_scenario
    from netopsai.store.engine import get_engine

    app = root_app()

    located = where()
    runner = CliRunner()
    lab = plan["lab"]
    engine = get_engine()
    init_lab(engine, "default", lab["scale"], lab["seed"], datetime.fromisoformat(lab["clock"]))
    answers: dict[str, Any] = {}
    for i, q in enumerate(plan["bench"]):
        if q.get("faults"):  # as bench_copilot's faulted class: injected in turn on the one lab
            inject(engine, Scenario.model_validate({
                "id": f"bench-{i}", "lab": {"spec": "default", "scale": lab["scale"], "seed": lab["seed"]},
                "now": lab["clock"], "question": q["q"],
                "faults": [{"at": lab["fault_at"], **f} for f in q["faults"]],
                "noise": {"alarms": 20, "changes": 6, "flaps": 2}}))
        answers[f"bench {q['class']} {i}: {q['q']}"] = ask(runner, app, q["q"], f"house-bench-{i}")
    reset_lab(engine)
    for i, path in enumerate(plan["scenarios"]):
        scenario = load_scenario(path)
        inject(engine, scenario)  # the scenario's own lab (spec, scale, seed, clock) and faults
        answers[f"scenario {Path(path).name}: {scenario.question}"] = ask(
            runner, app, scenario.question, f"house-scenario-{i}")
    Path(sys.argv[2]).write_text(json.dumps({"where": located, "answers": answers}, indent=1))


if __name__ == "__main__":
    main()
