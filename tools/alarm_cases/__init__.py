"""Alarm cases: the alarms tool groups a window's alarms into cases (one outage, one case) by
time and topology; correlate.py groups, topology.py knows which alarms explain which."""
