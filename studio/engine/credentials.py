"""A cast as the run store keeps it: server addresses with their credentials redacted on the way in,
and put back on the way out from the play file or this process's memory, never from the database."""

from __future__ import annotations

import json
from typing import Any

from studio.model.play import ResolvedCast

ADDRESSES: dict[tuple[int, str], str] = {}


def storable(cast: ResolvedCast) -> str:
    """The cast as stored: credentials redacted, and checked to read back, so no run is unreadable."""
    from pydantic import ValidationError

    from studio.clean import redact_url_credentials
    from studio.model.errors import InputError

    text = json.dumps(_redacted(cast.model_dump(mode="json"), redact_url_credentials), ensure_ascii=False)
    try:
        ResolvedCast.model_validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise InputError(cast.play_path, field, f"would not read back: {err['msg']}", "correct the play or the option") from None
    return text


def _redacted(value: Any, redact: Any) -> Any:
    """Every `api_base` in the cast (the role's, the sheet's, the play's), wherever it sits, redacted."""
    if isinstance(value, dict):
        return {k: (redact(v) if k == "api_base" and isinstance(v, str) else _redacted(v, redact)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, redact) for v in value]
    return value


def with_credentials(run_id: int, cast: ResolvedCast) -> ResolvedCast:
    hidden = [r for r in cast.roles if r.api_base and "***" in r.api_base]
    if not hidden:
        return cast
    fresh: dict[str, str] = {}
    try:
        from studio.engine.forms import load_play, resolve_cast

        again = resolve_cast(load_play(cast.play_path), cast.play_path)
        fresh = {r.key: r.api_base for r in again.roles if r.api_base}
    except Exception:  # the play file moved or changed: the stored address stays redacted
        pass
    from studio.clean import redact_url_credentials

    for role in hidden:
        full = ADDRESSES.get((run_id, role.key)) or fresh.get(role.key)
        if full and redact_url_credentials(full) == role.api_base:
            role.api_base = full
    return cast
