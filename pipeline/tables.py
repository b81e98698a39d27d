"""Spreadsheet files as designers really have them: CSV from any Excel, .xlsx and .ods.

Reading gives a header and rows of text cells, each row with the number a spreadsheet shows
for it; writing takes the same. CSV is read in whatever encoding and delimiter Excel wrote
(UTF-8 with or without BOM, Windows-1252; comma, semicolon or tab; CRLF), detected or named.
Text cells that a spreadsheet would run as a formula are neutralised on export.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .problems import Problem, SourceError

FORMATS = ("csv", "xlsx", "ods")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
Rows = list[tuple[int, dict[str, str]]]


def table_format(path: Path) -> str:
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else "csv"


# --- reading ------------------------------------------------------------------------------


def read_table(
    path: Path, shown: str, delimiter: str | None = None, encoding: str | None = None
) -> tuple[list[str], Rows]:
    """The header and the rows (spreadsheet row number, column -> text) of a table file."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(Problem("error", "file not found", file=shown)) from None
    fmt = table_format(path)
    if fmt == "xlsx":
        grid = _xlsx_grid(content, shown)
    elif fmt == "ods":
        grid = _ods_grid(content, shown)
    else:
        return _read_csv(content, shown, delimiter, encoding)
    if not any(cell.strip() for row in grid for cell in row):
        raise SourceError(Problem("error", "the sheet is empty", file=shown))
    header = [h.strip() for h in grid[0]]
    while header and not header[-1]:
        header.pop()
    rows: Rows = []
    for number, cells in enumerate(grid[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if any(c.strip() for c in cells[len(header) :]):
            raise SourceError(
                Problem("error", "row has more cells than the header", file=shown, line=number)
            )
        padded = [*cells, *[""] * (len(header) - len(cells))]
        rows.append((number, {h: unneutralised(padded[i]) for i, h in enumerate(header)}))
    return header, rows


def decode(content: bytes, shown: str, encoding: str | None) -> str:
    """Text of a CSV file: the named encoding, else UTF-8 (BOM or not), else Windows-1252."""
    if encoding:
        try:
            return content.decode(
                "utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding
            )
        except (UnicodeDecodeError, LookupError) as exc:
            raise SourceError(
                Problem("error", f"cannot read it as {encoding}: {exc}", file=shown,
                        hint="name the encoding the spreadsheet saved with (--encoding)")
            ) from None  # fmt: skip
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("cp1252", errors="replace")


def _read_csv(
    content: bytes, shown: str, delimiter: str | None, encoding: str | None
) -> tuple[list[str], Rows]:
    text = decode(content, shown, encoding)
    if delimiter is None:
        first = text.splitlines()[0] if text else ""
        try:
            delimiter = csv.Sniffer().sniff(first, delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise SourceError(Problem("error", "the file is empty", file=shown)) from None
    rows: Rows = []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) > len(header):
            raise SourceError(
                Problem("error", "row has more cells than the header", file=shown,
                        line=reader.line_num)
            )  # fmt: skip
        padded = [*cells, *[""] * (len(header) - len(cells))]
        rows.append((reader.line_num, {h: unneutralised(padded[i]) for i, h in enumerate(header)}))
    return header, rows


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _xlsx_grid(content: bytes, shown: str) -> list[list[str]]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise SourceError(Problem("error", f"not an .xlsx workbook ({exc})", file=shown)) from None
    sheet = book.worksheets[0]
    return [[_cell_text(v) for v in row] for row in sheet.iter_rows(values_only=True)]


def _ods_grid(content: bytes, shown: str) -> list[list[str]]:
    from odf import opendocument, table, teletype

    try:
        doc = opendocument.load(io.BytesIO(content))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise SourceError(
            Problem("error", f"not an .ods spreadsheet ({exc})", file=shown)
        ) from None
    sheets = doc.spreadsheet.getElementsByType(table.Table)
    if not sheets:
        return []
    grid = []
    for row in sheets[0].getElementsByType(table.TableRow):
        cells: list[str] = []
        for cell in row.getElementsByType(table.TableCell):
            repeat = int(cell.getAttribute("numbercolumnsrepeated") or 1)
            kind = cell.getAttribute("valuetype")
            if kind in ("float", "percentage", "currency"):
                value = _cell_text(float(cell.getAttribute("value")))
            elif kind == "boolean":
                value = cell.getAttribute("booleanvalue")
            else:
                value = "\n".join(teletype.extractText(p) for p in cell.childNodes)
            cells.extend([value] * min(repeat, 1024))
        while cells and not cells[-1]:
            cells.pop()
        grid.append(cells)  # a repeated row is an empty one (trailing blank rows)
    return grid


# --- writing ------------------------------------------------------------------------------


def neutralised(cell: str) -> str:
    """A text cell a spreadsheet will show as text, never run as a formula (OWASP's advice:
    a leading apostrophe); numbers stay numbers."""
    if cell.startswith(FORMULA_START) and not _is_number(cell):
        return "'" + cell
    return cell


def unneutralised(cell: str) -> str:
    if len(cell) > 1 and cell[0] == "'" and cell[1:].startswith(FORMULA_START):
        return cell[1:]
    return cell


def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", "."))
    except ValueError:
        return False
    return True


def write_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    delimiter: str = ",",
    encoding: str = "utf-8",
) -> bytes:
    """The table as a file's bytes. In CSV, text that a spreadsheet would run as a formula
    gets a leading apostrophe; in .xlsx and .ods it is a string cell, which none runs."""
    cells = [[_cell_text(v) for v in row] for row in rows]
    if fmt == "xlsx":
        return _xlsx_bytes(columns, cells)
    if fmt == "ods":
        return _ods_bytes(columns, cells)
    out = io.StringIO()
    writer = csv.writer(
        out, delimiter=delimiter, lineterminator="\r\n" if delimiter == ";" else "\n"
    )
    writer.writerow(columns)
    writer.writerows([[neutralised(c) for c in row] for row in cells])
    text = out.getvalue()
    bom = "\ufeff" if encoding.lower() in ("utf-8-sig",) else ""
    return (bom + text).encode(encoding.replace("-sig", "") if bom else encoding, errors="replace")


def _typed(cell: str) -> int | str:
    return int(cell) if cell.lstrip("-").isdigit() and len(cell) < 16 else cell


def _xlsx_bytes(columns: Sequence[str], rows: list[list[str]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "carte"
    sheet.append(list(columns))
    for row in rows:
        sheet.append([_typed(c) for c in row])
    for line in sheet.iter_rows(min_row=2):
        for cell in line:
            if isinstance(cell.value, str):
                cell.data_type = "s"  # a string cell, which no spreadsheet runs as a formula
    out = io.BytesIO()
    book.save(out)
    return _fixed_zip_dates(out.getvalue())


def _ods_bytes(columns: Sequence[str], rows: list[list[str]]) -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    sheet = Table(name="carte")
    for row in [list(columns), *rows]:
        line = TableRow()
        for cell in row:
            typed = _typed(cell)
            if isinstance(typed, int):
                node = TableCell(valuetype="float", value=typed)
                node.addElement(P(text=str(typed)))
            else:
                node = TableCell(valuetype="string")  # text: never run as a formula
                node.addElement(P(text=typed))
            line.addElement(node)
        sheet.addElement(line)
    doc.spreadsheet.addElement(sheet)
    out = io.BytesIO()
    doc.write(out)
    return _fixed_zip_dates(out.getvalue())


def _fixed_zip_dates(content: bytes) -> bytes:
    """The same zip with every entry dated 1980-01-01: the same table gives the same bytes."""
    source = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.compress_type = info.compress_type
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)
    return out.getvalue()
