"""How to call a model: the settings every call carries, apart from the gateway that sends it.

Its own module so the pieces that decide settings (studio.llm.sampling) and the piece that sends them
(studio.llm.gateway) both read it without reading each other in a circle.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from studio.clean import redact_url_credentials


@dataclass(frozen=True)
class CallSettings:
    """How to call a model. Holds no key: keys stay in the environment, where litellm finds them."""

    model: str
    temperature: float
    max_tokens: int
    timeout: float = 120.0
    api_base: str | None = None
    retries: int = 3
    # Sampling beyond temperature; see studio.llm.sampling for who gets what. Unset means the model's own.
    stop: tuple[str, ...] = ()
    top_p: float | None = None
    min_p: float | None = None
    repeat_penalty: float | None = None
    # A step that may end in silence (few do); otherwise an empty reply from a provider is a fault.
    allow_empty: bool = False
    # A JSON schema (as JSON text) the reply must follow, where the model can be held to it: the embedded
    # model by a llama.cpp grammar, providers that take a schema by `response_format`; others just read it.
    schema: str | None = None
    # How a reply held to `schema` is asked for: "schema" (response_format with the JSON schema), "json"
    # (JSON mode, the schema passed along where the server reads it), "words" (the prompt alone); None
    # decides per server (see STRUCTURED). `small`: the small-model sampling for a served model (None:
    # by its name; see studio.llm.sampling.is_small).
    structured: str | None = None
    small: bool | None = None
    # The start of the reply, already written (a line the playwright asked to continue): the model goes on
    # from its last word. Not recorded in `public`: the line itself is in the log, and the new event says
    # which line it continues.
    prefill: str | None = None
    # The seed of the sampling, for the embedded model: the run's seed mixed with the step, so the same seed
    # writes the same scene and another seed another. None: the model's own (hosted models are not seeded).
    seed: int | None = None
    # A llama.cpp grammar (GBNF) the embedded model's line is held to (a question ends with "?"); others
    # ignore it.
    grammar: str | None = None
    # Words the reply should not say again (a line asked again after it repeated them): the embedded model
    # penalises their tokens as it does the prompt's last line; others ignore it.
    avoid: str | None = None
    # What the embedded model is kept from writing as it writes: given the reply so far, the word it ends
    # inside and the words that may not come next (a sentence or run said before: the guard's own rule,
    # studio.engine.lines.Unsaid); others ignore it. Worked out from the take, so recorded only as set.
    unsaid: Callable[[str], tuple[str, frozenset[str], frozenset[str]]] | None = None

    def public(self) -> dict:
        """What may be written to the play's database; ``retries`` is an operational knob, not part of the take."""
        public = {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
            "api_base": redact_url_credentials(self.api_base) if self.api_base else None,
        }
        # Recorded only when set, so a take says exactly how its line was sampled.
        for name in ("stop", "top_p", "min_p", "repeat_penalty"):
            value = getattr(self, name)
            if value:
                public[name] = list(value) if isinstance(value, tuple) else value
        if self.schema:
            public["schema"] = json.loads(self.schema)
        for name in ("structured", "small", "seed", "grammar", "avoid"):
            if getattr(self, name) is not None:
                public[name] = getattr(self, name)
        if self.unsaid is not None:
            public["unsaid"] = True
        return public
