"""The ``becher`` command: serve, read, hand, advise, replay (contracts in guide/ARCHITECTURE.md and README).

Heavy parts (Flask, OpenCV, onnxruntime) are imported only by the subcommand that needs them,
so ``becher hand`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from companion import BecherError, GameLog, rules_for
from companion.dice import DiceKind, parse_die


def _error(message: str, code: int = 2) -> int:
    print(json.dumps({"ok": False, "error": message}, ensure_ascii=False), file=sys.stderr)
    return code


def _parse_setting(text: str) -> tuple[str, object]:
    name, sep, raw = text.partition("=")
    if not sep:
        raise BecherError(f"Write settings as NAME=VALUE, not {text!r}.")
    value: object
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip(), value


def _game_dice(rules: Any, tokens: Sequence[str], sets: Sequence[str] | None) -> tuple[Any, list[list[int]]]:
    """The setup (settings from ``--set``; the dice kind guessed from the faces unless set) and each group of
    ``tokens`` as ranks of the game's dice; faces that do not exist or mix kinds are refused by name."""
    flat = [t for group in tokens for t in group]
    for token in flat:
        parse_die(token)  # a face that exists at all, before guessing the kind
    pip_faces = [t for t in flat if t.strip() in {"1", "2", "3", "4", "5", "6"}]
    poker_faces = [t for t in flat if t not in pip_faces]
    if pip_faces and poker_faces:
        raise BecherError(
            f"These dice mix pip faces ({pip_faces[0]}) and poker faces ({poker_faces[0]}); give one kind."
        )
    settings: dict[str, object] = dict(_parse_setting(s) for s in sets or [])
    if "dice" in {s.name for s in rules.settings} and "dice" not in settings and poker_faces:
        # 9 10 J Q K A can only be poker dice: taken as such in a game played with pip dice by default. Pip faces in a
        # poker dice game stay refused, as the API refuses them (`--set dice=pip` plays that game with pip dice).
        settings["dice"] = DiceKind.POKER.value
    players = [f"P{i + 1}" for i in range(max(rules.min_players, 1))]
    setup = rules.make_setup(players, settings)
    # Re-parse with the game's dice kind so a poker face in a pip-only game is refused by name.
    return setup, [[parse_die(token, setup.dice_kind) for token in group] for group in tokens]


def cmd_hand(args: argparse.Namespace) -> int:
    try:
        rules = rules_for(args.game)
        setup, (ranks,) = _game_dice(rules, [args.dice], args.set)
        result: dict[str, Any] = {"game": rules.id, "dice": args.dice, **rules.hand(ranks, setup, args.all_five)}
    except BecherError as exc:
        return _error(str(exc))
    print(json.dumps(result, ensure_ascii=False))
    return 0


def _json_usage_error(message: str) -> NoReturn:
    """``becher advise`` answers a bad command line in the same JSON as every other refusal (exit code 2)."""
    _error(f"{message[:1].upper()}{message[1:]} (becher advise --help shows the usage).")
    sys.exit(2)


