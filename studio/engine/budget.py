"""The context budget as a hard limit: no call is sent longer than its role's budget.

History is already trimmed line by line (prompts.py walks back from the newest line); what is left is
the single piece too large on its own: a 100,000-character reply, a pasted prompt, a rewritten
character. Such a piece is cut in the middle with a mark saying how much was left out, keeping its
start (who speaks, what it is about) and its end (where it was going), and the cut is made on the
longest pieces first, so the short ones (the instructions, the latest line) stay whole.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4  # the studio's plain estimate; see prompts.estimate_tokens
MARK = "[… {n} characters cut to fit the context budget …]"
MIN_KEEP = 200  # never cut a piece below this: a call needs its instructions more than its history


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def cut(text: str, max_chars: int) -> str:
    """`text` within `max_chars`, cut in the middle with a mark; unchanged if it fits."""
    if len(text) <= max_chars:
        return text
    mark_room = len(MARK.format(n=len(text)))
    room = max(max_chars - mark_room, 0)
    head = room * 2 // 3
    tail = room - head
    removed = len(text) - head - tail
    return text[:head] + MARK.format(n=removed) + (text[len(text) - tail :] if tail else "")


def fit(messages: list[dict[str, str]], budget_tokens: int) -> list[dict[str, str]]:
    """The messages, their longest contents cut until the whole estimate is within `budget_tokens`."""
    limit = budget_tokens * CHARS_PER_TOKEN
    overhead = 16 * len(messages)  # role markers and separators, generously
    total = sum(len(m.get("content", "")) for m in messages) + overhead
    if total <= limit:
        return messages
    out = [dict(m) for m in messages]
    excess = total - limit
    # Cut the longest first; each to no less than the next longest or MIN_KEEP, until the excess is gone.
    while excess > 0:
        order = sorted(range(len(out)), key=lambda i: len(out[i].get("content", "")), reverse=True)
        longest = order[0]
        size = len(out[longest].get("content", ""))
        if size <= MIN_KEEP:
            break  # everything is already small: nothing sensible left to cut
        runner_up = len(out[order[1]].get("content", "")) if len(order) > 1 else 0
        target = max(size - excess - len(MARK) - 12, runner_up, MIN_KEEP)
        new = cut(out[longest]["content"], target)
        excess -= size - len(new)
        out[longest]["content"] = new
    return out
