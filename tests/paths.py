"""Where the suite's shared folders are, for test modules at any depth of the rooms' mirror."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DATA = TESTS / "data"
