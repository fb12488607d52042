"""Small modal screens shared by every feature: choices, confirmations, help."""
