"""The scripted understudy: a model that needs no weights, no network and no luck.

Tests and demos need lines that are the same on every run and that show at a
glance who spoke, in which scene, at which turn and for which job, so every
line it writes starts with ``(scripted)`` (a stage direction is the same line
wrapped in ``*...*``) and names the character, scene and turn.

It travels the gateway's whole road (see ``providers.py``), so the
gateway's streaming, retry and usage code is exercised for real. Two hooks
make that road testable:

* :func:`queue` puts an exact reply in the prompter's hand for the next
  matching call; a reply of the form ``"!error:429"`` (also ``timeout``,
  ``500``, ``503``, ``connection``, ``auth``, ``404``, ``400``) makes that
  attempt fail with the matching litellm exception, after streaming whatever
  text stands before the marker; ``"!error:hang"`` never answers, so only the
  gateway's timeout or a cancellation ends it.
* ``STUDIO_SCRIPTED_DELAY`` (seconds per token) slows the voice down so a
  subprocess can be stopped mid-line and benchmarks can play a slow model.

Nothing here imports litellm at module level: tests import this module to
queue replies before any model is called.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import threading
from collections import deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

ERROR_MARK = "!error:"

_SPOKEN = {
    "ego": (
        "I came back for the letter, not for you.",
        "Say it plainly, or don't say it at all.",
        "The kettle has been cold since Tuesday.",
        "You always did leave the door open behind you.",
        "I kept the receipt. I keep everything.",
        "If we are honest, the garden was never mine.",
        "Sit down. You are making the room nervous.",
        "I counted the stairs on the way up. Fourteen.",
    ),
    "superego": (
        "Careful: they hear more than they let on.",
        "Don't apologise again; it sounds rehearsed.",
        "Ask about the letter before they ask about you.",
        "Let the silence do the work this time.",
        "You promised yourself you would not raise your voice.",
        "Keep your hands still; they give you away.",
        "Tell the truth, but only the half you can carry.",
        "Remember why you came, and say nothing else.",
    ),
    "other": (
        "Is that what you tell people now?",
        "I didn't come here to argue about the garden.",
        "You could have written. Anyone can write.",
        "Funny, I remember the stairs being steeper.",
        "Go on, then. I'm listening.",
        "We were younger. That's all it was.",
        "Don't look at the clock while I'm talking.",
        "I brought your coat back. It still smells of smoke.",
    ),
    "director": (
        "Hold the pause longer than feels safe.",
        "Play the next beat as if the room were colder.",
        "Let the argument turn on the smallest object on stage.",
        "Nobody leaves until someone tells the truth.",
        "Bring the light down; the scene wants to be quieter.",
        "Give the silence to the one who has the most to lose.",
    ),
    "critic": (
        "The scene finds its nerve when the object changes hands.",
        "The inner voice pulls harder than the spoken line.",
    ),
}

_DIRECTIONS = (
    "{name} crosses to the window and waits.",
    "{name} picks up the letter, then puts it down unread.",
    "{name} sits, stands again, and stays standing.",
    "{name} laughs once, too late.",
    "{name} turns the kettle on and forgets it.",
    "{name} looks at the door as if it might answer.",
    "{name} folds the coat over one arm, carefully.",
    "{name} does not look up.",
)

_CRITIQUES = (
    "too polite; let the line cost something.",
    "the subtext is spoken aloud; bury it.",
    "good rhythm, but it answers a question nobody asked.",
    "it explains the feeling instead of acting on it.",
    "the last clause is the real line; cut the rest.",
    "it repeats the previous beat; move the scene on.",
)

_BRIEFS = (
    "play {name} as someone who wants the last word but fears it.",
    "play {name} as a guest who has overstayed and knows it.",
    "play {name} as a witness who has rehearsed a different story.",
    "play {name} as someone keeping a promise nobody remembers.",
)

_EPILOGUES = (
    "{name} kept the letter and never mentioned it again.",
    "{name} moved away in the spring; the garden went to seed.",
    "{name} wrote, at last, and the reply came back unopened.",
    "{name} stayed, and learned to leave the door open.",
)

_CRITIC_NOTES = {
    "behavioural_change": (
        "the character ends the scene acting differently from how it began",
        "the character's behaviour barely shifts across the scene",
    ),
    "introspection": (
        "the inner voice is heard and answered",
        "the inner voice is heard but mostly ignored",
    ),
    "narrative_divergence": (
        "the scene wanders from its premise in a way that earns its keep",
        "the scene keeps close to its premise",
    ),
    "successful_adaptation": (
        "the character adapts to what the others bring",
        "the character holds its line whatever the others bring",
    ),
}


@dataclass(frozen=True)
class _Cue:
    text: str
    task: str | None
    role: str | None


_cues: deque[_Cue] = deque()
_cues_lock = threading.Lock()


def queue(text: str, task: str | None = None, role: str | None = None) -> None:
    """Make the next call whose task and role match (None matches any) reply with exactly ``text``.

    Cues are served first in, first out among those that match, so a test can
    stage a whole exchange up front.
    """
    with _cues_lock:
        _cues.append(_Cue(text, task, role))


def reset() -> None:
    """Forget every queued cue, so one test's leftovers never leak into the next."""
    with _cues_lock:
        _cues.clear()


