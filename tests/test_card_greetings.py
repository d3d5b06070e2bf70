"""A card's greetings open the scene: the first message is the character's first line, recorded as an event,
its alternate greetings are the next takes of that line, and a play can turn greetings off."""

from __future__ import annotations

import shutil

from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from conftest import ROOT

SHEET = '''name = "Ilse"
prompt = "You are Ilse, captain of the salvage tug Merrow."

[card]
first_message = "*{{char}} wipes the rain off her cap.* You're late, {{user}}."
greetings = ["Another night, another wreck, {{user}}.", "The tide won't wait."]
post_history = "Stay in character as {{char}}; never speak for {{user}}."
'''


def _play(tmp_path, extra: str = "", form: str = "drama"):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    for stem in ("jenny", "sasha_interviewer"):
        shutil.copy(ROOT / "characters" / f"{stem}.toml", tmp_path / "characters")
    (tmp_path / "characters" / "ilse.toml").write_text(SHEET)
    play = tmp_path / "plays" / "tug.toml"
    if form == "ensemble":
        play.write_text(f'title = "Tug"\nform = "ensemble"\nnext = "round_robin"\nseed = 3\nturns = 3\nepilogue = false\n'
                        f'{extra}\n[[cast.characters]]\ncharacter = "ilse"\n\n[[cast.characters]]\ncharacter = "jenny"\n')
    else:
        play.write_text(f'title = "Tug"\nseed = 3\nturns = 2\nepilogue = false\n{extra}\n[cast.ego]\ncharacter = "jenny"'
                        '\n\n[[cast.others]]\ncharacter = "ilse"\n')
    return play


def _engine(path, store, gateway):
    return Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)


async def test_the_first_message_opens_the_scene_as_an_event_without_a_model_call(tmp_path, store, gateway):
    engine = _engine(_play(tmp_path), store, gateway)
    await engine.play_turn()
    first = next(e for e in engine.path if e.kind in ("stage", "direction") and e.role)
    assert first.character == "Ilse" and first.origin == "card"
    assert first.text == "*Ilse wipes the rain off her cap.* You're late, Jenny."
    assert first.data["greeting"] == 0 and first.data["greetings"] == 3
    assert not [c for c, _ in gateway.calls if c.character == "Ilse" and c.task == "speak"]
    # the character answering hears it as the scene's first line
    jenny = [m for c, m in gateway.calls if c.character == "Jenny" and c.task in ("speak", "draft", "revise")][0]
    assert "Ilse: *Ilse wipes the rain off her cap.* You're late, Jenny." in "\n".join(x["content"] for x in jenny)


async def test_alternate_greetings_are_the_next_takes_and_then_the_model_writes_one(tmp_path, store, gateway):
    engine = _engine(_play(tmp_path), store, gateway)
    await engine.step()  # the scene heading
    first = await engine.step()
    second = await engine.regenerate(first.id)
    third = await engine.regenerate(second.id)
    fourth = await engine.regenerate(third.id)
    assert second.text == "Another night, another wreck, Jenny." and third.text == "The tide won't wait."
    assert second.origin == third.origin == "card" and fourth.origin == "model"
    assert [t.id for t in engine.takes(first.id)] == [first.id, second.id, third.id, fourth.id]
    engine.choose_take(second.id)
    assert engine.path[-1].id == second.id


async def test_a_play_can_turn_greetings_off(tmp_path, store, gateway):
    engine = _engine(_play(tmp_path, extra="greeting = false\n"), store, gateway)
    await engine.play_turn()
    ilse = next(e for e in engine.path if e.character == "Ilse")
    assert ilse.origin == "model"


async def test_post_history_instructions_follow_the_history(tmp_path, store, gateway):
    engine = _engine(_play(tmp_path), store, gateway)
    await engine.play_turn()
    await engine.play_turn()
    call = [m for c, m in gateway.calls if c.character == "Ilse" and c.task == "speak"][-1]
    assert call[-1] == {"role": "system", "content": "Stay in character as Ilse; never speak for Jenny."}
    assert call[-2]["role"] == "user" and "Jenny:" in call[-2]["content"]


async def test_in_an_ensemble_the_greeting_is_her_first_line_whoever_speaks_first(tmp_path, store, gateway):
    engine = _engine(_play(tmp_path, form="ensemble"), store, gateway)
    await engine.play_to_end()
    ilse = [e for e in engine.path if e.character == "Ilse" and e.kind in ("stage", "direction")]
    assert ilse[0].origin == "card" and all(e.origin == "model" for e in ilse[1:])


