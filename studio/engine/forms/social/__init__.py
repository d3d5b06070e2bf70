"""The social game of Thudium et al., 2024, "Outwit, Outplay, Out-Generate", as a form: players on an
island act, talk, vote one another out, and a jury of the voted-out picks the winner.

The rules are the form's own rules.py (pure functions); the form decides what comes next, what each
player is shown (prompts.py, built from what that player witnessed), how a reply is read, and
how a committed event changes the state. Every choice, vote, tie draw and conversation is an event, so
rewind, takes and resume replay a game exactly.

A round (the paper's Figure D.1): each player still in with the goals module sets goals at three
priority levels; then `actions_per_round` ticks, each a turn per player in a seeded shuffled order (an
action; a talk opens a conversation of `talk_lines` lines a side, heard by everyone in the place, ended by
each speaker's own summary and, with the impressions module, an update of their impressions); then a
secret vote by everyone still in, the tally (the form's own move: the host reads the votes), a reflection
each (up to five insights over the memories the paper's four questions retrieve) and, for players with
goals, the goal-completion audit (an outside judge scores each goal 1-5, and the next round's goals are
set with those scores). With two left, the jury votes and the host names the winner.

What a player is shown of the past is chosen by memory retrieval (studio.mind.memory: the weighted sum
of normalised recency, importance and relevance to the question at hand), not the latest lines.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studio import structured
from studio.engine.forms.base import Form, Message, Reply, Seat, fold_facts
from studio.engine.forms.base import Step
from studio.engine.forms.social import prompts, rules
from studio.engine.forms.social.rules import GameState
from studio.engine.lens import Lens
from studio.model.island import GameRules
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import Play, ResolvedCast, ResolvedRole

CHOICE, GOALS, VOTE, MEMORY, IMPRESSIONS, REFLECTION = ev.GAME

RECALL = 8  # memories retrieval brings into a prompt
REFLECTION_RECALL = 25  # memories each reflection question brings back (the paper's repository: 25)
# Recency halves every ~13.5 memories: the repository's decay of 0.95 per memory (Park et al.'s is per hour).
HALF_LIFE = math.log(0.5) / math.log(0.95)
LEVELS = ("high", "medium", "low")


PASS_WORDS = ("pass", "no vote", "abstain")  # what a person types to cast no vote


@dataclass
class SocialState:
    cast: ResolvedCast
    rules: GameRules
    seed: int
    names: dict[str, str]  # seat key -> player name
    game: GameState
    scene: int = 0  # the round
    turn: int = 0  # steps committed by players, for the record
    finished: bool = False
    facts: dict[str, Any] = field(default_factory=dict)
    humans: set[str] = field(default_factory=set)
    queue: list[tuple] = field(default_factory=list)  # what comes next, head first
    problem: str | None = None  # the last answer to the head of the queue was unusable: why
    talk: tuple = ()  # (speaker, line) pairs of the conversation under way
    votes: dict[str, str] = field(default_factory=dict)
    goals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    impressions: dict[str, dict[str, str]] = field(default_factory=dict)
    tallies: list[dict[str, Any]] = field(default_factory=list)
    insights: dict[str, tuple[str, ...]] = field(default_factory=dict)  # seat -> current insights
    goal_history: dict[str, list[tuple[int, tuple[str, ...], dict[str, int]]]] = field(default_factory=dict)
    memory: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)  # seat -> retrieval index

    def key(self, name: str) -> str:
        return next(k for k, n in self.names.items() if n == name)


class SocialGame(Form):
    name = "social_game"

    @classmethod
    def check_cast(cls, play: Play, where: str) -> None:
        from studio.model.errors import InputError

        if play.game is None:
            raise InputError(where, "game", "the social game needs its island", "add a [game] table with [[game.places]]")
        if len(play.cast.characters) < 3:
            raise InputError(where, "cast.characters", "the social game needs at least three players",
                             "see the README for the fields this file takes")

    @classmethod
    def check_resolved(cls, cast: ResolvedCast) -> None:
        """The island names its players: each name must be one of the cast's."""
        from studio.model.errors import InputError

        game = cast.play.game
        if game is None:
            return
        players = {r.name.casefold() for r in cast.roles if r.kind == "other"}
        for table, names in (("start", game.start), ("architecture", game.architecture)):
            for name in names:
                if name.casefold() not in players:
                    raise InputError(cast.play_path, f"game.{table}.{name}", "names no player of this play",
                                     "use a name from the cast's characters")

    # -- the cast ---------------------------------------------------------------------------

    def seats(self, cast: ResolvedCast) -> list[Seat]:
        return [Seat(r.key, r.name, "player", "human" if r.human else "model", True) for r in cast.roles
                if r.kind == "other"]

    def new_state(self, cast: ResolvedCast) -> SocialState:
        game_rules = cast.play.game
        if game_rules is None:  # check_cast refuses such a play as it loads
            raise ValueError("the social game needs its island: a [game] table")
        players = [r for r in cast.roles if r.kind == "other"]
        names = {r.key: r.name for r in players}
        state = SocialState(cast, game_rules, cast.play.seed, names,
                            rules.start(game_rules, [r.name for r in players], cast.play.seed))
        state.humans = {r.key for r in cast.roles if r.human}
        state.facts = dict(cast.play.facts)  # the play's starting facts; any event's data["facts"] overrides
        return state

    # -- what comes next --------------------------------------------------------------------

    def next_step(self, state: SocialState) -> Step | None:
        if state.finished:
            return None
        if not state.queue:
            self._plan(state)
        head = state.queue[0]
        what = head[0]
        # An action's reply is private reasoning (its outcome, a direction, is what the stage sees).
        kinds = {"round": ev.SCENE, "goals": GOALS, "act": CHOICE, "talk": ev.STAGE, "summary": MEMORY,
                 "impressions": IMPRESSIONS, "vote": VOTE, "tally": ev.DIRECTION, "reflect": REFLECTION,
                 "audit": GOALS, "jury": VOTE, "verdict": ev.DIRECTION}
        role = head[1] if what not in ("round", "tally", "verdict") else None
        scene = state.game.round if what == "round" else state.scene
        return Step(kinds[what], what, role, scene, state.turn + 1)

    def scene_data(self, state: SocialState, step: Step) -> dict[str, Any]:
        """A round's heading: the form's own step, seen by everyone in the game."""
        return {"task": "round", **self._everyone(state)}

    def _plan(self, state: SocialState) -> None:
        """Fill the queue for the next part of the game. Pure: it depends only on the state."""
        game = state.game
        if game.finished:
            state.finished = True
            return
        if game.final:
            if not state.votes and game.jury:
                state.queue = [("jury", state.key(j)) for j in game.jury] + [("verdict",)]
                return
        if state.scene < game.round:
            state.queue = [("round",)]
            state.queue += [("goals", state.key(p)) for p in sorted(game.alive)
                            if "goals" in state.rules.modules(p)]
            state.queue += [("act", state.key(p)) for p in rules.turn_order(game, state.seed)]
            return
        if rules.voting_due(game, state.rules):
            state.queue = [("vote", state.key(p)) for p in sorted(game.alive)] + [("tally",)]
            return
        state.queue = [("act", state.key(p)) for p in rules.turn_order(game, state.seed)]

    # -- the prompts ------------------------------------------------------------------------

    def view(self, state: SocialState, key: str, path: list[Event], query: str = "",
             k: int = RECALL, memories: tuple[str, ...] | None = None) -> prompts.PlayerView:
        """What a player knows now: the rules, where it stands, and the memories retrieval brings back for
        `query` (the player's goals and surroundings when none is given)."""
        from studio.model.archetypes import persona_text

        name = state.names[key]
        game = state.game
        role = state.cast.role(key)
        modules = state.rules.modules(name)
        persona = role.sheet.prompt.strip()
        style = persona_text(role.sheet.archetype)
        if style:
            persona += "\n" + style
        goals = state.goals.get(key, ()) if "goals" in modules else ()
        place = game.where.get(name, "")
        if memories is None:
            asked = query or " ".join([*goals, place, *game.here(name)] if place else [*goals, *game.alive])
            memories = recall(state, path, key, asked, k)
        idol = state.rules.idol
        hint = idol.hint if idol and idol.hint else ("A hidden idol somewhere on the island saves its finder from "
                                                     "one vote." if idol else "")
        return prompts.PlayerView(
            name=name, persona=persona, rules=prompts.rules_text(len(state.names), state.rules.actions_per_round, hint),
            round=game.round, place=place or "the jury bench",
            place_description=state.rules.place(place).description if place else "",
            here=game.here(name) if place else (), paths=state.rules.neighbours(place) if place else (),
            memories=memories,
            goals=goals,
            impressions=state.impressions.get(key, {}) if "impressions" in modules else {},
            still_in=game.alive, jury=game.jury, holds_idol=game.idol_holder == name,
            holdings=game.carries(name), lying=game.lying.get(place, ()) if place else (),
        )

    def schema(self, state: SocialState, step: Step, role: ResolvedRole) -> str | None:
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

    def choices(self, state: SocialState, step: Step, role: ResolvedRole) -> list[str] | None:
        if step.task == "act":
            return [a.describe() for a in rules.legal_actions(state.rules, state.game, role.name)]
        if step.task in ("vote", "jury"):
            return rules.valid_vote_targets(state.game, role.name)
        return None

    def messages(self, state: SocialState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        """The studio's prompt for this step, or the researcher's own wording when the play names one."""
        messages, view, extra = self._messages(state, path, step, role)
        texts = state.rules.prompts.get(step.task)
        if not texts:
            return messages
        return prompts.custom(texts, prompts.fields(view, problem=state.problem or "", **extra), messages)

    def _messages(self, state: SocialState, path: list[Event], step: Step,
                  role: ResolvedRole) -> tuple[list[Message], prompts.PlayerView, dict[str, str]]:
        head = state.queue[0]
        name = role.name
        game = state.game
        if step.task == "audit":
            goals, insights = state.goals.get(role.key, ()), state.insights.get(role.key, ())
            done = round_actions(path, role.key, state.scene)
            view = self.view(state, role.key, path, memories=())
            audited = {"goals": "\n".join(f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, goals) if g),
                       "insights": "\n".join(f"- {i}" for i in insights), "actions": "\n".join(f"- {a}" for a in done)}
            return prompts.audit(name, goals, insights, done), view, audited
        extra: dict[str, str] = {}
        if step.task in ("talk", "summary"):
            partner = state.names[head[3] if role.key == head[2] else head[2]] if step.task == "talk" else state.names[head[2]]
            last = state.talk[-1][1] if state.talk else ""
            view = self.view(state, role.key, path, query=f"{partner} {last}")
            extra = {"partner": partner, "transcript": "\n".join(f"{who}: {text}" for who, text in state.talk)}
        elif step.task in ("vote", "jury"):
            candidates = rules.valid_vote_targets(game, name)
            view = self.view(state, role.key, path, query="vote " + " ".join(candidates))
            extra = {"candidates": ", ".join(candidates), "finalists": " and ".join(game.alive)}
        elif step.task == "reflect":
            view = self.view(state, role.key, path, memories=reflection_memories(state, path, role))
            earlier = state.insights.get(role.key, ())
            extra = {"insights": "\n".join(f"{i}. {text}" for i, text in enumerate(earlier, 1))}
        elif step.task == "impressions":
            others = [p for p in game.alive if p != name]
            view = self.view(state, role.key, path, query=" ".join(others))
            extra = {"others": ", ".join(others)}
        else:
            view = self.view(state, role.key, path)
        if step.task == "act":
            options = [a.describe() for a in rules.legal_actions(state.rules, game, name)]
            extra = {"options": "; ".join(options)}
            return prompts.action(view, options, state.problem), view, extra
        if step.task == "talk":
            return prompts.conversation(view, extra["partner"], state.talk, opening=not state.talk), view, extra
        if step.task == "summary":
            return prompts.summary(view, extra["partner"], state.talk), view, extra
        if step.task == "impressions":
            return prompts.impressions(view, [p for p in game.alive if p != name]), view, extra
        if step.task == "vote":
            return prompts.vote(view, rules.valid_vote_targets(game, name), state.problem), view, extra
        if step.task == "jury":
            return prompts.jury_vote(view, game.alive, state.problem), view, extra
        if step.task == "goals":
            history = [(r, g, sc) for r, g, sc in state.goal_history.get(role.key, []) if r >= state.scene - 2]
            extra = {"history": "\n".join(f"round {r}: " + "; ".join(
                f"{lvl} {g}" + (f" (score {sc[lvl]})" if lvl in sc else "") for lvl, g in zip(LEVELS, goals) if g)
                for r, goals, sc in history),
                "insights": "\n".join(f"- {i}" for i in state.insights.get(role.key, ()))}
            return prompts.goals(view, history, state.insights.get(role.key, ())), view, extra
        return prompts.reflection(view, state.insights.get(role.key, ())), view, extra

    # -- reading replies --------------------------------------------------------------------

    def read(self, state: SocialState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        game = state.game
        if step.task == "round":
            return Reply(f"Round {game.round}", data=self._everyone(state))
        if step.task == "tally":
            _, result = rules.tally(game, dict(state.votes), state.seed)
            return Reply(self._announce(result), data={"tally": result, **self._everyone(state)})
        if step.task == "verdict":
            votes = {j: v for j, v in state.votes.items()}
            _, result = rules.jury_verdict(game, votes, state.seed)
            counts = ", ".join(f"{n} {c}" for n, c in sorted(result["counts"].items()))
            tie = " It was a tie, settled by a draw." if "draw" in result else ""
            text = f"The jury has voted ({counts or 'no valid votes'}).{tie} {result['winner']} wins the game."
            return Reply(text, data={"verdict": result, **self._everyone(state)})
        assert role is not None
        name = role.name
        private = {"private": role.key, "present": [role.key]}
        if step.task == "act":
            action, problem = rules.read_action(state.rules, game, name, _as_reply(text))
            if action is None:
                if state.problem is None:  # asked again once
                    return Reply(text, kind=CHOICE, data={"invalid": problem, **private})
                action = rules.Action(rules.WAIT)
                forced = problem
            else:
                forced = None
            roll = rules.search_roll(state.seed, game, name) if action.verb == rules.SEARCH else None
            _, facts = rules.act(state.rules, game, name, action, roll)
            witnesses = set(game.here(name)) | {name}
            if action.verb == rules.MOVE:
                witnesses |= {p for p in game.alive if game.where.get(p) == action.target}
            if action.verb in rules.PRIVATE:
                witnesses = {name}
            data = {"action": action.verb, "target": action.target, "outcome": facts, "reply": text,
                    "present": sorted(state.key(p) for p in witnesses)}
            if action.item is not None:
                data["item"] = action.item
            if facts.get("found"):
                data["facts"] = {"idol.holder": name}
                # what a searcher finds, only they know
                data["present"] = [role.key]
            if forced:
                data["forced"] = forced
            return Reply(facts["outcome"], kind=ev.DIRECTION, data=data)
        if step.task == "talk":
            place = game.where.get(name)
            present = sorted(state.key(p) for p in game.alive if game.where.get(p) == place)
            return Reply(text, data={"present": present})
        if step.task in ("vote", "jury"):
            vote, reason, problem = rules.read_vote(game, name, _as_reply(text))
            # A model is asked again once, then casts no vote; a person is asked until the vote is valid,
            # or until they say they pass: a typing slip must never cost a player their vote.
            human = role.key in state.humans
            passes = human and text.strip().casefold() in PASS_WORDS
            if vote is None and not passes and (human or state.problem is None):
                return Reply(text, kind=CHOICE, data={"invalid": (problem or "no vote") + (" (or 'pass')" if human else ""),
                                                      **private})
            shown = f"{name} votes for {vote}." if vote else f"{name} casts no valid vote."
            if reason:
                shown += f" Reason: {reason}"
            return Reply(shown, data={"vote": vote, "reason": reason, "reply": text, **private})
        if step.task == "goals":
            goals = _goals(text)
            shown = "\n".join(f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, goals) if g)
            return Reply(shown or text, data={"goals": goals, **private})
        if step.task == "audit":
            scores = _scores(text)
            shown = ", ".join(f"{lvl} {scores[lvl]}" for lvl in LEVELS if lvl in scores)
            return Reply(f"Goal audit: {shown or 'no scores could be read'}.", data={"scores": scores, **private})
        if step.task == "reflect":
            revised = _insights(text, state.insights.get(role.key, ()))
            return Reply("\n".join(f"- {i}" for i in revised) or text, data={"insights": list(revised), **private})
        if step.task == "impressions":
            found = _impressions(text, [p for p in game.alive if p != name])
            return Reply(text, data={"impressions": found, **private})
        return Reply(text, data=private)  # summary, reflection

    @staticmethod
    def _everyone(state: SocialState) -> dict[str, Any]:
        return {"present": sorted(state.key(p) for p in state.game.alive + state.game.jury)}

    @staticmethod
    def _announce(result: dict[str, Any]) -> str:
        counts = ", ".join(f"{n} {c}" for n, c in sorted(result["counts"].items(), key=lambda x: (-x[1], x[0])))
        text = f"The votes are read: {counts or 'no valid votes'}."
        if result.get("idol_played_by"):
            text += f" {result['idol_played_by']} plays the idol: the votes against them do not count."
        if "draw" in result:
            text += f" A tie between {' and '.join(result['tie'])}, settled by a draw."
        return text + f" {result['eliminated']} leaves the game and joins the jury."

    def present(self, state: SocialState, kind: str, role: str | None, data: dict[str, Any]) -> list[str] | None:
        return data.get("present")

    # -- the state, one event at a time -----------------------------------------------------

    def fold(self, state: SocialState, event: Event) -> None:
        fold_facts(state.facts, event)
        if event.kind in (ev.NOTE, ev.ERROR):
            return
        if event.kind == ev.CONTROL:
            self._control(state, event)
            return
        if not state.queue:
            self._plan(state)
        if not state.queue:
            return
        head = state.queue[0]
        what = head[0]
        task = event.data.get("task")
        if task != what:
            return  # not the game's own step (a note or a direction by the playwright): nothing changes
        if event.kind == CHOICE:
            state.problem = event.data.get("invalid") or "the answer could not be used"
            return
        state.problem = None
        state.queue.pop(0)
        state.turn += 1
        game = state.game
        if what == "round":
            state.scene = game.round
            state.votes = {}
        elif what == "goals":
            goals = tuple(event.data.get("goals") or ())
            state.goals[head[1]] = goals
            state.goal_history.setdefault(head[1], []).append((state.scene, goals, {}))
        elif what == "audit":
            history = state.goal_history.get(head[1])
            if history:
                history[-1][2].update(event.data.get("scores") or {})
        elif what == "reflect" and event.data.get("insights") is not None:
            state.insights[head[1]] = tuple(event.data["insights"])
        elif what == "act":
            self._fold_action(state, head[1], event)
        elif what == "talk":
            state.talk = state.talk + ((event.character or state.names.get(head[1], ""), event.text),)
            if _leaves(event.text):  # the speaker walks away: the conversation's other lines are not spoken
                state.queue = [q for q in state.queue if q[0] != "talk"]
        elif what == "summary":
            if not any(q[0] == "summary" for q in state.queue):
                state.talk = ()
        elif what == "impressions":
            found = event.data.get("impressions") or {}
            if found:
                state.impressions[head[1]] = {**state.impressions.get(head[1], {}), **found}
        elif what in ("vote", "jury"):
            if event.data.get("vote"):
                state.votes[state.names[head[1]]] = event.data["vote"]
        elif what == "tally":
            state.game, result = rules.tally(game, dict(state.votes), state.seed)
            state.tallies.append(result)
            state.votes = {}
            alive = sorted(state.game.alive)
            state.queue = ([("reflect", state.key(p)) for p in alive]
                           + [("audit", state.key(p)) for p in alive if "goals" in state.rules.modules(p)
                              and state.key(p) not in state.humans and state.goals.get(state.key(p))]
                           + state.queue)
        elif what == "verdict":
            state.game, _ = rules.jury_verdict(game, dict(state.votes), state.seed)
            state.finished = True
        if what in ("act", "talk", "summary", "impressions") and not state.queue:
            # every player has acted, with any conversation the last one opened: the next tick (or the vote)
            state.game = rules.advance(state.game, state.rules)

    def _fold_action(self, state: SocialState, key: str, event: Event) -> None:
        name = state.names[key]
        action = rules.Action(event.data.get("action") or rules.WAIT, event.data.get("target"), event.data.get("item"))
        roll = (event.data.get("outcome") or {}).get("roll")
        state.game, _ = rules.act(state.rules, state.game, name, action, roll)
        if action.verb == rules.TALK and action.target:
            partner = state.key(action.target)
            lines: list[tuple] = []
            for _ in range(state.rules.talk_lines):
                lines += [("talk", key, key, partner), ("talk", partner, key, partner)]
            after: list[tuple] = [("summary", key, partner), ("summary", partner, key)]
            for k in (key, partner):
                if "impressions" in state.rules.modules(state.names[k]):
                    after.append(("impressions", k))
            state.queue = lines + after + state.queue
            state.talk = ()

    def _control(self, state: SocialState, event: Event) -> None:
        for key, on in (event.data.get("human") or {}).items():
            (state.humans.add if on else state.humans.discard)(key)

    def ends_turn(self, state: SocialState, done: list[Event]) -> bool:
        """A turn of `play_turn` is one player's action, with any conversation it opened."""
        event = done[-1]
        if event.kind == ev.DIRECTION and event.data.get("task") in ("act", "tally", "verdict"):
            return not any(q[0] in ("talk", "summary", "impressions") for q in state.queue)
        if event.data.get("task") in ("summary", "impressions"):
            return not any(q[0] in ("talk", "summary", "impressions") for q in state.queue)
        return False


