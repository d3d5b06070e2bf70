"""Vectors for texts, from an embedding model: the one call out that is not a reply, made through the
same quietly loaded litellm as every reply."""

from __future__ import annotations

from studio.llm import litellm_loader


def embed(model: str, texts: list[str], api_base: str | None = None) -> list[list[float]]:
    """One vector per text from an embedding model, through the same quietly configured litellm as a reply."""
    reply = litellm_loader.load().embedding(model=model, input=texts, api_base=api_base or None)
    return [list(item["embedding"]) for item in reply["data"]]
