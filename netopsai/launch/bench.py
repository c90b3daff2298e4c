"""netopsai command group: bench (registered by the launcher, launch/app.py) — the NetOpsArena
generator and runner."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DEFAULT_SCENARIOS = Path("bench/scenarios")


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    bench = typer.Typer(no_args_is_help=True, help="NetOpsArena: generate scenarios, score the copilot.")
    app.add_typer(bench, name="bench")
    bench.command("gen")(gen_cmd)
    bench.command("arena")(arena_cmd)


def gen_cmd(n: Annotated[int, typer.Option("--n", help="How many scenarios")] = 150,
            seed: Annotated[int, typer.Option(help="Same seed, same files")] = 1,
            out: Annotated[Path, typer.Option("-o", "--out", help="Folder to write to")] = DEFAULT_SCENARIOS,
            lab_seed: Annotated[int, typer.Option(help="Seed of the lab they run in")] = 7,
            scale: Annotated[str, typer.Option(help="Lab scale: small | medium | large")] = "small",
            spec: Annotated[str, typer.Option(help="default (flows in the DCs) | ai (job questions "
                                                   "on the GPU fabric)")] = "default") -> None:
    """Generate N scenario files (and manifest.json) into a folder, deterministically by seed."""
    from netopsai.arena.generate import LabKey, write
    from netopsai.arena.generate_ai import write_ai
    from netopsai.common.errors import NetopsError, unknown

    if out.exists() and not out.is_dir():
        raise NetopsError(f"--out {out} is a file, not a folder")
    _check_scale(scale)
    if spec not in ("default", "ai"):
        raise unknown("spec", spec, ["default", "ai"])
    paths = (write_ai(out, n, seed, scale, lab_seed) if spec == "ai"
             else write(out, n, seed, LabKey(scale=scale, seed=lab_seed)))
    typer.echo(f"wrote {len(paths)} scenarios (seed {seed}) to {out}")


def _check_scale(scale: str) -> None:
    from netopsai.common.errors import unknown

    if scale not in ("small", "medium", "large"):
        raise unknown("scale", scale, ["small", "medium", "large"])


def arena_cmd(
        scenarios: Annotated[Path, typer.Option(help="Folder of scenario YAML files")] = DEFAULT_SCENARIOS,
        baselines: Annotated[str, typer.Option(help="Comma-separated: one-shot, traceroute-only, "
                                                    "cvd, history, full")] = "",
        out: Annotated[Path, typer.Option("-o", "--out", help="Folder for results.json and "
                                                              "leaderboard.md")] = Path("arena-results"),
        generate: Annotated[int | None, typer.Option(help="Score N freshly generated scenarios "
                                                          "(held out) instead of a folder")] = None,
        seed: Annotated[int, typer.Option(help="Seed for --generate")] = 2,
        scale: Annotated[str, typer.Option(help="Lab scale for --generate")] = "small",
        lab_seed: Annotated[int, typer.Option(help="Lab seed for --generate")] = 7,
        llm: Annotated[str, typer.Option(help="none (offline) | scripted (counts prompt tokens)")] = "none",
        memory: Annotated[str, typer.Option(help="online (each scored scenario is confirmed into "
                                                 "incident memory) | none")] = "online",
        limit: Annotated[int | None, typer.Option(help="Only the first N scenarios")] = None) -> None:
    """Run every scenario in a fresh lab through each baseline; write results and a leaderboard."""
    import tempfile

    from netopsai.arena import run as arena

    _check_options(llm, memory, limit)
    _check_scale(scale)
    names = tuple(b.strip() for b in baselines.split(",") if b.strip()) or arena.BASELINES
    arena.check_baselines(names)
    with tempfile.TemporaryDirectory(prefix="netopsai-heldout-") as tmp:
        folder = scenarios
        if generate is not None:
            from netopsai.arena.generate import LabKey
            from netopsai.arena.generate import write as gen_write

            folder = Path(tmp)
            gen_write(folder, generate, seed, LabKey(scale=scale, seed=lab_seed))
        loaded = arena.load_dir(folder)[:limit]
        results = arena.run(loaded, arena.Options(names, llm, memory=memory), _progress,
                            arena.manifest(folder))
    if generate is not None:
        results["meta"]["held_out"] = {"n": generate, "seed": seed, "scale": scale, "lab_seed": lab_seed}
    done = arena.write(results, out)
    full = results["baselines"].get("full", {}).get("summary", {})
    tail = (f"; full: micro-F1 {full['micro_f1']:.3f}, location {full['location']:.3f}"
            if full.get("n") else "")
    typer.echo(f"scored {len(loaded)} scenarios{tail}; wrote {done.json_path} and {done.markdown_path}")


def _check_options(llm: str, memory: str, limit: int | None) -> None:
    from netopsai.common.errors import NetopsError

    if llm not in ("none", "scripted"):
        raise NetopsError(f"--llm must be none or scripted, not {llm!r}")
    if memory not in ("online", "none"):
        raise NetopsError(f"--memory must be online or none, not {memory!r}")
    if limit is not None and limit < 1:
        raise NetopsError(f"--limit must be at least 1, not {limit}")


def _progress(i: int, n: int, sid: str) -> None:
    if i == n or i % 10 == 0:
        typer.echo(f"[{i}/{n}] {sid}", err=True)
