"""What every form of play shares: seats, facts, replies and the protocol the engine drives.

A form is a play's rules. The engine owns the store, the models and the playwright's hand; the form
owns everything that differs between a Drama Machine scene, an ensemble, a dilemma or an interview:
what the state is, what comes next, what a seat is shown, how its reply is read, how an event changes
the state. Because the state is only ever a fold of committed events, rewind, takes and resume work
for every form without the form doing anything for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.engine.lens import InnerVoices
    from studio.model.play import Play, ResolvedCast, ResolvedRole

Message = dict[str, str]
FILLS = ("model", "human", "rule")


@dataclass(frozen=True)
class Step:
    """What happens next: which seat does which task, and what kind of event it will leave."""

    kind: str  # an event kind
    task: str  # names the prompt builder: scene | direct | speak | rewrite_speech | draft | critique | ...
    role: str | None
    scene: int
    turn: int

    @property
    def on_stage(self) -> bool:
        return self.kind in (ev.SCENE, ev.STAGE, ev.DIRECTION, ev.EPILOGUE)


@dataclass(frozen=True)
class Seat:
    """A place in the cast: who sits in it, whether it is on stage, and who fills it."""

    key: str
    name: str
    kind: str  # ego | other | superego | director | moderator | ...
    fill: str = "model"  # model | human | rule
    character: bool = True  # a character on stage (False: director, moderator, an inner voice)
    inner_voice: str | None = None  # the key of this character's inner voice seat, if it has one
    voice_of: str | None = None  # for an inner voice: the key of the character it belongs to


@dataclass
class Reply:
    """A seat's answer as the form reads it: the text to commit, and anything it adds to the event."""

    text: str
    kind: str | None = None  # commit as another kind than the step's (e.g. a direction)
    data: dict[str, Any] = field(default_factory=dict)
    # the event's own columns (origin, character, model) when the form fills a step itself
    event: dict[str, Any] = field(default_factory=dict)


def fold_facts(facts: dict[str, Any], event: Event) -> None:
    """Any event may set facts; later events win. A value of None removes the fact."""
    for key, value in (event.data.get("facts") or {}).items():
        if value is None:
            facts.pop(key, None)
        else:
            facts[key] = value


def refusal(path: list[Any], key: str) -> str | None:
    """Why the seat's last answer was refused, when the run's last event is that refusal (a form commits
    an unusable answer with `invalid` in its data): what whoever is asked again must be told first."""
    last = path[-1] if path else None
    if last is not None and last.role == key and last.data.get("invalid"):
        return str(last.data["invalid"])
    return None


# A rule fills a seat without a model: given the form's state, the step and the seat's role, it answers.
Rule = Callable[[Any, "Step", "ResolvedRole"], str]
RULES: dict[str, Rule] = {}
# The one form a rule was written for (it reads that form's state); a rule not named here fits any form.
RULE_FORMS: dict[str, str] = {}


def rule(name: str, form: str | None = None) -> Callable[[Rule], Rule]:
    """Register a rule seat's answer under a name a play file can use (`rule = "tit_for_tat"`); `form`: the
    only form whose state it reads, so a play of another form naming it is refused rather than run."""

    def register(fn: Rule) -> Rule:
        RULES[name] = fn
        if form is not None:
            RULE_FORMS[name] = form
        return fn

    return register


