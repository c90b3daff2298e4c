"""Build build/view/netopsai: the package as it installs, tools/ ui/ prompts/ inventory/ inside.

The four top-level folders install as subpackages of netopsai through setup.py's package_dir
(docs/architecture.md, "Packaging"). An editable install maps them with an import hook that
mypy and grimp (import-linter's graph) cannot follow: both read the file tree, where
netopsai/tools does not exist. The view is that tree made of symlinks, one per entry of
netopsai/ plus one per mapped folder, rebuilt on every run so a new room is never missed;
[tool.mypy] mypy_path and the import contract read it (scripts/test.sh).

    python scripts/package_view.py [DEST]        # DEST defaults to build/view
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mapped_folders(root: Path = ROOT) -> dict[str, str]:
    """setup.py's MAPPED ({"netopsai.tools": "tools", ...}), read without running setup()."""
    for node in ast.parse((root / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "MAPPED" for t in node.targets):
            return dict(ast.literal_eval(node.value))
    raise SystemExit("setup.py: no MAPPED table of the folders that install under netopsai")


def build(dest: Path, root: Path = ROOT) -> Path:
    """Make DEST/netopsai anew and return it; its entries link to the checkout's files."""
    package = dest / "netopsai"
    if package.is_symlink() or package.is_file():
        package.unlink()
    elif package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for entry in sorted((root / "netopsai").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in mapped_folders(root).items():
        sub = name.removeprefix("netopsai.")
        if "." in sub:  # a deeper mapping would need a real directory between; none today
            raise SystemExit(f"setup.py: {name}: only direct subpackages of netopsai are mapped")
        (package / sub).symlink_to(root / folder)
    config = dest / "pyproject.toml"  # so `lint-imports` run in DEST finds the contract
    if not config.is_symlink():
        config.symlink_to(root / "pyproject.toml")
    return package


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "view")
