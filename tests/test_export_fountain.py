"""Fountain export, read back by an independent parser (fountain-py): the script on the page is the run.

The expectations here are written from the documented rules (docs/exports.md), not from the
exporter's code: each stage line is a cue in capitals and its words; single-starred *business* in a
line is a parenthetical; directions are action; scene N is the heading SCENE N with its brief as
action under it; the epilogue is the last section; the backstage is notes, and only when asked for.
What each reader prints, character for character, is test_export_print's to hold; here fountain-py's
elements are held to the rules, and the printed text to the cases docs/exports.md lists.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from fountain import ElementType, FountainParser
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import aw_reader
from aw_reader import needs_afterwriting
from conftest import make_cast
from studio.export import export_run, render
from studio.engine.script import clean_text as page_text
from studio.engine.script import split_business
from studio.export.script import build_script
from studio.llm import scripted
from studio.store import Store
from studio.store import events as ev

ZWSP = "\u200b"
BUSINESS = re.compile(r"(?<!\*)\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?!\*)")


# -- reading a Fountain document back -----------------------------------------------------------


def parse(text: str):
    return FountainParser().parse(text)


def unzw(text: str) -> str:
    """Text as compared: NFKC, so compatibility forms are their characters."""
    return unicodedata.normalize("NFKC", text)


def items(doc) -> list[tuple]:
    """The document as ("heading", t), ("synopsis", t), ("action", t), ("note", t), ("page_break",)
    and ("speech", CUE, ((kind, text), ...)) items."""
    out: list[tuple] = []
    speech: list | None = None
    for element in doc.elements:
        kind = element.type
        text = unzw(element.text)
        if kind in (ElementType.DIALOGUE, ElementType.PARENTHETICAL) and speech is not None:
            parts = speech[2]
            if kind == ElementType.PARENTHETICAL:
                assert text.startswith("(") and text.endswith(")"), text
                parts.append(["business", text[1:-1]])
            elif parts and parts[-1][0] == "line":
                parts[-1][1] += "\n" + text
            else:
                parts.append(["line", text])
            continue
        speech = None
        if kind == ElementType.CHARACTER:
            speech = ["speech", text, []]
            out.append(speech)
        elif kind == ElementType.SCENE_HEADING:
            out.append(("heading", text))
        elif kind == ElementType.SYNOPSIS:
            out.append(("synopsis", text))
        elif kind == ElementType.ACTION:
            out.append(("action", text))
        elif kind == ElementType.NOTE:
            out.append(("note", text))
        elif kind == ElementType.PAGE_BREAK:
            out.append(("page_break",))
        else:
            out.append((kind.value, text))
    return [tuple((i[0], i[1], tuple(tuple(p) for p in i[2]))) if i[0] == "speech" else i for i in out]


# -- what the rules say the script must be ----------------------------------------------------


def lines_of(text: str) -> list[str]:
    """A model's text line by line, as a script shows it: edges trimmed, runs of blank lines one."""
    out: list[str] = []
    for line in text.splitlines():
        line = "".join(c for c in line if c == "\t" or not (ord(c) < 32 or 127 <= ord(c) < 160)).strip()
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def control_free(text: str) -> str:
    return "\n".join(lines_of(text))


def speech_parts(text: str) -> tuple:
    text = "\n".join(
        "".join(c for c in line if c == "\t" or not (ord(c) < 32 or 127 <= ord(c) < 160))
        for line in text.splitlines()
    )
    parts = []
    pos = 0
    for match in BUSINESS.finditer(text):
        # Business goes between sentences: first on its line, after other business, or after . ! ? etc.
        line_before = text[: match.start()].split("\n")[-1]
        since = line_before if pos <= match.start() - len(line_before) else text[pos : match.start()]
        if since.strip() and not re.search(r"[.!?…:;—–-][\"'”’)\]]*\s*$", since):
            continue
        spoken = "\n".join(lines_of(text[pos : match.start()]))
        if spoken:
            parts.append(("line", spoken))
        parts.append(("business", " ".join(match.group(1).split())))
        pos = match.end()
    spoken = "\n".join(lines_of(text[pos:]))
    if spoken:
        parts.append(("line", spoken))
    return tuple(parts) or (("business", "silence"),)


