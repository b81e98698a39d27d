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
import zlib
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from pipeline.common.problems import Problem, SourceError, SourceErrors

FORMATS = ("csv", "xlsx", "ods")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
Rows = list[tuple[int, dict[str, str]]]

# A card table has hundreds of rows and a score of columns. Workbooks are zip files whose
# sheets can expand a thousandfold and name a cell at XFD1048576: these bounds are checked
# before anything is read (the sizes the zip declares, which zipfile enforces) or while
# reading (rows and columns), so a bomb is one line, not minutes and gigabytes.
MAX_UNZIPPED = 64 * 1024 * 1024
MAX_ROWS = 200_000
MAX_COLUMNS = 1_000


# Names a CSV file goes by: Excel's "Unicode text" is .txt, a tab-separated table .tsv.
CSV_SUFFIXES = ("", "csv", "txt", "tsv")


def table_format(path: Path, shown: str | None = None) -> str:
    """csv, xlsx or ods, from the file's name; a name that says another format (.xls,
    .numbers, .docx) is one line, not a binary file read as text or written as CSV."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return suffix
    if suffix in CSV_SUFFIXES:
        return "csv"
    raise SourceError(
        Problem(
            "error",
            f"a .{suffix} file is not a table (.csv, .tsv, .txt, .xlsx or .ods)",
            file=shown or str(path),
            hint="save it as .csv, .xlsx or .ods",
        )
    )


# --- reading ------------------------------------------------------------------------------


def read_table(
    path: Path, shown: str, delimiter: str | None = None, encoding: str | None = None
) -> tuple[list[str], Rows]:
    """The header and the rows (spreadsheet row number, column -> text) of a table file."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(Problem("error", "file not found", file=shown)) from None
    fmt = table_format(path, shown)
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
        # no apostrophe to take off: a workbook keeps text as text (see write_table)
        rows.append((number, {h: padded[i] for i, h in enumerate(header)}))
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
    except csv.Error as exc:
        raise _csv_problem(exc, shown, reader.line_num) from None
    rows: Rows = []
    for cells in _csv_rows(reader, shown):
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


def _csv_rows(reader: Any, shown: str) -> Iterator[list[str]]:
    """The reader's rows, a malformed one (a cell past csv's field limit, a stray NUL)
    as one line naming where it is."""
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _csv_problem(exc, shown, reader.line_num) from None
        if reader.line_num > MAX_ROWS:
            raise _too_big(shown, f"more than {MAX_ROWS:,} rows")
        yield cells


def _csv_problem(exc: csv.Error, shown: str, line: int) -> SourceError:
    what = str(exc)
    if "field larger than field limit" in what:
        what = f"a cell longer than {csv.field_size_limit():,} characters"
    return SourceError(Problem("error", f"not a readable CSV table: {what}", file=shown, line=line))


def _too_big(shown: str, what: str) -> SourceError:
    return SourceError(
        Problem(
            "error",
            f"not read: the table has {what}",
            file=shown,
            hint="a card table is a few thousand rows and columns at most; export it again",
        )
    )


