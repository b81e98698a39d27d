"""Spreadsheet round trip: export a game's cards as CSV/JSON, import an edited CSV back.

Columns are the game's SQL view's. Import rewrites games/<slug>/cards.yaml in place
(yamlwrite.replace_items: untouched cards keep their text, comments and layout, changed
ones are written as ruamel writes them), and writes nothing unless the whole game
validates with the new cards.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from ruamel.yaml.comments import CommentedMap
from sqlalchemy import text

from pipeline.common.lock import holding_lock
from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError, SourceErrors
from pipeline.common.project import Project
from pipeline.database.connection import open_project_db
from pipeline.sources import gamespec
from pipeline.sources.load import LoadedGame, load_game, load_game_with_cards
from pipeline.sources.yamlfile import YamlTooLarge, plain, read_yaml, remember_tree
from pipeline.sources.yamlwrite import Item, replace_items

from .files import Rows, read_table, write_table

ExportFormat = Literal["csv", "json", "xlsx", "ods"]
# 5, 5,0 and 5.0 are all 5 (Excel's decimal comma); 18 digits at most, as the database
# holds (a 64-bit integer)
WHOLE = re.compile(r"[+-]?\d{1,18}(?:[.,]0+)?")


def export_rows(project: Project, slug: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The game's view, read from the database: column names and rows."""
    with open_project_db(project) as engine, engine.connect() as conn:
        exists = conn.execute(text("SELECT 1 FROM game WHERE slug = :s"), {"s": slug}).first()
        if exists is None:
            raise SourceError(
                Problem(
                    "error", f"game '{slug}' is not in the database", hint="run `cartiera db build`"
                )
            )
        result = conn.execute(text(f'SELECT * FROM "{gamespec.view_name(slug)}" ORDER BY number'))
        columns = list(result.keys())
        return columns, [dict(row._mapping) for row in result]


