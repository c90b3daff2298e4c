"""A batch's paths pinned to one state of the lab: the lab backend's (backends/lab/pinned.py),
where the diagnosis' rail traces find them too."""

from netopsai.backends.lab.pinned import Pin, SnapshotPaths, pin_of, pinned

__all__ = ["Pin", "SnapshotPaths", "pin_of", "pinned"]