def _whole(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise BecherError(f"{what} must be a whole number, not {text!r}.") from None


def cmd_advise(args: argparse.Namespace) -> int:
    from companion.advice import advise_setup, no_holds

    try:
        rules = rules_for(args.game)
        throws_left = _whole(args.throws_left, "--throws-left")
        groups = [args.dice] + ([args.beat] if args.beat is not None else [])
        setup, ranks = _game_dice(rules, groups, args.set)
        refusal = no_holds(setup)
        if refusal is not None:
            raise refusal
        if len(ranks[0]) != 5:
            raise BecherError(f"The advice needs the 5 dice on the table, not {len(ranks[0])}.")
        beat = ranks[1] if args.beat is not None else None
        if beat is not None and len(beat) != 5:
            raise BecherError(f"--beat takes the 5 dice of the hand to beat, not {len(beat)}.")
        if beat is not None and setup.game == "sheet":
            raise BecherError("The score sheet has no hand to beat; leave out --beat.")
        sheet_only = {"--open": args.open, "--reserve": args.reserve, "--all-five": args.all_five or None}
        given = [name for name, value in sheet_only.items() if value is not None]
        if given and setup.game != "sheet":
            raise BecherError(f"{given[0]} belongs to the score sheet (--game sheet) only.")
        open_rows = [r for r in args.open.replace(",", " ").split() if r] if args.open is not None else None
        reserve = _whole(args.reserve, "--reserve") if args.reserve is not None else 0
        advice = advise_setup(
            setup,
            ranks[0],
            throws_left,
            beat,
            open_rows=open_rows,
            reserve=reserve,
            all_five=True if args.all_five else None,
        )
    except BecherError as exc:
        return _error(str(exc))
    shown = advice.to_json(setup.dice_kind)
    result = {"game": rules.id, **shown}
    print(json.dumps(result, ensure_ascii=False))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8") if args.file != "-" else sys.stdin.read()
    except OSError as exc:
        return _error(f"Cannot read {args.file}: {exc.strerror}.")
    except UnicodeDecodeError:
        return _error(f"{args.file} is not a UTF-8 text file.")
    try:
        log = GameLog.from_jsonl(text)
    except BecherError as exc:
        return _error(str(exc))
    except RecursionError:
        return _error(f"{args.file} holds JSON nested too deeply; give the .jsonl file Becher exported.")
    outcome = log.outcome()
    print(
        json.dumps(
            {
                "game": log.setup.game,
                "players": list(log.setup.players),
                "actions": len(log),
                "finished": outcome is not None,
                "outcome": outcome.to_json() if outcome else None,
                "to_move": log.to_move(),
                "standings": [s.to_json() for s in log.standings()],
            },
            ensure_ascii=False,
        )
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from web.server import serve
    except ImportError:
        return _error("The server is not part of this build yet.")
    code: int = serve(args)
    return code


def cmd_read(args: argparse.Namespace) -> int:
    try:
        from vision.cli import read_command
    except ImportError:
        return _error("The dice reader is not part of this build yet.")
    code: int = read_command(args)
    return code


def _unknown_player(name: str, known: list[str], shown: int = 30) -> str:
    """The answer to a ``--player`` nobody is called, for someone at a command line: the names there are (most
    recently seen first, the first ``shown`` of them), the likeliest meant one first, and never a web route."""
    import difflib

    if not known:
        return f"No player is called {name!r}: this database has no players yet."
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(known[:shown]) + (f" and {len(known) - shown} more" if len(known) > shown else "")
    return f"No player is called {name!r}.{hint} The players: {listed} (--player takes a name in any case)."


def cmd_stats(args: argparse.Namespace) -> int:
    """The statistics page's figures as JSON (the answer of ``GET /api/stats``), over every game in the database."""
    import re

    from web.app import data_dir
    from web.players import player_key, players
    from web.stats import Filter, figures
    from web.store import Store, Unusable

    path = Path(args.db).expanduser() if args.db else data_dir() / "becher.sqlite3"
    if not path.is_file():
        return _error(f"There is no database at {path}; name Becher's file with --db.")
    for name in ("since", "until"):
        value = getattr(args, name)
        if value is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return _error(f"--{name} must be a date like 2026-03-31, not {value!r}.")
    if args.game is not None:
        try:
            rules_for(args.game)
        except BecherError as exc:
            return _error(str(exc))
    try:
        store = Store(path)
    except Unusable as exc:
        return _error(str(exc))
    try:
        ids: list[int] = []
        for name in args.player or []:
            # the host's own view: every device's player of that name (names are unique per device only)
            rows = store.conn().execute("SELECT id FROM players WHERE key = ?", (player_key(name),)).fetchall()
            if not rows:
                return _error(_unknown_player(name, [p.name for p in players(store.conn())]))
            ids.extend(int(r[0]) for r in rows)
        flt = Filter(tuple(ids), args.game, args.since, args.until, args.game_id, args.dice)
        print(json.dumps({"ok": True, "stats": figures(store, flt)}, ensure_ascii=False, indent=1))
    finally:
        store.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="becher", description="Becher: a scoring companion for dice poker.")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="start the server for the table and the phones")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--db", default=None, help="SQLite file (default: in the user's data folder)")
    serve.add_argument("--camera", default=None, help="camera index, video file or stream address")
    serve.add_argument("--https", action="store_true", help="serve over HTTPS with a self-signed certificate")
    serve.set_defaults(func=cmd_serve)

    read = sub.add_parser("read", help="read dice from image files")
    read.add_argument("images", nargs="+")
    read.add_argument("--kind", choices=["pip", "poker", "auto"], default="auto")
    read.add_argument(
        "--count", type=int, default=None, help="propose each photo as a throw of N dice, as the server does"
    )
    read.add_argument(
        "--on-table", type=int, default=None, help="with --count: the dice on the table, kept ones included"
    )
    read.add_argument("--json", action="store_true", help="one JSON object a line per image")
    read.set_defaults(func=cmd_read)

    hand = sub.add_parser("hand", help="what a throw is worth in a game")
    hand.add_argument("--game", required=True)
    hand.add_argument("--all-five", action="store_true", help="all five dice were thrown at once (sheet)")
    hand.add_argument("--set", action="append", metavar="NAME=VALUE", help="a game setting (repeatable)")
    hand.add_argument("dice", nargs="+")
    hand.set_defaults(func=cmd_hand)

    advise = sub.add_parser("advise", help="which dice to keep, and what each hold is worth")
    advise.add_argument("--game", required=True)
    advise.add_argument("--throws-left", required=True, help="rethrows still allowed after this throw (0-2)")
    advise.add_argument("--beat", nargs=5, metavar="D", help="the 5 dice of the hand to beat")
    advise.add_argument("--set", action="append", metavar="NAME=VALUE", help="a game setting (repeatable)")
    advise.add_argument("--open", default=None, metavar="ROW,...", help="sheet: the rows with a free field")
    advise.add_argument("--reserve", default=None, help="sheet: the player's reserve (default 0)")
    advise.add_argument("--all-five", action="store_true", help="sheet: these dice were thrown all five at once")
    advise.add_argument("dice", nargs="+")
    advise.set_defaults(func=cmd_advise)
    advise.error = _json_usage_error  # type: ignore[method-assign]

    replay = sub.add_parser("replay", help="fold an exported action log and print the standings")
    replay.add_argument("file", help="JSON-lines log, or - for standard input")
    replay.set_defaults(func=cmd_replay)

    stats = sub.add_parser("stats", help="the statistics and the dice's fairness as JSON (as the statistics page)")
    stats.add_argument("--db", default=None, help="SQLite file (default: in the user's data folder)")
    stats.add_argument("--player", action="append", metavar="NAME", help="a player (repeatable; default: everyone)")
    stats.add_argument("--game", default=None, help="one kind of game (bone, classic, pokerdice, sheet, board)")
    stats.add_argument("--since", default=None, metavar="YYYY-MM-DD", help="first day (UTC) of the period")
    stats.add_argument("--until", default=None, metavar="YYYY-MM-DD", help="last day (UTC) of the period")
    stats.add_argument("--game-id", default=None, help="one played game")
    stats.add_argument("--dice", choices=["pip", "poker"], default=None, help="one kind of dice")
    stats.set_defaults(func=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