class Form:
    """The protocol. Subclasses override what differs; the defaults suit a form with one phase list."""

    name = "form"
    # Set by the engine before `messages` when a character has an inner life (studio.mind.runner.MindRunner);
    # a prompt book that recalls memories past the budget leaves them in `recalled` for the line's data.
    minds: Any = None
    recalled: list[Any] = []
    kept: list[str] = []  # what the last `messages` asks the budget never to cut (studio.engine.budget.fit)
    lore: list[str] = []  # the lorebook entries the last `messages` gave its seat, by label

    @property
    def windows(self) -> dict[Any, Any]:
        """What a prompt book keeps between calls of this run (a form is made per engine, so per run): the
        left-out history each seat was last told of, so the next call counts only what moved on."""
        return self.__dict__.setdefault("_windows", {})

    @property
    def views(self) -> dict[Any, Any]:
        """The view of the take each seat was last shown, kept between calls of this run as `windows` is:
        a seat shown the same budget again with nothing new to see is shown it again, not walked afresh."""
        return self.__dict__.setdefault("_views", {})

    # -- the cast it needs ----------------------------------------------------------------------

    @classmethod
    def check_cast(cls, play: Play, where: str) -> None:
        """Refuse a play whose cast this form cannot run: raise studio.model.InputError naming the file
        (`where`), the field and the fix. Called as a play file is loaded (studio.engine.forms.load_play)."""

    @classmethod
    def check_resolved(cls, cast: ResolvedCast) -> None:
        """The cast rules that need every seat resolved (names read from character sheets), raised the
        same way; called once the cast is (studio.engine.forms.resolve_cast)."""

    def seats(self, cast: ResolvedCast) -> list[Seat]:
        return [
            Seat(r.key, r.name, r.kind, "human" if r.human else "model", r.is_character)
            for r in cast.roles
        ]

    def new_state(self, cast: ResolvedCast) -> Any:
        raise NotImplementedError

    def replay(self, cast: ResolvedCast, path: list[Event]) -> Any:
        state = self.new_state(cast)
        for event in path:
            self.fold(state, event)
        return state

    def fold(self, state: Any, event: Event) -> None:
        """Change the state by one committed event. Pure: same events, same state."""
        raise NotImplementedError

    def next_step(self, state: Any) -> Step | None:
        raise NotImplementedError

    def messages(self, state: Any, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        raise NotImplementedError

    def read(self, state: Any, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        """Read a model's (or a human's) answer. A choice (a move, a pick) is validated here."""
        return Reply(text)

    async def carry_out(self, state: Any, step: Step, path: list[Event], gateway: Any) -> Reply | None:
        """Fill a step no seat of the cast takes and that needs a model, such as the Critic's review between
        scenes (studio.engine.forms.review.review). None: the form reads the step as its own move (`read`
        with no seat)."""
        return None

    def keep_control(self, state: Any, event: Event) -> None:
        """Apply only the playwright's standing controls of a control event (take-overs, switches, a
        policy), never its facts: after a rewind or a take switch the controls made last stay in force."""

    def present(self, state: Any, kind: str, role: str | None, data: dict[str, Any]) -> list[str] | None:
        """The character seats who witness an event about to be committed (recorded in its data)."""
        return None

    def scene_data(self, state: Any, step: Step) -> dict[str, Any]:
        """What a scene heading event carries besides its text (an ensemble: who is on stage)."""
        return {}

    def ends_turn(self, state: Any, done: list[Event]) -> bool:
        """Whether the events stepped so far (newest last) complete one turn of play_turn."""
        event = done[-1]
        return event.kind == "epilogue" or (event.kind in ("stage", "direction") and event.role is not None)

    def schema(self, state: Any, step: Step, role: ResolvedRole) -> str | None:
        """A JSON schema (as text, from studio.structured.reply_schema) this step's reply is held to where
        the model can be held (the embedded model's grammar, providers that take one); None: free text."""
        return None

    def grammar(self, state: Any, step: Step, role: ResolvedRole) -> str | None:
        """A llama.cpp grammar (GBNF) this step's line is held to on the embedded model: the shape a line
        must have that a tiny model will not keep to when asked in words; None: any line."""
        return None

    def opening(self, state: Any, step: Step, role: ResolvedRole) -> str | None:
        """The first words of a small model's answer, written for it, which it goes on from; None: it
        begins its answer itself. A rewritten character begins with that character's name in the second
        person ("You are Jenny,"): asked to rewrite a description, a 135M model wrote about whoever spoke
        last ("You are Sasha..."), and the rewritten character's own prompt then told it that was who it was."""
        from studio.engine.lens import voice_owners
        from studio.llm.sampling import is_small

        if step.kind != ev.REWRITE_PROMPT or not is_small(role.model, role.small):
            return None
        owner = voice_owners(state.cast).get(role.key)
        return f"You are {state.cast.role(owner).name}," if owner else None

    def choices(self, state: Any, step: Step, role: ResolvedRole) -> list[str] | None:
        """What a human in this seat may answer, in words ("walk to Beach", a player's name), when the step
        allows only some answers; None: any line. The app's input box lists them."""
        return None

    def answer_format(self, state: Any, step: Step, role: ResolvedRole) -> str | None:
        """How a human's free answer to this step is read, in a few words with an example, when it is more
        than a line of dialogue (goals, an impression); None: a line. The app's input box shows it."""
        return None

    # -- capabilities -------------------------------------------------------------------------
    # What a form offers beyond the steps every form takes. The engine, the CLI and the app ask these and
    # never look for attributes on a form's state, so a new form says what it can do in one place.

    picks_speaker = False  # a turn policy decides who speaks next, and the playwright may pick instead

    def finished(self, state: Any) -> bool:
        """Whether the run is over by this form's rules. Not every form ends with an epilogue: a game ends
        with its verdict, a dilemma with its last round, an interview with its last question, a play with
        `epilogue = false` with its last scene; the exports and the app ask here, never for an epilogue."""
        return bool(state.finished)
    stage_moves = False  # characters enter and leave during a scene

    def humans(self, state: Any) -> set[str]:
        """The seats a human plays now (the play's choice, then the playwright's take-overs)."""
        return set(state.humans)

    def on_stage(self, state: Any) -> list[str] | None:
        """The character seats on stage now, or None: everyone stays on stage throughout."""
        return None

    def turn_policy(self, state: Any) -> str | None:
        """The turn policy in force (see studio.model.play.POLICIES), or None: a fixed order of speakers."""
        return None

    def suggestion(self, state: Any) -> str | None:
        """The seat the turn policy would pick next without a model: the first choice a human picker sees."""
        return None

    def stage_after(self, state: Any, move: dict[str, str]) -> list[str]:
        """Who is on stage after one entrance (`{"enter": key}`) or exit (`{"exit": key}`)."""
        raise NotImplementedError(f"everyone stays on stage in a {self.name} play")

    def repeat_window(self, state: Any, path: list[Event], step: Step) -> list[Event]:
        """The part of the take whose stage lines a new line may not say again (studio.engine.lines cuts a
        repeat): the whole take, of which the engine reads the latest lines. A form whose steps stand apart
        (an interview's items) gives only the step's own part."""
        return path

    def reworked_line(self, state: Any, step: Step) -> Event | None:
        """The line an inner voice rewrites at this step (its speaker is the one the rewrite speaks for)."""
        return None

    def strategy_switches(self, state: Any) -> dict[str, bool]:
        """The playwright's switches of inner-voice strategies in force: `strategy` for every voice,
        `voice:strategy` for one."""
        return {}

    def inner_voices(self, state: Any) -> InnerVoices | None:
        """The fold of the inner voices' work the state already keeps, if the form has inner voices: the lens
        of the current take reads what each character heard from it instead of folding the take again."""
        return None

    def rule_for(self, state: Any, step: Step, role: ResolvedRole) -> Rule | None:
        """The rule that fills this step's seat, or None when a model or a human does."""
        name = getattr(role, "rule", None)
        return RULES.get(name) if name else None


@rule("listens")
def _listens(state: Any, step: Step, role: ResolvedRole) -> str:
    """A character kept on stage at no cost: present, witnessing, silent."""
    return f"*{role.name} listens.*"
