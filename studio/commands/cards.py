"""`studio import CARD` and `studio export-card NAME`: Character Cards in and out (see studio/model/cards.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imp = sub.add_parser("import", help="turn a Character Card (V2/V3, .json or .png) into characters/NAME.toml")
    imp.add_argument("card", help="the card's .json or .png file")
    imp.add_argument("--out", help="the TOML to write (default: characters/NAME.toml)")
    imp.add_argument("--dir", default=".", help="the folder holding characters/ (default: here)")
    exp = sub.add_parser("export-card", help="write a character as a Character Card V2 JSON")
    exp.add_argument("name", help="a character TOML, or its stem in characters/")
    exp.add_argument("--out", help="the JSON to write (default: NAME.card.json here); '-' prints it")
    exp.add_argument("--force", action="store_true", help="replace an existing file")
    imp.set_defaults(func=cmd_import)
    exp.set_defaults(func=cmd_export_card)


def cmd_import(args: argparse.Namespace) -> int:
    from studio.model.cards import card_to_toml, read_card
    from studio.model.starter import slug, write_new

    path = Path(args.card)
    text, sheet, notes = card_to_toml(path, read_card(path))
    out = Path(args.out) if args.out else Path(args.dir) / "characters" / f"{slug(sheet.name)}.toml"
    write_new(out, text)
    from studio.clean import one_line  # a card's names and keys are outside text: shown, never obeyed

    print(f"wrote {one_line(out)}: {one_line(sheet.name)}, {len(sheet.knowledge)} knowledge item(s); the notes "
          "below are also at its top")
    for note in notes[1:]:
        print(f"  note: {one_line(note)}")
    return 0


def _sheet_path(ref: str) -> Path:
    candidate = Path(ref)
    if candidate.suffix == ".toml" or candidate.exists():
        if not candidate.exists():
            raise InputError("command line", "NAME", f"no file {ref}", "give a character TOML or its stem")
        return candidate
    found = Path("characters") / f"{ref}.toml"
    if not found.exists():
        raise InputError("command line", "NAME", f"no character '{ref}' in characters/",
                         "give the TOML's path, or a stem from 'ls characters'")
    return found


def cmd_export_card(args: argparse.Namespace) -> int:
    from studio.model import load_character
    from studio.model.cards import card_from_sheet
    from studio.model.edit import write_atomically

    path = _sheet_path(args.name)
    text = json.dumps(card_from_sheet(load_character(path)), ensure_ascii=False, indent=2) + "\n"
    if args.out == "-":
        print(text, end="")
        return 0
    out = Path(args.out) if args.out else Path(f"{path.stem}.card.json")
    if out.exists() and not args.force:
        raise InputError(str(out), None, "already exists", "add --force to replace it, or name another --out")
    try:
        write_atomically(out, text)
    except OSError as exc:
        raise InputError(str(out), None, f"cannot be written ({exc.strerror})", "check the folder") from None
    print(f"wrote {out}")
    return 0
