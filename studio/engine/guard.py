"""What makes a model's answer unusable as its line, and what a turn does then.

An answer is cut to the speaker's own line (studio/engine/lines.py): another character's cue, a stage
line said again, the line so far of a continuation said over. When nothing of its own is left, the
model is asked again with another beat, a little warmer (a character's new line up to ASKS calls in all,
anything else twice); if every answer to a new line was cut only because it said some sentences again,
the fullest answer without those sentences is the line.
Every call's tokens count against the line.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from studio.engine.forms.base import Step
from studio.engine.lines import Guarded, Heard, drop_unfinished, guard_line, sentence_keys, sentence_spans
from studio.store import events as ev
from studio.store.events import Event

RECENT_LINES = 30  # the stage lines a new line may not say again
ASKS = 3  # calls for a character's new line at most: a small model's second ask often reworded the first
# a new line said straight to the stage: a draft is reworked by its revision, a revision with nothing new
# keeps its draft, an inner voice's work is not spoken
LINE_TASKS = frozenset({"speak"})
# What a model writes as prose, not speech nor a structured answer: one that ran out of tokens mid-sentence
# ("Jenny felt this way after") ends at its last whole sentence; the printed epilogue is its last page.
PROSE_TASKS = frozenset({"critique", "direct", "rewrite_prompt", "epilogue", "summarize"})
OWN_LINES = 12  # the last stage lines a small model's new line may not say again by lines.repeats

Sentences = list[tuple[str, ...]]


def recent_sentences(path: list[Event], cache: dict[int, Sentences], lines: int = RECENT_LINES) -> Sentences:
    """The sentences of the last `lines` stage lines of a take, newest first; each line is split once and
    kept in `cache` by its event, so a long run does not split its history again every turn."""
    said: Sentences = []
    stage = ev.STAGE  # every line of every call walks back here past the backstage events
    for event in reversed(path):
        if event.kind != stage:
            continue
        keys = cache.get(event.id)
        if keys is None:
            keys = cache[event.id] = sentence_keys(event.text)
        said.extend(keys)
        lines -= 1
        if not lines:
            break
    return said


def said_before(step: Step, path: list[Event], cache: dict[int, Sentences], continuing: Event | None) -> Sentences:
    """What a new answer may not say again: a line for the stage may not repeat the stage (a rewrite may
    well repeat the line it reworks), and what a continuation adds may not repeat the line so far."""
    said = recent_sentences(path, cache) if is_new_line(step) else []
    if continuing is not None:
        said = [*said, *sentence_keys(continuing.text)]
    return said


def heard_before(path: list[Event], speaker: str, lines: int = OWN_LINES) -> Heard:
    """What a small model's new line of `speaker`'s may not say again (studio.engine.lines.repeats): the
    last `lines` lines said on stage, oldest first, and `speaker`'s own among them. A character's line
    wholly in italics stood on stage as a direction and counts too; the director's does not."""
    heard = Heard()
    for event in reversed(path):
        if event.kind == ev.STAGE or (event.kind == ev.DIRECTION and event.role not in (None, "director")):
            heard.earlier.append(event.text)
            if event.character == speaker:
                heard.own.append(event.text)
            lines -= 1
            if not lines:
                break
    heard.earlier.reverse()
    heard.own.reverse()
    return heard


def is_new_line(step: Step) -> bool:
    """A line of the character's own (spoken or drafted), which may not repeat the stage."""
    return step.kind in (ev.STAGE, ev.DRAFT)


def is_speech(step: Step) -> bool:
    """A step whose answer is read as speech: a new line, or an inner voice's rewrite of one heard."""
    return is_new_line(step) or step.task == "rewrite_speech"