def expected(store: Store, run_id: int, backstage: bool) -> list[tuple]:
    take = store.take(run_id)
    by_id = {e.id: e for e in take}
    used = {i for e in take for i in e.shaped_by}
    out: list[tuple] = []
    for event in take:
        if event.kind == ev.SCENE:
            number, _, brief = event.text.partition(": ")
            out.append(("heading", number.upper()))
            brief = " ".join(control_free(brief).split())
            if brief:
                out.append(("action", unzw(brief)))
        elif event.kind in (ev.STAGE, ev.DIRECTION):
            if backstage:
                out.extend(("note", by_id[i]) for i in event.shaped_by)
            if event.kind == ev.STAGE:
                out.append(("speech", unzw(" ".join(event.character.split()).upper()),
                            tuple((k, unzw(t)) for k, t in speech_parts(event.text))))
            else:
                text = "\n".join(line for line in lines_of(event.text) if line)
                if event.role != "director" and text[:1].islower():
                    text = f"{event.character} {text}"
                if text:
                    out.append(("action", unzw(text)))
        elif event.kind == ev.EPILOGUE:
            out.append(("page_break",))
            out.append(("heading", "EPILOGUE"))
            parts = tuple((k, unzw(t)) for k, t in speech_parts(event.text))
            out.append(("speech", unzw(event.character.upper()), parts))
        elif event.kind in ev.BACKSTAGE and backstage and event.id not in used:
            out.append(("note", event))
    return out


def check(store: Store, run_id: int, text: str, backstage: bool) -> None:
    """The parsed document against the rules: the same headings and the same speakers, in order, a note
    where the backstage has one; and every line printing as typed, but for the cases docs/exports.md
    names (test_export_print.printed)."""
    import fountain_print
    from test_export_print import compare

    want = expected(store, run_id, backstage)
    got = items(parse(text))
    said = want
    assert [g[1] for g in got if g[0] == "heading"] == [w[1] for w in want if w[0] == "heading"]
    assert [g[1] for g in got if g[0] == "speech"] == [w[1].removesuffix("^").rstrip() for w in said if w[0] == "speech"]
    backstage_notes = [g for g in got if g[0] == "note" and g[1].startswith("[[BACKSTAGE")]
    assert len(backstage_notes) == len([w for w in want if w[0] == "note"])
    for g, w in zip(backstage_notes, [w for w in want if w[0] == "note"]):
        assert g[1].startswith("[[BACKSTAGE") and g[1].endswith("]]")
        def bare(t: str) -> str:
            return re.sub(r"\\(?=[*_\\])", "", unzw(t)).replace("\n\n", "\n")

        assert bare(control_free(w[1].text)) in bare(g[1])
    problem = compare("fountain-py", build_script(store, run_id), fountain_print.fountain_py(text))
    assert problem is None, problem


def unescape_title(value: str) -> str:
    """A title-page value as the spec reads it: fountain-py leaves the title page's escapes in place."""
    return value.replace("\\*", "*").replace("\\_", "_")


# -- runs of the shipped plays ----------------------------------------------------------------


async def play(engine_for, play_file: str, **kwargs):
    engine = engine_for(play_file, **kwargs)
    await engine.play_to_end()
    return engine


