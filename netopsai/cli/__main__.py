"""`python -m netopsai.cli`, kept as an alias of `python -m netopsai` (scripts and the tests run
it): the process is handed to the launcher by name, as the shell would hand it to the
`netopsai` script. The command line is a front end like the others and imports no launcher (the
import contract's top layer); this file is only where Python looks for `-m netopsai.cli`."""

import runpy

runpy.run_module("netopsai", run_name="__main__")
