"""Sheet fields for living characters: they are part of a character sheet, so they live with it in
studio.model.inner_life; the mind reads them from there."""

from studio.model.inner_life import *  # noqa: F401,F403