REMEMBERED = {"act": ev.DIRECTION, "talk": ev.STAGE, "summary": MEMORY, "reflect": REFLECTION, "tally": ev.DIRECTION}
# How much a kind of memory weighs (1-10) when retrieval ranks them. The paper has a model rate every
# memory; the studio weighs them by what they are, so a game costs no extra call per memory.
IMPORTANCE = {"act": 4.0, "talk": 5.0, "summary": 6.0, "reflect": 8.0, "tally": 8.0}


def remembered(event: Event) -> tuple[str, float] | None:
    """What a game event leaves in a witness's memory, and how much it weighs; None for nothing."""
    task = event.data.get("task", "")
    if REMEMBERED.get(task) != event.kind:
        return None
    text = f"{event.character} said: {event.text}" if event.kind == ev.STAGE else event.text
    weight = IMPORTANCE.get(task, 5.0)
    outcome = event.data.get("outcome") or {}
    if outcome.get("found"):
        weight = 10.0  # finding the idol, as the repository weighs it
    elif outcome.get("ok") is False:
        weight = 3.0
    return text, weight


def recollections(path: list[Event], key: str) -> list[str]:
    """What a player remembers of the game, oldest first: through its lens, the actions it saw, the talk
    it heard, the readings of the votes, and its own notes of conversations and reflections."""
    lens = Lens(path)
    return [found[0] for event in path if (found := remembered(event)) and lens.knows(key, event)]


