"""netopsai.inventory — installed as a subpackage of netopsai (docs/architecture.md, "Packaging")."""

if __name__ != "netopsai.inventory":  # a bare 'import inventory' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.inventory")
