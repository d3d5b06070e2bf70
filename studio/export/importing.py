"""`studio import SCRIPT`: a Fountain or Final Draft script made into a play, its cast and a run.

The file is read whole and checked before anything is written: its bytes through the studio's one
reader of outside files (studio.model.outside_file), its text decoded (UTF-8, UTF-16 with its byte
order mark, else Windows-1252/Latin-1) and cleaned by the one cleaner (studio.clean), then parsed by
the format's own reader, beside its writer (studio.export.fountain.read, studio.export.fdx.read). Only
then are the play and the new character sheets written, each atomically, and the run made: every
heading, speech, direction and note committed through the engine's one door with origin "human", so a
fold, a lens, an export and the next model's turn read them as they read any line.
"""

from __future__ import annotations

import codecs
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.model.errors import InputError

if TYPE_CHECKING:
    from studio.export.script import WrittenScript
    from studio.store import Store

# The formats a script may come in, by the file's ending (Fountain is also written as .spmd or plain .txt).
SCRIPT_SUFFIXES = {".fountain": "fountain", ".spmd": "fountain", ".txt": "fountain", ".fdx": "fdx"}
# A feature film runs to about 6,000 lines; five times that is no script the studio should take in one go.
MAX_SCRIPT_LINES = 30_000
MAX_SCRIPT_BYTES = 8 * 1024 * 1024
# Turns the last scene has after the script's end, for the models to go on with.
TURNS_AFTER = 6
_FIX_FORMAT = "save it as Fountain (.fountain) or Final Draft (.fdx) and import that"


def is_script(path: Path | str) -> bool:
    return Path(path).suffix.lower() in SCRIPT_SUFFIXES


def decode(name: str, raw: bytes) -> str:
    """A script file's text. UTF-8 (with or without its mark) and UTF-16 with its mark are read as such;
    other bytes that hold no NUL are taken for the one-byte encoding older editors saved (Windows-1252,
    which is Latin-1 with its printable extras). A file with NUL bytes is not a script."""
    for mark, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                        (codecs.BOM_UTF16_BE, "utf-16-be")):
        if raw.startswith(mark):
            try:
                return raw[len(mark):].decode(codec)
            except UnicodeDecodeError:
                raise InputError(name, None, f"starts with a {codec.upper()} mark but is not {codec.upper()} "
                                 "after it", "save it again as UTF-8") from None
    if b"\x00" in raw:
        if raw[1::2].count(0) > len(raw) // 4 or raw[0::2].count(0) > len(raw) // 4:
            raise InputError(name, None, "looks like UTF-16 without the mark that says which byte comes first",
                             "save it again as UTF-8 (or as UTF-16 with its byte order mark)")
        raise InputError(name, None, "holds binary data (NUL bytes), not the text of a script", _FIX_FORMAT)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="strict") if _cp1252(raw) else raw.decode("latin-1")


