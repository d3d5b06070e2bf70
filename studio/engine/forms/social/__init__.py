"""The social game of Thudium et al., 2024, "Outwit, Outplay, Out-Generate", as a form: players on an
island act, talk, vote one another out, and a jury of the voted-out picks the winner.

A round (the paper's Figure D.1): each player still in with the goals module sets goals at three
priority levels; then `actions_per_round` ticks, each a turn per player in a seeded shuffled order (an
action; a talk opens a conversation of `talk_lines` lines a side, heard by everyone in the place, ended by
each speaker's own summary and, with the impressions module, an update of their impressions); then a
secret vote by everyone still in, the tally (the form's own move: the host reads the votes), a reflection
each (up to five insights over the memories the paper's four questions retrieve) and, for players with
goals, the goal-completion audit (an outside judge scores each goal 1-5, and the next round's goals are
set with those scores). With two left, the jury votes and the host names the winner.

The parts, each a module: rules.py (the rules, pure functions), state.py (what the game holds), plan.py
(what comes next), memory.py (what a player remembers and recalls), prompts.py and asking.py (what a
player is told and asked), answers.py and reading.py (how a reply is read), fold.py (how an event changes
the state) and form.py (the form the engine drives).
"""

from studio.engine.forms.social.form import SocialGame
from studio.engine.forms.social.state import SocialState, game_report

__all__ = ["SocialGame", "SocialState", "game_report"]
