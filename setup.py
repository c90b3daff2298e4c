"""Package discovery for the four top-level folders that install as subpackages of netopsai
(tools/, ui/, prompts/, inventory/): found like any package, then named under netopsai, so a
new subpackage anywhere needs no edit here. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

MAPPED = {"netopsai.tools": "tools", "netopsai.ui": "ui", "netopsai.prompts": "prompts",
          "netopsai.inventory": "inventory"}

packages = find_packages(include=["netopsai", "netopsai.*"])
for name, folder in MAPPED.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]

setup(packages=packages, package_dir=MAPPED)
