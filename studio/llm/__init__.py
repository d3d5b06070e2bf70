"""The studio's only door to language models.

Everything that asks a model for words goes through :class:`Gateway`, which
hands every call to litellm, including the two built-in voices: the embedded
``local/smollm2`` and the deterministic ``scripted`` understudy. litellm is
heavy and chatty, so it is imported on the first call, never here: importing
this package must stay cheap for the CLI and the tests.
"""

from studio.llm.gateway import (
    BUILTIN_MODELS,
    CallContext,
    CallSettings,
    Completion,
    Gateway,
    ModelError,
    check_model,
)

__all__ = [
    "BUILTIN_MODELS",
    "CallContext",
    "CallSettings",
    "Completion",
    "Gateway",
    "ModelError",
    "check_model",
]
