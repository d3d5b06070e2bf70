"""What a world fact may be: a short one-line name and a scalar value.

One rule for a play's `[facts]` table and for a fact the playwright sets by hand (studio.mind.edits), so
both refuse the same things with the same words.
"""

from __future__ import annotations

import math
from typing import Any

from studio.clean import LINE_CONTROLS

MAX_FACT_NAME = 100
MAX_FACT_TEXT = 500
RESERVED_FACTS = ("on_stage",)  # the ensemble keeps who is on stage as a fact of its own
_CONTROL = LINE_CONTROLS


def fact_problem(key: str, value: Any) -> tuple[str, str] | None:
    """(problem, fix) when `key = value` cannot be a world fact, else None. None as a value removes a fact."""
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_FACT_NAME or _CONTROL.search(key):
        return (f"a fact's name must be one line of 1 to {MAX_FACT_NAME} characters, not {key!r}", "rename it")
    if key in RESERVED_FACTS:
        return (f"'{key}' is kept by the engine (who is on stage)",
                "send characters on and off with the scenes' on_stage, enter and exit, or the app's E")
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        # nan and inf are TOML and JSON to Python, but no JSON reader takes them: `show --json` would not be JSON
        return None if math.isfinite(value) else (f"{value} is not a number a fact can hold", "use a finite number")
    if isinstance(value, int):
        return None if -(2**63) <= value < 2**63 else ("the number is too large", "use a smaller one")
    if isinstance(value, str):
        if len(value) > MAX_FACT_TEXT:
            return (f"text of at most {MAX_FACT_TEXT} characters, not {len(value)}", "shorten it")
        return None
    kinds = {"dict": "a table", "list": "a list", "date": "a date", "datetime": "a date and time", "time": "a time"}
    kind = kinds.get(type(value).__name__, type(value).__name__)
    return (f"a fact is a string, a number or true/false, not {kind}",
            f'write it as {key} = "...", {key} = 3 or {key} = true')
