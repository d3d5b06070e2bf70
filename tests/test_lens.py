"""One lens: what a seat was prompted with, what `studio show RUN --as NAME` prints and what the app shows
when viewing the run as that character agree, for every seat of a scripted ensemble (The Last Crossing,
two inner voices at work) and of a scripted social game (four on the island).

The oracle here is the record itself, not the lens: who was present at each event (`present`), whose
private business it is (`private`, or the seat or inner voice that made it), and which rewrite a
character's own inner voice made of a line it heard.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conftest import ROOT, RecordingGateway, make_cast
from test_tui import studio  # noqa: F401  (the app on a fresh database, as the app's tests build it)
from studio.engine import Engine
from studio.store import events as ev

LINES = (ev.STAGE, ev.DIRECTION)
CHARACTER_TASKS = ("speak", "draft", "revise", "epilogue", "summarize")
VOICE_TASKS = ("critique", "rewrite_speech", "rewrite_prompt")


class PathRecordingGateway(RecordingGateway):
    """Also notes the take as it stood when each call was made: what the seat could have known then."""

    engine = None

    def __init__(self):
        super().__init__()
        self.paths: list[list] = []

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        self.paths.append(list(self.engine.path))
        return await super().complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _play(store, cast):
    gateway = PathRecordingGateway()
    engine = Engine.create(store, cast, {}, gateway=gateway)
    gateway.engine = engine
    asyncio.run(engine.play_to_end())
    assert engine.finished
    return engine, gateway


def _characters(cast):
    return [r for r in cast.roles if r.kind == "other" and not r.key.endswith(".voice")]


def _witnessed(event, key: str) -> bool:
    """From the record alone: present at a public event; a private one only if it is the seat's own."""
    data = event.data
    if event.is_backstage:
        mine = data.get("private") == key or event.role in (key, f"{key}.voice")
        return mine and (data.get("private") in (None, key))
    present = data.get("present")
    return (present is None or key in present) and data.get("private") in (None, key)


def _heard(path, key: str) -> dict[int, str]:
    """Line id -> the text the seat's own inner voice made it hear instead."""
    return {e.data["source"]: e.text for e in path
            if e.kind == ev.REWRITE_SPEECH and e.role == f"{key}.voice" and e.data.get("source") is not None}


