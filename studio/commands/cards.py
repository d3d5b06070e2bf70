"""`studio import CARD|WORLD|SCRIPT` and `studio export-card NAME`: Character Cards and World Info in and out
(see studio/model/cards.py and studio/model/lorebook.py); a Fountain or Final Draft script in, as a play, its
cast and a run (studio/export/importing.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.commands.common import db_option, model_name
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imp = sub.add_parser(
        "import",
        help="turn a Character Card (V1/V2/V3, .json, .png or .charx) into characters/NAME.toml, "
        "a SillyTavern World Info .json into lorebooks/NAME.json, or a script (Fountain: .fountain, .spmd, "
        ".txt; Final Draft: .fdx) into plays/TITLE.toml, a sheet for each new speaker and a run of it as written",
    )
    imp.add_argument("card", metavar="FILE",
                     help="the card's .json, .png or .charx file, a World Info .json, or a script")
    imp.add_argument("--out", help="the file to write (default: characters/NAME.toml or lorebooks/NAME.json)")
    imp.add_argument("--dir", default=".",
                     help="the folder holding plays/, characters/ and lorebooks/ (default: here)")
    imp.add_argument("--model", type=model_name, metavar="M",
                     help="a script's run: the model every seat goes on with (default: the sheets' own, else "
                     "local/smollm2)")
    imp.add_argument("--ego", metavar="NAME",
                     help="a script's run: play it as a Drama Machine play with NAME as the protagonist, who gets "
                     "an inner voice (default: an ensemble of every speaker)")
    db_option(imp)
    exp = sub.add_parser("export-card", help="write a character as a Character Card: JSON, PNG or CHARX")
    exp.add_argument("name", help="a character TOML, or its stem in characters/")
    exp.add_argument(
        "--out", help="the file to write: NAME.png writes a PNG card, NAME.charx a CHARX zip (V3), anything else JSON "
        "(default: NAME.card.json here); '-' prints the JSON"
    )
    exp.add_argument(
        "--spec", choices=("v2", "v3"),
        help="the card version to write (default: the version imported; V1 and studio sheets give v2)",
    )
    exp.add_argument("--force", action="store_true", help="replace an existing file")
    imp.set_defaults(func=cmd_import)
    exp.set_defaults(func=cmd_export_card)


def _world_file(card_path: Path, name: str, root: Path) -> Path | None:
    """The World Info file a card links to (extensions.world), looked for beside the card. The link is
    the card's, someone else's text: a name that is a path (`../`, `/etc/...`, a folder) is refused, so
    import never reads a file the card's author chose elsewhere on the machine."""
    if name.strip() in (".", "..") or "/" in name or "\\" in name or "\x00" in name or Path(name).is_absolute():
        raise InputError(str(card_path), "extensions.world", f"names {name!r}, which is a path, not a World Info name",
                         "give the World Info file's name alone (e.g. \"Eldoria\"), and put Eldoria.json beside "
                         f"the card or in {root / 'lorebooks'}")
    for candidate in (card_path.parent / f"{name}.json", card_path.parent / name):
        if candidate.is_file() and candidate.suffix == ".json":
            return candidate
    return None


def _import_world(path: Path, raw: bytes, root: Path, out: Path | None, name: str) -> Path:
    """Keep a World Info file as it is, in lorebooks/, after checking that it reads as a lorebook."""
    from studio.model.lorebook import read_lorebook
    from studio.model.starter import slug, write_new

    book = read_lorebook(path)
    target = out or root / "lorebooks" / f"{slug(name)}.json"
    write_new(target, raw)
    print(f"wrote {target}: {len(book.entries)} entr{'y' if len(book.entries) == 1 else 'ies'} "
          f"({len(book.active_entries)} in use); name it in a sheet or play: lorebooks = [\"{target.stem}\"]")
    return target


