"""A model in Ollama's store on this machine, ``ollama:llama3.2`` or ``ollama:qwen2.5:0.5b``, read from its blob.

Ollama keeps each model as a manifest and content-addressed blobs, under ``$OLLAMA_MODELS`` (default
``~/.ollama/models``; Linux's system service uses ``/usr/share/ollama/.ollama/models``)::

    manifests/registry.ollama.ai/library/llama3.2/latest     JSON: {"layers": [{"mediaType", "digest", "size"}]}
    blobs/sha256-<64 hex digits>                              the layer whose mediaType is
                                                              application/vnd.ollama.image.model: the GGUF file

A name is ``[host/][namespace/]model[:tag]``: the host defaults to ``registry.ollama.ai``, the namespace to
``library`` and the tag to ``latest`` (``ollama:hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M`` names a
model pulled from the Hub).

>>> parse_ollama_reference("ollama:qwen2.5:0.5b")
('registry.ollama.ai', 'library', 'qwen2.5', '0.5b')
>>> parse_ollama_reference("ollama:hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M")[:3]
('hf.co', 'bartowski', 'Llama-3.2-1B-Instruct-GGUF')

The manifest is untrusted like any file: it is read up to 1 MiB, its digest must be ``sha256:`` and 64 hex
digits (so it cannot name a path outside ``blobs/``), and the blob's size must be the layer's.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..errors import SourceError
from .base import Options
from .local import LocalReader, LocalSource

__all__ = ["MODEL_MEDIA_TYPE", "OllamaSource", "models_dir", "parse_ollama_reference"]

MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model"
_MAX_MANIFEST = 1 << 20
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}(:\d{1,5})?")
_DIGEST = re.compile(r"sha256:([0-9a-f]{64})")
_USAGE = "expected ollama:model[:tag], e.g. ollama:llama3.2 or ollama:qwen2.5:0.5b"


def models_dir() -> Path:
    """``$OLLAMA_MODELS``, else ``~/.ollama/models``."""
    env = os.environ.get("OLLAMA_MODELS")
    return Path(env).expanduser() if env else Path.home() / ".ollama" / "models"


def parse_ollama_reference(ref: str) -> tuple[str, str, str, str]:
    """``(host, namespace, model, tag)`` of an ``ollama:`` reference."""
    name = ref.removeprefix("ollama:").strip()
    parts = name.split("/")
    tag = "latest"
    if ":" in parts[-1]:
        parts[-1], tag = parts[-1].split(":", 1)
    if len(parts) == 1:
        parts = ["registry.ollama.ai", "library", *parts]
    elif len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    if (len(parts) != 3 or not _HOST.fullmatch(parts[0]) or not all(_PART.fullmatch(p) for p in (*parts[1:], tag))
            or ".." in name):
        raise SourceError(_USAGE, reference=ref, reason="bad-reference")
    return parts[0], parts[1], parts[2], tag


def _shown(host: str, namespace: str, model: str, tag: str) -> str:
    if host == "registry.ollama.ai" and namespace == "library":
        return f"{model}:{tag}"
    if host == "registry.ollama.ai":
        return f"{namespace}/{model}:{tag}"
    return f"{host}/{namespace}/{model}:{tag}"


class OllamaSource(LocalSource):
    """The GGUF blob of an Ollama model (a local file: memory-mapped, only its header read)."""

    def __init__(self, reference: str, options: Options) -> None:
        self.host, self.namespace, self.model, self.tag = parse_ollama_reference(reference)
        self.store = models_dir()
        super().__init__(self.store, options, reference=reference, kind="ollama")

    @property
    def name(self) -> str:
        return _shown(self.host, self.namespace, self.model, self.tag)

    def resolve(self) -> Path:
        """The blob's path, from the manifest; a :class:`SourceError` saying what is missing and what to do."""
        ref, store, shown = self.reference, self.store, self.name
        if not store.is_dir():
            raise SourceError(f"no Ollama model store at {store}: set OLLAMA_MODELS to the folder that holds "
                              "manifests/ and blobs/ (Linux's system service keeps it in "
                              "/usr/share/ollama/.ollama/models)", reference=ref, reason="not-found")
        model_dir = store / "manifests" / self.host / self.namespace / self.model
        manifest = model_dir / self.tag
        if not manifest.is_file():
            tags = sorted(p.name for p in model_dir.iterdir() if p.is_file()) if model_dir.is_dir() else []
            have = (f"; its tags here: {', '.join(tags)}" if tags else "")
            raise SourceError(f"no Ollama model {shown} in {store}{have}: run `ollama pull {shown}`, or set "
                              "OLLAMA_MODELS to the store that has it", reference=ref, reason="not-found")
        try:
            with open(manifest, "rb") as f:
                raw = f.read(_MAX_MANIFEST + 1)
            if len(raw) > _MAX_MANIFEST:
                raise ValueError(f"larger than {_MAX_MANIFEST:,} bytes")
            doc = json.loads(raw)
            layers = doc["layers"]
            if not isinstance(layers, list):
                raise ValueError("its layers are not a list")
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SourceError(f"the manifest {manifest} is not one Ollama writes ({e}): run `ollama pull {shown}` "
                              "again", reference=ref, reason="not-found") from None
        models = [layer for layer in layers if isinstance(layer, dict) and layer.get("mediaType") == MODEL_MEDIA_TYPE]
        if not models:
            raise SourceError(f"the manifest {manifest} has no layer of type {MODEL_MEDIA_TYPE} (no GGUF model)",
                              reference=ref, reason="not-found")
        layer = models[0]
        m = _DIGEST.fullmatch(str(layer.get("digest", "")))
        if not m:
            raise SourceError(f"the manifest {manifest} names the model's blob {layer.get('digest')!r}, which is "
                              "no sha256 digest", reference=ref, reason="not-found")
        blob = store / "blobs" / f"sha256-{m.group(1)}"
        try:
            size = os.stat(blob).st_size
        except FileNotFoundError:
            raise SourceError(f"the model's blob {blob} is missing from the store: run `ollama pull {shown}` "
                              "again", reference=ref, reason="not-found") from None
        expected = layer.get("size")
        if isinstance(expected, int) and expected != size:
            raise SourceError(f"the model's blob {blob} has {size:,} bytes, its manifest says {expected:,} (a pull "
                              f"that did not finish?): run `ollama pull {shown}` again", reference=ref,
                              reason="truncated")
        self.notes = [f"Ollama model {shown}", f"manifest {manifest}"]
        return blob

    def open(self) -> LocalReader:
        self.path = str(self.resolve())
        return super().open()
