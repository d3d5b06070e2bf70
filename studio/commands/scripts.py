"""`studio import SCRIPT`: a Fountain or Final Draft script made into a play, its cast and a run (the
work is studio.export.importing's; this prints what was made and where to go on)."""

from __future__ import annotations

import argparse
from pathlib import Path


def import_script_file(args: argparse.Namespace) -> int:
    from studio import settings
    from studio.clean import one_line
    from studio.commands.common import open_store
    from studio.export.importing import import_script

    if args.out:
        from studio.model.errors import InputError

        raise InputError("command line", "--out", "names one file, and a script makes a play, sheets and a run",
                         "leave it out; --dir chooses the folder holding plays/ and characters/")
    by = settings.load().get("name")
    done = import_script(Path(args.card), Path(args.dir), lambda: open_store(args.db), model=args.model, ego=args.ego,
                         by=one_line(by) if isinstance(by, str) and by.strip() else None)
    for sheet in done.sheets:
        print(f"wrote {one_line(sheet)}")
    print(f"wrote {one_line(done.play_path)}")
    notes = f" and {done.notes} note{'s' if done.notes != 1 else ''}" if done.notes else ""
    after = f"; {one_line(done.next_speaker)} speaks next" if done.next_speaker else ""
    print(f"Run {done.run_id}: the script as written, {done.lines} lines and directions{notes}{after}. "
          f"'studio step {done.run_id}' or 'studio resume {done.run_id}' goes on with the models.")
    return 0
