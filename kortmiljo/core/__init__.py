"""Game-independent pieces: cards and decks, the engine protocol, layouts, errors, trick logic."""
