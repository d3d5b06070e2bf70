"""A playwright's direction for one new take: a short note and, if given, a temperature.

The note goes to the model with the request for that line only, and is kept in the new line's data
(`direction`), so the backstage shows why the take differs and a replay reads it from the store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from studio.clean import clean_text

MAX_NOTE = 4_000  # characters of a direction: a note for one line, as long as a scene's brief at most


@dataclass(frozen=True)
class Direction:
    note: str | None = None
    temperature: float | None = None

    def __post_init__(self) -> None:
        if self.note is not None:
            # Typed by the playwright (`continue --direction`, the app's direction box): outside text, kept
            # with the take and replayed by every view, so it is cleaned like any other before it is stored.
            object.__setattr__(self, "note", clean_text(self.note))
            if len(self.note) > MAX_NOTE:
                raise ValueError(f"the note is {len(self.note):,} characters; a direction is at most {MAX_NOTE:,}")
        if self.temperature is not None and not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature {self.temperature:g} is out of range; use 0 to 2")

    @property
    def empty(self) -> bool:
        return not (self.note and self.note.strip()) and self.temperature is None

    def messages(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        note = (self.note or "").strip()
        if not note:
            return messages
        ask = f"The playwright's direction for this line: {note}"
        out = [dict(m) for m in messages]
        if out and out[-1].get("role") == "user":
            out[-1]["content"] = out[-1]["content"] + "\n\n" + ask
        else:
            out.append({"role": "user", "content": ask})
        return out

    def settings(self, settings: Any) -> Any:
        if self.temperature is None:
            return settings
        return dataclasses.replace(settings, temperature=self.temperature)

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.note and self.note.strip():
            out["note"] = self.note.strip()
        if self.temperature is not None:
            out["temperature"] = self.temperature
        return out