@pytest.mark.parametrize("play_file, kwargs", [("interview.toml", {"turns": 3}), ("detective.toml", {"turns": 2})])
async def test_shipped_play_reads_back_as_the_run(engine_for, store, tmp_path, play_file, kwargs):
    engine = await play(engine_for, play_file, **kwargs)
    path = export_run(store, engine.run_id, "fountain", out=tmp_path)
    assert path.parent == tmp_path and path.suffix == ".fountain"
    text = path.read_text(encoding="utf-8")
    parser = FountainParser()
    assert parser.validate(text) == []
    doc = parser.parse(text)

    play_ = engine.cast.play
    assert unescape_title(doc.metadata["title"]) == play_.title
    # the shipped plays credit their source ("after Magee, ..."): Credit holds those words, Author the names
    assert (doc.metadata["credit"] + " " + unescape_title(doc.metadata["author"])) == play_.author
    assert doc.metadata["credit"] == "after"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", doc.metadata["draft date"])

    stage = [e for e in engine.path if e.kind == ev.STAGE]
    spoken = [(cue.text, unzw("\n".join(p.text for p in parts))) for cue, parts in _speeches(doc)]
    # Every line spoken, by whom, in order; then the epilogue, spoken by the protagonist.
    epilogue = next(e for e in engine.path if e.kind == ev.EPILOGUE)
    assert spoken == [(e.character.upper(), unzw(e.text)) for e in stage] + [
        (engine.cast.ego.name.upper(), unzw(epilogue.text))]

    scenes = [f"SCENE {n}" for n in range(1, play_.scene_count + 1)]
    assert doc.get_scenes() == scenes + ["EPILOGUE"]
    # Each scene's brief prints as action right under its heading; the directions follow as action.
    briefs = [b for b in (play_.brief(n) for n in range(1, play_.scene_count + 1)) if b]
    after_heading = [unzw(doc.elements[i + 1].text) for i, e in enumerate(doc.elements[:-1])
                     if e.type == ElementType.SCENE_HEADING and doc.elements[i + 1].type == ElementType.ACTION]
    assert after_heading[: len(briefs)] == [unzw(b) for b in briefs]
    assert ElementType.SYNOPSIS not in [e.type for e in doc.elements]
    actions = [unzw(e.text) for e in doc.elements if e.type == ElementType.ACTION]
    printed = [e.text.partition(": ")[2] if e.kind == ev.SCENE else e.text
               for e in engine.path if e.kind == ev.DIRECTION or (e.kind == ev.SCENE and ": " in e.text)]
    assert actions == [unzw(t) for t in printed]
    # The epilogue is the last section, after a page break.
    kinds = [e.type for e in doc.elements]
    assert kinds[-4:] == [ElementType.PAGE_BREAK, ElementType.SCENE_HEADING, ElementType.CHARACTER, ElementType.DIALOGUE]
    # No backstage unless asked for.
    assert ElementType.NOTE not in kinds
    for event in engine.path:
        if event.is_backstage:
            assert event.text not in text
    check(store, engine.run_id, text, backstage=False)


def _speeches(doc):
    out = []
    for element in doc.elements:
        if element.type == ElementType.CHARACTER:
            out.append((element, []))
        elif element.type in (ElementType.DIALOGUE, ElementType.PARENTHETICAL) and out:
            out[-1][1].append(element)
    return out


async def test_backstage_notes_sit_before_the_line_they_shaped(engine_for, store, tmp_path):
    engine = await play(engine_for, "interview.toml", turns=4)
    text = export_run(store, engine.run_id, "fountain", out=tmp_path / "with.fountain", backstage=True).read_text()
    assert FountainParser().validate(text) == []
    doc = parse(text)
    backstage = [e for e in engine.path if e.is_backstage]
    notes = [i for i, e in enumerate(doc.elements) if e.type == ElementType.NOTE]
    assert len(notes) == len(backstage) > 0
    # The notes of turn t come after the other's line of turn t and before the ego's line of turn t.
    cues = [(i, e.text) for i, e in enumerate(doc.elements) if e.type == ElementType.CHARACTER]
    ego = engine.cast.ego.name.upper()
    ego_cues = [i for i, name in cues if name == ego]
    for event, index in zip(backstage, notes):
        note = unzw(doc.elements[index].text)
        assert event.text in note
        assert f"turn {event.turn}" in note
        shaped = next((e for e in engine.path if event.id in e.shaped_by), None)
        if shaped is None:
            continue
        turn_cue = ego_cues[[e for e in engine.path if e.kind == ev.STAGE and e.role == "ego"].index(shaped)]
        assert index < turn_cue
        assert all(not (index < c < turn_cue) for c in ego_cues)
    # The stage itself reads as it does without the backstage.
    without = parse(export_run(store, engine.run_id, "fountain", out=tmp_path / "without.fountain").read_text())
    strip = [(e.type, e.text) for e in doc.elements if e.type != ElementType.NOTE]
    assert strip == [(e.type, e.text) for e in without.elements]
    check(store, engine.run_id, text, backstage=True)