def _show_as(capsys, db: Path, name: str) -> list[dict]:
    from studio.cli import main

    capsys.readouterr()
    assert main(["show", "1", "--as", name, "--json", "--backstage", "--db", str(db)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def _plain(visual) -> str:
    from rich.console import Console

    console = Console(width=1000, force_terminal=False)
    with console.capture() as capture:
        console.print(visual)
    return _flat(capture.get())


@pytest.fixture
def ensemble(tmp_path):
    from studio.store import Store

    store = Store(tmp_path / "studio.db")
    engine, gateway = _play(store, make_cast("last_crossing.toml"))
    yield engine, gateway, tmp_path / "studio.db"
    store.close()


@pytest.fixture
def island(tmp_path):
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import Store

    path = ROOT / "experiments" / "plays" / "island4.toml"
    store = Store(tmp_path / "studio.db")
    engine, gateway = _play(store, resolve_cast(load_play(path), path, model="scripted"))
    yield engine, gateway, tmp_path / "studio.db"
    store.close()


# -- the ensemble ---------------------------------------------------------------------------------


def test_every_ensemble_seat_is_prompted_with_what_it_witnessed_as_it_heard_it(ensemble):
    engine, gateway, _ = ensemble
    cast = engine.cast
    final = engine.path
    private = [e for e in final if e.is_backstage and e.kind != ev.PICK]
    checked = set()
    for key, role in ((r.key, r) for r in _characters(cast)):
        voice = cast.role(f"{key}.voice").name if cast.has(f"{key}.voice") else None
        for (ctx, messages), then in zip(gateway.calls, gateway.paths):
            own_call = ctx.character == role.name and ctx.task in CHARACTER_TASKS
            voice_call = voice is not None and ctx.character == voice and ctx.task in VOICE_TASKS
            if not (own_call or voice_call):
                continue
            checked.add(key)
            shown = _flat("\n".join(m["content"] for m in messages))
            heard = _heard(then, key)
            known = [e for e in then if e.kind in LINES and _witnessed(e, key)]
            known_texts = {_flat(heard.get(e.id, e.text)) for e in known}
            for event in then:
                if event.kind in LINES and not _witnessed(event, key) and _flat(event.text) not in known_texts:
                    assert _flat(event.text) not in shown, (role.name, ctx.task, event.text)
            for event in private:
                if not _witnessed(event, key):
                    assert _flat(event.text) not in shown, (role.name, ctx.task, "another's inner work", event.text)
            if own_call and "(earlier lines omitted)" not in shown and "not shown here" not in shown:
                for event in known:  # nothing witnessed is missing, and a rewrite stands in for what was said
                    assert _flat(heard.get(event.id, event.text)) in shown, (role.name, ctx.task, event.text)
                    if event.id in heard:
                        assert _flat(event.text) not in shown, (role.name, "heard the line unrewritten")
    assert checked == {r.key for r in _characters(cast)}
    # the moderator's lens is the whole stage as said: no inner voice reaches it
    picks = [m for ctx, m in gateway.calls if ctx.task == "pick"]
    assert picks
    for messages in picks:
        shown = _flat("\n".join(m["content"] for m in messages))
        assert all(_flat(e.text) not in shown for e in private)


def test_show_as_and_the_apps_view_as_agree_with_the_record_for_every_character(ensemble, capsys):
    from studio.tui import ensemble_views as ens

    engine, _, db = ensemble
    for role in _characters(engine.cast):
        key = role.key
        heard = _heard(engine.path, key)
        expected = [e for e in engine.path if _witnessed(e, key)]
        printed = _show_as(capsys, db, role.name)
        assert [e["id"] for e in printed] == [e.id for e in expected], role.name
        assert [e["text"] for e in printed] == [heard.get(e.id, e.text) for e in expected], role.name
        viewed = ens.through_eyes(engine, role.name)
        assert [e.id for e in viewed] == [e.id for e in expected if e.on_stage], role.name
        assert [e.text for e in viewed] == [heard.get(e.id, e.text) for e in expected if e.on_stage], role.name
        assert {e.id for e in viewed if e.data.get("heard_as")} == set(heard) & {e.id for e in viewed}


def test_viewing_as_a_character_the_backstage_shows_only_its_own_inner_voice(ensemble):
    from studio.tui import views

    engine, _, _ = ensemble
    cast = engine.cast
    private = [e for e in engine.path if e.is_backstage and e.kind != ev.PICK]
    voices = {r.name for r in cast.roles if r.key.endswith(".voice")}
    for role in _characters(cast):
        key = role.key
        own_voice = cast.role(f"{key}.voice").name if cast.has(f"{key}.voice") else None
        heard = _heard(engine.path, key)
        for event in (e for e in engine.path if e.on_stage and _witnessed(e, key)):
            said = _plain(views.backstage(engine, event.id, lens=role.name))
            for other in private:
                if not _witnessed(other, key):
                    assert _flat(other.text) not in said, (role.name, event.id, other.text)
            for name in voices - {own_voice}:
                assert name not in said, (role.name, event.id, name)
            if event.id in heard:
                assert f"{role.name} heard it as ({own_voice}, {role.name}'s inner voice" in said
                assert _flat(heard[event.id]) in said


def test_viewing_as_oskar_the_backstage_does_not_show_how_ines_heard_a_line(ensemble):
    from studio.tui import views

    engine, _, _ = ensemble
    rewrites = [e for e in engine.path if e.kind == ev.REWRITE_SPEECH and e.role == "c1.voice"]
    line = next(engine.by_id[r.data["source"]] for r in rewrites if engine.by_id[r.data["source"]].witnessed_by("c4"))
    rewrite = next(r for r in rewrites if r.data["source"] == line.id)
    everyone = _plain(views.backstage(engine, line.id))
    assert "Ines heard it as" in everyone and _flat(rewrite.text) in everyone
    oskar = _plain(views.backstage(engine, line.id, lens="Oskar"))
    assert "Ines heard it as" not in oskar and _flat(rewrite.text) not in oskar and "Pride" not in oskar


def test_an_exported_backstage_credits_each_inner_voice_to_its_own_character(ensemble):
    from studio.export.script import Backstage, build_script

    engine, _, _ = ensemble
    notes = {b.event_id: b for b in build_script(engine.store, engine.run_id, backstage=True).blocks
             if isinstance(b, Backstage)}
    doubt = [e for e in engine.path if e.role == "c2.voice" and e.kind == ev.REWRITE_SPEECH]
    assert doubt
    for event in doubt:
        assert notes[event.id].label == "Doubt makes Tomas hear it as", notes[event.id].label
    drafts = [e for e in engine.path if e.kind == ev.DRAFT and e.role == "c2"]
    assert drafts and all(notes[e.id].label == "Tomas drafts" for e in drafts)
    critiques = [e for e in engine.path if e.kind == ev.CRITIQUE and e.role == "c2.voice"]
    assert critiques and all(notes[e.id].label == "Doubt critiques the draft" for e in critiques)


async def test_in_the_app_viewing_as_oskar_the_backstage_pane_keeps_to_oskar(studio):
    from test_tui import _plain as pane_text, opened, stage, step, wait_for
    from test_tui_ensemble import _choose
    from studio.tui.screens.ensemble import CharacterChoiceScreen

    app = studio("last_crossing.toml")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        while not any(e.kind == ev.REWRITE_SPEECH and e.role == "c1.voice"
                      and engine.by_id[e.data["source"]].witnessed_by("c4") for e in engine.path):
            await step(pilot)
        rewrite = next(e for e in engine.path if e.kind == ev.REWRITE_SPEECH and e.role == "c1.voice"
                       and engine.by_id[e.data["source"]].witnessed_by("c4"))
        await pilot.press("V")
        await _choose(pilot, CharacterChoiceScreen, "Oskar")
        await pilot.pause(0.2)
        stage(app).select_event(rewrite.data["source"])
        await wait_for(pilot, lambda: "Witnessed by" in pane_text(app.screen.query_one("#backstage").content),
                       "the backstage of the line")
        said = pane_text(app.screen.query_one("#backstage").content)
        assert "Ines heard it as" not in said and _flat(rewrite.text) not in said
        await pilot.press("V")  # everyone again: the same line's backstage says how Ines heard it
        await wait_for(pilot, lambda: "Ines heard it as" in pane_text(app.screen.query_one("#backstage").content),
                       "the backstage seen by everyone")


# -- the social game ------------------------------------------------------------------------------


def test_every_player_is_prompted_with_what_it_witnessed_and_shown_the_same(island, capsys):
    from studio.engine.forms.social.memory import RECALL
    from studio.tui import ensemble_views as ens

    engine, gateway, db = island
    final = engine.path
    players = _characters(engine.cast)
    assert len(players) == 4
    for role in players:
        key = role.key
        calls = [(ctx, m, then) for (ctx, m), then in zip(gateway.calls, gateway.paths) if ctx.character == role.name]
        assert calls, role.name
        for ctx, messages, then in calls:
            shown = _flat("\n".join(m["content"] for m in messages))
            known = {_flat(e.text) for e in then if _witnessed(e, key)}
            for event in then:
                if event.kind in (*LINES, *ev.GAME) and not _witnessed(event, key) and _flat(event.text) not in known:
                    assert _flat(event.text) not in shown, (role.name, ctx.task, event.kind, event.text)
            if ctx.task == "act":  # the newest things it remembers are all there
                remembered = [e for e in then if _witnessed(e, key) and (
                    (e.kind == ev.DIRECTION and e.data.get("task") in ("act", "tally"))
                    or (e.kind == ev.STAGE and e.data.get("task") == "talk")
                    or (e.kind in (ev.MEMORY, ev.REFLECTION)))]
                for event in remembered[-RECALL:]:
                    assert _flat(event.text) in shown, (role.name, event.text)
        expected = [e for e in final if _witnessed(e, key)]
        printed = _show_as(capsys, db, role.name)
        assert [e["id"] for e in printed] == [e.id for e in expected], role.name
        assert [e.id for e in ens.through_eyes(engine, role.name)] == [e.id for e in expected if e.on_stage]
    votes = [e for e in final if e.kind == ev.VOTE]
    assert votes and all(sum(e.witnessed_by(r.key) for r in players) == 1 for e in votes)  # secret ballots


def test_a_rewind_past_a_checkpoint_leaves_what_each_character_heard_as_a_fresh_replay_has_it(ensemble):
    """The state's copies every few events share the inner voices' fold: folding on must never change it."""
    from studio.engine.checkpoints import EVERY
    from studio.engine.forms import form_for

    engine, _, _ = ensemble
    assert len(engine.path) > EVERY + 2
    head = engine.path[EVERY + 1].id
    later = engine.path[-1]
    engine.rewind_to(head)
    assert engine.path[-1].id == head and later.id not in engine.by_id
    fresh = form_for(engine.cast).replay(engine.cast, engine.path)
    assert engine.state.inner == fresh.inner
    # the engine's lens reads that fold; it must see each seat's take exactly as a lens folded afresh
    from studio.engine.lens import Lens

    afresh = Lens.of(engine.cast, engine.path)
    for role in _characters(engine.cast):
        assert engine.lens().events(role.key) == afresh.events(role.key), role.name


def test_a_character_interviewed_after_a_scene_remembers_the_stage_as_its_own_voice_made_it_hear_it(ensemble):
    """The lab's interview after a scene is told what the character knew: a line it heard rewritten by its
    own inner voice is remembered as heard; a line another character's voice rewrote is remembered as said."""
    from studio.lab.development import memory_until

    engine, _, _ = ensemble
    last = max(e.scene or 0 for e in engine.path)
    checked = 0
    for role in _characters(engine.cast):
        memory = memory_until(engine.cast, engine.path, role.key, last, limit=100_000)
        heard = _heard(engine.path, role.key)
        for event in engine.path:
            if event.kind != ev.STAGE or not _witnessed(event, role.key):
                continue
            said = heard.get(event.id, event.text)
            assert _flat(said) in _flat(memory), (role.name, said)
            if event.id in heard and _flat(event.text) not in _flat(heard[event.id]):
                assert _flat(f"{event.character}: {event.text}") not in _flat(memory)
                checked += 1
    assert checked, "the run should have had a line some character heard rewritten"


def _exchange(user: str) -> str:
    """The exchange an inner voice's call opens with: up to the first blank line (none on the first call)."""
    return user.split("\n\n", 1)[0] if user.startswith("What ") else ""


def _voice_calls_grow_at_their_end(gateway, voices: dict[str, str]):
    """Each inner voice's call shows the exchange as the one before it did, with only new lines after, and
    no line twice: a model that keeps the state of its last call reads only what is new."""
    by_voice: dict[str, list] = {}
    for ctx, messages in gateway.calls:
        if ctx.task in VOICE_TASKS and ctx.character in voices:
            by_voice.setdefault(ctx.character, []).append(messages)
    assert set(by_voice) == set(voices)
    grown = 0
    for voice, calls in by_voice.items():
        assert len(calls) >= 4, voice
        for before, now in zip(calls, calls[1:]):
            if before[0] != now[0]:
                continue  # the character was rewritten: the whole call is new anyway
            then, shown = _exchange(before[1]["content"]), _exchange(now[1]["content"])
            if not then:
                continue
            assert shown.startswith(then), (voice, then, shown)
            grown += shown != then
        for messages in calls:
            user = messages[1]["content"]
            rows = [row for row in user.split("\n") if ": " in row and not row.startswith("(")]
            assert len(rows) == len(set(rows)), (voice, "a line shown twice", user)
    assert grown, "no call of an inner voice saw more than the one before it"


def test_the_inner_voice_of_the_interview_is_shown_the_exchange_growing_only_at_its_end(engine_for, gateway):
    engine = engine_for(turns=4)
    asyncio.run(engine.play_to_end())
    _voice_calls_grow_at_their_end(gateway, {engine.cast.role("superego").name: engine.cast.ego.name})


def test_each_inner_voice_of_an_ensemble_is_shown_what_it_witnessed_growing_only_at_its_end(ensemble):
    engine, gateway, _ = ensemble
    voices = {r.name: r.key for r in engine.cast.roles if r.key.endswith(".voice")}
    _voice_calls_grow_at_their_end(gateway, voices)