async def test_an_imported_v3_card_plays_as_its_card_means(tmp_path, store, gateway, capsys):
    """A real card end to end: its nickname in every macro, its group-only greeting among the takes in an
    ensemble, its Character's Note at its depth, its post-history instructions last, and its lorebook as
    World Info; the conftest's check fails the run if any macro or template code reached a model."""
    from studio.cli import main
    from studio.llm import scripted

    (tmp_path / "plays").mkdir()
    assert main(["import", str(ROOT / "tests" / "data" / "cards" / "mara_quill.v3.json"), "--dir", str(tmp_path)]) == 0
    assert (tmp_path / "characters" / "mara_quill.toml").exists()
    shutil.copy(ROOT / "characters" / "jenny.toml", tmp_path / "characters")
    path = tmp_path / "plays" / "quay.toml"
    path.write_text('title = "Quay"\nform = "ensemble"\nnext = "round_robin"\nseed = 3\nturns = 4\nepilogue = false\n\n'
                    '[[cast.characters]]\ncharacter = "jenny"\n\n[[cast.characters]]\ncharacter = "mara_quill"\n')
    engine = _engine(path, store, gateway)
    scripted.queue("Is that the logbook on the shelf?", task="speak")
    while sum(1 for e in engine.path if e.character == "Mara Quill" and e.kind in ("stage", "direction")) < 2:
        await engine.step()
    greeting = next(e for e in engine.path if e.character == "Mara Quill")
    assert greeting.origin == "card" and greeting.data["greetings"] >= 2
    takes = [greeting]
    for _ in range(greeting.data["greetings"] - 1):
        takes.append(await engine.regenerate(takes[-1].id))
    assert "More of you than the boat was built for." in takes[-1].text  # the group-only greeting, last
    call = [m for c, m in gateway.calls if c.character == "Mara Quill" and c.task == "speak"][-1]
    system = call[0]["content"]
    assert "The lamp must be lit by dusk" in system  # a constant entry
    assert "The logbook's last page names a ship" in system  # its key heard two lines ago (scan depth 4)
    assert call[-1] == {"role": "system", "content": "Keep Mara's replies under four sentences."}
    # the Character's Note two messages from the end of the history (the post-history instructions follow it)
    assert call[-4] == {"role": "system", "content": "Mara is tired and hides it."}


async def test_seraphina_opens_with_her_greeting_and_her_linked_world_answers_the_forest(tmp_path, store, gateway):
    """SillyTavern's own default card, with the World Info file it links to: the link is followed, the
    greeting names whom she faces, and the world's entry for a key heard reaches her prompt."""
    from studio.cli import main
    from studio.llm import scripted

    (tmp_path / "plays").mkdir()
    assert main(["import", str(ROOT / "tests" / "data" / "cards" / "seraphina.png"), "--dir", str(tmp_path)]) == 0
    shutil.copy(ROOT / "characters" / "jenny.toml", tmp_path / "characters")
    path = tmp_path / "plays" / "glade.toml"
    path.write_text('title = "Glade"\nseed = 3\nturns = 3\nepilogue = false\n\n[cast.ego]\ncharacter = "jenny"\n\n'
                    '[[cast.others]]\ncharacter = "seraphina"\ncontext_tokens = 8192\n')  # a real model's window
    engine = _engine(path, store, gateway)
    scripted.queue("Where am I? Is this the forest?", task="speak", role="ego")
    await engine.play_turn()
    await engine.play_turn()
    greeting = next(e for e in engine.path if e.character == "Seraphina")
    assert greeting.origin == "card" and "{{" not in greeting.text
    call = [m for c, m in gateway.calls if c.character == "Seraphina" and c.task == "speak"][0]  # answering it
    assert call[0]["content"].count('Jenny: "What is Eldoria?"') == 1  # the linked world stands for the card's copy


async def test_a_chinese_card_never_gets_english_filler_for_user(tmp_path, store, gateway):
    from studio.cli import main

    (tmp_path / "plays").mkdir()
    assert main(["import", str(ROOT / "tests" / "data" / "cards" / "修女与女忍.v3.png"), "--dir", str(tmp_path)]) == 0
    shutil.copy(ROOT / "characters" / "jenny.toml", tmp_path / "characters")
    stem = next(p.stem for p in (tmp_path / "characters").glob("*.toml") if p.stem != "jenny")
    path = tmp_path / "plays" / "night.toml"
    path.write_text(f'title = "Night"\nseed = 3\nturns = 2\nepilogue = false\n\n[cast.ego]\ncharacter = "jenny"\n\n'
                    f'[[cast.others]]\ncharacter = "{stem}"\n')
    engine = _engine(path, store, gateway)
    await engine.play_to_end()
    shown = "\n".join(m["content"] for _, messages in gateway.calls for m in messages)
    assert "关于修道院：修女与女忍知道一件不能说出口的事。" in shown  # a constant entry, {{char}} filled
    assert "the other person" not in shown