def _import_script(args: argparse.Namespace) -> int:
    """A script in: the work is studio.export.importing's; this prints what was made and where to go on."""
    from studio import settings
    from studio.clean import one_line
    from studio.commands.common import open_store
    from studio.export.importing import import_script

    if args.out:
        raise InputError("command line", "--out", "names one file, and a script makes a play, sheets and a run",
                         "leave it out; --dir chooses the folder holding plays/ and characters/")
    by = settings.load().get("name")
    done = import_script(Path(args.card), Path(args.dir), lambda: open_store(args.db), model=args.model,
                         ego=args.ego, by=one_line(by) if isinstance(by, str) and by.strip() else None)
    for sheet in done.sheets:
        print(f"wrote {one_line(sheet)}")
    print(f"wrote {one_line(done.play_path)}")
    notes = f" and {done.notes} note{'s' if done.notes != 1 else ''}" if done.notes else ""
    after = f"; {one_line(done.next_speaker)} speaks next" if done.next_speaker else ""
    print(f"Run {done.run_id}: the script as written, {done.lines} lines and directions{notes}{after}. "
          f"'studio step {done.run_id}' or 'studio resume {done.run_id}' goes on with the models.")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from studio.model.cards import (PNG_SIGNATURE, card_data, card_to_toml, charx_avatar, is_charx, png_without_card,
                                    read_card, read_card_bytes)
    from studio.model.lorebook import is_world_info
    from studio.model.starter import slug, write_new

    path = Path(args.card)
    root = Path(args.dir)
    from studio.export.importing import is_script

    if is_script(path):
        return _import_script(args)
    if args.model or args.ego:
        raise InputError("command line", "--model" if args.model else "--ego", "is for importing a script",
                         "leave it out when importing a card or World Info")
    raw = read_card_bytes(path)
    card = read_card(path, raw)
    if is_world_info(card):
        _import_world(path, raw, root, Path(args.out) if args.out else None, path.stem)
        return 0
    avatar_note = None
    if is_charx(path, raw):
        avatar, avatar_note = charx_avatar(path, raw, card)
    else:
        avatar = png_without_card(path, raw) if raw.startswith(PNG_SIGNATURE) else None
    data, _spec = card_data(path, card)
    # The sheet is checked before anything is written, and its name gives the files their names.
    _text, sheet, _notes = card_to_toml(path, card)
    out = Path(args.out) if args.out else root / "characters" / f"{slug(sheet.name)}.toml"
    if out.exists():
        raise InputError(str(out), None, "already exists", "choose another --out, or edit that file")
    image = None
    image_bytes = b""
    if avatar is not None:
        image_path = out.with_suffix(".png")
        if image_path.exists():
            raise InputError(str(image_path), None, "already exists", "choose another --out, or move that image")
        image, image_bytes = image_path.name, avatar
    text, sheet, notes = card_to_toml(path, card, image=image)
    world = (data.get("extensions") or {}).get("world")
    world_note = None
    if isinstance(world, str) and world.strip():
        stem = slug(world)
        found = _world_file(path, world, root)
        target = root / "lorebooks" / f"{stem}.json"
        if target.exists():
            world_note = f"the card's World Info '{world}' is lorebooks/{stem}.json, already here"
        elif found is not None:
            _import_world(found, read_card_bytes(found), root, target, world)
        else:
            world_note = (f"the card links World Info '{world}', not found beside it: put {world}.json there and "
                          f"import again, or `studio import {world}.json`")
    if image is not None:
        write_new(out.with_suffix(".png"), image_bytes)
    write_new(out, text)
    from studio.clean import one_line  # a card's names and keys are outside text: shown, never obeyed

    kept = " and its image " + one_line(out.with_suffix(".png").name) if image else ""
    print(f"wrote {one_line(out)}{kept}: {one_line(sheet.name)}, {len(sheet.knowledge)} knowledge item(s); "
          "the notes below are also at its top")
    for note in notes[1:]:
        print(f"  note: {one_line(note)}")
    for extra in (avatar_note, world_note):
        if extra:
            print(f"  note: {one_line(extra)}")
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


def _avatar(path: Path, image: str | None, name: str) -> bytes:
    """The sheet's own image if it has one, else a portrait card drawn for the name."""
    if image:
        from studio.model.card_file import MAX_CARD_BYTES
        from studio.model.outside_file import read_outside

        return read_outside(path.parent / image, "image", MAX_CARD_BYTES, field="card.image",
                            fix="put the image beside the sheet, or remove the field for a drawn portrait")
    from studio.export.portrait import portrait_png

    return portrait_png(name)


def cmd_export_card(args: argparse.Namespace) -> int:
    from studio.model import load_character
    from studio.model.cards import card_charx, card_for_form, card_from_sheet, card_json, card_png
    from studio.model.edit import write_atomically

    path = _sheet_path(args.name)
    sheet = load_character(path)
    out = Path(args.out) if args.out and args.out != "-" else Path(f"{path.stem}.card.json")
    charx = out.suffix.lower() == ".charx"
    if charx and args.spec == "v2":
        raise InputError("command line", "--spec", "is v2, and a CHARX card is Character Card V3 only",
                         "leave out --spec, or write a .json or .png card")
    card = card_from_sheet(sheet, "v3" if charx else args.spec)
    if args.out == "-":
        print(card_json(card_for_form(card, "json")), end="")
        return 0
    if out.exists() and not args.force:
        raise InputError(str(out), None, "already exists", "add --force to replace it, or name another --out")
    image = sheet.card.image if sheet.card else None
    source = str(path.parent / image) if image else "portrait"
    if out.suffix.lower() == ".png":
        data: str | bytes = card_png(card, _avatar(path, image, sheet.name), source)
    elif charx:
        data = card_charx(card, _avatar(path, image, sheet.name), source)
    else:
        data = card_json(card_for_form(card, "json"))
    try:
        write_atomically(out, data)
    except OSError as exc:
        raise InputError(str(out), None, f"cannot be written ({exc.strerror})", "check the folder") from None
    print(f"wrote {out} ({card['spec']})")
    return 0
