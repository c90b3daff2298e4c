"""Alertmanager: the webhook receiver."""
