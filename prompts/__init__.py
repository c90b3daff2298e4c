"""netopsai.prompts — installed as a subpackage of netopsai (docs/architecture.md, "Packaging")."""

if __name__ != "netopsai.prompts":  # a bare 'import prompts' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.prompts")


def load(name: str) -> str:
    """A prompt file of this package (planner.md, coder.md ...), from the checkout or the wheel."""
    from importlib import resources

    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
