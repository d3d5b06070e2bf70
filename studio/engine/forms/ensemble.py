"""An ensemble scene: any number of characters, inner voices for any of them, entrances and exits,
and a turn policy that decides who speaks next.

Who is on stage is a fact (`on_stage`, a list of seat keys) set by scene briefs and stage moves, so
presence rewinds like everything else. A pick (a moderator's, a director's or the playwright's) is a
backstage event; the line that follows is the picked character's. Inner voices work as in the Drama
Machine, each on its own schedule: a critique of its character's draft, the rewrite of a line its
character hears, and the rewrite of its character's brief.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Form, Message, Reply, Seat, Step
from studio.engine.forms.ensemble_prompts import EnsembleBook, read_pick
from studio.engine.forms.review import review
from studio.engine.forms.ensemble_state import PICKED_BY, EnsembleState, move_stage  # noqa: F401
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.engine.lens import InnerVoices
    from studio.model.play import Play, ResolvedCast, ResolvedRole


class Ensemble(Form):
    name = "ensemble"
    picks_speaker = True
    stage_moves = True

    @classmethod
    def check_cast(cls, play: Play, where: str) -> None:
        from studio.model.errors import InputError

        if len(play.cast.characters) < 2:
            raise InputError(where, "cast.characters", "an ensemble needs at least two", "add [[cast.characters]] tables")
        # An ensemble plays only its [[cast.characters]]; a Drama Machine's seat here would never speak.
        for field, seat in (("ego", play.cast.ego), ("superego", play.cast.superego), ("others", play.cast.others)):
            if seat:
                raise InputError(where, f"cast.{field}", "is a Drama Machine's seat, which an ensemble never plays",
                                 "make it one of the [[cast.characters]] (an inner voice: [cast.characters.voice])")

    @classmethod
    def check_resolved(cls, cast: ResolvedCast) -> None:
        """Every name a scene's `on_stage`, `enter` and `exit` give is a character of the cast, and the
        stage is never left empty while a scene still has turns to play (nobody could speak them)."""
        from studio.model.errors import InputError

        play = cast.play
        known = {r.name.casefold(): r.name for r in cast.roles if r.kind == "other"}
        names = ", ".join(known.values())
        stage = list(known)
        for scene in range(1, play.scene_count + 1):
            field = f"scenes[{scene - 1}]"
            opening = play.on_stage(scene)
            moves = [("enter", name, at) for name, at in play.entrances(scene).items()]
            moves += [("exit", name, at) for name, at in play.exits(scene).items()]
            for word, name, _ in [("on_stage", name, 0) for name in opening or []] + moves:
                if name.strip().casefold() not in known:
                    raise InputError(cast.play_path, f"{field}.{word}", f"{name!r} is not a character of this play",
                                     f"use one of: {names}")
            if opening is not None:
                stage = [n.strip().casefold() for n in opening]
            if not stage:
                raise InputError(cast.play_path, f"{field}.on_stage", "leaves nobody on stage to speak",
                                 f"put at least one of {names} on stage")
            for at in sorted({at for *_, at in moves}):
                for word, name, when in moves:
                    who = name.strip().casefold()
                    if when == at and word == "enter" and who not in stage:
                        stage.append(who)
                    elif when == at and word == "exit" and who in stage:
                        stage.remove(who)
                if not stage and at < play.turns:
                    raise InputError(cast.play_path, f"{field}.exit",
                                     f"everyone has left after turn {at}, with {play.turns - at} turns still to play",
                                     "keep someone on stage, or bring someone on at the same turn with enter")

    def on_stage(self, state: EnsembleState) -> list[str]:
        return list(state.on_stage)

    def turn_policy(self, state: EnsembleState) -> str:
        return state.policy

    def suggestion(self, state: EnsembleState) -> str | None:
        return state.suggestion()

    def stage_after(self, state: EnsembleState, move: dict[str, str]) -> list[str]:
        return move_stage(state, move)

    def reworked_line(self, state: EnsembleState, step: Step) -> Event | None:
        return state.other_line if step.task == "rewrite_speech" else None

    def strategy_switches(self, state: EnsembleState) -> dict[str, bool]:
        return dict(state.strategy_switch)

    def inner_voices(self, state: EnsembleState) -> InnerVoices:
        return state.inner

    def seats(self, cast: ResolvedCast) -> list[Seat]:
        out = []
        for r in cast.roles:
            fill = "rule" if r.rule else "human" if r.human else "model"
            if r.kind == "other":
                voice = f"{r.key}.voice" if cast.has(f"{r.key}.voice") else None
                out.append(Seat(r.key, r.name, r.kind, fill, True, inner_voice=voice))
            elif r.key.endswith(".voice"):
                out.append(Seat(r.key, r.name, r.kind, fill, False, voice_of=r.key[: -len(".voice")]))
            else:
                out.append(Seat(r.key, r.name, r.kind, fill, False))
        return out

    def new_state(self, cast: ResolvedCast) -> EnsembleState:
        state = EnsembleState(cast=cast, policy=cast.play.next)
        state.humans = {r.key for r in cast.roles if r.human}
        state.on_stage = [r.key for r in cast.roles if r.kind == "other"]
        state.facts = dict(cast.play.facts)  # the play's starting facts; any event's data["facts"] overrides
        return state

    def fold(self, state: EnsembleState, event: Event) -> None:
        state.apply(event)

    def next_step(self, state: EnsembleState) -> Step | None:
        return state.next_step()

    async def carry_out(self, state: EnsembleState, step: Step, path: list[Event], gateway: Any) -> Reply | None:
        """The Critic's review between scenes, when the play's critic_loop is on."""
        return await review(state.cast, path, gateway) if step.task == "review" else None

    def keep_control(self, state: EnsembleState, event: Event) -> None:
        state.control(event)

    def messages(self, state: EnsembleState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        book = EnsembleBook(state, path, by_id, self.minds, self.windows)
        messages = book.messages(step, role)
        self.recalled = book.recalled
        self.kept = book.kept
        self.lore = book.lore(role).recorded
        return messages

    def scene_data(self, state: EnsembleState, step: Step) -> dict[str, Any]:
        names = state.cast.play.on_stage(step.scene)
        if names is None:
            return {}
        keys = [k for k in (state.key_for(n) for n in names) if k]
        return {"facts": {"on_stage": keys}}

    def present(self, state: EnsembleState, kind: str, role: str | None, data: dict[str, Any]) -> list[str]:
        if kind == ev.SUMMARY and role is not None:
            data.setdefault("private", role)  # what a character remembers is its own
            return [role]
        if role is not None and role.endswith(".voice") and kind in ev.BACKSTAGE:
            owner = role[: -len(".voice")]
            data.setdefault("private", owner)  # an inner voice's work is its character's alone
            return [owner]
        if kind == ev.PICK:
            return []  # nobody on stage hears the moderator
        now = list(state.on_stage)
        after = (data.get("facts") or {}).get("on_stage")
        if kind == ev.SCENE and after is not None:
            return list(after)
        return now + [k for k in (after or []) if k not in now]  # one who enters sees the entrance

    def read(self, state: EnsembleState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        data: dict[str, Any] = {}
        if step.kind == ev.PICK:
            return read_pick(state, text)
        if step.task == "stage_move" and state.moves:
            move = state.moves[0]
            if "enter" in move or "exit" in move:
                data["facts"] = {"on_stage": move_stage(state, move)}
            return Reply(move["text"], kind=ev.DIRECTION, data=data)
        if step.kind == ev.SUMMARY:
            data["upto"] = state.newest_line
            return Reply(text, data=data)
        if step.kind == ev.REWRITE_SPEECH and state.other_line is not None:
            data["source"] = state.other_line.id
            data["hearer"] = state.hear[0] if state.hear else None
        if step.kind == ev.REWRITE_PROMPT and state.last_speaker:
            data["owner"] = state.last_speaker
            data["replaces"] = state.prompts.get(state.last_speaker, state.cast.role(state.last_speaker).sheet.prompt)
            data["source"] = state.other_line.id if state.other_line else None
        if step.role in state.characters and step.kind == ev.STAGE:
            data["shaped_by"] = ([state.pick_event] if state.pick_event and state.picked else []) + list(state.shaping)
        return Reply(text, data=data)

    def ends_turn(self, state: EnsembleState, done: list[Event]) -> bool:
        event = done[-1]
        if event.kind == ev.EPILOGUE:
            return True
        return state.phase != "after" and any(
            e.role in state.characters and e.kind in (ev.STAGE, ev.DIRECTION) for e in done
        ) and not state.moves
