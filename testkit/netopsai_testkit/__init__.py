"""netopsai's test helpers, shared by tests/ and bench/ (testkit/pyproject.toml): `peers` (real
servers started on loopback or in test-made namespaces), `fake_openai` (a scripted model over
real HTTP), `fake_slack_api` (both sides of Slack) and `answers` (faulted labs asked issue 25's
question classes). It imports netopsai, never the other way round."""
