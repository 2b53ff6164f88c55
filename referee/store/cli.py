"""``referee scores``: standings, past matches, statistics, CSV and a chart of a match."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.game.record import GameRecord
from referee.store.db import ENV_VAR, MatchInfo, Store, resolve_db_path
from referee.store.scoring import (
    Scoring,
    ScoringError,
    Standing,
    game_points,
    match_winner,
    note,
    parse_scoring,
    progression,
    spoken_standing,
    standings,
)
from referee.store.stats import COLUMNS, PlayerStats, player_stats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="PATH",
        help=f"score database (default: ${ENV_VAR}, else scores.db in your data folder)",
    )
    parser.add_argument(
        "--match", metavar="ID", default="latest", help="match id, or 'latest' (the default)"
    )
    parser.add_argument(
        "--scoring",
        metavar="TABLE",
        help="show the match under another table: wins, ranked, first_to:N, penalty, "
        "classic_order, trust_me (default: the one chosen at match start)",
    )
    parser.add_argument("--json", action="store_true", help="print the standing as JSON")
    parser.add_argument(
        "--csv", metavar="FILE", help="export the match, one row per player per game ('-': stdout)"
    )
    parser.add_argument(
        "--plot", metavar="FILE.png", help="draw points per player over the games to a PNG"
    )
    parser.add_argument(
        "--stats", action="store_true", help="player statistics for the match and all time"
    )


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, a chart or CSV target that is a folder (``--plot DIR`` wrote
    ``DIR.png`` and said it wrote ``DIR``)."""
    for flag, target, example in (("--plot", args.plot, "scores.png"),
                                  ("--csv", args.csv, "scores.csv")):  # fmt: skip
        if target and target != "-" and Path(target).is_dir():
            raise UserError(f"{flag} {target} is a folder; give a file name, "
                            f"e.g. {Path(target) / example}")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.json and args.csv == "-":
        raise UserError("--json and --csv - both print to stdout; write the CSV to a file")
    _check_outputs(args)
    path = resolve_db_path(args.db)
    if not path.exists():
        return _nothing_yet(args, f"No score database at {path} yet.")
    with Store.open(path) as store:
        all_matches = store.matches()
        if not all_matches:
            return _nothing_yet(args, f"No matches recorded yet in {path}.")
        match = _chosen_match(store, args.match)
        try:
            scoring = parse_scoring(args.scoring or match.scoring)
        except ScoringError as err:
            raise UserError(str(err)) from err
        records = store.records(match.id)
        all_time: dict[str, PlayerStats] = {}
        if args.stats:
            for m in all_matches:
                rows = records if m.id == match.id else store.records(m.id)
                player_stats(rows, m.players, match_id=m.id, into=all_time)

    table = standings(records, match.players, scoring)
    match_stats = player_stats(records, match.players, match_id=match.id)
    if args.csv:
        _write_csv(args.csv, match, records, scoring)
    if args.plot:
        _plot(Path(args.plot), match, records, scoring)
    if args.json:
        data = _as_json(match, records, scoring, table)
        if args.stats:
            data["stats"] = {
                "match": [s.to_dict() for s in match_stats.values()],
                "all_time": [s.to_dict() for s in all_time.values()],
            }
        print(json.dumps(data, indent=2))
        return 0
    if args.csv == "-":
        return 0
    print(_standing_text(match, records, scoring, table))
    if args.stats:
        print()
        print(f"Statistics, match {match.id}:")
        print(_stats_text(match_stats.values()))
        print()
        n = len(all_matches)
        print(f"Statistics, all time ({n} match{'' if n == 1 else 'es'}):")
        print(_stats_text(sorted(all_time.values(), key=lambda s: (-s.wins, s.player))))
    print()
    print(_matches_text(all_matches, match.id))
    if args.plot:
        print(f"\nChart written to {args.plot}")
    if args.csv:
        print(f"CSV written to {args.csv}")
    return 0


