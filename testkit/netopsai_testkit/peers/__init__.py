"""Real protocol peers started on loopback or in test-made namespaces, shared by the integration tests."""