def _take_cue(task: str, role: str) -> str | None:
    with _cues_lock:
        for cue in _cues:
            if (cue.task is None or cue.task == task) and (cue.role is None or cue.role == role):
                _cues.remove(cue)
                return cue.text
    return None


def _pick(bank: tuple[str, ...], *keys: object, take: int = 0) -> str:
    """One of ``bank`` chosen by a hash of ``keys``; each later take moves one further along the bank,
    so a new take of a line never repeats the take before it while the first take stays as it always was."""
    digest = hashlib.sha256("|".join(map(str, keys)).encode()).digest()
    return bank[(int.from_bytes(digest[:8], "big") + take) % len(bank)]


def _last_user_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def critic_report(seed_text: str) -> str:
    """A critic's verdict whose scores follow from the text judged, so a changed scene changes the numbers."""
    report: dict[str, object] = {}
    for criterion, notes in _CRITIC_NOTES.items():
        digest = hashlib.sha256(f"{criterion}|{seed_text}".encode()).digest()
        score = digest[0] % 11
        note = notes[0] if score >= 5 else notes[1]
        report[criterion] = {"score": score, "interpretation": f"(scripted) {note}."}
    report["summary"] = "(scripted) " + _pick(_SPOKEN["critic"], seed_text)
    return json.dumps(report)


def critic_pair_report(seed_text: str) -> str:
    """A reading of two scripts: each side's verdict follows from its own script's text."""
    first, _, second = seed_text.partition("END OF SCRIPT A")
    report = {"script_a": json.loads(critic_report(first)), "script_b": json.loads(critic_report(second)),
              "summary": "(scripted) " + _pick(_SPOKEN["critic"], seed_text)}
    return json.dumps(report)


# JSON replies that parsers read whole: never cut at max_tokens.
WHOLE_REPLIES = ("critic", "critic_pair", "importance", "reflect")


def mind_importance(line: str) -> str:
    """A score that follows from the line, so tests can tell two lines apart and replays agree."""
    digest = hashlib.sha256(line.encode()).digest()
    return json.dumps({"importance": 1 + digest[0] % 10, "why": "(scripted) as the line struck them"})


def mind_reflection(character: str, turn: int, prompt: str) -> str:
    """Impressions of everyone the prompt's 'Others:' line names, derived from names and turn."""
    found = re.search(r"^Others: (.*)$", prompt, re.MULTILINE)
    others = [n.strip() for n in found.group(1).split(";") if n.strip()] if found else []
    impressions = {}
    for name in others:
        digest = hashlib.sha256(f"{character}|{name}|{turn}".encode()).digest()
        impressions[name] = {
            "trust": digest[0] % 11 - 5,
            "liking": digest[1] % 11 - 5,
            "wants": f"(scripted) {name} wants something from {character}",
        }
    return json.dumps({
        "thoughts": f"(scripted) {character} turns over what happened by turn {turn}.",
        "impressions": impressions,
        "goals": None,
    })


