"""netopsai.tools — installed as a subpackage of netopsai (docs/architecture.md, "Packaging")."""

if __name__ != "netopsai.tools":  # a bare 'import tools' from the repo root would load a second copy
    raise ImportError("import this package as netopsai.tools")

NOT_TOOLS = frozenset({"args", "base", "facts", "registry"})  # the contract's own modules


def tool_names() -> list[str]:
    """The tools, one module each (named as the tool), found without importing them; a tool's
    helpers live in a subpackage beside it (alarm_cases/ for alarms)."""
    import pkgutil

    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if not m.ispkg and m.name not in NOT_TOOLS)  # a subpackage helps a tool
