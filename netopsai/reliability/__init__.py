"""The reliability report (`netopsai report reliability`, the web app's Reliability tab, the weekly
Slack digest): bad minutes per scope, repeat offenders, time to repair and alarm noise over a
window. reader.py reads the store, compute.py and repair.py are pure over what it read, model.py
holds the report and its definitions, export.py writes JSON and CSV, digest.py posts to Slack."""