def _cp1252(raw: bytes) -> bool:
    return not any(b in raw for b in (b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d"))


def read_script(path: Path | str) -> WrittenScript:
    """The script in `path`, parsed; an InputError naming the file and the fix for anything that is not one."""
    from studio.clean import clean_text
    from studio.export.script import Direction, Heading, Speech
    from studio.model.outside_file import read_outside

    name = str(path)
    suffix = Path(path).suffix.lower()
    fmt = SCRIPT_SUFFIXES.get(suffix)
    if fmt is None:
        raise InputError(name, None, f"is not a script the studio reads (its ending is {suffix or 'none'!r})",
                         _FIX_FORMAT)
    raw = read_outside(path, "script", MAX_SCRIPT_BYTES, fix="check the path of the script")
    if fmt == "fdx":
        from studio.export.fdx import NotFinalDraft, read as read_fdx

        if b"\x00" in raw and not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise InputError(name, None, "holds binary data (NUL bytes), not a Final Draft script", _FIX_FORMAT)
        lines = raw.count(b"\n")
        if lines > MAX_SCRIPT_LINES * 4:
            raise _too_long(name, lines)
        try:
            written = _cleaned(read_fdx(raw))
        except NotFinalDraft as exc:
            raise InputError(name, None, str(exc), "open it in Final Draft and save it again as .fdx, or export "
                             "it as Fountain and import that") from None
    else:
        from studio.export.fountain import read as read_fountain

        text = decode(name, raw)
        lines = text.count("\n")
        if lines > MAX_SCRIPT_LINES:
            raise _too_long(name, lines)
        written = read_fountain(clean_text(text))
    if not any(isinstance(b, Speech) for b in written.blocks):
        found = "scene headings and action" if any(isinstance(b, (Heading, Direction)) for b in written.blocks) \
            else "nothing a script holds"
        raise InputError(name, None, f"holds {found} but no speech: it is not a script the studio can play",
                         "give each speech a cue in capitals (or @Name) on the line above it")
    return written


def _cleaned(written: WrittenScript) -> WrittenScript:
    """Every text of a script parsed as XML through the one cleaner of outside text (a Fountain file is
    cleaned whole before it is parsed): no escape sequence, control or direction override gets in."""
    from dataclasses import fields, replace

    from studio.clean import clean_text, one_line

    def clean(block: Any) -> Any:
        changes: dict[str, Any] = {f.name: clean_text(getattr(block, f.name)) for f in fields(block)
                                   if isinstance(getattr(block, f.name), str)}
        if any(f.name == "parts" for f in fields(block)):  # a speech's; an epilogue's are read from its text
            changes["parts"] = tuple((kind, clean_text(text)) for kind, text in block.parts)
        return replace(block, **changes)

    written.title_page = {one_line(k): "\n".join(one_line(line) for line in v.splitlines()) if k == "contact"
                          else one_line(v) for k, v in written.title_page.items()}
    written.blocks = [clean(block) for block in written.blocks]
    return written


def _too_long(name: str, lines: int) -> InputError:
    return InputError(name, None, f"has {lines:,} lines; a script the studio imports has at most "
                      f"{MAX_SCRIPT_LINES:,} (about 600 pages)", "split it into acts and import each")


# -- the play and its cast, planned before anything is written -------------------------------------------


def display_name(cue: str) -> str:
    """A cue in capitals as a name ("MRS. ELVSTED" is Mrs. Elvsted); a cue typed otherwise as typed."""
    from studio.clean import one_line

    cue = one_line(cue)
    if cue != cue.upper():
        return cue
    return " ".join(w[:1] + w[1:].lower() if w[:1].isalpha() else w[:2] + w[2:].lower() for w in cue.split())


@dataclass
class Speaker:
    name: str  # as the play names them (the sheet's name where one already existed)
    stem: str  # the sheet in characters/
    lines: list[str] = field(default_factory=list)  # the first few things they say
    sheet_text: str | None = None  # the new sheet to write; None: the sheet is already there


@dataclass
class Plan:
    """Everything the import will write, decided and checked before a byte of it is."""

    source: Path
    written: WrittenScript
    root: Path
    play_path: Path
    play_text: str
    speakers: dict[str, Speaker]  # by cue, folded
    ego: str | None  # the protagonist's stem, when the play is a Drama Machine play
    inner: Speaker | None = None  # the protagonist's inner voice, when there is one
    made_folders: list[Path] = field(default_factory=list)  # plays/ and characters/, where the import makes them

    def cast(self) -> list[Speaker]:
        """Everyone with a seat, once each (two cues may name one character), the inner voice last."""
        once = {id(s): s for s in self.speakers.values()}
        return [*once.values(), *([self.inner] if self.inner else [])]

    def new_sheets(self) -> list[Speaker]:
        return [s for s in self.cast() if s.sheet_text]


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _spoken(parts: tuple[tuple[str, str], ...]) -> str:
    return " ".join(" ".join(text.split()) for kind, text in parts if kind == "line")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _sheet_prompt(name: str, title: str, lines: list[str]) -> str:
    said = "\n".join(f"- {_short(line, 300)}" for line in lines[:4])
    return (f"You are {name}, a character in {title}. The script gives you these lines among your first:\n"
            f"{said}\nGo on as these lines speak: their length, their words, their manner. Say only what {name} "
            "says aloud; keep replies to two or three sentences.")


def _inner_prompt(name: str) -> str:
    return (f"You are the hidden inner voice of {name}, whom no one else hears. You know {name}'s wants and "
            f"fears better than {name} does. When asked, you do one of three jobs: rewrite what {{other}} said so "
            f"{name} hears what it aims at; judge {name}'s draft reply and say plainly how to mend it; or rewrite "
            f"who {name} is. Give only the text asked for.")


def plan_import(source: Path, written: WrittenScript, root: Path, ego: str | None = None) -> Plan:
    """Decide the play, the sheets and the cast; check each against the studio's own models. Raises
    InputError naming the script (or the file in the way) and the fix."""
    import tomllib

    from studio.export.script import Epilogue, Speech
    from studio.model.card_text import first_sentence
    from studio.model.limits import MAX_DESCRIPTION, MAX_NAME
    from studio.model.loading import load_character
    from studio.model.play import MAX_SCENES, MAX_TURNS, CharacterSheet, Play
    from studio.model.starter import character_text, imported_play_text, slug

    name = str(source)
    page = {k: "\n".join(" ".join(line.split()) for line in v.splitlines() if line.strip()) if k == "contact"
            else " ".join(v.split()) for k, v in written.title_page.items()}
    # the title as typed (a title in capitals stays in capitals); a file's name stands in for a missing one
    title = page.get("title") or display_name(source.stem.replace("_", " ").replace("-", " ").title())
    speakers: dict[str, Speaker] = {}
    for block in written.blocks:
        if isinstance(block, (Speech, Epilogue)):
            key = _key(block.character)
            if not key:
                raise InputError(name, None, "has a speech with an empty cue", "give every speech its speaker's name")
            if len(block.character) > MAX_NAME:
                raise InputError(name, None, f"has a cue of {len(block.character)} characters "
                                 f"({_short(block.character, 40)!r}); a name has at most {MAX_NAME}",
                                 "check that the line above that speech is its speaker's name")
            found = speakers.get(key)
            if found is None:
                display = display_name(block.character)
                found = speakers[key] = Speaker(display, slug(display))
            text = _spoken(block.parts) if isinstance(block, Speech) else " ".join(block.text.split())
            if text and len(found.lines) < 4:
                found.lines.append(text)
    ego_stem = None
    if ego is not None:
        match = speakers.get(_key(ego)) or next((s for s in speakers.values() if _key(s.name) == _key(ego)), None)
        if match is None:
            raise InputError("command line", "--ego", f"{ego!r} does not speak in {name}",
                             f"use one of: {', '.join(s.name for s in speakers.values())}")
        ego_stem = match.stem
    if len({s.stem for s in speakers.values()}) < 2:
        only = ", ".join(s.name for s in speakers.values())
        raise InputError(name, None, f"has speeches by one character only ({only}); a play needs two to go on",
                         "import a scene where someone answers")
    seen_stems: dict[str, Speaker] = {}
    for key, speaker in list(speakers.items()):
        twin = seen_stems.get(speaker.stem)
        if twin is not None:  # "JENNY" and "Jenny", or two cues one file would hold: one character
            twin.lines.extend(speaker.lines[: max(0, 4 - len(twin.lines))])
            speakers[key] = twin
            continue
        seen_stems[speaker.stem] = speaker
        sheet_path = root / "characters" / f"{speaker.stem}.toml"
        if sheet_path.exists():
            speaker.name = load_character(sheet_path).name  # the playwright's own sheet, kept as it is
            continue
        first = first_sentence(speaker.lines[0], 200) if speaker.lines else ""
        description = f"{speaker.name}, in {title}" + (f"; among their first words: “{first}”" if first else ".")
        speaker.sheet_text = character_text(speaker.name, _short(description, MAX_DESCRIPTION),
                                            _sheet_prompt(speaker.name, title, speaker.lines))
    inner = None
    if ego_stem is not None:
        ego_name = seen_stems[ego_stem].name
        voice = _short(f"{ego_name}'s inner voice", MAX_NAME)
        inner = Speaker(voice, slug(voice))
        if not (root / "characters" / f"{inner.stem}.toml").exists():
            inner.sheet_text = character_text(voice, f"{ego_name}'s inner voice, heard by no one but {ego_name}.",
                                              _inner_prompt(ego_name))
    briefs, counts = _scenes(written)
    if len(briefs) > MAX_SCENES:
        raise InputError(name, None, f"has {len(briefs)} scene headings; a play has at most {MAX_SCENES}",
                         "split it into acts and import each")
    turns = min(MAX_TURNS, max([*counts, counts[-1] + TURNS_AFTER]))
    page = {"author": page.get("author") or page.get("authors", ""), "credit": page.get("credit", ""),
            "draft_date": page.get("draft date", ""), "contact": page.get("contact", "")}
    stems = list(seen_stems)
    play_text = imported_play_text(source.name, title, {k: _short(v, 200) for k, v in page.items()},
                                   [_short(b, MAX_DESCRIPTION) for b in briefs], turns, stems, ego_stem,
                                   inner.stem if inner else None)
    play_path = root / "plays" / f"{slug(title)}.toml"
    if play_path.exists():
        raise InputError(str(play_path), None, "already exists: the import writes a new play",
                         "move or rename that file, or import into another folder with --dir")
    plan = Plan(source, written, root, play_path, play_text, speakers, ego_stem, inner,
                [f for f in (root / "plays", root / "characters", root) if not f.exists()])
    # Every file as the studio will read it back, checked now: a name or title a file cannot hold is
    # this script's problem, told before anything is written.
    from pydantic import ValidationError

    try:
        Play.model_validate(tomllib.loads(play_text))
        for speaker in plan.new_sheets():
            CharacterSheet.model_validate(tomllib.loads(speaker.sheet_text or ""))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "its title page"
        raise InputError(name, where, f"cannot be made into a play: {err['msg']}",
                         "edit that part of the script and import again") from None
    return plan


def _scenes(written: WrittenScript) -> tuple[list[str], list[int]]:
    """One brief per scene, and how many lines and directions each scene holds. A play's own heading
    ("SCENE 2") has its brief; a written one ("INT. KITCHEN - NIGHT") is its brief, with the action that
    opens the scene after it. What comes before the first heading belongs to the first scene; a script
    with no heading is one scene, briefed by the action it opens with."""
    from studio.export.script import Direction, Heading, Speech

    briefs: list[str] = []
    counts: list[int] = [0]
    open_brief = True  # whether the scene's first action still joins its brief
    opening = ""  # the action a script with no heading opens with
    for block in written.blocks:
        if isinstance(block, Heading):
            if briefs:
                counts.append(0)
            briefs.append(block.brief if block.number is not None else block.title)
            open_brief = block.number is None
            continue
        if not isinstance(block, (Speech, Direction)):
            continue
        if open_brief and briefs and isinstance(block, Direction) and block.shape == "action":
            briefs[-1] = briefs[-1] + ". " + " ".join(block.text.split())
        elif not briefs and not counts[-1] and isinstance(block, Direction) and block.shape == "action":
            opening = " ".join(block.text.split())
        open_brief = False
        counts[-1] += 1
    if not briefs:
        briefs = [opening]
    return [b or "The scene as the script writes it." for b in briefs], counts


# -- writing: files first, each whole; then the run ----------------------------------------------------------


@dataclass
class Imported:
    play_path: Path
    sheets: list[Path]
    run_id: int
    lines: int  # speeches and directions committed
    notes: int
    next_speaker: str | None  # who the models give the next line to, if anyone


def write_files(plan: Plan) -> list[Path]:
    """The new sheets, then the play, each written whole; the sheets written so far go again if a later
    file cannot be (nothing half done is left). Returns every file written, the play last."""
    from studio.model.starter import write_new

    written: list[Path] = []
    try:
        for speaker in plan.new_sheets():
            written.append(write_new(plan.root / "characters" / f"{speaker.stem}.toml", speaker.sheet_text or ""))
        written.append(write_new(plan.play_path, plan.play_text))
    except BaseException:
        _take_back(plan, written)
        raise
    return written


def _take_back(plan: Plan, written: list[Path]) -> None:
    """Remove the files an import wrote, and the folders it made for them if they are empty again."""
    for path in written:
        path.unlink(missing_ok=True)
    for folder in plan.made_folders:
        try:
            folder.rmdir()
        except OSError:
            pass  # not empty: something else is in it now


def _checked_cast(plan: Plan, model: str | None) -> Any:
    """The cast as the run will hold it, resolved from a copy of the files in a folder of its own, so a
    model name no provider knows is told before the files are written."""
    from studio.engine.forms import load_play, resolve_cast
    from studio.llm import check_cast_models

    staging = Path(tempfile.mkdtemp(prefix=".studio-import-", dir=plan.root if plan.root.is_dir() else None))
    try:
        (staging / "plays").mkdir()
        (staging / "characters").mkdir()
        for speaker in plan.cast():
            target = staging / "characters" / f"{speaker.stem}.toml"
            if speaker.sheet_text is not None:
                target.write_text(speaker.sheet_text, encoding="utf-8")
            else:
                shutil.copyfile(plan.root / "characters" / f"{speaker.stem}.toml", target)
        play = staging / "plays" / plan.play_path.name
        play.write_text(plan.play_text, encoding="utf-8")
        cast = resolve_cast(load_play(play), play, model=model)
        check_cast_models(cast, str(plan.source))
        return cast
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def import_script(source: Path | str, root: Path | str, store: Store | Callable[[], Store], *,
                  model: str | None = None, ego: str | None = None, by: str | None = None) -> Imported:
    """Read, check, write and commit: see the module's docstring. `store` may be a function that opens
    it, called only once the script has passed every check (so a refused script leaves no database
    behind either). `by` is the playwright's name, kept on each event the import commits."""
    source, root = Path(source), Path(root)
    written = read_script(source)
    plan = plan_import(source, written, root, ego)
    _checked_cast(plan, model)
    files = write_files(plan)
    engine = None
    try:
        if callable(store):
            store = store()
        from studio.engine import Engine
        from studio.engine.forms import load_play, resolve_cast
        from studio.engine.history import record

        cast = resolve_cast(load_play(plan.play_path), plan.play_path, model=model)
        engine = Engine.create(store, cast, {"model": model, "imported": source.name}, gateway=object())
        lines, notes = commit_script(engine, plan, by)
        # One action in the command line's history: `studio undo RUN` takes the whole script back.
        record(engine, "import", None, engine.head, f"import of {source.name}")
    except BaseException:
        # Interrupted or failed half way: neither the files nor a half-made run stay behind.
        _take_back(plan, files)
        if engine is not None:
            try:
                engine.store.delete_run(engine.run_id)
            except Exception:  # noqa: BLE001 - the error that stopped the import is the one to tell
                pass
        raise
    pending = engine.pending()
    speaker = pending.role.name if pending is not None and pending.role is not None else None
    return Imported(plan.play_path, files[:-1], engine.run_id, lines, notes, speaker)


def commit_script(engine: Any, plan: Plan, by: str | None = None) -> tuple[int, int]:
    """The script's blocks as events, in order, through the engine's one door; (lines, notes) committed."""
    from studio.export.script import Direction, Epilogue, Heading, Note, Speech, speech_text
    from studio.store import events as ev

    keys = {r.sheet.name.casefold(): r.key for r in engine.cast.roles if r.is_character}
    role_of = {cue: keys.get(s.name.casefold()) for cue, s in plan.speakers.items()}
    base: dict[str, Any] = {"by": by} if by else {}
    scene = lines = notes = 0

    def commit(kind: str, text: str, **fields: Any) -> None:
        engine._commit(kind, text, origin="human", scene=max(scene, 1), **fields)

    def turn(role: str | None = None) -> int:
        """The turn a line opens or belongs to, as the form counts them (its state's `turn`, folded from
        the lines so far): a new one for each line, but the protagonist's answer in a Drama Machine play
        is the second half of the turn its other opened."""
        now = int(getattr(engine.state, "turn", 0) or 0)
        return max(now, 1) if role == "ego" and engine.form.name == "drama_machine" else now + 1

    blocks = list(plan.written.blocks)
    if not any(isinstance(b, Heading) for b in blocks):
        # A script with no heading is one scene: it opens as the play's own scenes do, the action it
        # starts with as the brief under the heading (where every export prints it).
        first = next((i for i, b in enumerate(blocks) if not isinstance(b, Note)), None)
        opening = blocks[first] if first is not None else None
        brief = ""
        if isinstance(opening, Direction) and opening.shape == "action":
            brief = " ".join(opening.text.split())
            blocks.remove(opening)
        blocks.insert(0, Heading(1, "SCENE 1", brief))
    for block in blocks:
        if isinstance(block, Heading):
            scene += 1
            text = f"Scene {block.number}: {block.brief}" if block.number is not None else block.title
            commit(ev.SCENE, text.strip().removesuffix(":"), turn=turn(), data=dict(base))
            continue
        if isinstance(block, Note):
            commit(ev.NOTE, block.text, turn=turn() - 1 or None, data=dict(base))
            notes += 1
        elif isinstance(block, Direction):
            data = {**base, **({"shape": block.shape} if block.shape != "action" else {})}
            commit(ev.DIRECTION, block.text, turn=turn(), data=data)
            lines += 1
        elif isinstance(block, Speech):
            role = role_of[_key(block.character)]
            data = dict(base)
            for name, value in (("parenthetical", block.parenthetical), ("extension", block.extension)):
                if value:
                    data[name] = value
            if block.dual:
                data["dual"] = True
            commit(ev.STAGE, speech_text(block.parts), role=role, character=engine.cast.role(role).name,
                   turn=turn(role), data=data)
            lines += 1
        elif isinstance(block, Epilogue):
            role = role_of[_key(block.character)]
            commit(ev.EPILOGUE, block.text, role=role, character=engine.cast.role(role).name,
                   turn=max(turn() - 1, 1), data=dict(base))
            lines += 1
    return lines, notes


__all__ = ["Imported", "Plan", "SCRIPT_SUFFIXES", "decode", "import_script", "is_script", "plan_import",
           "read_script"]