def recall(state: SocialState, path: list[Event], key: str, query: str, k: int) -> tuple[str, ...]:
    """The k memories retrieval ranks highest for `query`, least relevant first (the most relevant closest to
    the question, as the paper's action prompt orders them).

    Each player's index grows with the take and is rebuilt only when the path is not the one it was
    built from (a rewind, another take). Recency counts memories, not turns: the repository decays by
    0.95 per memory. The weights, and an embedding model for relevance, are the player's sheet's
    (`[memory]`); without one, relevance is word overlap (BM25).
    """
    from studio.mind.memory import Memory, MemoryIndex

    cached = state.memory.get(key)
    if cached is not None:
        index, count, last = cached
        if count > len(path) or (count and path[count - 1].id != last):
            cached = None
    if cached is None:
        index, count = MemoryIndex(), 0
    lens = Lens(path[count:])
    for event in path[count:]:
        found = remembered(event)
        if found and lens.knows(key, event):
            index.add(Memory(event.id, len(index), found[0], event.character), importance=found[1])
    state.memory[key] = (index, len(path), path[-1].id if path else None)
    settings = state.cast.role(key).sheet.memory
    relevance = None
    if settings.embedding_model:  # the sheet names one: cosine similarity, as the paper's (litellm only now)
        from studio.mind.memory import EmbeddingRelevance

        embedder = state.memory.get(("embedder", key))
        if embedder is None or embedder.index is not index:
            embedder = state.memory[("embedder", key)] = EmbeddingRelevance(settings.embedding_model, index)
        relevance = embedder
    hits = index.recall(query, now_turn=len(index), half_life=HALF_LIFE, k=k, relevance=relevance,
                        weights=settings.weights)
    return tuple(r.memory.text for r in reversed(hits))


