"""`studio new play TITLE` and `studio new character NAME`: a commented starting file, then the editor."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from studio.model.errors import InputError
from studio.model.starter import character_text, play_text, slug, write_new


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    new = sub.add_parser("new", help="start a new play or character from a commented file")
    kinds = new.add_subparsers(dest="what", metavar="play|character", required=True)
    play = kinds.add_parser("play", help="write plays/TITLE.toml (and any character it names that is missing)")
    play.add_argument("title")
    play.add_argument("--ego", default="protagonist", help="the protagonist's character (default: protagonist)")
    play.add_argument("--other", action="append", help="a character the protagonist talks to (repeatable)")
    play.add_argument("--superego", help="the protagonist's inner voice, if any")
    play.add_argument("--director", help="a director who opens each scene, if any")
    character = kinds.add_parser("character", help="write characters/NAME.toml")
    character.add_argument("name")
    for p in (play, character):
        p.add_argument("--dir", default=".", help="the folder holding plays/ and characters/ (default: here)")
        p.add_argument("--no-edit", action="store_true", help="do not open the file in $EDITOR afterwards")


def new_character(root: Path, name: str) -> Path:
    if not name.strip():
        raise InputError("command line", "NAME", "is empty", "give the character a name")
    return write_new(root / "characters" / f"{slug(name)}.toml", character_text(name.strip()))


def new_play(
    root: Path,
    title: str,
    ego: str = "protagonist",
    others: list[str] | None = None,
    superego: str | None = None,
    director: str | None = None,
) -> tuple[Path, list[Path]]:
    """Write the play and a starting sheet for each character it names that does not exist yet."""
    if not title.strip():
        raise InputError("command line", "TITLE", "is empty", "give the play a title")
    others = others or ["stranger"]
    names = [ego, *others, *(n for n in (superego, director) if n)]
    stems = {n: slug(n) for n in names}
    if len(set(stems.values())) != len(stems):
        raise InputError("command line", None, "two seats name the same character", "give each seat its own")
    path = root / "plays" / f"{slug(title)}.toml"
    if path.exists():
        raise InputError(str(path), None, "already exists", "choose another title, or edit that file")
    created: list[Path] = []
    for name, stem in stems.items():
        sheet = root / "characters" / f"{stem}.toml"
        if not sheet.exists():
            created.append(write_new(sheet, character_text(name)))
    text = play_text(
        title.strip(),
        stems[ego],
        [stems[o] for o in others],
        stems[superego] if superego else None,
        stems[director] if director else None,
    )
    write_new(path, text)
    return path, created


def _edit_and_check(path: Path, check) -> int:  # type: ignore[no-untyped-def]
    from studio.editor import EditorError, run_editor

    try:
        run_editor(path)
    except EditorError as exc:
        print(f"studio: {path} is written but was not opened: {exc}", file=sys.stderr)
        return 0
    check(path)  # an InputError here names the field; the file is kept as the playwright left it
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from studio.editor import editor_command
    from studio.model import load_character
    from studio.engine.forms import load_play

    root = Path(args.dir)
    if args.what == "character":
        path = new_character(root, args.name)
        print(path)
        check = load_character
    else:
        path, created = new_play(root, args.title, args.ego, args.other, args.superego, args.director)
        for sheet in created:
            print(sheet)
        print(path)
        check = load_play
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if not args.no_edit and interactive and editor_command() is not None:
        _edit_and_check(path, check)
    elif args.what == "play":
        print(f"Edit it, then 'studio open {path}' to step it.", file=sys.stderr)
    return 0
