"""The Gradio web app: build_app(copilot) and one module per tab or concern."""
