"""The one seam every front end builds on: the CLI (tool, ask, chat, batch), the Gradio app and
the Slack bot all read the store in NETOPSAI_HOME through the backends its configuration selects
(config.yaml + secrets.yaml; the lab's own simulation when neither exists). Nothing heavy is
imported at module level, so `netopsai tool` stays quick."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.backends.base import Backends
    from netopsai.config.network import NetConfig
    from netopsai.copilot.service import Copilot

FIRST_RUN_SCALE = "small"


def store_engine() -> Engine:
    """The store of NETOPSAI_HOME (or DATABASE_URL)."""
    from netopsai.store.engine import get_engine

    return get_engine()


def ensure_network(engine: Engine) -> bool:
    """Build the embedded lab when the SQLite store holds no network at all (the servers' first
    run); a store holding the lab or a real network, or a PostgreSQL one, is left alone. True
    when the lab was built."""
    from netopsai.common.errors import NetopsError
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import StoreUnreachable
    from netopsai.store.network import network_kind

    try:
        network_kind(engine)
        return False
    except StoreUnreachable:
        raise  # out of reach is not empty: never "first run" over a store we cannot read
    except NetopsError:
        if engine.dialect.name != "sqlite":  # a team's database: never filled with a demo lab
            print("the store holds no network yet: run `netopsai lab init`, or poll, discover "
                  "or import the real one", file=sys.stderr, flush=True)
            return False
        # stderr: a server's stdout carries its "listening on" line, which scripts wait for
        print(f"first run: building the embedded lab ({FIRST_RUN_SCALE})…", file=sys.stderr,
              flush=True)
        init_lab(engine, "default", FIRST_RUN_SCALE)
        return True


def frontend_backends(engine: Engine | None = None, *, first_run_lab: bool = False,
                      cfg: NetConfig | None = None) -> Backends:
    """The configured backends over the store. The configuration is read (and checked) before a
    first-run lab is built, so a broken config.yaml fails at once with its one-line reason."""
    from netopsai.backends.registry import configured_backends
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import load_netconfig, usage_problems

    engine = engine if engine is not None else store_engine()
    cfg = cfg if cfg is not None else load_netconfig()
    if first_run_lab:
        problems = usage_problems(cfg)  # what the selected backends lack: before a lab is built
        if problems:
            raise NetopsError(problems[0])
        ensure_network(engine)
    return configured_backends(engine, cfg)


def frontend_copilot(*, first_run_lab: bool = False, use_llm: bool = True) -> Copilot:
    """The copilot on the configured backends, the LLM when one is configured (offline
    otherwise), its threads kept in NETOPSAI_HOME (resumable across restarts)."""
    from netopsai.config.settings import StoreSettings
    from netopsai.copilot.llm import configured, make_chat_model
    from netopsai.copilot.service import Copilot, saver_for
    from netopsai.store.engine import get_engine

    settings = StoreSettings()
    backends = frontend_backends(get_engine(settings), first_run_lab=first_run_lab)
    llm = make_chat_model() if use_llm and configured() else None
    return Copilot(backends, llm=llm, checkpointer=saver_for(settings.url, settings.home))
