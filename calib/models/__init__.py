"""Models: the registry of named models and loading by name, hub id or folder."""
