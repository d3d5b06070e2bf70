"""The social game of Thudium et al., 2024, Outwit, Outplay, Out-Generate: a map, actions, secret votes,
a jury; rules apart from the engine."""
