"""The studio's words for what happens in a run, one list each: the inner voice's strategies, what each
task of a step does, who wrote a line, and what a rewrite changed. Shared by the app's panes, its
dialogs and status line, and whatever else says them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

STRATEGY_LABELS = {
    "rewrite_prompt": "1 rewrite prompt",
    "rewrite_speech": "2 rewrite speech",
    "critique": "3 critique",
}

STRATEGY_WORDS = {"rewrite_prompt": "prompt", "rewrite_speech": "speech", "critique": "critique"}
"""Each strategy in one word, for a status line that has no room for more."""

TASK_VERBS = {
    "scene": "opens the scene",
    "direct": "directs",
    "speak": "speaks",
    "rewrite_speech": "rewrites what the protagonist hears",
    "draft": "drafts a reply",
    "critique": "critiques the draft",
    "revise": "revises the reply",
    "rewrite_prompt": "rewrites the protagonist's prompt",
    "epilogue": "writes the epilogue",
    "pick": "picks who speaks next",  # an ensemble's moderator
    # the social game's steps
    "act": "chooses an action",
    "talk": "talks",
    "summary": "sums up the talk",
    "impressions": "sizes up the others",
    "vote": "votes",
    "jury": "votes as the jury",
    "goals": "sets goals",
    "reflect": "looks back on the round",
    "audit": "has the round's goals scored by an outside judge",
}


def word_diff(old: str, new: str) -> Text:
    """The new text with what it dropped struck out in red and what it added in green."""
    from difflib import SequenceMatcher

    a, b = old.split(), new.split()
    out = Text()
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(" ".join(a[i1:i2]) + " ")
            continue
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(a[i1:i2]) + "-]", style="red strike")
            out.append(" ")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(b[j1:j2]) + "+}", style="green bold")
            out.append(" ")
    out.rstrip()
    removed = sum(i2 - i1 for op, i1, i2, _, _ in matcher.get_opcodes() if op in ("delete", "replace"))
    added = sum(j2 - j1 for op, _, _, j1, j2 in matcher.get_opcodes() if op in ("insert", "replace"))
    out.append(f"\n({removed} words out, {added} in)", style="dim")
    return out


def origin_note(event: Any) -> str:
    if event.origin == "human":
        return "written by you"
    if event.origin == "override":
        return "edited by you"
    if event.origin == "model" and event.model and "continues" in event.data:
        return f"continued by {event.model}"  # the first words are another take's, the rest this model's
    if event.origin == "model" and event.model:
        return f"written by {event.model}"
    if event.origin == "card" and "greeting" in event.data:
        return f"the card's greeting {event.data['greeting'] + 1} of {event.data.get('greetings', 1)}"
    return ""


def shown_path(path: Path) -> str:
    """A file or folder as the playwright knows it: relative to where the studio was started (plays/x.toml)
    when it lies there, else its folder and name for a file, and the whole path for a folder."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(Path(path.parent.name) / path.name) if path.suffix else str(path)
