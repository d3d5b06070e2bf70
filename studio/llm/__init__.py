"""The studio's only door to language models.

Everything that asks a model for words goes through :class:`Gateway`. The two
built-in voices, the embedded ``local/smollm2`` and the deterministic
``scripted`` understudy, run in-process; every other model goes through
litellm. litellm is heavy and chatty, so it is imported on the first call that
needs it, never here: importing this package must stay cheap for the CLI and
the tests, and a step on a built-in never waits for it
(``studio.llm.litellm_loader.warm_up()`` does the import ahead of time, off the UI's loop).

Beyond the agreed interface, ``Gateway.complete`` takes an optional
``on_retry(next_attempt, reason)``: pieces already streamed through
``on_token`` by a failed attempt are void when it is called.
"""

from studio.llm.call_settings import CallSettings
from studio.llm.embeddings import embed
from studio.llm.errors import ModelError
from studio.llm.gateway import CallContext, Completion, Gateway
from studio.llm.names import BUILTIN_MODELS, check_cast_models, check_model

__all__ = [
    "BUILTIN_MODELS",
    "CallContext",
    "CallSettings",
    "Completion",
    "Gateway",
    "ModelError",
    "check_cast_models",
    "check_model",
    "embed",
]
