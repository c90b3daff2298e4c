"""The copilot's core: `Copilot` (the front ends' door), the LangGraph graph and its nodes, the
planner's routing, the toolbox, the evidence ledger, the summarizers, the coder agent and its
recipes, and the chat-model factory."""
