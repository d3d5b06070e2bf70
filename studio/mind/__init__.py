"""The inner life of a character: traits, moods, knowledge, goals and memory, kept pure so the engine can replay them."""