def _nothing_yet(args: argparse.Namespace, message: str) -> int:
    hint = (
        "Matches appear here once the referee records a game: `referee play`, or "
        "`referee replay FILE --db PATH` for a recorded game."
    )
    if args.json:
        print(json.dumps({"match": None, "scoring": None, "standings": [], "message": message}))
    else:
        print(f"{message} {hint}")
    if args.csv or args.plot:
        print("Nothing to export.", file=sys.stderr)
    return 0


def _chosen_match(store: Store, wanted: str) -> MatchInfo:
    if wanted in (None, "", "latest"):
        latest = store.latest_match()
        assert latest is not None  # the caller checked there are matches
        return latest
    try:
        match_id = int(wanted)
    except ValueError:
        raise UserError(f"--match takes a match id or 'latest', not {wanted!r}") from None
    return store.match(match_id)


def _as_json(
    match: MatchInfo, records: list[GameRecord], scoring: Scoring, table: list[Standing]
) -> dict[str, Any]:
    return {
        "match": match.id,
        "scoring": scoring.name,
        "standings": [
            {
                "player": s.player,
                "wins": s.wins,
                "points": s.points,
                "rank": s.rank,
                "games": s.games,
                "cards_left": s.cards_left,
            }
            for s in table
        ],
        "winner": match_winner(records, match.players, scoring),
        "games": len(records),
        "started_at": match.started_at,
        "players": list(match.players),
        "rules": match.rules,
        "note": note(records, scoring),
        "spoken": spoken_standing(records, match.players, scoring),
    }


def _standing_text(
    match: MatchInfo, records: list[GameRecord], scoring: Scoring, table: list[Standing]
) -> str:
    when = match.started_at.replace("T", " ").replace("+00:00", " UTC")
    games = f"{len(records)} game" + ("" if len(records) == 1 else "s")
    head = f"Match {match.id}, {when}, {games}, scoring: {scoring.label}"
    # the match table and first-to-N score wins: a points column would repeat them
    show_points = scoring.has_points and scoring.kind not in ("wins", "first_to")
    header = ["#", "player", "wins"]
    if show_points:
        header.append("penalty" if scoring.lower_is_better else "points")
    if scoring.kind == "classic_order":
        header.append("cards left")
    rows = []
    for s in table:
        row: list[object] = [s.rank, s.player, s.wins]
        if show_points:
            row.append(s.points)
        if scoring.kind == "classic_order":
            row.append(s.cards_left)
        rows.append(row)
    lines = [head, _table(header, rows)]
    lines.append(spoken_standing(records, match.players, scoring) if records else "No games yet.")
    return "\n".join(lines)


def _stats_text(stats: Sequence[PlayerStats] | Any) -> str:
    header = ["player"] + [title for _, title in COLUMNS]
    rows = [[s.player] + [getattr(s, attr) for attr, _ in COLUMNS] for s in stats]
    return _table(header, rows)


def _matches_text(matches: list[MatchInfo], current: int) -> str:
    header = ["", "match", "started", "players", "scoring", "games"]
    rows = [
        [
            "*" if m.id == current else "",
            m.id,
            m.started_at.replace("T", " ")[:16],
            ", ".join(m.players),
            m.scoring,
            m.games,
        ]
        for m in reversed(matches)
    ]
    return "Matches (* shown above):\n" + _table(header, rows)


