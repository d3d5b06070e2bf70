"""The social game's analysis and experiments (Thudium et al., 2024, Outwit, Outplay, Out-Generate): they
read finished runs; the game's rules are its form's own (studio/engine/forms/social)."""

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
