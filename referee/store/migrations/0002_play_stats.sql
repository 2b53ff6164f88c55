-- v2: the table talk: calls, lies, wrongly called honest plays, every pile picked up,
-- and whether the referee saw every play (Trust Me's hidden-lie bonus depends on it).
ALTER TABLE games ADD COLUMN all_plays_seen INTEGER NOT NULL DEFAULT 0;

ALTER TABLE game_players ADD COLUMN calls_made INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_players ADD COLUMN calls_won INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_players ADD COLUMN calls_lost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_players ADD COLUMN caught_lying INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_players ADD COLUMN wrongly_called INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_players ADD COLUMN unchallenged_false_cards_seen INTEGER NOT NULL DEFAULT 0;

CREATE TABLE pickups (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id),
    seq INTEGER NOT NULL,              -- order within the game for this player
    size INTEGER NOT NULL CHECK (size >= 0),
    PRIMARY KEY (game_id, player_id, seq)
);
