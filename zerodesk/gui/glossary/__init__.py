"""The glossary dock: the source card with its claims, boundaries and checklist."""