def _open_zip(content: bytes, shown: str, kind: str) -> zipfile.ZipFile:
    """The workbook's zip, refused before any member is read when what it declares it
    expands to passes MAX_UNZIPPED (zipfile reads no more than a member declares)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        total = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise SourceError(Problem("error", f"not an {kind} ({exc})", file=shown)) from None
    if total > MAX_UNZIPPED:
        raise _too_big(shown, f"{total:,} bytes once unzipped (at most {MAX_UNZIPPED:,})")
    for info in archive.infolist():
        if info.flag_bits & 0x1:
            raise SourceError(
                Problem("error", f"not read: {info.filename!r} is password-protected", file=shown,
                        hint="save the spreadsheet without a password and import that file")
            )  # fmt: skip
    return archive


# What unzipping a damaged member raises: its stream (zlib.error), or a local header that
# contradicts the directory (RuntimeError: "encrypted"; NotImplementedError, a
# RuntimeError: "patched data", an unknown method).
UNZIP_ERRORS = (zipfile.BadZipFile, zlib.error, RuntimeError, EOFError, OSError)


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

    _open_zip(content, shown, ".xlsx workbook").close()
    try:
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        sheet = book.worksheets[0]
        # The sheet's declared size is not trusted (a cell at XFD1048576 pads every row
        # to 16,384 cells): each row is as long as its own cells, counted as it comes.
        sheet.reset_dimensions()
        grid: list[list[str]] = []
        for row in sheet.iter_rows(values_only=True):
            if len(grid) >= MAX_ROWS:
                raise _too_big(shown, f"more than {MAX_ROWS:,} rows")
            if len(row) > MAX_COLUMNS and any(v is not None for v in row[MAX_COLUMNS:]):
                raise _too_big(shown, f"a cell beyond column {MAX_COLUMNS:,}")
            grid.append([_cell_text(v) for v in row[:MAX_COLUMNS]])
    except (*UNZIP_ERRORS, KeyError, ValueError, IndexError) as exc:
        raise SourceError(Problem("error", f"not an .xlsx workbook ({exc})", file=shown)) from None
    except ElementTree.ParseError as exc:
        raise SourceError(
            Problem("error", f"not an .xlsx workbook: its sheet is damaged ({exc})", file=shown)
        ) from None
    return grid


ODS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}


def _q(prefix: str, name: str) -> str:
    return f"{{{ODS[prefix]}}}{name}"


def _ods_grid(content: bytes, shown: str) -> list[list[str]]:
    """The first sheet of an .ods file, read from its content.xml as a stream.

    Any damage (content.xml cut short, a number cell without its value) refuses the whole
    file: a table read up to the damage would look like rows deleted on import."""
    archive = _open_zip(content, shown, ".ods spreadsheet")
    try:
        with archive.open("content.xml") as stream:
            return _ods_rows(stream, shown)
    except KeyError:
        raise SourceError(
            Problem("error", "not an .ods spreadsheet (no content.xml)", file=shown)
        ) from None
    except (ElementTree.ParseError, *UNZIP_ERRORS) as exc:
        raise SourceError(
            Problem("error", f"not a whole .ods spreadsheet: content.xml is damaged ({exc})",
                    file=shown, hint="save the spreadsheet again and import that file")
        ) from None  # fmt: skip


def _ods_rows(stream: Any, shown: str) -> list[list[str]]:
    """The rows of the first sheet; the rest of the file is parsed too, so damage after
    the first sheet refuses the file as well."""
    grid: list[list[str]] = []
    tables = 0
    for event, element in ElementTree.iterparse(stream, events=("start", "end")):
        if element.tag == _q("table", "table"):
            tables += event == "start"
        elif event == "end" and element.tag == _q("table", "table-row") and tables == 1:
            cells = _ods_cells(element, shown, len(grid) + 1)
            repeat = _repeat(element, "number-rows-repeated", shown, len(grid) + 1)
            if cells:
                if len(grid) + repeat > MAX_ROWS:
                    raise _too_big(shown, f"more than {MAX_ROWS:,} rows")
                grid.extend([cells] * repeat)
            elif len(grid) + repeat <= MAX_ROWS:  # blank rows keep the numbering right
                grid.extend([[] for _ in range(repeat)])
            element.clear()
    return grid


def _repeat(element: ElementTree.Element, name: str, shown: str, row: int) -> int:
    value = element.get(_q("table", name), "1")
    if not value.isdigit() or not 0 < int(value) <= 2**31:
        raise SourceError(
            Problem("error", f"not a valid .ods spreadsheet: {name}=\"{value[:20]}\"",
                    file=shown, line=row)
        )  # fmt: skip
    return int(value)


def _ods_cells(row: ElementTree.Element, shown: str, number: int) -> list[str]:
    cells: list[str] = []
    blanks = 0  # repeated empty cells, added only when a filled one follows them
    for cell in row:
        if cell.tag not in (_q("table", "table-cell"), _q("table", "covered-table-cell")):
            continue
        repeat = _repeat(cell, "number-columns-repeated", shown, number)
        value = _ods_value(cell, shown, number, len(cells) + blanks + 1)
        if not value:
            blanks += repeat
            continue
        if len(cells) + blanks + repeat > MAX_COLUMNS:
            raise _too_big(shown, f"a cell beyond column {MAX_COLUMNS:,}")
        cells.extend([""] * blanks + [value] * repeat)
        blanks = 0
    return cells


def _ods_value(cell: ElementTree.Element, shown: str, row: int, column: int) -> str:
    kind = cell.get(_q("office", "value-type"))
    if kind in ("float", "percentage", "currency"):
        raw = cell.get(_q("office", "value"))
        try:
            return _number_text(Decimal(raw or "x"))
        except InvalidOperation:
            held = "no value" if raw is None else repr(raw[:40])
            raise SourceError(
                Problem("error", f"a number cell holds {held}", file=shown, line=row,
                        column=column, hint="type the number again in the spreadsheet")
            ) from None  # fmt: skip
    if kind == "boolean":
        return cell.get(_q("office", "boolean-value"), "")
    return "\n".join(_ods_text(p) for p in cell if p.tag == _q("text", "p"))


def _number_text(value: Decimal) -> str:
    """A number as the spreadsheet holds it, exactly: 12345678901234567 stays itself."""
    if not value.is_finite():
        raise InvalidOperation
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _ods_text(paragraph: ElementTree.Element) -> str:
    """A paragraph's text, with ODF's space, tab and line-break elements; walked with a
    stack, so spans nested thousands deep cannot exhaust Python's."""
    out: list[str] = []
    stack: list[ElementTree.Element | str] = [paragraph]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if item.tag == _q("text", "s"):
            count = item.get(_q("text", "c"), "1")
            out.append(" " * min(int(count) if count.isdigit() else 1, MAX_COLUMNS))
        elif item.tag == _q("text", "tab"):
            out.append("\t")
        elif item.tag == _q("text", "line-break"):
            out.append("\n")
        if item is not paragraph and item.tail:
            stack.append(item.tail)
        stack.extend(reversed(list(item)))
        if item.text:
            out.append(item.text)
    return "".join(out)


