"""What a player is asked at each step: its view of the game (what it knows, with what retrieval brings back),
the messages built from it, and what the rules allow as an answer (a schema, a list of choices, a hint)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from studio import structured
from studio.engine.forms.base import Message, Step
from studio.engine.forms.social import prompts, rules
from studio.engine.forms.social.memory import RECALL, recall, reflection_memories, round_actions
from studio.engine.forms.social.prompts import LEVELS
from studio.engine.forms.social.state import SocialState
from studio.model.macros import MacroContext, resolve
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedRole

Asked = tuple[list[Message], prompts.PlayerView, dict[str, str]]  # the messages, the view, the custom fields


def view(state: SocialState, key: str, path: list[Event], query: str = "",
         k: int = RECALL, memories: tuple[str, ...] | None = None) -> prompts.PlayerView:
    """What a player knows now: the rules, where it stands, and the memories retrieval brings back for
    `query` (the player's goals and surroundings when none is given)."""
    name = state.names[key]
    game = state.game
    modules = state.rules.modules(name)
    goals = state.goals.get(key, ()) if "goals" in modules else ()
    place = game.where.get(name, "")
    if memories is None:
        asked = query or " ".join([*goals, place, *game.here(name)] if place else [*goals, *game.alive])
        memories = recall(state, path, key, asked, k)
    return prompts.PlayerView(
        name=name, persona=_persona(state, key),
        rules=prompts.rules_text(len(state.names), state.rules.actions_per_round, _idol_hint(state)),
        round=game.round, place=place or "the jury bench",
        place_description=state.rules.place(place).description if place else "",
        here=game.here(name) if place else (), paths=state.rules.neighbours(place) if place else (),
        memories=memories,
        goals=goals,
        impressions=state.impressions.get(key, {}) if "impressions" in modules else {},
        still_in=game.alive, jury=game.jury, holds_idol=game.idol_holder == name,
        holdings=game.carries(name), lying=game.lying.get(place, ()) if place else (),
    )


def _persona(state: SocialState, key: str) -> str:
    """The sheet's prompt with its macros filled in, and the archetype's persona text."""
    from studio.model.archetypes import persona_text

    name = state.names[key]
    role = state.cast.role(key)
    others = [n for k, n in state.names.items() if k != key]
    persona = resolve(role.sheet.prompt, MacroContext(char=name, user=others[0] if others else name,
                                                      seed=state.seed)).strip()
    style = persona_text(role.sheet.archetype)
    if style:
        persona += "\n" + style
    return persona


def _idol_hint(state: SocialState) -> str:
    idol = state.rules.idol
    return idol.hint if idol and idol.hint else ("A hidden idol somewhere on the island saves its finder from "
                                                 "one vote." if idol else "")


def schema(state: SocialState, step: Step, role: ResolvedRole) -> str | None:
    """An action or a vote is held to what the rules allow right now: a small model then cannot name a
    place that is not one walk away, or vote for nobody (the embedded model's votes named no player)."""
    if step.task == "act":
        choices = []
        for action in rules.legal_actions(state.rules, state.game, role.name):
            shape = {"action": {"type": "string", "enum": [action.verb]}}
            if action.target:
                shape["target"] = {"type": "string", "enum": [action.target]}
            if action.item:
                shape["item"] = {"type": "string", "enum": [action.item]}
            choices.append({"type": "object", "properties": shape, "required": list(shape)})
        return json.dumps({"anyOf": choices})
    if step.task in ("vote", "jury"):
        options = rules.valid_vote_targets(state.game, role.name)
        return structured.reply_schema({"type": "object", "properties": {
            "vote": {"type": "string", "enum": options}, "reason": {"type": "string"}}}, max_text=160)
    return None


def choices(state: SocialState, step: Step, role: ResolvedRole) -> list[str] | None:
    if step.task == "act":
        return [a.describe() for a in rules.legal_actions(state.rules, state.game, role.name)]
    if step.task in ("vote", "jury"):
        return rules.valid_vote_targets(state.game, role.name)
    return None


def answer_format(state: SocialState, step: Step, role: ResolvedRole) -> str | None:
    others = [p for p in state.game.alive if p != role.name]
    first = others[0].split()[0] if others else "Bruno"
    second = others[1].split()[0] if len(others) > 1 else first
    if step.task == "goals":
        return "up to three goals for this round, one per line or split by ; (e.g. Win Bruno over; find the idol)"
    if step.task == "summary":
        head = state.queue[0] if state.queue else ()
        partner = state.names.get(head[2], "") if len(head) > 2 else ""
        return f"a sentence or two on what you and {partner or 'the other'} said, for your own memory"
    if step.task == "impressions":
        return f"what you make of each player, a sentence each (e.g. I trust {first}. I don't trust {second}.)"
    if step.task == "reflect":
        return "a few sentences: what this round taught you about the others"
    return None


def messages(state: SocialState, path: list[Event], step: Step, role: ResolvedRole) -> list[Message]:
    """The studio's prompt for this step, or the researcher's own wording when the play names one."""
    built, seen, extra = _ASK.get(step.task, _other)(state, path, role)
    texts = state.rules.prompts.get(step.task)
    if not texts:
        return built
    return prompts.custom(texts, prompts.fields(seen, problem=state.problem or "", **extra), built)


def _bullets(items: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"- {i}" for i in items)


def _audit(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    goals, insights = state.goals.get(role.key, ()), state.insights.get(role.key, ())
    done = round_actions(path, role.key, state.scene)
    seen = view(state, role.key, path, memories=())
    audited = {"goals": "\n".join(f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, goals) if g),
               "insights": _bullets(insights), "actions": _bullets(done)}
    return prompts.audit(role.name, goals, insights, done), seen, audited


def _conversation(state: SocialState, path: list[Event], role: ResolvedRole, partner: str) -> tuple[
        prompts.PlayerView, dict[str, str]]:
    last = state.talk[-1][1] if state.talk else ""
    seen = view(state, role.key, path, query=f"{partner} {last}")
    return seen, {"partner": partner, "transcript": "\n".join(f"{who}: {text}" for who, text in state.talk)}


def _talk(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    head = state.queue[0]
    partner = state.names[head[3] if role.key == head[2] else head[2]]
    seen, extra = _conversation(state, path, role, partner)
    return prompts.conversation(seen, partner, state.talk, opening=not state.talk), seen, extra


def _summary(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    partner = state.names[state.queue[0][2]]
    seen, extra = _conversation(state, path, role, partner)
    return prompts.summary(seen, partner, state.talk), seen, extra


def _ballot(state: SocialState, path: list[Event], role: ResolvedRole) -> tuple[prompts.PlayerView, dict[str, str]]:
    candidates = rules.valid_vote_targets(state.game, role.name)
    seen = view(state, role.key, path, query="vote " + " ".join(candidates))
    return seen, {"candidates": ", ".join(candidates), "finalists": " and ".join(state.game.alive)}


def _vote(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    seen, extra = _ballot(state, path, role)
    return prompts.vote(seen, rules.valid_vote_targets(state.game, role.name), state.problem), seen, extra


def _jury(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    seen, extra = _ballot(state, path, role)
    return prompts.jury_vote(seen, state.game.alive, state.problem), seen, extra


def _reflect(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    seen = view(state, role.key, path, memories=reflection_memories(state, path, role))
    earlier = state.insights.get(role.key, ())
    extra = {"insights": "\n".join(f"{i}. {text}" for i, text in enumerate(earlier, 1))}
    return prompts.reflection(seen, earlier), seen, extra


def _impressions(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    others = [p for p in state.game.alive if p != role.name]
    seen = view(state, role.key, path, query=" ".join(others))
    return prompts.impressions(seen, others), seen, {"others": ", ".join(others)}


def _act(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    seen = view(state, role.key, path)
    options = [a.describe() for a in rules.legal_actions(state.rules, state.game, role.name)]
    return prompts.action(seen, options, state.problem), seen, {"options": "; ".join(options)}


def _goals(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    """New goals, with the last two rounds' goals and their audited scores."""
    seen = view(state, role.key, path)
    history = [(r, g, sc) for r, g, sc in state.goal_history.get(role.key, []) if r >= state.scene - 2]
    extra = {"history": "\n".join(f"round {r}: " + "; ".join(
        f"{lvl} {g}" + (f" (score {sc[lvl]})" if lvl in sc else "") for lvl, g in zip(LEVELS, goals) if g)
        for r, goals, sc in history),
        "insights": _bullets(state.insights.get(role.key, ()))}
    return prompts.goals(seen, history, state.insights.get(role.key, ())), seen, extra


def _other(state: SocialState, path: list[Event], role: ResolvedRole) -> Asked:
    seen = view(state, role.key, path)
    return prompts.reflection(seen, state.insights.get(role.key, ())), seen, {}


_ASK: dict[str, Callable[[SocialState, list[Event], ResolvedRole], Asked]] = {
    "audit": _audit, "talk": _talk, "summary": _summary, "vote": _vote, "jury": _jury, "reflect": _reflect,
    "impressions": _impressions, "act": _act, "goals": _goals,
}