def guard_answer(text: str, step: Step, speaker: str, names: list[str], said: Sentences,
                 heard: Heard | None = None, drop: bool = False, at_limit: bool = False) -> Guarded:
    """A model's answer cut to `speaker`'s own line; spoken steps are read as speech. `at_limit`: the
    line's shape closed it at its length limit (studio.llm.line_shape.closed_at_limit), so its last mark
    is the shape's, put after a sentence the model never ended: the line is asked for again, and as the
    last resort (`drop`) it keeps its whole sentences, or trails off where it stopped."""
    if at_limit:
        if not drop:
            return Guarded("", ["limit"])
        # the last sentence is the one the model never ended: its whole sentences before it, or where it
        # stopped, trailing off
        body = text.rstrip()[:-1].rstrip()
        spans = sentence_spans(body)
        whole = body[: spans[-1][0]].rstrip() if len(spans) > 1 else ""
        kept = guard_answer(whole or body.rstrip(" ,;:-–—") + "…", step, speaker, names, said, heard, drop)
        return Guarded(kept.text, ["limit", *kept.cuts])
    guarded = guard_line(text, speaker, names, said, speech=is_speech(step),
                         heard=heard if is_new_line(step) else None, drop=drop)
    if step.task in PROSE_TASKS:
        # prose run out of tokens ends at its last whole sentence, when it has one
        whole, broken = drop_unfinished(guarded.text)
        if broken and whole.strip():
            guarded = Guarded(whole.strip(), [*guarded.cuts, "unfinished"])
    return guarded


WHY = {
    "echo": "it said again what was already said",
    "cue": "it spoke another character's part",
    "repeat": "it went round in a loop",
    "unfinished": "it broke off mid-sentence",
    "paragraph": "it ran on past the line",
    "business": "it was stage business with nothing said aloud",
    "narration": "it spoke of its own character in brackets, as a narrator would",
    "limit": "it ran to its length limit without ending",
}


def why_dropped(guarded: Guarded) -> str:
    """Why an answer left nothing of its own, in the playwright's words, for the screen."""
    reasons = [WHY[cut] for cut in dict.fromkeys(guarded.cuts) if cut in WHY]
    return ("; ".join(reasons) or "nothing of its own was left once cleaned") + "; asking again"


def warmer(settings: Any, warm: bool = True) -> Any:
    """The settings for an ask again: a little warmer (`warm`: only the second ask is warmed, so a third is
    not sampled too hot for a small model to stay in sense) and, where the model is seeded, another draw,
    so the answer is not the last one again."""
    seed = None if settings.seed is None else (settings.seed * 2654435761 + 1) % 2**32
    temperature = round(min(1.0, settings.temperature + 0.3), 3) if warm else settings.temperature
    return replace(settings, temperature=temperature, seed=seed)


REPEATED = frozenset({"echo", "repeat"})  # cuts of an answer that said again what was said


def asks_for(step: Step) -> int:
    """How many calls a step's answer may take: a character's new line up to ASKS, anything else two."""
    return ASKS if step.task in LINE_TASKS else 2


def anew(messages: list[dict[str, str]], dropped: str, cuts: list[str], step: Step) -> list[dict[str, str]]:
    """The call asked again with another beat. A new line dropped for saying something again is not quoted
    back (that primed a small model to say it once more): the model is asked for a short question about
    the line heard, a form its earlier statements do not share. Any other answer is named as said, so the
    next ask is not the first again at a higher temperature."""
    if step.task in LINE_TASKS and REPEATED & set(cuts):
        note = "(Instead, ask one short question about that, in new words.)"
    elif "limit" in cuts:
        note = "(That ran too long. Fewer words this time.)"
    else:
        said = " ".join(dropped.split()[:12])
        note = f"(Not \"{said}\": that was said. Say something new.)" if said else "(Say something new.)"
    last = messages[-1]
    if last.get("role") == "user":
        return [*messages[:-1], {**last, "content": f"{last['content']}\n\n{note}"}]
    return [*messages, {"role": "user", "content": note}]


def salvaged(asked: Guarded, kept: list[Guarded]) -> Guarded:
    """When every ask was dropped, the fullest of `kept` (each answer with only its repeated sentences left
    out), recorded as such; the ask's record unchanged when none has a sentence of its own."""
    best = max(kept, key=lambda g: len(g.text), default=None)
    if best is None or not best.text:
        return asked
    return Guarded(best.text, asked.cuts + ["kept what was new"])


def asked_again(first: Guarded, again: Guarded) -> Guarded:
    """The answer asked again, with the record of what was cut from each and that the line was asked again."""
    return Guarded(again.text, first.cuts + ["asked again"] + again.cuts)


def add_usage(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Every call of a line asked again: their tokens were all spent."""
    total = {k: int(first.get(k, 0) or 0) + int(second.get(k, 0) or 0) for k in set(first) | set(second)}
    total["calls"] = int(first.get("calls", 1) or 1) + int(second.get("calls", 1) or 1)
    return total
