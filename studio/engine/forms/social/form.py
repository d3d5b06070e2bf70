"""The social game as a form: the engine's one door into the game, each question handed to the module whose
job it is (plan.py for what comes next, asking.py for what a player is asked, reading.py for how a reply is
read, fold.py for how a committed event changes the state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Form, Message, Reply, Seat, Step
from studio.engine.forms.social import asking, fold, plan, reading, rules
from studio.engine.forms.social.memory import RECALL
from studio.engine.forms.social.state import SocialState, everyone
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.engine.forms.social import prompts
    from studio.model.play import Play, ResolvedCast, ResolvedRole


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
        return plan.next_step(state)

    def scene_data(self, state: SocialState, step: Step) -> dict[str, Any]:
        """A round's heading: the form's own step, seen by everyone in the game."""
        return {"task": "round", **everyone(state)}

    def ends_turn(self, state: SocialState, done: list[Event]) -> bool:
        return plan.ends_turn(state, done)

    # -- the prompts ------------------------------------------------------------------------

    def view(self, state: SocialState, key: str, path: list[Event], query: str = "",
             k: int = RECALL, memories: tuple[str, ...] | None = None) -> prompts.PlayerView:
        return asking.view(state, key, path, query, k, memories)

    def schema(self, state: SocialState, step: Step, role: ResolvedRole) -> str | None:
        return asking.schema(state, step, role)

    def choices(self, state: SocialState, step: Step, role: ResolvedRole) -> list[str] | None:
        return asking.choices(state, step, role)

    def answer_format(self, state: SocialState, step: Step, role: ResolvedRole) -> str | None:
        return asking.answer_format(state, step, role)

    def messages(self, state: SocialState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        return asking.messages(state, path, step, role)

    # -- reading replies and folding events -------------------------------------------------

    def read(self, state: SocialState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        return reading.read(state, step, role, text)

    def present(self, state: SocialState, kind: str, role: str | None, data: dict[str, Any]) -> list[str] | None:
        return data.get("present")

    def fold(self, state: SocialState, event: Event) -> None:
        fold.fold(state, event)