def reflection_memories(state: SocialState, path: list[Event], role: ResolvedRole) -> tuple[str, ...]:
    """What the reflection questions bring back: up to 25 memories each (the repository's figure), taken
    in turns from each question's most relevant down, each once, until half the role's prompt budget is
    used, so a small model's reflection is not cut in the middle. Least relevant first, as elsewhere."""
    lists = [list(reversed(recall(state, path, role.key, q, REFLECTION_RECALL))) for q in prompts.REFLECTION_QUESTIONS]
    room = max(800, (role.context_tokens - role.max_tokens) * 2)  # characters: half the budget at ~4 a token
    chosen: dict[str, None] = {}
    used = 0
    for rank in range(REFLECTION_RECALL):
        for found in lists:
            if rank < len(found) and found[rank] not in chosen:
                if used + len(found[rank]) > room:
                    return tuple(reversed(chosen))
                chosen[found[rank]] = None
                used += len(found[rank]) + 3
    return tuple(reversed(chosen))


def round_actions(path: list[Event], key: str, scene: int) -> list[str]:
    """What the player did this round, as the auditor reads it: its own actions' outcomes."""
    return [e.text for e in path if e.scene == scene and e.role == key and e.kind == ev.DIRECTION
            and e.data.get("task") == "act"]


def _leaves(line: str) -> bool:
    """Whether a line of talk is the speaker leaving the conversation (the paper's way to end one)."""
    return bool(re.search(r"\bI (?:leave|walk away from|end) (?:the|this) conversation\b", line, re.I))


