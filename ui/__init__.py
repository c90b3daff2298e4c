"""netopsai.ui — installed as a subpackage of netopsai (docs/architecture.md, "Packaging")."""

if __name__ != "netopsai.ui":  # a bare 'import ui' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.ui")
