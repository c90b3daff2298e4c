"""A scratch folder that lives exactly as long as the object that owns it: made at once, removed
when the owner is collected or, failing that, when the interpreter exits. The web app makes
one per tab for its downloads; without this every app built (each `netopsai serve`, each test)
left an empty folder in the temp dir for good."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from pathlib import Path


def owned_scratch(owner: object, prefix: str) -> Path:
    """A new private (0700) folder removed with `owner`. Files handed to a browser must be
    copied out first (Gradio copies what a handler returns into its own cache)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    # weakref.finalize also runs at interpreter exit for owners still alive
    weakref.finalize(owner, shutil.rmtree, path, ignore_errors=True)
    return path
