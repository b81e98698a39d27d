"""`cartiera validate`: every rule, each proven on a broken copy of the real data."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import edit, invoke


def test_shipped_data_is_valid(project: Path, cli) -> None:
    run = cli(project, "validate")
    assert run.exit_code == 0, run.output
    summary = run.stdout
    assert re.search(r"^bless\s+LuceOmbra\s+62/62 cards\s+0 errors", summary, re.M)
    assert re.search(r"^blitz\s+.*54/54 cards\s+0 errors", summary, re.M)
    assert re.search(r"^samurai-sword\s+Gioco base\s+110/110 cards\s+0 errors", summary, re.M)
    assert re.search(r"^bldng\s+.*126/126 cards\s+0 errors", summary, re.M)
    mazzo = re.search(r"^mazzo\s+.*?(\d+)/(\d+) cards\s+0 errors", summary, re.M)
    assert mazzo and mazzo.group(1) == mazzo.group(2)


def test_incomplete_expansion_is_reported_as_warnings(project: Path, cli) -> None:
    run = cli(project, "validate", "samurai-sword")
    assert run.exit_code == 0
    assert re.search(r"Rising Sun\s+\d+/60 cards \(incomplete\)", run.stdout)
    warnings = [line for line in run.stdout.splitlines() if ": warning: " in line]
    assert any("missing attribute 'difficolta'" in w for w in warnings)
    assert any("expected 60" in w for w in warnings)
    assert ": error: " not in run.stdout


def test_deck_total(project: Path, cli) -> None:
    edit(
        project / "games/bless/cards.yaml",
        "attributes: {forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
        "copies: 2\n    attributes: {forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
    )
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "games/bless/game.yaml:" in run.stdout
    assert "deck 'LuceOmbra' has 63 cards, expected 62" in run.stdout
    assert re.search(r"^bless\s+LuceOmbra\s+63/62 cards\s+2 errors", run.stdout, re.M)
    assert "has 63 cards of kind 'carta', expected 62" in run.stdout


def test_deck_total_per_kind(project: Path, cli) -> None:
    cards = project / "games/blitz/cards.yaml"
    text = cards.read_text(encoding="utf-8")
    first_nine = text.index("copies: 9")
    cards.write_text(text[:first_nine] + "copies: 8" + text[first_nine + 9 :], encoding="utf-8")
    run = cli(project, "validate", "blitz")
    assert run.exit_code == 1
    assert "has 53 cards, expected 54" in run.stdout
    assert "has 35 cards of kind 'collezione', expected 36" in run.stdout


def test_duplicate_number_and_id(project: Path, cli) -> None:
    cards = project / "games/bless/cards.yaml"
    edit(cards, "number: 2\n", "number: 1\n")
    edit(cards, "id: lama-del-mattino", "id: re-luce")
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "duplicate card number 1 (also on 're-luce')" in run.stdout
    assert "duplicate card id 're-luce'" in run.stdout


def test_missing_and_unknown_fields(project: Path, cli) -> None:
    cards = project / "games/bless/cards.yaml"
    edit(cards, "  name: Re Luce\n", "\n")
    edit(cards, "  name: Re Ombra\n", "  name: Re Ombra\n    colour: nero\n")
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    missing = _line(run.stdout, "missing field 'name'")
    assert missing.startswith("games/bless/cards.yaml:")
    assert "bless/re-luce" in missing
    unknown = _line(run.stdout, "unknown field 'colour'")
    line_no = int(unknown.split(":")[1])
    assert "colour: nero" in cards.read_text(encoding="utf-8").splitlines()[line_no - 1]


def test_values_out_of_range_and_unknown_enum(project: Path, cli) -> None:
    cards = project / "games/bless/cards.yaml"
    edit(
        cards,
        "{forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
        "{forma: Luce, occhio: 42, karma: 2, preghiera: Eco}",
    )
    edit(
        cards,
        "{forma: Ombra, occhio: 3, karma: 2, preghiera: Eco}",
        "{forma: Grigio, occhio: 3, karma: 2, preghiera: Eco}",
    )
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "occhio 42 is above the maximum" in run.stdout
    grigio = _line(run.stdout, "forma 'Grigio' is not one of: Luce, Ombra, Duale")
    assert "(fix: use one of: Luce, Ombra, Duale)" in grigio


def test_missing_and_undeclared_attributes(project: Path, cli) -> None:
    cards = project / "games/bless/cards.yaml"
    edit(
        cards,
        "{forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
        "{forma: Luce, occhio: 3, preghiera: Eco, ferite: 2}",
    )
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "missing attribute 'karma' (carta)" in run.stdout
    assert "unknown attribute 'ferite'" in run.stdout


def test_a_look_alike_letter_of_another_script_is_named(project: Path, cli) -> None:
    """A Cyrillic "а" in "Re Ombrа" reads as Latin on every output, yet a search for
    "ombra" misses the card: a warning at its line names the word and the letter, in the
    cards and in the rules. A word wholly in another script, or a Greek letter drawn
    unlike any Latin one, is left alone."""
    cards = project / "games/bless/cards.yaml"
    edit(cards, "  name: Re Ombra\n", "  name: Re Ombr\u0430\n")
    edit(cards, "  name: Re Luce\n", "  name: Re Luce \u03a9mega \u039d\u03b1\u03cc\u03c2\n")
    run = cli(project, "validate", "bless")
    assert run.exit_code == 0, run.stdout
    line = _line(run.stdout, "'Ombr\u0430' mixes Latin letters with cyrillic small letter a")
    assert line.startswith("games/bless/cards.yaml:") and "bless/re-ombra: " in line
    assert "(U+0430)" in line and "(fix: type the word again in Latin letters)" in line
    # the rules' text, where the site's search would miss it, at its line and column
    rules = project / "games/bless/rules.md"
    lines = rules.read_text(encoding="utf-8").splitlines()
    number = next(i for i, text in enumerate(lines, 1) if "tempo Luce e Ombra." in text)
    edit(rules, "tempo Luce e Ombra.", "tempo Luce e \u039fmbra.")
    run = cli(project, "validate", "bless")
    column = lines[number - 1].index("Ombra.") + 1
    line = _line(run.stdout, "'\u039fmbra' mixes Latin letters with greek capital letter omicron")
    assert line.startswith(f"games/bless/rules.md:{number}:{column}: warning: ")
    assert run.stdout.count("mixes Latin letters") == 2


def test_unknown_kind_and_deck(project: Path, cli) -> None:
    cards = project / "games/bless/cards.yaml"
    edit(cards, "  kind: carta\n", "  kind: mostro\n")
    edit(cards, "  name: Re Ombra\n", "  name: Re Ombra\n    deck: espansione\n")
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "unknown kind 'mostro' (fix: use one of: carta)" in run.stdout
    assert "unknown deck 'espansione'" in run.stdout


def test_reference_to_unknown_card(project: Path, cli) -> None:
    rulings = project / "games/samurai-sword/rulings.yaml"
    text = rulings.read_text(encoding="utf-8")
    match = re.search(r"cards: \[([a-z0-9-]+)", text)
    assert match
    rulings.write_text(
        text.replace(match.group(0), "cards: [spada-inesistente", 1), encoding="utf-8"
    )
    run = cli(project, "validate", "samurai-sword")
    assert run.exit_code == 1
    line = _line(run.stdout, "names unknown card 'spada-inesistente'")
    assert line.startswith("games/samurai-sword/rulings.yaml:")


def test_yaml_syntax_error_has_line_and_column(project: Path, cli) -> None:
    cards = project / "games/mazzo/cards.yaml"
    lines = cards.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = "  - [unclosed: {\n"
    cards.write_text("".join(lines), encoding="utf-8")
    run = cli(project, "validate")
    assert run.exit_code == 1
    line = _line(run.stdout, "YAML syntax")
    assert re.match(r"games/mazzo/cards\.yaml:\d+:\d+: error: ", line)
    # the other games are still checked in the same run
    assert re.search(r"^bless\s+LuceOmbra\s+62/62", run.stdout, re.M)


def test_file_that_is_not_utf8(project: Path, cli) -> None:
    game = project / "games/blitz/game.yaml"
    game.write_bytes(game.read_bytes().replace("à".encode(), b"\xe0", 1))
    run = cli(project, "validate", "blitz")
    assert run.exit_code == 1
    assert re.search(r"games/blitz/game\.yaml:\d+:\d+: error: not UTF-8 \(byte 0xe0\)", run.stdout)


def test_game_declarations_are_checked(project: Path, cli) -> None:
    game = project / "games/bless/game.yaml"
    edit(game, "slug: bless", "slug: blessed")
    run = cli(project, "validate", "bless")
    assert run.exit_code == 1
    assert "slug 'blessed' differs from its folder 'bless'" in run.stdout


def test_every_problem_in_one_run(project: Path, cli) -> None:
    edit(
        project / "games/bless/cards.yaml",
        "occhio: 3, karma: 2, preghiera: Eco}",
        "occhio: 99, karma: 2, preghiera: Eco}",
    )
    edit(project / "games/bldng/cards.yaml", "kind: evento", "kind: imprevisto")
    run = cli(project, "validate")
    assert run.exit_code == 1
    assert "occhio 99" in run.stdout and "unknown kind 'imprevisto'" in run.stdout


def test_json_format(project: Path, cli) -> None:
    edit(
        project / "games/bless/cards.yaml",
        "occhio: 3, karma: 2, preghiera: Eco}",
        "occhio: 99, karma: 2, preghiera: Eco}",
    )
    run = cli(project, "validate", "--format", "json")
    assert run.exit_code == 1
    report = json.loads(run.stdout)
    assert report["ok"] is False and report["errors"] == 1
    (problem,) = [p for p in report["problems"] if p["severity"] == "error"]
    assert problem["game"] == "bless" and problem["card"] == "re-luce"
    assert problem["file"] == "games/bless/cards.yaml" and problem["line"] > 1
    games = {(g["game"], g["deck"]): g for g in report["games"]}
    assert games[("bless", "LuceOmbra")]["cards"] == 62


def test_github_format(project: Path, cli) -> None:
    edit(
        project / "games/bless/cards.yaml",
        "occhio: 3, karma: 2, preghiera: Eco}",
        "occhio: 99, karma: 2, preghiera: Eco}",
    )
    run = cli(project, "validate", "bless", "--format", "github")
    assert run.exit_code == 1
    assert re.search(
        r"^::error file=games/bless/cards\.yaml,line=\d+,col=\d+,"
        r"title=bless/re-luce::occhio 99 is above the maximum",
        run.stdout,
        re.M,
    )


def test_bad_usage_exits_2(project: Path, cli) -> None:
    assert cli(project, "validate", "--format", "xml").exit_code == 2
    run = cli(project, "validate", "monopoli")
    assert run.exit_code == 2
    assert "unknown game 'monopoli'" in run.output


def test_not_a_project_is_one_line(tmp_path: Path, cli) -> None:
    run = cli(tmp_path, "validate")
    assert run.exit_code == 1
    assert run.stderr.strip().count("\n") == 0
    assert "holds no games/ folder" in run.stderr


def _line(output: str, needle: str) -> str:
    matches = [line for line in output.splitlines() if needle in line]
    assert matches, f"{needle!r} not in:\n{output}"
    return matches[0]


def test_a_picture_in_the_rules_is_named_as_not_shown(project: Path) -> None:
    """A picture beside rules.md is published nowhere (the site showed a broken image, the
    rulebook left it out): validate says so at its line, whatever its path."""
    rules = project / "games/mazzo/rules.md"
    (rules.parent / "schema.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    rules.write_text(rules.read_text("utf-8") + "\n![Il tavolo](schema.png)\n", encoding="utf-8")
    line = len(rules.read_text("utf-8").splitlines())
    run = invoke(project, "validate", "mazzo", "--no-layout")
    assert run.exit_code == 0, run.stdout
    assert (
        f"games/mazzo/rules.md:{line}:1: warning: picture 'schema.png' is not shown" in run.stdout
    ), run.stdout
