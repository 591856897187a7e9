"""The references' Unicode classes and regex dialect, as generated tables."""