def export(
    project: Project,
    slug: str,
    fmt: ExportFormat,
    delimiter: str = ",",
    encoding: str = "utf-8",
) -> bytes:
    """The game's cards as a file: CSV (any delimiter and encoding), JSON, .xlsx or .ods."""
    columns, rows = export_rows(project, slug)
    if fmt == "json":
        for row in rows:
            if row.get("data") is not None:
                row["data"] = json.loads(row["data"])
        return (json.dumps(rows, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    table = [[row[c] for c in columns] for row in rows]
    return write_table(columns, table, fmt, delimiter, encoding)


@holding_lock("import")
def import_csv(
    project: Project,
    slug: str,
    path: Path,
    delimiter: str | None = None,
    encoding: str | None = None,
) -> int:
    """Apply an edited table (CSV, .xlsx or .ods) to games/<slug>/cards.yaml; return how
    many cards changed. Nothing is written unless every row and the whole game are valid."""
    loaded = load_game(project, slug)
    if loaded.game is None or not loaded.ok:
        raise SourceError(next(p for p in loaded.problems if p.is_error))
    shown = str(path)
    header, rows = read_table(path, shown, delimiter, encoding)
    _check_header(header, shown, loaded)
    _check_cells(header, rows, shown, loaded)
    cards_path = project.games_dir / slug / "cards.yaml"
    # No disk cache: its trees keep lines but not comments and styles, and this one is
    # written back.
    doc = read_yaml(cards_path, project.rel(cards_path), slug)
    changed, items = _apply(doc.tree, rows, loaded, shown)
    new_text = replace_items(doc.text, doc.tree, "cards", items)
    remember_tree(new_text, doc.tree)
    _validate_candidate(project, slug, new_text, rows, shown)
    atomic_write(cards_path, new_text.encode("utf-8"))
    return changed


def _check_header(header: list[str], shown: str, loaded: LoadedGame) -> None:
    game = loaded.game
    assert game is not None
    known = {
        *gamespec.FIXED_COLUMNS,
        *game.attributes,
        "data",
        "note",
        *(gamespec.text_column(k) for k in game.texts),
    }
    for index, name in enumerate(header, start=1):
        if name not in known:
            raise SourceError(
                Problem(
                    "error",
                    f"unknown column '{name}'",
                    file=shown,
                    line=1,
                    column=index,
                    game=loaded.slug,
                    hint="use the columns of `cartiera export`",
                )
            )
    for required in ("number", "code", "name", "kind"):
        if required not in header:
            raise SourceError(
                Problem(
                    "error", f"missing column '{required}'", file=shown, line=1, game=loaded.slug
                )
            )


def _check_cells(header: list[str], rows: Rows, shown: str, loaded: LoadedGame) -> None:
    """Every cell that cannot hold its column's value, by row and column, all at once."""
    game = loaded.game
    assert game is not None
    numbers = {"number", "copies", *(k for k, a in game.attributes.items() if a.type == "int")}
    enums = {k: a for k, a in game.attributes.items() if a.type == "enum" and a.values}
    # only the columns with a check, each once per row (a 100,000-row table)
    checked = [(i, n, n in numbers, enums.get(n)) for i, n in enumerate(header, start=1)]
    checked = [c for c in checked if c[2] or c[3] is not None]
    problems = []
    for line, row in rows:
        for index, name, number, attr in checked:
            cell = row.get(name, "").strip()
            if not cell:
                continue
            where: dict[str, Any] = {"file": shown, "line": line, "column": index}
            where.update(game=loaded.slug, card=row.get("code") or None)
            if number:
                if WHOLE.fullmatch(cell) is None:
                    message = (
                        f"column {name}: '{cell[:40]}' is not a whole number of 18 digits or fewer"
                    )
                    problems.append(Problem("error", message, hint="write e.g. 5", **where))
                    continue
                row[name] = whole_number(cell)
            if attr is not None and attr.values:
                values = gamespec.from_cell(attr, cell)
                for value in values if isinstance(values, list) else [values]:
                    if value not in attr.values:
                        message = f"column {name}: '{value}' is not one of {', '.join(attr.values)}"
                        problems.append(Problem("error", message, **where))
    if problems:
        raise SourceErrors(problems)


def whole_number(cell: str) -> str:
    """A cell WHOLE accepts, as digits: exact at any length (no float on the way, so
    12345678901234567 stays itself and 400 digits are no overflow)."""
    digits = re.split(r"[.,]", cell, maxsplit=1)[0].lstrip("+")
    return str(int(digits)) if digits.lstrip("-") else "0"


def _card_fields(row: dict[str, str], loaded: LoadedGame, line: int, shown: str) -> dict[str, Any]:
    """The cards.yaml fields a CSV row stands for (None: absent)."""
    game = loaded.game
    assert game is not None

    def integer(name: str) -> int | str | None:
        cell = row.get(name, "").strip()
        if not cell:
            return None
        try:
            return int(cell)
        except ValueError:
            return cell

    data: Any = None
    if row.get("data", "").strip():
        try:
            data = plain(json.loads(row["data"]))  # within the limits of a YAML source
        except json.JSONDecodeError as exc:
            why = f"is not JSON ({exc.msg})"
        except (RecursionError, YamlTooLarge) as exc:
            why = f"is too deep or too large ({exc or 'nested too deep'})"
        else:
            why = ""
        if why:
            raise SourceError(
                Problem(
                    "error",
                    f"column data {why}",
                    file=shown,
                    line=line,
                    game=loaded.slug,
                    card=row.get("code"),
                )
            )
    attributes = {}
    for key, attr in game.attributes.items():
        if key in row:
            value = gamespec.from_cell(attr, row[key])
            if value is not None:
                attributes[key] = value
    texts = {}
    for key in game.texts:
        cell = row.get(gamespec.text_column(key), "")
        if cell.strip():
            texts[key] = cell
    return {
        "number": integer("number"),
        "id": row["code"].strip(),
        "name": row["name"],
        "kind": row["kind"].strip(),
        "copies": integer("copies"),
        "deck": row.get("deck", "").strip() or None,
        "status": row.get("status", "").strip() or None,
        "attributes": attributes,
        "text": texts,
        "data": data,
        "note": row.get("note") or None,
    }


def _apply(tree: Any, rows: Rows, loaded: LoadedGame, shown: str) -> tuple[int, list[Item]]:
    """The cards of cards.yaml's tree updated from the rows (only what differs is
    touched), in the rows' order, and how many cards changed or went."""
    game = loaded.game
    assert game is not None
    first_deck = next(iter(game.decks))
    entries = tree["cards"]
    by_id = {str(entry.get("id")): (index, entry) for index, entry in enumerate(entries)}
    seen: set[str] = set()
    changed = 0
    items: list[Item] = []
    for line, row in rows:
        fields = _card_fields(row, loaded, line, shown)
        card_id = fields["id"]
        if card_id in seen:
            raise SourceError(
                Problem(
                    "error",
                    f"card '{card_id}' appears twice",
                    file=shown,
                    line=line,
                    game=loaded.slug,
                    card=card_id,
                )
            )
        seen.add(card_id)
        origin, entry = by_id.get(card_id, (None, None))
        old = entry if entry is not None else {}
        deck = fields["deck"] or first_deck
        deck_status = game.decks[deck].status if deck in game.decks else None
        wanted: dict[str, Any] = {
            "number": fields["number"],
            "id": card_id,
            "name": fields["name"],
            "kind": fields["kind"],
            "copies": fields["copies"] if fields["copies"] != 1 or "copies" in old else None,
            "deck": fields["deck"] if deck != first_deck or "deck" in old else None,
            "status": fields["status"]
            if fields["status"] != deck_status or "status" in old
            else None,
            "attributes": fields["attributes"],
            "text": fields["text"],
            "data": fields["data"],
            "note": fields["note"],
        }
        if entry is None:  # a new card: its fields as they come, as plain data (a tenth of
            # the time of a CommentedMap, and written the same)
            entry = {k: v for k, v in wanted.items() if v is not None and v != {}}
            touched = True
        else:
            touched = _update(entry, wanted)
        changed += touched
        items.append(Item(entry, origin, touched))
    removed = len([e for e in entries if str(e.get("id")) not in seen])
    return changed + removed, items


def _update(entry: CommentedMap, wanted: dict[str, Any]) -> bool:
    """Set each wanted field whose value differs; keep the rest of the node as it is."""
    touched = False
    for key, value in wanted.items():
        if key in ("attributes", "text") and key in entry:
            touched |= _update_map(entry[key], value)
            continue
        if value is None or value == {}:
            if key in entry:
                del entry[key]
                touched = True
        elif key not in entry or plain(entry[key]) != value:
            entry[key] = value
            touched = True
    return touched


def _update_map(node: CommentedMap, wanted: dict[str, Any]) -> bool:
    touched = False
    for key in [k for k in node if k not in wanted]:
        del node[key]
        touched = True
    for key, value in wanted.items():
        if plain(node.get(key)) != value:
            node[key] = value
            touched = True
    return touched


def _validate_candidate(project: Project, slug: str, new_text: str, rows: Rows, shown: str) -> None:
    """Load the game with the new cards.yaml in a scratch copy; raise with every error."""
    line_of = {row.get("code", "").strip(): line for line, row in rows}
    candidate = load_game_with_cards(project, slug, new_text.encode("utf-8"))
    errors = [p for p in candidate.problems if p.is_error]
    if errors:
        raise SourceErrors(
            [
                replace(p, file=shown, line=line_of[p.card], column=None)
                if p.card in line_of
                else p
                for p in errors
            ]
        )