def compose(role: str, task: str, character: str, scene: int, turn: int, messages: list[dict], take: int = 0) -> str:
    """The line the understudy says for this call: a pure function of who asks, for what, when, and which
    take of the line it is (a later take names itself, so two takes differ on sight)."""
    keys = (role, task, character, scene, turn)
    where = f"scene {scene} turn {turn}" + (f", take {take + 1}" if take else "")
    if task == "critic":
        return critic_report(_last_user_text(messages))
    if task == "critic_pair":
        return critic_pair_report(_last_user_text(messages))
    if task == "importance":
        return mind_importance(_last_user_text(messages))
    if task == "reflect":
        return mind_reflection(character, turn, _last_user_text(messages))
    if task == "move":
        # A dilemma move: a pure function of the prompt, so a rerun plays the same game.
        digest = hashlib.sha256(f"{character}|{_last_user_text(messages)}|{messages[0].get('content', '')}".encode()).digest()
        move = "C" if digest[0] % 3 else "D"
        return json.dumps({"move": move, "reason": f"(scripted) round {turn}: {'trust' if move == 'C' else 'caution'}"})
    if task in ("act", "vote", "jury", "goals", "impressions", "audit"):
        return _game_reply(task, character, turn, _last_user_text(messages), take)
    if task in ("oc", "doc", "er", "extract"):
        # A personality assessor's reading (the lab's interview): a pure function of the answer it is shown,
        # so a scripted interview reports numbers, the same ones on every rerun.
        digest = hashlib.sha256(_last_user_text(messages).encode()).digest()
        key = "score" if task == "er" else "choice"
        return json.dumps({"reason": f"(scripted) the {task} reading of this answer", key: digest[0] % 5 + 1})
    if task == "direct":
        return f"*(scripted) {where}: {_pick(_DIRECTIONS, *keys, take=take).format(name=character)}*"
    if task == "pick":
        offered = re.search(r"Choose one of: ([^\n]+)\.", _last_user_text(messages))
        names = offered.group(1).split(", ") if offered else [character]
        return f"{_pick(tuple(names), *keys, take=take)} - (scripted) their turn, {where}"
    spoken = _pick(_SPOKEN.get(role, _SPOKEN["ego"]), *keys, take=take)
    if task == "speak":
        return f"(scripted) {character} as {role}, {where}: {spoken}"
    if task == "rewrite_speech":
        return f"(scripted) {character}'s line at turn {turn}, reworked by the {role}: {spoken}"
    if task == "draft":
        return f"(scripted) draft of {character}'s speech, {where}: {spoken}"
    if task == "critique":
        return f"(scripted) critique of {character}'s draft, {where}: {_pick(_CRITIQUES, *keys, take=take)}"
    if task == "revise":
        return f"(scripted) revision of {character}'s speech, {where}: {spoken}"
    if task == "rewrite_prompt":
        return f"(scripted) rewritten brief for {character}, {where}: {_pick(_BRIEFS, *keys, take=take).format(name=character)}"
    if task == "epilogue":
        return f"(scripted) epilogue for {character} after scene {scene}: {_pick(_EPILOGUES, *keys, take=take).format(name=character)}"
    return f"(scripted) {character} ({role}, {task}), {where}: {spoken}"


def _game_reply(task: str, character: str, turn: int, asked: str, take: int = 0) -> str:
    """A social-game choice: one of the options the prompt lists, picked by a hash, so a replay agrees."""
    if task == "goals":
        return json.dumps({"high": f"(scripted) keep {character} in the game", "medium": "(scripted) find an ally",
                           "low": "(scripted) look for the idol"})
    if task == "audit":  # a goal-completion score per level, from the goals and deeds it is shown
        digest = hashlib.sha256(asked.encode()).digest()
        return json.dumps({level: 1 + digest[i] % 5 for i, level in enumerate(("high", "medium", "low"))})
    if task == "impressions":
        names = re.search(r"for each of (.+?), say", asked)
        about = [n.strip() for n in names.group(1).split(",")] if names else []
        return json.dumps({n: {"trust": (len(n) + turn) % 5 - 2, "liking": len(n) % 3 - 1, "wants": "(scripted) to win"}
                           for n in about})
    found = re.search(r"(?:one of|from): (.+?)\.(?:\n|$| Give| Reply)", asked) if task != "jury" else \
        re.search(r"finalists are (.+?)\.", asked)
    options = re.split(r"; | and |, ", found.group(1)) if found else ["wait"]
    choice = _pick(tuple(o.strip() for o in options if o.strip()), character, task, turn, asked[-200:], take=take)
    if task == "act":
        return f"{choice} (scripted)"
    return json.dumps({"vote": choice, "reason": f"(scripted) {character} chooses {choice}"})


