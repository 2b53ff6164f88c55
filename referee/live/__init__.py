"""The live referee: ears, eyes, rules, voice, screen and score joined into one loop."""
