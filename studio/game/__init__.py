"""The social game's analysis: reports and experiments that read finished runs (its rules are the form's,
studio/engine/forms/social)."""
