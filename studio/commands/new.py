"""`studio new play TITLE` and `studio new character NAME`: a commented starting file (studio.model.starter),
then the editor."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new = sub.add_parser("new", help="start a new play or character from a commented file")
    kinds = new.add_subparsers(dest="what", metavar="play|character", required=True)
    play = kinds.add_parser("play", help="write plays/TITLE.toml (and any character it names that is missing)")
    play.add_argument("title")
    play.add_argument("--ego", default="protagonist", help="the protagonist's character (default: protagonist)")
    play.add_argument("--other", action="append", help="a character the protagonist talks to (repeatable)")
    play.add_argument("--superego", help="the protagonist's inner voice, if any")
    play.add_argument("--director", help="a director who opens each scene, if any")
    page = play.add_argument_group(
        "title page", "asked for in a terminal (the author and contact offered from 'studio settings'); "
        "with no terminal, these flags or the settings' defaults")
    page.add_argument("--author", help="who wrote it (default: 'studio settings --author')")
    page.add_argument("--credit", help='how the author is credited (default: "Written by")')
    page.add_argument("--draft-date", help="the draft's date as the title page prints it (default: the run's day)")
    page.add_argument("--contact", help="how to reach the author (default: 'studio settings --contact')")
    character = kinds.add_parser("character", help="write characters/NAME.toml")
    character.add_argument("name")
    for p in (play, character):
        p.add_argument("--dir", default=".", help="the folder holding plays/ and characters/ (default: here)")
        p.add_argument("--no-edit", action="store_true", help="do not open the file in $EDITOR afterwards")
    new.set_defaults(func=cmd_new)


def _edit_and_check(path: Path, check: Callable[[Path], object]) -> int:
    from studio.editor import EditorError, run_editor

    try:
        run_editor(path)
    except EditorError as exc:
        print(f"studio: {path} is written but was not opened: {exc}", file=sys.stderr)
        return 0
    check(path)  # an InputError here names the field; the file is kept as the playwright left it
    return 0


# What `studio new play` asks, in order: the field, the flag, the question.
_ASKED = (
    ("author", "--author", "Author"),
    ("credit", "--credit", 'Credit (Enter: "Written by")'),
    ("draft_date", "--draft-date", "Draft date (Enter: the day of each run)"),
    ("contact", "--contact", "Contact"),
)


def title_page(args: argparse.Namespace, interactive: bool, ask: Callable[[str], str] = input) -> dict[str, str]:
    """The new play's title page: each flag as given; in a terminal, a question for each field no flag
    gave, the settings' default in brackets (Enter keeps it); with no terminal, the settings' defaults."""
    from studio import settings
    from studio.clean import one_line

    defaults = settings.title_page()
    page: dict[str, str] = {}
    for key, _flag, question in _ASKED:
        given = getattr(args, key, None)
        default = defaults.get(key, "")
        if given is not None:
            page[key] = given
        elif interactive:
            try:
                answer = ask(f"{question}{f' [{one_line(default)}]' if default else ''}: ").strip()
            except EOFError:
                answer = ""
            page[key] = answer or default
        else:
            page[key] = default
    return page


def cmd_new(args: argparse.Namespace) -> int:
    from studio.editor import editor_command
    from studio.engine.forms import load_play
    from studio.model import load_character
    from studio.model.starter import new_character, new_play

    root = Path(args.dir)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.what == "character":
        path = new_character(root, args.name)
        print(path)
        check: Callable[[Path], object] = load_character
    else:
        from studio.model.starter import check_title_page, slug

        # a title already taken is said before any question is asked (new_play says it)
        taken = (root / "plays" / f"{slug(args.title)}.toml").exists()
        page = check_title_page(title_page(args, interactive and not taken), names={k: f for k, f, _ in _ASKED})
        path, created = new_play(root, args.title, args.ego, args.other, args.superego, args.director, page)
        for sheet in created:
            print(sheet)
        print(path)
        check = load_play
    if not args.no_edit and interactive and editor_command() is not None:
        _edit_and_check(path, check)
    elif args.what == "play":
        print(f"Edit it, then 'studio open {path}' to step it.", file=sys.stderr)
    return 0
