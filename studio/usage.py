"""What a run has cost: tokens per run and per role, and money where the price is known.

Prices come only from the cost map bundled with litellm (read as a file: importing litellm takes
seconds, and its price list is never fetched from the network). A model the map does not price is
"unknown", never guessed; the built-in models are free. Every call of a run is counted, the
abandoned takes' too: their tokens were spent.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

COST_MAP_FILE = "model_prices_and_context_window_backup.json"
FREE_PREFIXES = ("local/", "scripted")
UNKNOWN = "unknown"


@lru_cache(maxsize=1)
def cost_map() -> dict[str, dict]:
    """litellm's bundled price list, found without importing litellm; empty if it cannot be read."""
    try:
        spec = importlib.util.find_spec("litellm")
        if spec is None or not spec.submodule_search_locations:
            return {}
        path = Path(list(spec.submodule_search_locations)[0]) / COST_MAP_FILE
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ImportError):
        return {}


def prices(model: str) -> tuple[float, float] | None:
    """(dollars per prompt token, per completion token) for a model name as the studio writes it."""
    if model.startswith(FREE_PREFIXES):
        return (0.0, 0.0)
    table = cost_map()
    provider, _, bare = model.partition("/")
    candidates = [model]
    if bare:
        family = provider.split("_")[0]  # ollama_chat is priced as ollama
        candidates += [f"{family}/{bare}", bare]
    for name in candidates:
        entry = table.get(name)
        if not isinstance(entry, dict) or name == "sample_spec":
            continue
        if name == bare and bare and not str(entry.get("litellm_provider", "")).startswith(provider.split("_")[0]):
            continue  # a bare name priced for another provider is not this model's price
        prompt, completion = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
        if isinstance(prompt, (int, float)) and isinstance(completion, (int, float)):
            return (float(prompt), float(completion))
    return None


@dataclass
class Tally:
    """Tokens and calls of some model calls, and their cost in dollars (None: not known)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cost: float | None = 0.0
    models: set[str] = field(default_factory=set)

    def add(self, model: str | None, usage: dict[str, Any]) -> None:
        prompt = int(usage.get("prompt_tokens", 0) or 0)
        completion = int(usage.get("completion_tokens", 0) or 0)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.calls += int(usage.get("calls", 1) or 1)
        if model:
            self.models.add(model)
        price = prices(model or "")
        if price is None or self.cost is None:
            self.cost = None
        else:
            self.cost += prompt * price[0] + completion * price[1]

    def merge(self, other: Tally) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.models |= other.models
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "cost_usd": UNKNOWN if self.cost is None else round(self.cost, 6),
        }


@dataclass
class RunUsage:
    total: Tally
    roles: dict[str, Tally]  # by seat: ego, superego, other, director, ...; the critic as "critic"

    def as_dict(self) -> dict[str, Any]:
        return {**self.total.as_dict(), "roles": {k: v.as_dict() for k, v in self.roles.items()}}


def tally(events: Iterable[Any]) -> RunUsage:
    """Add up the model calls recorded on events (anything with ``role``, ``model`` and ``usage``)."""
    total, roles = Tally(), dict[str, Tally]()
    for event in events:
        usage = getattr(event, "usage", None)
        if not usage:
            continue
        key = getattr(event, "role", None) or "studio"
        roles.setdefault(key, Tally()).add(getattr(event, "model", None), usage)
        total.add(getattr(event, "model", None), usage)
    return RunUsage(total, roles)


def run_usage(store: Any, run_id: int) -> RunUsage:
    """Every call of a run, in every take."""
    return tally(store.events(run_id))


def money(cost: float | None | str) -> str:
    if cost is None or isinstance(cost, str):  # UNKNOWN, as a tally's dict says it
        return "cost unknown"
    if cost == 0:
        return "$0"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else str(n)


def summary(t: Tally) -> str:
    """One line: '1,234 prompt + 567 completion tokens in 27 calls, $0.0012'."""
    return (
        f"{t.prompt_tokens:,} prompt + {t.completion_tokens:,} completion tokens in {t.calls} "
        f"call{'s' if t.calls != 1 else ''}, {money(t.cost)}"
    )


def live(engine: Any) -> RunUsage:
    """The run's usage for a screen that asks often: the store is read once, then only the events
    committed since the last call are added (walking back from the head to the first one seen)."""
    cached = engine.__dict__.get("_live_usage")
    if cached is None:
        events = engine.store.events(engine.run_id)
        cached = (tally(events), {e.id for e in events})
        engine.__dict__["_live_usage"] = cached
    result, seen = cached
    fresh = []
    for event in reversed(engine.path):
        if event.id in seen:
            break
        fresh.append(event)
    for event in reversed(fresh):
        seen.add(event.id)
        if event.usage:
            key = event.role or "studio"
            result.roles.setdefault(key, Tally()).add(event.model, event.usage)
            result.total.add(event.model, event.usage)
    return result
