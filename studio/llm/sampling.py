"""How a role's line is sampled, by model: the paper's settings for real models, gentler ones for tiny.

A 135M model sampled at the paper's temperatures (the ego and the superego at 1.0) drifts, and with no
repeat penalty it falls into a loop, saying one sentence until ``max_tokens`` cuts it; asked for a line,
it goes on to write the other characters' lines too. So the embedded model gets:

* a temperature scaled down from the role's: ``EMBEDDED_TEMPERATURE_SCALE`` times it, so the roles keep
  their order (the ego still warmer than the director) and 0 stays greedy;
* a repeat penalty, and min-p with top-p to cut the long tail of unlikely tokens;
* a short ``max_tokens`` per task (a line of speech needs a sentence or two, not 120 tokens);
* stops at any cast member's cue (``Name:`` at a line start) and at a second paragraph; a line of
  speech stops at its first line break, after which a tiny model narrates or writes someone's cue.

Real models keep the role's temperature and ``max_tokens``; they get the stops too on the tasks that
ask for a line, since a cue or a blank line means the model has begun writing someone else's part.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.llm.gateway import CallSettings

EMBEDDED_PREFIX = "local/"
EMBEDDED_TEMPERATURE_SCALE = 0.5
EMBEDDED_REPEAT_PENALTY = 1.3
EMBEDDED_MIN_P = 0.1
EMBEDDED_TOP_P = 0.9
# The most tokens the embedded model may spend on each task; a role's own max_tokens still caps it.
EMBEDDED_MAX_TOKENS = {
    "speak": 64,
    "draft": 64,
    "revise": 64,
    "rewrite_speech": 64,
    "critique": 64,
    "direct": 80,
    "rewrite_prompt": 160,
    "epilogue": 140,
}
# Tasks whose answer is one character's line: a cue or a blank line in it is the model overrunning.
LINE_TASKS = frozenset({"speak", "draft", "revise", "rewrite_speech"})
PARAGRAPH = "\n\n"


def cue_stops(names: Iterable[str]) -> tuple[str, ...]:
    """A cue at a line start, for every name: 'Sasha:' after a newline means Sasha's part begins."""
    seen: list[str] = []
    for name in names:
        name = (name or "").strip()
        if name and name not in seen:
            seen.append(name)
    return tuple(f"\n{name}:" for name in seen)


def is_embedded(model: str) -> bool:
    return model.startswith(EMBEDDED_PREFIX)


def embedded_hint(models: Iterable[str]) -> str:
    """The line under a run's header when the embedded model plays: what to expect, where to look."""
    if not any(is_embedded(m) for m in models):
        return ""
    return ("local/smollm2 is a tiny offline model (135M parameters), there so the studio works anywhere; "
            "'studio models' shows the better ones you can use here.")


def settings_for(
    *,
    model: str,
    temperature: float,
    max_tokens: int,
    task: str,
    names: Iterable[str] = (),
    speaker: str | None = None,
    timeout: float = 120.0,
    api_base: str | None = None,
) -> CallSettings:
    """The settings for one call of ``task`` by a role with these model settings, in a cast of ``names``.

    ``speaker`` is the one who will speak the line: the others' cues come first among the stops, as a
    hosted API keeps only the first few.
    """
    cues = cue_stops(sorted(names, key=lambda n: n == speaker))
    if is_embedded(model):
        # A tiny model's line is one line: what follows a line break is narration, stage business or
        # someone's cue. The description the inner voice rewrites may run to paragraphs.
        if task in LINE_TASKS:
            stop: tuple[str, ...] = ("\n",)
        else:
            stop = cues if task == "rewrite_prompt" else (PARAGRAPH, *cues)
        return CallSettings(
            model=model,
            temperature=round(temperature * EMBEDDED_TEMPERATURE_SCALE, 3),
            max_tokens=min(max_tokens, EMBEDDED_MAX_TOKENS.get(task, max_tokens)),
            timeout=timeout,
            api_base=api_base,
            stop=stop,
            top_p=EMBEDDED_TOP_P,
            min_p=EMBEDDED_MIN_P,
            repeat_penalty=EMBEDDED_REPEAT_PENALTY,
        )
    stop = (PARAGRAPH, *cues) if task in LINE_TASKS else ()
    return CallSettings(
        model=model, temperature=temperature, max_tokens=max_tokens, timeout=timeout, api_base=api_base, stop=stop
    )
