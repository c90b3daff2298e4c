"""Small utilities every room may use: time windows, errors with one-line messages, host lists,
interface names, words, text made safe for terminals and prompts, the Ray connection. Nothing here
imports another netopsai room."""
