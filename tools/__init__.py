"""netopsai.tools — installed as a subpackage of netopsai (see ARCHITECTURE.md, packaging)."""

if __name__ != "netopsai.tools":  # a bare 'import tools' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.tools")
