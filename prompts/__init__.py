"""netopsai.prompts — installed as a subpackage of netopsai (docs/architecture.md, "Packaging")."""

if __name__ != "netopsai.prompts":  # a bare 'import prompts' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.prompts")

from functools import cache  # noqa: E402 - after the guard: nothing loads under the wrong name
from importlib import resources  # noqa: E402


@cache
def load(name: str) -> str:
    """A prompt file of this package (planner.md, coder.md ...), from the checkout or the wheel;
    read once per process."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
