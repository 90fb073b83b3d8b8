"""The rule text (rule-texts/002_58aaa060bb3d701d.txt), one test for each sentence that states a rule.

Each test quotes its sentence; where RULES.md settles a reading, test_sheet_rules.py checks it too.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from companion import GameLog, IllegalAction, MalformedInput, rules_for
from tests.companion.test_sheet_rules import CLEAN_COLUMN, bonus, cell, enter, new_game, sheet, strike, throw


def test_sheet_text_einen_bis_vier_spieler() -> None:
    """Text: "Würfelpoker ist ein Würfelspiel für einen bis vier Spieler"."""
    rules = rules_for("sheet")
    assert rules.player_range(rules.make_setup(["A"])) == (1, 4)
    with pytest.raises(MalformedInput):
        rules.make_setup(list("ABCDE"))


def test_sheet_text_bis_zu_dreimal_mit_fuenf_wuerfeln() -> None:
    """Text: "In jedem Zug würfelst du bis zu dreimal mit fünf Würfeln und trägst das Ergebnis in ein Feld ein"."""
    log = new_game()
    with pytest.raises(MalformedInput, match="5 dice, not 6"):
        throw(log, (1, 2, 3, 4, 5, 6))
    throw(log, (1, 2, 3, 4, 5))
    throw(log, (1, 2, 3, 4, 5), held=(0,))
    throw(log, (1, 2, 3, 4, 5), held=(0,))
    with pytest.raises(IllegalAction, match="thrown 3 times"):
        throw(log, (1, 2, 3, 4, 5), held=(0,))


def test_sheet_text_behalte_beliebige_und_wirf_den_rest() -> None:
    """Text: "Behalte beliebige davon per Antippen und wirf den Rest erneut, insgesamt bis zu drei Würfe"."""
    log = new_game()
    throw(log, (2, 6, 6, 1, 6))
    throw(log, (5, 6, 6, 6, 6), held=(1, 2, 4))
    assert log.rules.view(log.state)["turn"]["held"] == [1, 2, 4]
    throw(log, (6, 6, 6, 6, 6), held=(1, 2, 3, 4))
    log.play({"type": "enter", "player": 0, "row": "fuenfling"})
    assert cell(log, "fuenfling")["value"] == 80  # kept dice: not doubled


def test_sheet_text_dann_traegst_du_das_ergebnis_ein() -> None:
    """Text: "Dann trägst du das Ergebnis in ein Feld deines Zettels ein": one entry ends the turn."""
    log = new_game(("Anna", "Ben"))
    throw(log, (3, 3, 3, 1, 2))
    log.play({"type": "enter", "player": 0, "row": "schule_3"})
    assert log.to_move() == 1
    with pytest.raises(IllegalAction, match="already made this turn's entry"):
        log.play({"type": "enter", "player": 0, "row": "drilling", "dice": [3, 3, 3, 1, 2]})


def test_sheet_text_jede_zeile_von_links_nach_rechts() -> None:
    """Text: "Jede Zeile wird von links nach rechts gefüllt"."""
    log = new_game()
    enter(log, "summe", (1, 1, 1, 1, 1))
    enter(log, "summe", (2, 2, 2, 2, 2))
    assert [c["value"] for c in sheet(log)["rows"]["summe"]] == [5, 10, None]


def test_sheet_text_drei_wuerfel_schliessen_die_zeile() -> None:
    """Text: "Um eine Zeile der Schule zu schließen, brauchst du drei Würfel mit ihrer Zahl"."""
    log = new_game()
    enter(log, "schule_4", (4, 4, 4, 1, 2))
    assert cell(log, "schule_4")["closed"]
    assert cell(log, "schule_4")["reserve_change"] == 0


def test_sheet_text_vier_zweier_bringen_zwei_dazu() -> None:
    """Text: "Jeder zusätzliche Würfel fügt diese Zahl deiner Reserve hinzu: Vier 2er schließen Zeile 2 und bringen 2
    dazu"."""
    log = new_game()
    enter(log, "schule_2", (2, 2, 2, 2, 6))
    assert cell(log, "schule_2")["closed"]
    assert sheet(log)["reserve"] == 2


