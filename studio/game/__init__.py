"""The social game's report of a finished run (Thudium et al., 2024, Outwit, Outplay, Out-Generate): the
game's rules are its form's own (studio/engine/forms/social), its experiments a kind of the lab."""
