"""The ``becher`` command: serve, read, hand, replay (contracts in guide/ARCHITECTURE.md and README).

Heavy parts (Flask, OpenCV, onnxruntime) are imported only by the subcommand that needs them,
so ``becher hand`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def cmd_hand(args: argparse.Namespace) -> int:
    try:
        rules = rules_for(args.game)
        for token in args.dice:
            parse_die(token)  # a face that exists at all, before guessing the kind
        pip_faces = [t for t in args.dice if t.strip() in {"1", "2", "3", "4", "5", "6"}]
        poker_faces = [t for t in args.dice if t not in pip_faces]
        if pip_faces and poker_faces:
            raise BecherError(
                f"These dice mix pip faces ({pip_faces[0]}) and poker faces ({poker_faces[0]}); give one kind."
            )
        settings: dict[str, object] = dict(_parse_setting(s) for s in args.set or [])
        dice_setting = next((s for s in rules.settings if s.name == "dice"), None)
        if dice_setting is not None and "dice" not in settings and poker_faces:
            # 9 10 J Q K A can only be poker dice: taken as such in a game played with pip dice by default. Pip faces
            # in a poker dice game stay refused, as the API refuses them (1..6 could be meant as ranks or as pips):
            # `--set dice=pip` plays that game with pip dice.
            settings["dice"] = DiceKind.POKER.value
        players = [f"P{i + 1}" for i in range(max(rules.min_players, 1))]
        setup = rules.make_setup(players, settings)
        # Re-parse with the game's dice kind so a poker face in a pip-only game is refused by name.
        ranks = [parse_die(token, setup.dice_kind) for token in args.dice]
        result: dict[str, Any] = {"game": rules.id, "dice": args.dice, **rules.hand(ranks, setup, args.all_five)}
    except BecherError as exc:
        return _error(str(exc))
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
    read.add_argument("--json", action="store_true", help="one JSON object a line per image")
    read.set_defaults(func=cmd_read)

    hand = sub.add_parser("hand", help="what a throw is worth in a game")
    hand.add_argument("--game", required=True)
    hand.add_argument("--all-five", action="store_true", help="all five dice were thrown at once (sheet)")
    hand.add_argument("--set", action="append", metavar="NAME=VALUE", help="a game setting (repeatable)")
    hand.add_argument("dice", nargs="+")
    hand.set_defaults(func=cmd_hand)

    replay = sub.add_parser("replay", help="fold an exported action log and print the standings")
    replay.add_argument("file", help="JSON-lines log, or - for standard input")
    replay.set_defaults(func=cmd_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