def _as_reply(text: str) -> dict[str, Any] | str:
    """The first JSON object in a reply, or the reply's words."""
    return next(structured.json_objects(text), None) or text


def _goals(text: str) -> list[str]:
    """Goals by priority, high first: {"high": .., "medium": .., "low": ..}, a list, or "High priority: .." lines."""
    obj = next(structured.json_objects(text), None)
    if isinstance(obj, dict):
        lowered = {str(k).strip().lower().replace(" priority", "").replace("_priority", ""): v for k, v in obj.items()}
        if any(level in lowered for level in LEVELS):
            return [str(lowered.get(level) or "").strip()[:300] for level in LEVELS]
    items = obj.get("goals") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        by_level = {}
        for line in text.splitlines():
            head, _, rest = line.partition(":")
            level = head.strip(" -*").lower().replace(" priority", "")
            if level in LEVELS and rest.strip():
                by_level[level] = rest.strip()[:300]
        if by_level:
            return [by_level.get(level, "") for level in LEVELS]
        items = [line.strip(" -*0123456789.)") for line in text.splitlines()]
    return [str(g).strip()[:300] for g in items if str(g).strip()][:3]


def _scores(text: str) -> dict[str, int]:
    """The audit's 1-5 score per priority level; a level without a whole number in range is left out."""
    found: dict[str, int] = {}
    for obj in structured.json_objects(text):
        for k, v in obj.items():
            level = str(k).strip().lower().replace(" priority", "").replace("_priority", "")
            n = structured.whole_number(v)
            if level in LEVELS and isinstance(n, int) and 1 <= n <= 5:
                found[level] = n
        if found:
            return found
    for line in text.splitlines():
        head, _, rest = line.partition(":")
        level = head.strip(" -*").lower().replace(" priority", "")
        n = structured.whole_number(rest.strip().split(" ")[0]) if rest.strip() else None
        if level in LEVELS and isinstance(n, int) and 1 <= n <= 5:
            found[level] = n
    return found


