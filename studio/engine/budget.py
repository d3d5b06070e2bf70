"""The context budget as a hard limit: no call is sent longer than its role's budget.

History is already trimmed line by line (prompts.py walks back from the newest line); what is left is
the single piece too large on its own: a 100,000-character reply, a pasted prompt, a rewritten
character. Such a piece is cut in the middle with a mark saying how much was left out, keeping its
start (who speaks, what it is about) and its end (where it was going), and the cut is made on the
longest pieces first, so the short ones (the instructions, the latest line) stay whole. What a character
must never lose (its mood, goals, knowledge and lore) is marked to keep, and the cut goes around it.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def _pieces(content: str, keep: Sequence[str]) -> list[list]:
    """`content` split into [text, kept] pieces around each of `keep` found in it."""
    spans = sorted((at, at + len(k)) for k in keep if k and (at := content.find(k)) >= 0)
    out: list[list] = []
    pos = 0
    for start, end in spans:
        start = max(start, pos)
        if end <= start:
            continue
        if start > pos:
            out.append([content[pos:start], False])
        out.append([content[start:end], True])
        pos = end
    if pos < len(content) or not out:
        out.append([content[pos:], False])
    return out


def fit(messages: list[dict[str, str]], budget_tokens: int, keep: Sequence[str] = ()) -> list[dict[str, str]]:
    """The messages, their longest contents cut until the whole estimate is within `budget_tokens`.

    `keep`: texts never cut wherever they stand (a character's mood, goals and what it knows, the lore
    it was given): the cut falls on what is around them."""
    limit = budget_tokens * CHARS_PER_TOKEN
    overhead = 16 * len(messages)  # role markers and separators, generously
    total = sum(len(m.get("content", "")) for m in messages) + overhead
    if total <= limit:
        return messages
    out = [dict(m) for m in messages]
    pieces = [_pieces(m.get("content", ""), keep) for m in out]
    cuttable = [p for parts in pieces for p in parts if not p[1]]
    excess = total - limit
    # Cut the longest first; each to no less than the next longest or MIN_KEEP, until the excess is gone.
    while excess > 0 and cuttable:
        order = sorted(range(len(cuttable)), key=lambda i: len(cuttable[i][0]), reverse=True)
        longest = cuttable[order[0]]
        size = len(longest[0])
        if size <= MIN_KEEP:
            break  # everything is already small: nothing sensible left to cut
        runner_up = len(cuttable[order[1]][0]) if len(order) > 1 else 0
        target = max(size - excess - len(MARK) - 12, runner_up, MIN_KEEP)
        new = cut(longest[0], target)
        excess -= size - len(new)
        longest[0] = new
    for message, parts in zip(out, pieces, strict=True):
        if "content" in message:
            message["content"] = "".join(p[0] for p in parts)
    return out
