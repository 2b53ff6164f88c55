-- v1: what the match table needs: who played, which match, who won each game,
-- finishing places and cards left in hand.
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,          -- ISO 8601, UTC
    rules TEXT NOT NULL DEFAULT '{}',  -- JSON of the house rules chosen
    scoring TEXT NOT NULL DEFAULT 'wins'
);

CREATE TABLE match_players (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, seat)
);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    winner_id INTEGER REFERENCES players(id),
    recorded_at TEXT NOT NULL,
    UNIQUE (match_id, number)
);

CREATE TABLE game_players (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id),
    seat INTEGER NOT NULL,
    place INTEGER,                     -- 1 = went out first; NULL when unknown
    cards_left INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, player_id)
);