async def test_inline_business_becomes_parentheticals(engine_for, store):
    scripted.queue("*smirks* Oh, comfort? Ha! *rolls her eyes*  I grew up in *suburbia*.", task="speak", role="ego")
    scripted.queue("*pauses, collecting her thoughts*", task="speak", role="ego")
    engine = await play(engine_for, "interview.toml", turns=2, superego=False)
    doc = parse(render(build_script(store, engine.run_id), "fountain"))
    jenny = [(c.text, [(p.type, unzw(p.text)) for p in parts]) for c, parts in _speeches(doc) if c.text == "JENNY"]
    assert jenny[0] == (
        "JENNY",
        [
            (ElementType.PARENTHETICAL, "(smirks)"),
            (ElementType.DIALOGUE, "Oh, comfort? Ha!"),
            (ElementType.PARENTHETICAL, "(rolls her eyes)"),
            (ElementType.DIALOGUE, "I grew up in *suburbia*."),  # emphasis is not business: it stays, stars and all
        ],
    )
    # A line that is all business is a direction, and the page says whose.
    actions = [unzw(e.text) for e in doc.elements if e.type == ElementType.ACTION]
    assert "Jenny pauses, collecting her thoughts" in actions


async def test_an_older_take_can_be_exported(engine_for, store, tmp_path):
    engine = await play(engine_for, "interview.toml", turns=3, superego=False)
    first_take_head = engine.head
    engine.rewind(2)
    await engine.play_turn()
    current = parse(export_run(store, engine.run_id, "fountain", out=tmp_path).read_text())
    older_path = export_run(store, engine.run_id, "fountain", out=tmp_path, head=first_take_head)
    assert f"take{first_take_head}" in older_path.name
    older = parse(older_path.read_text())
    assert "EPILOGUE" in older.get_scenes() and "EPILOGUE" not in current.get_scenes()


def test_default_path_names_the_play_and_the_run(store, tmp_path, monkeypatch):
    run_id = synthetic_run(store, ["Hello."] * 7)
    monkeypatch.chdir(tmp_path)
    path = export_run(store, run_id, "fountain")
    assert path == __import__("pathlib").Path("exports") / f"the-interview-run{run_id}.fountain"
    assert (tmp_path / path).exists()
    assert export_run(store, run_id, "fountain", backstage=True).name == f"the-interview-run{run_id}-backstage.fountain"
    # A folder by trailing slash (made if need be), a file without extension gets the format's.
    assert export_run(store, run_id, "markdown", out="drafts/").parent.name == "drafts"
    assert export_run(store, run_id, "fountain", out="mine").name == "mine.fountain"
    assert export_run(store, run_id, "fountain", out="mine.txt").read_text().startswith("Title: The Interview")


# -- any text a model might write -----------------------------------------------------------------

MARKUP = [
    "*", "**", "_", "\\", "[[", "]]", "[[note]]", "/*", "*/", "/* gone */", "===", "= x", "#", "# Act",
    "~", "~la la", ">", ">x<", "> CUT", "<", "!", "!x", "@", "@x", ".", ".x", "...", "(", ")", "(aside)",
    "^", ":", "INT. HOUSE - DAY", "int. kitchen", "EXT ", "I/E", "CUT TO:", "FADE IN:", "FADE OUT.", "BOB",
    "JENNY", "MR. SMITH", "DEALER #2", "\n", "\n\n", "\n\n\n", "\n  \n", "  ", "\t", " ", "*smirks*", "_x_",
    "**bold**", "***", "\\*", "\\_", "\\\\", "#1#", "Title: x", "\r\n", "\u2028", "\x00", "\x0b", ZWSP, "é",
    "“quoted”", "—",
]
model_text = st.lists(
    st.one_of(st.sampled_from(MARKUP), st.text(max_size=6)), min_size=0, max_size=14
).map("".join)


