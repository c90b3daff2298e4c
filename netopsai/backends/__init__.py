"""Data sources behind the tools. The embedded lab is the default; real sources plug in here."""
