"""What a model's name says before any call: built in or routed through litellm, routable at all, and
how many tokens the model holds. Every check here is offline: keys and reachability are the first
call's to report, with their own fix."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from studio.llm import litellm_loader

BUILTIN_MODELS = ("local/smollm2", "scripted")

UNKNOWN_HINT = "use a litellm name such as openai/gpt-4o-mini, ollama_chat/llama3, or local/smollm2"


def route(name: str) -> str:
    """The name litellm (or a built-in) is called with: the bare understudy is its default script."""
    return "scripted/default" if name == "scripted" else name


def builtin(routed: str) -> bool:
    """Whether a routed name is one of the voices that run in this process, without litellm."""
    return routed.startswith(("scripted/", "local/"))


def model_window(name: str) -> int | None:
    """The number of tokens `name` can hold (prompt and reply), when it is known: the embedded model's
    `n_ctx`, or litellm's figure for a hosted one. litellm is slow to import and a cast is resolved before
    the app's first frame, so its model list is read from the file litellm ships (the one it reads itself
    offline) unless litellm is already loaded. The scripted model and unknown names have none: the play's
    budget, or the default, holds."""
    routed = route(name)
    if routed.startswith("scripted/"):
        return None
    if routed.startswith("local/"):
        from studio.llm.local import N_CTX

        return N_CTX
    litellm = litellm_loader.loaded()
    if litellm is not None:
        try:
            info = litellm.get_model_info(routed)
        except Exception:  # noqa: BLE001 - litellm raises plain Exceptions for a model it does not list
            return None
    else:
        table = _model_table()
        info = table.get(routed) or table.get(routed.split("/", 1)[-1]) or {}
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if isinstance(window, int) and window > 0 else None


@functools.lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    """litellm's own list of models and their windows, read without importing litellm."""
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "model_prices_and_context_window_backup.json"
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return table if isinstance(table, dict) else {}
    return {}


def listed(name: str) -> dict[str, Any] | None:
    """litellm's facts of a hosted model (its provider, window, prices), or None when litellm does not list
    it: read from the file litellm ships, as `model_window` does, so no import is paid."""
    routed = route(name)
    if builtin(routed):
        return None
    table = _model_table()
    info = table.get(routed) or table.get(routed.split("/", 1)[-1])
    return info if isinstance(info, dict) and info.get("litellm_provider") else None


def needs_litellm(cast: Any) -> bool:
    """Whether running this cast can ever call litellm: a role on a hosted model, or a sheet's embeddings.

    A cast of built-in models never does, so a UI need not spend seconds of CPU importing it (on the
    embedded model those seconds are taken from the model's own first turn).
    """
    from studio.settings import shared_embedded

    for role in getattr(cast, "roles", ()):
        if not builtin(route(role.model)) or shared_embedded(role.model):
            return True
        memory = getattr(role.sheet, "memory", None)
        if getattr(memory, "embedding_model", None):
            return True
    return False


def check_model(name: str) -> str | None:
    """None if the name can be routed, else one line saying what is wrong and what to use instead.

    Only routing is checked (is there a provider for this name?), not keys or
    reachability: those are reported by the first call, with their own fix.
    """
    from studio.clean import LINE_CONTROLS

    name = (name or "").strip()
    if not name:
        return f"no model given: {UNKNOWN_HINT}"
    if LINE_CONTROLS.search(name):
        return "a model's name is one line of printable text (no line breaks, control characters or escapes)"
    if name in BUILTIN_MODELS or (name.startswith("scripted/") and len(name) > len("scripted/")):
        return None
    if name.startswith("local/"):
        return f"unknown local model '{name}': the embedded model is local/smollm2"
    if name.endswith("/") or name.startswith("/"):
        return f"unknown model '{name}': {UNKNOWN_HINT}"
    litellm = litellm_loader.load()
    try:
        litellm.get_llm_provider(name)
    except Exception:
        return f"unknown model '{name}': {UNKNOWN_HINT}"
    return None


def check_cast_models(cast, where: str) -> None:
    """Every model a cast will call must be routable: the first that is not is bad input in `where`."""
    from studio.model import InputError

    seen: dict[str, str | None] = {}
    for role in cast.roles:
        if role.human:
            continue
        if role.model not in seen:
            seen[role.model] = check_model(role.model)
        if seen[role.model]:
            sheet = _sheet_file(cast, role)
            if sheet is not None:
                # the sheet chose this model: that file is the one to fix, not the play
                raise InputError(str(sheet), "model", seen[role.model] or "",
                                 f"edit {sheet.name} (c in the app) or give the play a --role model")
            raise InputError(where, f"cast.{role.key}.model", seen[role.model] or "", None)


def _sheet_file(cast, role):
    """The character file whose `model` a role runs on, when the model came from there."""
    if not role.sheet.model or role.sheet.model != role.model:
        return None
    try:
        from studio.model.loading import character_path

        seats = cast.play.cast
        if role.key in ("ego", "superego", "director"):
            member = getattr(seats, role.key)
        elif role.key == "other":
            member = seats.others[0]
        else:
            member = seats.others[int(role.key[5:]) - 1]
        return character_path(member.character, Path(cast.play_path))
    except Exception:  # noqa: BLE001 - a cast of another shape names the play instead
        return None