def synthetic_run(store: Store, texts: list[str]) -> int:
    """A run written straight to the store: every kind of event a script shows, with the given texts."""
    cast = make_cast("interview.toml")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = None

    def add(kind, text, role=None, character=None, scene=1, turn=None, data=None):
        nonlocal head
        event = store.append(run_id, head, kind, text, role=role, character=character, scene=scene, turn=turn, data=data)
        head = event.id
        return event

    (direction, other, heard, draft, critique, ego, business, *_rest) = texts + [""] * 8
    add(ev.SCENE, "Scene 1", scene=1, turn=1)
    add(ev.DIRECTION, direction or "The room.", role="director", character="Ashley", turn=1)
    add(ev.STAGE, other, role="other", character="Sasha", turn=1)
    shaping = [
        add(ev.REWRITE_SPEECH, heard, role="superego", character="Cleo", turn=1).id,
        add(ev.DRAFT, draft, role="ego", character="Jenny", turn=1).id,
        add(ev.CRITIQUE, critique, role="superego", character="Cleo", turn=1).id,
    ]
    add(ev.STAGE, ego, role="ego", character="Jenny", turn=1, data={"shaped_by": shaping})
    add(ev.SCENE, "Scene 2: " + (_rest[0] if _rest else "a brief"), scene=2, turn=2)
    add(ev.DIRECTION, business or "x", role="ego", character="Jenny", scene=2, turn=2, data={"shaped_by": []})
    add(ev.REWRITE_PROMPT, critique, role="superego", character="Cleo", scene=2, turn=2)
    add(ev.EPILOGUE, other + "\n\n" + ego, role="ego", character="Jenny", scene=2, turn=2)
    return run_id


def _notes_balanced(text: str) -> bool:
    """Whether every `[[` in `text` closes with a `]]` on the same line round something, and no
    `]]` stands alone (an empty note is a note to some readers and text to others)."""
    if re.search(r"\[\[\s*\]\]", text):
        return False
    for paragraph in text.splitlines():  # a note over several lines of a direction prints in fountain-py
        if re.sub(r"\[\[.*?\]\]", "", paragraph, flags=re.S).count("[[") or "]]" in re.sub(
                r"\[\[.*?\]\]", "", paragraph, flags=re.S):
            return False
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(model_text, min_size=8, max_size=8), backstage=st.booleans())
@example(texts=["", "", "", "", "", "\x08@INT. HOUSE - DAY", "", ""], backstage=False)  # a control, then a force
@example(texts=["", "", "", "", "", "\x08@*", "", ""], backstage=False)
@example(texts=["", "0\r@x", "", "", "", "", "", ""], backstage=False)  # a lone carriage return, then a force
@example(texts=["", "", "", "", "", "*smirks*@*", "", ""], backstage=False)  # business, then a force
@example(texts=["", "", "", "", "", "", "", "\\\x1b\\"], backstage=False)  # a control between backslashes
def test_any_model_text_leaves_the_structure_alone(texts, backstage):
    # A note bracket without its other half is the one thing Fountain cannot write as typed: readers
    # read on into a note or a boneyard (docs/exports.md). Those texts are not held to the rules here.
    assume(all(_notes_balanced(t) for t in texts))
    # fountain-py reads a forcing character at the start of any line of a speech as forcing that line
    # (`@x` a new cue, `.x` a heading); the spec and the other readers keep it in the speech. A line is
    # judged as the script holds it: every line break a line (a lone carriage return too), controls gone,
    # and business (*smirks*) taken out, so the speech after it opens a line of its own.
    assume(not any(re.match(r"\s*[.@!#=~>]", re.sub(r"\[\[.*?\]\]", "", line))
                   for t in (texts[1], texts[5]) for kind, part in split_business(page_text(t))
                   if kind == "line" for line in part.splitlines()))
    # fountain-py and afterwriting take notes out before they read: a speech whose first line is notes
    # alone leaves its cue standing by itself, read as action (docs/exports.md).
    assume(not any(re.fullmatch(r"\s*(\[\[.*?\]\]\s*)+", (page_text(t).strip().splitlines() or [""])[0], flags=re.S)
                   for t in texts))
    # fountain-py reads `\\` as one backslash, as its own escape (docs/exports.md): judged on the page too,
    # where a control between two backslashes is gone.
    assume(not any("\\\\" in page_text(t) for t in texts))
    store = Store(":memory:")
    try:
        run_id = synthetic_run(store, texts)
        text = render(build_script(store, run_id, backstage=backstage), "fountain")
        check(store, run_id, text, backstage)
    finally:
        store.close()


