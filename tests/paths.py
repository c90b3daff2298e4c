"""Where the suite's shared folders are, for test modules at any depth of the rooms' mirror,
and the bench package for the tests that run a bench's own code."""

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DATA = TESTS / "data"


def bench_module(name: str) -> ModuleType:
    """`bench.NAME` from the checkout. bench/ is a package run from the repository root
    (`python -m bench.NAME`) and is not installed; the suite does not put the root on sys.path
    (a bare `tools` would then shadow netopsai.tools), so the package is registered by its file."""
    if "bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "bench", REPO / "bench" / "__init__.py", submodule_search_locations=[str(REPO / "bench")])
        assert spec and spec.loader
        package = importlib.util.module_from_spec(spec)
        sys.modules["bench"] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"bench.{name}")
