"""The Slack bot: the bolt app, its settings, the worker that answers, and the listeners."""
