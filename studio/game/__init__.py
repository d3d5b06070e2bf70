"""The social game's analysis and experiments (Thudium et al., 2024, Outwit, Outplay, Out-Generate): they
read finished runs; the game's rules are its form's own (studio/engine/forms/social)."""
