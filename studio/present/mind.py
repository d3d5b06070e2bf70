"""A character's inner life as the take has it, for the app's cast card and `studio mind`."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text


def _bar(value: int) -> str:
    """-5..5 as a ten-cell bar around a centre mark: left of it is distrust or dislike."""
    left = "█" * max(0, -value)
    right = "█" * max(0, value)
    return f"{left:>5}|{right:<5}"


def inner_life(engine: Any, role: Any, text: Text) -> None:
    """Mood, goals, knowledge, impressions and reflections as the take has them, each with its event (#id)."""
    from studio.engine.minds import world
    from studio.mind.moments import current_goals

    sheet = role.sheet
    folded = world(engine)
    mind = folded.mind(role.name)
    scene = getattr(engine.state, "scene", 0) or 0
    if sheet.moods:
        text.append("\nmood: ", style="bold")
        text.append(f"{mind.mood} (#{mind.mood_event})" if mind.mood else "not drawn yet", style="" if mind.mood else "dim")
    goals = current_goals(sheet, mind, scene)
    if goals:
        source = f" (#{mind.goals_event})" if mind.goals_event else " (from the sheet)"
        text.append("\ngoals" + source + ": ", style="bold")
        text.append("; ".join(goals))
    if sheet.knowledge:
        text.append("\nknows:", style="bold")
        for index, item in enumerate(sheet.knowledge):
            if item.when is None:
                text.append(f"\n  · {item.text}")
            elif index in mind.unlocked:
                text.append(f"\n  + {item.text} (#{mind.unlocked[index]})", style="green")
            else:
                text.append(f"\n  – locked: {item.text}", style="dim")
    if mind.impressions:
        text.append("\nimpressions:            trust       liking", style="bold")
        for name, imp in sorted(mind.impressions.items()):
            text.append(f"\n  {name[:16]:<16} {_bar(imp.trust)} {imp.trust:+d}  {_bar(imp.liking)} {imp.liking:+d}"
                        f"  (#{imp.event})")
            if imp.wants:
                text.append(f"\n    wants: {imp.wants}", style="italic")
    for event_id, thought in mind.reflections[-2:]:
        text.append(f"\nreflected (#{event_id}): ", style="bold")
        text.append(thought, style="italic")
    read = sorted({item.when.fact for item in sheet.knowledge if item.when is not None and item.when.fact})
    if read:  # the world facts its knowledge waits on, and the event that set each (none: the play's start)
        text.append("\nfacts: ", style="bold")
        text.append(", ".join(f"{key} = {json.dumps(folded.facts[key], ensure_ascii=False)}"
                              + (f" (#{folded.fact_events[key]})" if key in folded.fact_events else "")
                              if key in folded.facts else f"{key} unset" for key in read))
