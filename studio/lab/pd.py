"""The iterated Prisoner's Dilemma the lab runs trials of: the game is the dilemma form's own
(studio.engine.forms.dilemma.game); the lab reads it from there."""

from studio.engine.forms.dilemma.game import *  # noqa: F401,F403
