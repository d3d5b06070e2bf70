"""The social game of paper 002: a map, actions, secret votes, a jury; rules apart from the engine."""
