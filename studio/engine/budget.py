"""Hard limits on what a call carries: one oversized line must not blow a call's context budget.

The history walk in prompts.py drops old lines to fit, but a single line can be larger than the whole
budget (a runaway model reply of 100,000 characters). Such a line is cut here, with a visible mark, so
the model knows text is missing and no call exceeds what the role was given.
"""

from __future__ import annotations

MARK = " […cut: {n} more characters]"


def cut(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its start plus a mark saying how much was dropped."""
    if len(text) <= limit:
        return text
    room = max(limit - len(MARK.format(n=len(text))), 0)
    return text[:room].rstrip() + MARK.format(n=len(text) - room)
