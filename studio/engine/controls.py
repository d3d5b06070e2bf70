"""The playwright's hand on a running play, and what the play's form offers it.

Take-overs, strategy and policy switches, draws, picks, entrances and notes are each one committed event,
so a rewind or a take keeps or drops them with the take. What a form can do beyond the steps every form
takes (a turn policy, stage moves, inner voices) is asked of the form, never looked for on its state. The
Engine (studio/engine/engine.py) has these as its own methods; they live here to keep the run's keeping
and a step's taking apart from the controls on them.
"""

from __future__ import annotations

from typing import Any

from studio.engine.forms.base import Form
from studio.engine.lens import Lens, voice_owners
from studio.model.play import STRATEGIES, ResolvedCast, ResolvedRole
from studio.store import events as ev
from studio.store.events import Event
from studio.store.leases import given_name, window_name


class Controls:
    """The controls of a run held by the Engine: it supplies the run (cast, form, state, take) and the
    one door events are committed through."""

    cast: ResolvedCast
    form: Form
    state: Any
    path: list[Event]
    by_id: dict[int, Event]
    store: Any
    run_id: int
    _controls: list[Event]  # the run's control events of every take, oldest first
    # The window (or command) this engine plays for, as its run lease names it (studio/store/leases.py):
    # the roles it takes are held in that name, and only it is asked for their lines. None: no one's.
    holder: str | None

    @property
    def head(self) -> int | None:
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        raise NotImplementedError

    def _commit(self, kind: str, text: str, **fields: Any) -> Event:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    # -- the playwright's controls --------------------------------------------------------------

    def _control(self, data: dict[str, Any], text: str) -> Event:
        return self._commit(ev.CONTROL, text, origin="human", data=data, scene=self.state.scene)

    def take_over(self, role_key: str) -> Event:
        """A human plays the role from its next line: in this engine's window when it has one, so every
        other window on the run shows who holds it and leaves its lines to that window."""
        role = self._not_held_elsewhere(role_key)
        if self.holder is None:
            return self._control({"human": {role_key: True}}, f"A human takes over {role.name} ({role_key}).")
        said = (f"{given_name(self.holder)} takes over {role.name} ({role_key})." if given_name(self.holder)
                else f"A human takes over {role.name} ({role_key}) in {window_name(self.holder)}.")
        return self._control({"human": {role_key: True}, "held_by": {role_key: self.holder}}, said)

    def release(self, role_key: str) -> Event:
        self._not_held_elsewhere(role_key)
        return self._hand_back(role_key)

    def _not_held_elsewhere(self, role_key: str) -> ResolvedRole:
        """The role, unless another window that still plays the run holds it (asked of the store, not of
        this engine's take, which may be a moment old): then a ValueError naming that window."""
        role = self.cast.role(role_key)
        elsewhere = self._live_holder(seat_holders(self.store.controls(self.run_id)).get(role_key))
        if elsewhere is not None:
            raise ValueError(f"{role.name} ({role_key}) is played by {window_name(elsewhere)}: only that "
                             "window hands it back")
        return role

    def _hand_back(self, role_key: str, why: str = "") -> Event:
        role = self.cast.role(role_key)
        return self._control({"human": {role_key: False}},
                             f"{role.name} ({role_key}) goes back to the model{': ' + why if why else ''}.")

    def holders(self) -> dict[str, str]:
        """Who holds each role a human plays in a window, by role key, as the run's controls say (a role
        taken where there is no window, or by the play itself, is no one's: whoever reaches its line asks)."""
        humans = self.humans()
        return {key: holder for key, holder in seat_holders(self._controls).items() if key in humans}

    def _live_holder(self, holder: str | None) -> str | None:
        """`holder`, if it is another window that still plays the run."""
        if holder is None or holder == self.holder or holder not in self.store.players(self.run_id):
            return None
        return holder

    def seat_holder(self, role_key: str) -> str | None:
        """The other window whose playwright writes this role's lines, if one does. A role held by a
        window that has gone (closed, or its lease run out) goes back to its model first, said in the
        log, so the run never waits on a line no one will write."""
        holder = self.holders().get(role_key)
        if holder is None or holder == self.holder:
            return None
        if self._live_holder(holder) is not None:
            return holder
        self._hand_back(role_key, f"{window_name(holder)} has gone")
        return None

    def free_gone(self) -> list[Event]:
        """Every role held by a window that has gone goes back to its model (see seat_holder)."""
        others = {key: holder for key, holder in self.holders().items() if holder != self.holder}
        if not others:
            return []
        players = self.store.players(self.run_id)
        return [self._hand_back(key, f"{window_name(holder)} has gone")
                for key, holder in others.items() if holder not in players]

    def leave(self) -> list[Event]:
        """This engine's window stops playing the run (it closes, or opens another): each role it holds
        goes back to its model, so no other window waits for a line from it."""
        if self.holder is None or self.holder not in seat_holders(self.store.controls(self.run_id)).values():
            return []
        self.reload()  # committed at the run's head as it is now, whoever moved it last
        mine = [key for key, holder in self.holders().items() if holder == self.holder]
        return [self._hand_back(key, f"{window_name(self.holder)} left") for key in mine]

    def switch_strategy(self, strategy: str, enabled: bool, voice: str | None = None) -> Event:
        """`voice`: one inner voice of an ensemble ("c1.voice"); without it, the superego or every voice."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
        word = "on" if enabled else "off"
        if voice is None:
            return self._control({"strategy": strategy, "enabled": enabled}, f"Superego {strategy} switched {word}.")
        if not voice.endswith(".voice") or not self.cast.has(voice):
            raise ValueError(f"no inner voice {voice!r} in this run")
        return self._control({"strategy": strategy, "enabled": enabled, "voice": voice},
                             f"{self.cast.role(voice).name}'s {strategy} switched {word}.")

    def draw(self, fact: str, choices: list[Any]) -> Event:
        """A random choice committed as a fact, so a rewind or a take replays the same draw."""
        import random

        if not choices:
            raise ValueError(f"nothing to draw {fact!r} from")
        rng = random.Random(f"{self.cast.play.seed}:{self.head}:{fact}")
        value = rng.choice(list(choices))
        return self._commit(ev.CONTROL, f"Drawn: {fact} = {value}.", origin="studio", scene=self.state.scene,
                            data={"facts": {fact: value}, "draw": {"fact": fact, "choices": list(choices)}})

    # -- what the form offers: asked of it, never looked for on its state -----------------------

    def humans(self) -> set[str]:
        """The seats a human plays now."""
        return self.form.humans(self.state)

    def on_stage(self) -> list[str]:
        """The character seats on stage now (in a form without entrances, every character)."""
        on = self.form.on_stage(self.state)
        return [r.key for r in self.cast.characters] if on is None else list(on)

    @property
    def picks_speaker(self) -> bool:
        """Whether a turn policy decides who speaks next (so `pick` and `switch_policy` apply)."""
        return self.form.picks_speaker

    @property
    def stage_moves(self) -> bool:
        """Whether characters may enter and leave (so `stage_move` applies)."""
        return self.form.stage_moves

    def policy(self) -> str | None:
        """The turn policy in force, or None where the order of speakers is fixed."""
        return self.form.turn_policy(self.state)

    def strategy_switches(self) -> dict[str, bool]:
        """The playwright's strategy switches in force (`strategy`, or `voice:strategy` for one voice)."""
        return self.form.strategy_switches(self.state)

    def lens(self) -> Lens:
        """What each seat knows of the take this engine follows (the app's view-as and backstage), read
        from the inner voices' fold the state keeps rather than by folding the take again."""
        return Lens(self.path, voices=self.form.inner_voices(self.state), owners=voice_owners(self.cast),
                    by_id=self.by_id)

    def character(self, name: str) -> ResolvedRole:
        """The one character a word names (its name, key or kind, any case), on stage or off; else a clear error."""
        matches = [r for r in self.cast.matching(name) if r.is_character]
        if len(matches) != 1:
            names = ", ".join(r.name for r in self.cast.characters)
            raise ValueError(f"no single character called {name!r}; use one of: {names}")
        return matches[0]

    def stage_choices(self) -> list[str]:
        """The names that may speak next: the characters on stage, the policy's suggestion first."""
        first = self.suggestion()
        on = self.on_stage()
        names = [r.name for r in self.cast.characters if r.key in on]
        return sorted(names, key=lambda n: n != first)

    def suggestion(self) -> str | None:
        """The name the turn policy would pick next without a model, if it has one."""
        key = self.form.suggestion(self.state)
        return self.cast.role(key).name if key else None

    def pick(self, name: str) -> Event:
        """The playwright names the next speaker: a backstage event, so rewinds and takes keep it."""
        if not self.picks_speaker:
            raise ValueError(f"the {self.form.name} form has a fixed order of speakers; --next needs an ensemble")
        role = self.character(name)
        if role.key not in self.on_stage():
            raise ValueError(f"{role.name} is not on stage; bring them on first (studio stage RUN --enter {role.name})")
        return self._commit(ev.PICK, f"{role.name}: the playwright's pick", origin="human", scene=self.state.scene,
                            turn=self.state.turn + 1, data={"pick": role.key, "reason": "the playwright's pick"})

    def stage_move(self, name: str, enter: bool) -> Event:
        """Send a character on or off: a direction the audience sees, and the fact that moves presence."""
        if not self.stage_moves:
            raise ValueError(f"everyone stays on stage in a {self.form.name} play; entrances need an ensemble")
        role = self.character(name)
        if (role.key in self.on_stage()) == enter:
            raise ValueError(f"{role.name} is already {'on' if enter else 'off'} stage")
        move = {"enter" if enter else "exit": role.key}
        if not enter and not self.finished and not self.form.stage_after(self.state, move):
            raise ValueError(f"{role.name} is the last one on stage, and a scene with no one on it cannot go on; "
                             "bring someone on first")
        text = f"{role.name} {'enters' if enter else 'leaves'}."
        return self._commit(ev.DIRECTION, text, origin="human", scene=self.state.scene, turn=self.state.turn,
                            data={"task": "stage_move", "facts": {"on_stage": self.form.stage_after(self.state, move)},
                                  "stage": move})

    def switch_policy(self, policy: str) -> Event:
        from studio.model.play import POLICIES

        if policy not in POLICIES:
            raise ValueError(f"unknown turn policy {policy!r}; use one of {', '.join(POLICIES)}")
        if not self.picks_speaker:
            raise ValueError(f"the {self.form.name} form has a fixed order of speakers")
        return self._control({"policy": policy}, f"Who speaks next: {policy}.")

    def note(self, text: str) -> Event:
        """A playwright's note: the director and the characters hear it on the next turn."""
        return self._commit(ev.NOTE, text.strip(), origin="human", scene=self.state.scene, turn=self.state.turn)


def seat_holders(controls: list[Event]) -> dict[str, str]:
    """Role key → the window holding it, folded from control events oldest first: a take-over made in a
    window names it; any other take-over, or a hand-back, leaves the role in no window's hands."""
    held: dict[str, str] = {}
    for event in controls:
        named = event.data.get("held_by") or {}
        for key, on in (event.data.get("human") or {}).items():
            if on and named.get(key):
                held[key] = str(named[key])
            else:
                held.pop(key, None)
    return held
