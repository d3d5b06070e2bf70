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

A small model on a server (SmolLM2 served by llama.cpp, a 0.5B Qwen under Ollama) has the same
weaknesses as the embedded one, so it gets the same sampling: the studio takes a served model for
small when its name says so (``smollm``, ``tinyllama``, or a size of 2B parameters or fewer such as
``135m`` or ``1.5b``), and a play's role or an experiment can say ``small = true`` or ``small = false``
outright. The repeat penalty and min-p travel to such a server as extra body fields, which llama.cpp's
servers read and others ignore.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from studio.llm.call_settings import CallSettings

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


@lru_cache(maxsize=64)
def _cues_for(names: tuple[str, ...], speaker: str | None) -> tuple[str, ...]:
    """The cast's cues with the speaker's own last: asked for every call, of one cast and a few speakers."""
    return cue_stops(sorted(names, key=lambda n: n == speaker))


def is_embedded(model: str) -> bool:
    return model.startswith(EMBEDDED_PREFIX)


# A parameter count in a model's name ("qwen2.5:0.5b", "SmolLM2-360M-Instruct", "llama-3.2-1b"), or a family
# that only comes small.
_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*([mb])(?![a-z])", re.I)
_SMALL_FAMILIES = re.compile(r"smollm|tinyllama|tiny-?llama|qwen[\d.]*-?0\.5b", re.I)
SMALL_BILLIONS = 2.0


@lru_cache(maxsize=256)  # asked several times a step, of a handful of names, each read by two patterns
def is_small(model: str, setting: bool | None = None) -> bool:
    """Whether `model` gets the small-model sampling: the embedded model always; a served model when
    `setting` says so, or, when nothing is set, when its name gives 2B parameters or fewer."""
    if is_embedded(model):
        return True
    if setting is not None:
        return setting
    name = model.split("/", 1)[-1]
    if _SMALL_FAMILIES.search(name):
        return True
    for number, unit in _SIZE.findall(name):
        billions = float(number) / (1000 if unit.lower() == "m" else 1)
        if 0 < billions <= SMALL_BILLIONS:
            return True
    return False


_EXPERTS = re.compile(r"(?<![a-z0-9.])(\d+)x(\d+(?:\.\d+)?)b(?![a-z])", re.I)


def stated_billions(model: str) -> float | None:
    """The largest parameter count a model's name gives, in billions ("llama3-70b" -> 70, a mixture of
    experts "mixtral:8x7b" -> 56), or None."""
    name = model.split("/", 1)[-1]
    sizes = [float(number) / (1000 if unit.lower() == "m" else 1) for number, unit in _SIZE.findall(name)]
    sizes += [int(experts) * float(each) for experts, each in _EXPERTS.findall(name)]
    return max(sizes) if sizes else None


def small_settings(settings: CallSettings, task: str) -> CallSettings:
    """A direct call's `settings` (made without `settings_for`) with the small-model sampling for `task`;
    settings that already carry a repeat penalty are left as they are."""
    if settings.repeat_penalty is not None:
        return settings
    small = settings_for(model=settings.model, temperature=settings.temperature, max_tokens=settings.max_tokens,
                         task=task, timeout=settings.timeout, api_base=settings.api_base, small=True)
    stop = tuple(dict.fromkeys((*small.stop, *settings.stop)))
    return replace(settings, temperature=small.temperature, max_tokens=small.max_tokens, stop=stop,
                   top_p=small.top_p, min_p=small.min_p, repeat_penalty=small.repeat_penalty)


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
    small: bool | None = None,
    structured: str | None = None,
) -> CallSettings:
    """The settings for one call of ``task`` by a role with these model settings, in a cast of ``names``.

    ``speaker`` is the one who will speak the line: the others' cues come first among the stops, as a
    hosted API keeps only the first few. ``small`` overrides whether a served model is taken for small
    (see `is_small`); ``structured`` chooses how a reply that is data is asked for (see
    studio.llm.structured_replies.STRUCTURED).
    """
    cues = _cues_for(tuple(names), speaker)
    if is_small(model, small):
        # A tiny model's line, its critique and the character it rewrites are one line each: what follows a
        # line break is narration, stage business or someone's cue.
        if task in LINE_TASKS or task in ("critique", "rewrite_prompt"):
            stop: tuple[str, ...] = ("\n",)
        else:
            stop = (PARAGRAPH, *cues)
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
            small=small,
            structured=structured,
        )
    stop = (PARAGRAPH, *cues) if task in LINE_TASKS else ()
    return CallSettings(
        model=model, temperature=temperature, max_tokens=max_tokens, timeout=timeout, api_base=api_base, stop=stop,
        small=small, structured=structured,
    )
