"""The playwright's own settings, kept from one start of the app to the next: the app's theme, and the
author and contact a new play's title page starts with (`studio settings --author "Ana Kay"`).

One small TOML file under $XDG_CONFIG_HOME/studio/ (~/.config/studio/ by default). A damaged file
never stops the app: it is read as empty and rewritten whole on the next change.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any


def served_api_base(model: str) -> str | None:
    """The OpenAI-compatible server the playwright named once (STUDIO_API_BASE; see `studio models`),
    which serves every `openai/NAME` that names no server of its own: a play's roles, the lab's
    assessor, the Critic alike."""
    server = os.environ.get("STUDIO_API_BASE", "").strip()
    return server if server and model.startswith("openai/") else None


SHARED_EMBEDDED = "STUDIO_EMBEDDED_SERVER"
"""The environment variable `studio serve` sets for its tabs: the address of the one embedded model it
serves on 127.0.0.1 for all of them."""
SHARED_EMBEDDED_NAME = "smollm2"
SHARED_EMBEDDED_KEY = "STUDIO_EMBEDDED_KEY"
"""The environment variable that gives the tabs the key the shared embedded model answers to: drawn at
each start, so no other process of the machine can call the model (studio/serve/model.py)."""


def shared_embedded(model: str) -> tuple[str, str] | None:
    """Where the embedded model's calls go when one copy serves several processes (the tabs of `studio
    serve`): the name to call and the server, instead of a copy loaded in this process; None otherwise."""
    server = os.environ.get(SHARED_EMBEDDED, "").strip()
    return (f"openai/{SHARED_EMBEDDED_NAME}", server) if server and model == "local/smollm2" else None


def shared_embedded_key(api_base: str | None) -> str | None:
    """The key for a call to `api_base`, if that is the shared embedded model's server; else None."""
    server = os.environ.get(SHARED_EMBEDDED, "").strip()
    return os.environ.get(SHARED_EMBEDDED_KEY) or None if server and api_base == server else None


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "studio" / "config.toml"


def load() -> dict[str, Any]:
    try:
        return tomllib.loads(config_path().read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def save(strict: bool = False, **changes: Any) -> None:
    """Write atomically: a crash mid-write leaves the old file, never half a new one. `strict` raises
    the OSError of a file that cannot be written (a command the playwright ran to set something must
    say so); otherwise it is ignored."""
    import tomli_w

    data = {**load(), **changes}
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        if strict:
            raise
        # a read-only home costs the remembered theme, not the app


# What a new play's title page starts with (`studio new`), set once with `studio settings`.
TITLE_PAGE = ("author", "contact")


def title_page() -> dict[str, str]:
    """The playwright's defaults for a title page: author and contact, "" where none is set (or the file
    holds something that is not text there)."""
    data = load()
    return {key: data[key] if isinstance(data.get(key), str) else "" for key in TITLE_PAGE}