def test_sheet_text_reserve_gleicht_aus_aber_ein_wuerfel_muss_die_zahl_zeigen() -> None:
    """Text: "Fehlende Würfel kann die Reserve ausgleichen, aber mindestens ein Würfel muss diese Zahl zeigen"."""
    log = new_game()
    enter(log, "schule_5", (5, 5, 5, 5, 5))  # reserve 10
    enter(log, "schule_1", (1, 2, 3, 4, 6))  # two 1s missing: pays 2
    assert cell(log, "schule_1")["closed_with_reserve"]
    enter(log, "schule_2", (3, 3, 4, 5, 6))  # no 2 at all: a zero although the reserve holds 8
    assert cell(log, "schule_2")["zero"]
    assert sheet(log)["reserve"] == 8


def test_sheet_text_reserve_gilt_fuer_alle_spalten_und_zaehlt_zur_summe() -> None:
    """Text: "Die Reserve gilt für alle Spalten und zählt zu deiner Gesamtpunktzahl"."""
    log = new_game()
    enter(log, "schule_6", (6, 6, 6, 6, 1))  # column 1 earns 6
    enter(log, "schule_3", (3, 3, 3, 3, 2))  # column 1 earns 3
    enter(log, "schule_6", (6, 6, 3, 2, 1))  # column 2 pays 6
    assert cell(log, "schule_6", 1)["closed_with_reserve"]
    assert sheet(log)["totals"]["reserve"] == 3
    assert sheet(log)["totals"]["total"] == 3


def test_sheet_text_geschlossenes_feld_zeigt_ein_kreuz() -> None:
    """Text: "Auf dem Zettel zeigt ein geschlossenes Feld der Schule ein Kreuz": closed, no points."""
    log = new_game()
    enter(log, "schule_1", (1, 1, 1, 6, 6))
    assert (cell(log, "schule_1")["result"], cell(log, "schule_1")["value"]) == ("closed", 0)


def test_sheet_text_neuer_reservestand_ins_verursachende_feld_alter_durchgestrichen() -> None:
    """Text: "Vier 4er tragen 4 ein, danach tragen zwei 3er 1 ein und streichen die 4 durch"."""
    log = new_game()
    enter(log, "schule_4", (4, 4, 4, 4, 1))
    assert (cell(log, "schule_4")["reserve"], cell(log, "schule_4")["reserve_struck"]) == (4, False)
    enter(log, "schule_3", (3, 3, 1, 2, 5))
    assert (cell(log, "schule_3")["reserve"], cell(log, "schule_3")["reserve_struck"]) == (1, False)
    assert cell(log, "schule_4")["reserve_struck"]
    assert sheet(log)["reserve_history"] == [
        {"value": 4, "change": 4, "row": "schule_4", "column": 0, "struck": True},
        {"value": 1, "change": -3, "row": "schule_3", "column": 0, "struck": False},
    ]


def test_sheet_text_nicht_geschlossen_ist_eine_null_minus_200() -> None:
    """Text: "Kannst du eine Zeile der Schule nicht schließen, trägst du eine Null ein: minus 200 Punkte"."""
    log = new_game()
    enter(log, "schule_6", (6, 1, 1, 1, 1))
    assert cell(log, "schule_6")["zero"]
    assert sheet(log)["totals"]["total"] == -200


def test_sheet_text_schule_nie_verdoppelt() -> None:
    """Text: "Zeilen der Schule werden nie verdoppelt"."""
    log = new_game()
    enter(log, "schule_2", (2, 2, 2, 2, 2), all_five=True)
    assert not cell(log, "schule_2")["doubled"]
    assert sheet(log)["reserve"] == 4  # two extra 2s, not doubled either