# --- writing ------------------------------------------------------------------------------


def neutralised(cell: str) -> str:
    """A text cell a spreadsheet will show as text, never run as a formula (OWASP's advice:
    a leading apostrophe); numbers stay numbers. A text that starts with an apostrophe
    gets one more, so importing it takes only the one export added."""
    if (cell.startswith(FORMULA_START) and not _is_number(cell)) or cell.startswith("'"):
        return "'" + cell
    return cell


def unneutralised(cell: str) -> str:
    if len(cell) > 1 and cell[0] == "'" and cell[1:].startswith((*FORMULA_START, "'")):
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
    codec = encoding.replace("-sig", "") if bom else encoding
    try:
        return (bom + text).encode(codec)
    except UnicodeEncodeError:
        raise SourceErrors(_unwritable(columns, cells, codec)) from None


def _unwritable(columns: Sequence[str], cells: list[list[str]], encoding: str) -> list[Problem]:
    """Each character of each card that `encoding` cannot hold: refused, never replaced by
    a '?' that an import would then write back into the sources."""
    code = list(columns).index("code") if "code" in columns else None
    problems = []
    for line, row in enumerate([list(columns), *cells], start=1):
        for name, cell in zip(columns, row, strict=False):
            missing = sorted({c for c in cell if not _encodable(c, encoding)})
            if missing:
                chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
                whose = f"card '{row[code]}'" if code is not None and line > 1 else "the header"
                problems.append(
                    Problem(
                        "error",
                        f"{whose}: {encoding} cannot hold {chars} in column {name}",
                        hint="export with --encoding utf-8-sig (Excel reads UTF-8 with a BOM)",
                    )
                )
    return problems


def _encodable(char: str, encoding: str) -> bool:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


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
