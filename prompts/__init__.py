"""netopsai.prompts — installed as a subpackage of netopsai (see ARCHITECTURE.md, packaging)."""

if __name__ != "netopsai.prompts":  # a bare 'import prompts' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.prompts")