def _insights(text: str, earlier: tuple[str, ...]) -> tuple[str, ...]:
    """The player's insights after a reflection: earlier ones revised in place by number, new ones added,
    at most the paper's five new ones per reflection; plain lines are read as new insights."""
    current = list(earlier)
    new: list[str] = []
    obj = next(structured.json_objects(text), None)
    items = obj.get("insights") if isinstance(obj, dict) else None
    if isinstance(obj, dict) and items is None and isinstance(obj.get("thoughts"), str):
        items = [obj["thoughts"]]
    if not isinstance(items, list):
        items = [line.strip(" -*0123456789.)") for line in text.splitlines()]
    for item in items:
        if isinstance(item, dict):
            said = str(item.get("text") or item.get("insight") or "").strip()[:400]
            number = structured.whole_number(item.get("revises"))
        else:
            said, number = str(item).strip()[:400], None
        if not said:
            continue
        if isinstance(number, int) and 1 <= number <= len(earlier):
            current[number - 1] = said
        elif len(new) < prompts.INSIGHTS:
            new.append(said)
    return tuple(current + new)


# The headings of a theory of mind (Thudium et al., 2024, Figure L.2) as the reply's keys and as read back.
TOM = (("wants", "wants"), ("strategy", "strategy:"), ("next", "next:"), ("of_me", "thinks of me:"),
       ("keep_secret", "keep from them:"))


