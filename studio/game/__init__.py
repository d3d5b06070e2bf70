"""The social game of Thudium et al., 2024, Outwit, Outplay, Out-Generate: a map, actions, secret votes,
a jury; rules apart from the engine."""

from __future__ import annotations

from pathlib import Path


def default_island() -> Path:
    """The island that ships with studio: found from the working folder or from the package, not the cwd alone."""
    import studio
    from studio.model.errors import InputError

    for root in (Path.cwd(), Path(studio.__file__).resolve().parent.parent):
        if (root / "plays" / "island.toml").is_file():
            return root / "plays" / "island.toml"
    raise InputError("--play", None, "has no default here: plays/island.toml is neither in this folder nor beside the studio package",
                     "name a social-game play, e.g. --play path/to/island.toml")