def test_sheet_text_kombination_zaehlt_nur_ihre_wuerfel() -> None:
    """Text: "Eine Kombination zählt die Würfel, die sie verwendet. Andere Würfel zählen nicht"."""
    log = new_game()
    enter(log, "paar", (4, 4, 6, 5, 3))
    enter(log, "drilling", (2, 2, 2, 6, 6))
    assert cell(log, "paar")["value"] == 8
    assert cell(log, "drilling")["value"] == 6


@pytest.mark.parametrize(
    ("row", "dice", "points"),
    [
        ("paar", (5, 5, 1, 2, 3), 10),
        ("drilling", (4, 4, 4, 1, 2), 12),
        ("zwei_paare", (5, 5, 3, 3, 1), 16),
        ("full_house", (3, 3, 3, 5, 5), 19),
        ("vierling", (6, 6, 6, 6, 1), 24 + 20),
        ("fuenfling", (2, 2, 2, 2, 2), 10 + 50),
        ("kleine_strasse", (1, 2, 3, 4, 5), 15),
        ("grosse_strasse", (2, 3, 4, 5, 6), 20),
        ("summe", (2, 3, 4, 5, 6), 20),
    ],
)
def test_sheet_text_punktetabelle(row: str, dice: Sequence[int], points: int) -> None:
    """The table: Paar 10, Drilling 12, Zwei Paare 16, Full House 19, Vierling 24 + 20, Fünfling 10 + 50, ..."""
    log = new_game()
    enter(log, row, dice)
    assert cell(log, row)["value"] == points


def test_sheet_text_alle_fuenf_auf_einmal_verdoppelt_mit_zusatzpunkten() -> None:
    """Text: "... indem du alle fünf Würfel auf einmal wirfst ... wird die Punktzahl verdoppelt, einschließlich aller
    Zusatzpunkte"."""
    log = new_game()
    throw(log, (6, 6, 6, 6, 3))
    log.play({"type": "enter", "player": 0, "row": "vierling"})
    assert cell(log, "vierling")["value"] == (24 + 20) * 2


def test_sheet_text_auch_spaeter_wenn_alle_neu_geworfen_fuenf_einser_110() -> None:
    """Text: "Das gilt immer beim ersten Wurf und auch bei einem späteren Wurf, wenn du alle fünf Würfel neu wirfst:
    Fünf 1er bringen (5 + 50) × 2 = 110"."""
    log = new_game()
    throw(log, (2, 3, 4, 6, 6))
    throw(log, (1, 1, 1, 1, 1))
    log.play({"type": "enter", "player": 0, "row": "fuenfling"})
    assert cell(log, "fuenfling")["value"] == 110


def test_sheet_text_feld_einer_kombination_streichen() -> None:
    """Text: "Statt einzutragen kannst du ein Feld einer Kombination immer auch streichen. Es bringt nichts, und du
    verlierst den Anspruch auf die Boni dieser Zeile und Spalte"."""
    log = new_game()
    throw(log, (6, 6, 6, 6, 6))
    strike(log, "kleine_strasse")
    assert cell(log, "kleine_strasse")["struck"]
    assert sheet(log)["totals"]["total"] == 0
    assert bonus(log, "row:kleine_strasse")["struck"]
    assert bonus(log, "column:1")["struck"]


def test_sheet_text_jeder_bonus_nur_an_den_ersten() -> None:
    """Text: "Jeder Bonus geht nur an den Spieler, der ihn als Erster erreicht"."""
    log = new_game(("Anna", "Ben"), columns=1)
    enter(log, "drilling", (2, 2, 2, 1, 3))
    enter(log, "drilling", (6, 6, 6, 1, 3))
    assert bonus(log, "row:drilling", 0)["value"] == 6
    assert bonus(log, "row:drilling", 1)["owner"] == 0
    assert bonus(log, "row:drilling", 1)["struck"]


def test_sheet_text_schulzeile_ohne_reserve_fuenffache_zahl() -> None:
    """Text: "Zeile der Schule: Schließt du sie in jeder Spalte, ohne die Reserve zu nutzen, beträgt der Bonus das
    Fünffache ihrer Zahl"."""
    log = new_game()
    for _ in range(3):
        assert not bonus(log, "row:schule_5")["won"]
        enter(log, "schule_5", (5, 5, 5, 1, 2))
    assert bonus(log, "row:schule_5")["value"] == 25