_WORD = re.compile(r"\s*\S+\s*")


def words(text: str) -> list[str]:
    """Split so that the pieces join back to exactly ``text``: the stream must add up to the line."""
    return _WORD.findall(text) or ([text] if text else [])


def _delay() -> float:
    try:
        return max(0.0, float(os.environ.get("STUDIO_SCRIPTED_DELAY", "0") or 0))
    except ValueError:
        return 0.0


def _failure(kind: str, model: str) -> Exception:
    import litellm

    where: dict[str, Any] = {"model": model, "llm_provider": "scripted"}
    if kind == "429":
        return litellm.RateLimitError(message="(scripted) rate limited", **where)
    if kind == "timeout":
        return litellm.Timeout(message="(scripted) timed out", **where)
    if kind == "500":
        return litellm.InternalServerError(message="(scripted) internal error", **where)
    if kind == "503":
        return litellm.ServiceUnavailableError(message="(scripted) service unavailable", **where)
    if kind == "connection":
        return litellm.APIConnectionError(message="(scripted) connection refused", **where)
    if kind == "auth":
        return litellm.AuthenticationError(message="(scripted) invalid api key", **where)
    if kind == "404":
        return litellm.NotFoundError(message="(scripted) no such model", **where)
    if kind == "400":
        return litellm.BadRequestError(message="(scripted) bad request", **where)
    return ValueError(f"unknown scripted error marker {kind!r}")


def go_on(role: str, task: str, character: str, scene: int, turn: int, so_far: str, take: int = 0) -> str:
    """What the understudy adds to a line it is asked to continue: a new sentence after the line's last
    word (so the stream adds up to the line), saying it is scripted; a pure function of the line so far."""
    bank = tuple(line for line in _SPOKEN.get(role, _SPOKEN["ego"]) if line not in so_far)
    spoken = _pick(bank or _SPOKEN["ego"], role, task, character, scene, turn, so_far, take=take)
    return f" (scripted) {character} goes on, scene {scene} turn {turn}{f', take {take + 1}' if take else ''}: {spoken}"


async def perform(
    model: str, messages: list[dict], role: str, task: str, character: str, scene: int, turn: int, max_tokens: int | None,
    prefill: str | None = None, take: int = 0,
) -> AsyncGenerator[tuple[str, dict | None], None]:
    """Yield ``(piece, None)`` word by word, then ``("", usage)``; with a ``prefill`` (the line so far),
    only what comes after it (see :func:`go_on`). ``take`` counts the takes already standing where the
    line goes (see :func:`compose`).

    A generated line is cut at ``max_tokens`` words like a real model's would
    be; a queued cue and the critic's JSON are never cut, since tests and the
    critic's parser depend on them whole.
    """
    cue = _take_cue(task, role)
    failure = None
    if cue is not None:
        text, mark, kind = cue.partition(ERROR_MARK)
        if mark:
            failure = kind.strip()
        pieces = words(text)
    elif prefill:
        pieces = words(go_on(role, task, character, scene, turn, prefill, take))
    else:
        pieces = words(compose(role, task, character, scene, turn, messages, take))
        if task not in WHOLE_REPLIES and max_tokens and len(pieces) > max_tokens:
            pieces = pieces[:max_tokens]
    delay = _delay()
    for piece in pieces:
        await asyncio.sleep(delay)
        yield piece, None
    if failure == "hang":
        await asyncio.Event().wait()
    if failure is not None:
        raise _failure(failure, model)
    prompt_tokens = sum(len(_content_text(m.get("content")).split()) for m in messages)
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": len(pieces),
        "total_tokens": prompt_tokens + len(pieces),
    }
    yield "", usage
