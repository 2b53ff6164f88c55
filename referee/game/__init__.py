"""The pure rules engine: events in, new state and announcements out. No I/O here."""