def test_sheet_text_kombinationszeile_ohne_kreuz_bestes_feld() -> None:
    """Text: "Zeile einer Kombination: Füllst du sie in jeder Spalte ohne Kreuz, ist der Bonus ihr bestes Feld"."""
    log = new_game()
    enter(log, "vierling", (2, 2, 2, 2, 1))
    enter(log, "vierling", (6, 6, 6, 6, 1), all_five=True)
    enter(log, "vierling", (3, 3, 3, 3, 1))
    assert bonus(log, "row:vierling")["value"] == 88


def test_sheet_text_summe_hat_keinen_zeilenbonus() -> None:
    """Text: "Die Summe hat keinen Zeilenbonus"."""
    log = new_game()
    for _ in range(3):
        enter(log, "summe", (6, 6, 6, 6, 5))
    assert sheet(log)["totals"]["bonuses"] == 0
    assert all(b["row"] != "summe" for b in log.rules.view(log.state)["bonuses"])


def test_sheet_text_spalte_ohne_kreuz_ohne_null_bester_wert() -> None:
    """Text: "Spalte: Füllst du sie vollständig ohne Kreuz und ohne Null, ist der Bonus ihr bester Wert bei
    Kombinationen oder Summe"."""
    log = new_game(columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        enter(log, row, dice, all_five)
    values = [c[0]["value"] for r, c in sheet(log)["rows"].items() if not r.startswith("schule")]
    assert bonus(log, "column:1")["value"] == max(values) == 60


def test_sheet_text_unerreichbarer_bonus_wird_durchgestrichen() -> None:
    """Text: "Sobald ein Bonus für dich unerreichbar ist, wird sein ★-Feld auf deinem Zettel durchgestrichen"."""
    log = new_game(("Anna", "Ben"), columns=1)
    assert not any(b["struck"] for b in sheet(log, 1)["bonuses"])
    enter(log, "schule_1", (1, 1, 1, 2, 2))  # Anna takes the row-1 bonus: Ben can no longer reach it
    assert bonus(log, "row:schule_1", 1)["struck"]
    assert not bonus(log, "row:schule_1", 0)["struck"]
    strike(log, "paar")  # Ben strikes: his Paar row and his column are out of reach
    assert bonus(log, "row:paar", 1)["struck"] and bonus(log, "column:1", 1)["struck"]
    assert not bonus(log, "row:paar", 0)["struck"]


def test_sheet_text_spiel_endet_wenn_alle_zettel_voll() -> None:
    """Text: "Das Spiel endet, wenn alle Zettel voll sind"."""
    log = new_game(("Anna", "Ben"), columns=1)
    for row, dice, all_five in CLEAN_COLUMN:
        enter(log, row, dice, all_five)
        assert log.outcome() is None  # Anna's sheet is full after her last entry, Ben's is not yet
        enter(log, row, dice, all_five)
    assert log.outcome() is not None
    assert log.options() == []


def test_sheet_text_gesamtpunktzahl() -> None:
    """Text: "Deine Gesamtpunktzahl sind deine Felder, Boni und die übrige Reserve, abzüglich 200 für jede Null"."""
    log = GameLog.new("sheet", ["Anna"], {"columns": 1})
    for row, dice, all_five in CLEAN_COLUMN:
        if row == "schule_2":
            dice = (1, 1, 1, 1, 1)  # a zero
        enter(log, row, dice, all_five)
    t = sheet(log)["totals"]
    fields = sum(c[0]["value"] for c in sheet(log)["rows"].values())
    won = sum(b["value"] for b in sheet(log)["bonuses"] if b["won"])
    assert (t["fields"], t["bonuses"], t["reserve"], t["zeros"]) == (fields, won, 4, 1)
    assert t["total"] == fields + won + 4 - 200
    assert log.standings()[0].score == t["total"]
