-- v3: a match can carry a key (e.g. its journal's start stamp), so a resumed referee
-- keeps recording into the same match instead of starting a new one.
ALTER TABLE matches ADD COLUMN key TEXT;

CREATE UNIQUE INDEX matches_by_key ON matches(key) WHERE key IS NOT NULL;