def _table(header: list[str], rows: list[list[object]]) -> str:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(row: list[str]) -> str:
        out = []
        for i, cell in enumerate(row):
            numeric = i > 0 and all(r[i].lstrip("-").isdigit() or not r[i] for r in cells[1:])
            out.append(cell.rjust(widths[i]) if numeric else cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    return "\n".join("  " + line(r) for r in cells)


CSV_FIELDS = [
    "match",
    "scoring",
    "game",
    "player",
    "won",
    "place",
    "cards_left",
    "game_points",
    "total_points",
    "total_wins",
    "calls_made",
    "calls_won",
    "calls_lost",
    "caught_lying",
    "wrongly_called",
    "lies_got_away_seen",
    "pickups",
    "biggest_pickup",
]


def _write_csv(target: str, match: MatchInfo, records: list[GameRecord], scoring: Scoring) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    totals = progression(records, match.players, scoring)
    wins: dict[str, int] = {}
    for i, record in enumerate(sorted(records, key=lambda r: r.game), start=1):
        scored = game_points(record, scoring)
        for player in record.players:
            wins[player] = wins.get(player, 0) + (record.winner == player)
            piles = record.pickups.get(player, [])
            writer.writerow(
                {
                    "match": match.id,
                    "scoring": scoring.name,
                    "game": record.game,
                    "player": player,
                    "won": int(record.winner == player),
                    "place": record.places.index(player) + 1 if player in record.places else "",
                    "cards_left": record.cards_left.get(player, 0),
                    "game_points": scored.get(player, 0) if scoring.has_points else "",
                    "total_points": totals[player][i] if scoring.has_points else "",
                    "total_wins": wins[player],
                    "calls_made": record.calls_made.get(player, 0),
                    "calls_won": record.calls_won.get(player, 0),
                    "calls_lost": record.calls_lost.get(player, 0),
                    "caught_lying": record.caught_lying.get(player, 0),
                    "wrongly_called": record.wrongly_called.get(player, 0),
                    "lies_got_away_seen": record.unchallenged_false_cards_seen.get(player, 0),
                    "pickups": " ".join(str(p) for p in piles),
                    "biggest_pickup": max(piles, default=0),
                }
            )
    if target == "-":
        sys.stdout.write(buffer.getvalue())
        return
    try:
        Path(target).write_text(buffer.getvalue(), encoding="utf-8", newline="")
    except OSError as err:
        raise UserError(f"Cannot write the CSV file {target}: {err.strerror or err}.") from err


def _plot(target: Path, match: MatchInfo, records: list[GameRecord], scoring: Scoring) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    totals = progression(records, match.players, scoring)
    games = [0] + [r.game for r in sorted(records, key=lambda r: r.game)]
    xs = list(range(len(games)))
    markers = "osD^vP*Xhp<>"
    styles = ["-", "--", "-.", ":"]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for i, (player, values) in enumerate(totals.items()):
        ax.plot(
            xs,
            values,
            label=f"{player} ({values[-1]})",
            marker=markers[i % len(markers)],
            linestyle=styles[i % len(styles)],
            linewidth=2,
            markersize=7,
            alpha=0.85,
        )
    ylabel = {
        "wins": "games won",
        "first_to": "games won",
        "classic_order": "games won",
        "penalty": "penalty points (lower is better)",
    }.get(scoring.kind, "points")
    title = f"Match {match.id}: {scoring.label}"
    winner = match_winner(records, match.players, scoring)
    if winner:
        title += f", {winner} wins"
    ax.set_title(title)
    ax.set_xlabel("game")
    ax.set_ylabel(ylabel)
    ax.set_xticks(xs, ["start"] + [str(g) for g in games[1:]])
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if scoring.kind == "first_to" and scoring.target:
        ax.axhline(scoring.target, color="grey", linewidth=1, linestyle=":")
    if scoring.kind == "trust_me":
        ax.axhline(0, color="grey", linewidth=0.8)
    ax.grid(True, alpha=0.3)
    ax.legend(title="player (total)", loc="best")
    fig.tight_layout()
    if note(records, scoring):  # the spoken note says "I"; the chart names the referee
        fig.subplots_adjust(bottom=0.15)
        fig.text(0.01, 0.01, "The +25 hidden-lie bonus counts only lies the referee saw.",
                 fontsize=8, color="dimgray")  # fmt: skip
    try:  # a name without an extension is a PNG of exactly that name (not NAME.png)
        fig.savefig(target, format=None if target.suffix else "png")
    except OSError as err:
        raise UserError(f"Cannot write the chart {target}: {err.strerror or err}.") from err
    except ValueError as err:  # an extension matplotlib cannot write
        raise UserError(f"Cannot write the chart {target}: {err}; use a .png name.") from err
    finally:
        plt.close(fig)
