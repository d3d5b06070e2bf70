"""The persona archetypes of the social game, as trait scores on the paper's dichotomous scales.

Thudium et al. (2024, "Outwit, Outplay, Out-Generate", section 3.1 and Figure 2) define a persona by
scores from 0 to 100 on scales between two anchor words ("Passive" 0 to "Assertive" 100), with preset
archetypes. The scales and scores below are the figures published in the paper's repository
(github.com/sthudium25/SurvivorWorld, text_adventure_games/assets/archetypes.json, MIT licence), its anchors
lower-cased ("prejudiced" for its "Prejudicial"); its file lists "Hero" twice, and the first is kept.
"Charismatic" and "aloof" are the two polarised personas of the paper's persona experiments (section
5.2, appendix E): every scale at its high anchor (100) for the charismatic, at its low anchor (0) for
the aloof.

The paper has a model turn each score into an adjective; the studio turns it into words by a fixed
rule (`persona_text`), so the same archetype always reads the same.
"""

from __future__ import annotations

# name -> (low anchor, high anchor), in the repository's order
SCALES: dict[str, tuple[str, str]] = {
    "judgement": ("prejudiced", "unbiased"),
    "cooperation": ("stubborn", "agreeable"),
    "outlook": ("pessimistic", "optimistic"),
    "initiative": ("passive", "assertive"),
    "generosity": ("selfish", "generous"),
    "social": ("a follower", "a leader"),
    "mind": ("creative", "logical"),
    "openness": ("close-minded", "open-minded"),
    "stress": ("anxious", "calm"),
}

_ORDER = tuple(SCALES)


def _scores(*values: int) -> dict[str, int]:
    return dict(zip(_ORDER, values, strict=True))


ARCHETYPES: dict[str, dict[str, int]] = {
    "hubris": _scores(20, 15, 65, 80, 10, 80, 55, 20, 35),
    "villain": _scores(10, 10, 30, 90, 5, 90, 70, 20, 30),
    "hero": _scores(80, 70, 80, 80, 80, 70, 50, 80, 70),
    "student": _scores(60, 50, 60, 50, 60, 50, 60, 70, 50),
    "leader": _scores(70, 60, 70, 90, 70, 100, 60, 70, 70),
    "damsel in distress": _scores(70, 75, 25, 20, 20, 20, 35, 65, 15),
    "mother": _scores(80, 85, 70, 35, 90, 75, 65, 80, 80),
    "warrior": _scores(35, 20, 40, 100, 58, 70, 85, 50, 60),
    "sage advisor": _scores(95, 65, 80, 65, 80, 30, 78, 90, 85),
    "charismatic": _scores(*[100] * len(_ORDER)),
    "aloof": _scores(*[0] * len(_ORDER)),
}


def archetype(name: str | None) -> dict[str, int] | None:
    """The scores of a known archetype, by name in any case; None for any other part a sheet names."""
    return ARCHETYPES.get((name or "").strip().casefold())


def word(scale: str, score: float) -> str:
    """A score as words: 'very passive' (0-20), 'somewhat passive' (21-40), 'between passive and assertive'
    (41-59), 'somewhat assertive' (60-79), 'very assertive' (80-100)."""
    low, high = SCALES[scale]
    if score <= 20:
        return f"very {low}"
    if score <= 40:
        return f"somewhat {low}"
    if score < 60:
        return f"between {low} and {high}"
    if score < 80:
        return f"somewhat {high}"
    return f"very {high}"


def persona_text(name: str | None) -> str:
    """One sentence of the archetype's temperament, or "" when the name is no known archetype."""
    scores = archetype(name)
    if scores is None:
        return ""
    return "By temperament you are " + ", ".join(word(s, v) for s, v in scores.items()) + "."