def _impressions(text: str, about: list[str]) -> dict[str, str]:
    """Impressions of players still in, as short plain text: 'trust 1, liking -1; wants the idol'."""
    out: dict[str, str] = {}
    for obj in structured.json_objects(text):
        for who, value in obj.items():
            name = next((p for p in about if rules._mentions(str(who), p)), None)
            if name is None:
                continue
            if isinstance(value, dict):
                parts = []
                for k in ("trust", "liking"):
                    n = structured.whole_number(value.get(k))
                    if isinstance(n, int) and -2 <= n <= 2:
                        parts.append(f"{k} {n:+d}")
                text = ", ".join(parts)
                for k, heading in TOM:
                    said = str(value.get(k) or "").strip()
                    if said:
                        text += f"; {heading} {said[:200]}"
                out[name] = text
            elif str(value).strip():
                out[name] = str(value).strip()[:200]
        if out:
            break
    return out


def game_report(state: SocialState) -> dict[str, Any]:
    """Placements, every vote and each player's closing impressions: the game report's data."""
    return {
        "winner": state.game.winner,
        "placements": state.game.placements(),
        "votes": [dict(v) for v in state.game.votes],
        "tallies": state.tallies,
        "impressions": {state.names[k]: v for k, v in state.impressions.items()},
        "architecture": {n: state.rules.architecture.get(n, "both") for n in state.names.values()},
    }


__all__ = ["SocialGame", "SocialState", "game_report"]
