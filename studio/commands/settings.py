"""`studio settings`: the playwright's own defaults, kept in one small file (studio.settings), shown or set.

`studio settings --author "Ana Kay" --contact "ana@example.com"` sets what a new play's title page starts
with; `studio settings` alone prints every setting and the file that keeps them.
"""

from __future__ import annotations

import argparse

from studio.model import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("settings", help="show or set your own defaults: the author and contact of a new play")
    p.add_argument("--author", help='the author a new play\'s title page offers (empty "" clears it)')
    p.add_argument("--contact", help='how to reach you, for a new play\'s title page (empty "" clears it)')
    p.set_defaults(func=cmd_settings)


def cmd_settings(args: argparse.Namespace) -> int:
    from studio import settings
    from studio.clean import one_line
    from studio.model.starter import check_title_page

    path = settings.config_path()
    changes = {key: getattr(args, key) for key in settings.TITLE_PAGE if getattr(args, key) is not None}
    if changes:
        changes = check_title_page(changes, names={key: f"--{key}" for key in changes})
        try:
            settings.save(strict=True, **changes)
        except OSError as exc:
            raise InputError(str(path), None, f"cannot be written ({exc.strerror})",
                             "check the folder, or set XDG_CONFIG_HOME to one you can write") from None
    values = settings.title_page()
    theme = settings.load().get("theme")
    print(f"Settings in {path}:")
    for key in settings.TITLE_PAGE:
        print(f"  {key}: {one_line(values[key]) if values[key] else '(none)'}")
    if isinstance(theme, str):
        print(f"  theme: {one_line(theme)}")
    if not changes and not any(values.values()):
        print("'studio settings --author NAME --contact TEXT' sets what a new play's title page starts with.")
    return 0
