"""netopsai for other programs: an MCP server (mcp_server) and an HTTP API (http), both thin
over the same Copilot and tools as the CLI, the web app and the Slack bot. Read-only."""