TRICKY = [
    "A line with */ in it, and the rest of the script must survive.",
    "Then /* an opening that never closes.",
    "…\nShe waits.",
    "静かな部屋。\n彼女は待つ。",
    "12:00\nNoon.",
    "She turns.\nINT. HOUSE - NIGHT",
    "She turns.\nCUT TO:",
    "The brief says go TO: the door",
    "He stops.\nFADE OUT.",
    "She looks up.\nTO:",
]


@pytest.mark.parametrize("direction", TRICKY)
def test_directions_every_reader_agrees_on(store, direction):
    run_id = synthetic_run(store, [direction, "After it, Sasha speaks.", "", "", "", "And Jenny answers.", "", direction])
    text = render(build_script(store, run_id), "fountain")
    assert FountainParser().validate(text) == []
    check(store, run_id, text, backstage=False)


@pytest.mark.parametrize("name", ["Bob_Smith", "Dealer #2 ^", "Ana^", "*Star*", "李小龙", "Mr. /* X"])
def test_cues_and_title_page_print_as_typed(store, name):
    """Names and the title page keep their characters; a cue's closing caret is Fountain's dual
    dialogue, which no escape undoes (docs/exports.md): the speech is set beside the one before."""
    cast = make_cast("interview.toml")
    cast.play.title = "# Evil *Play* " + name
    cast.play.author = "Bob_Smith & /*co"
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1", scene=1, turn=1).id
    head = store.append(run_id, head, ev.STAGE, "Hi.", role="ego", character="Jenny", scene=1, turn=1).id
    store.append(run_id, head, ev.STAGE, "Hello there.", role="other", character=name, scene=1, turn=1)
    text = render(build_script(store, run_id), "fountain")
    doc = parse(text)
    assert unescape_title(doc.metadata["title"]) == cast.play.title
    assert unescape_title(doc.metadata["author"]) == cast.play.author
    cues = [unzw(e.text) for e in doc.elements if e.type == ElementType.CHARACTER]
    dual = name.endswith("^")
    spoken = " ".join(name.split()).upper().removesuffix("^").rstrip()
    if dual:
        pair = next(e for e in doc.elements if e.type == ElementType.DUAL_DIALOGUE).metadata
        cues = [pair["left_character"].text, pair["right_character"].text]
    assert cues == ["JENNY", spoken]
    if aw_reader.modules() is not None:
        aw = aw_reader.read(text)
        assert aw_reader.title_page(aw)["title"] == cast.play.title
        assert aw_reader.title_page(aw)["author"] == cast.play.author
        read = aw_reader.items(aw)
        assert [i[1] for i in read if i[0] == "speech"] == cues
        assert any(i[0] == "dual" for i in read) == dual


@needs_afterwriting
def test_afterwriting_is_really_reading():
    """The second reader is live: a plain script reads as expected, an unescaped boneyard swallows."""
    assert ("action", "She waits.") in aw_reader.items(aw_reader.read(".SCENE 1\n\nShe waits.\n"))
    assert ("action", "She waits.") not in aw_reader.items(aw_reader.read(".SCENE 1\n\nA /* b\n\nShe waits.\n"))
