"""The Textual App, what screens may ask of it, and the messages between workers and screens."""
