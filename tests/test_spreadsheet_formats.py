"""Spreadsheets as designers have them: Italian Excel CSV, .xlsx and .ods, both ways."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import edit, invoke

CARDS = Path("games") / "bless" / "cards.yaml"


def _rows(content: bytes, encoding: str, delimiter: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode(encoding), newline=""), delimiter=delimiter))


def _write_rows(path: Path, rows: list[list[str]], encoding: str, delimiter: str) -> None:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    path.write_bytes(out.getvalue().encode(encoding))


def test_italian_excel_csv_semicolons_cp1252_crlf_decimal_comma(built: Path) -> None:
    target = built / "carte.csv"
    run = invoke(built, "export", "bless", "--delimiter", ";", "--encoding", "cp1252",
                 "-o", str(target))  # fmt: skip
    assert run.exit_code == 0, run.output
    raw = target.read_bytes()
    assert b"\r\n" in raw and raw.splitlines()[0].count(b";") > 5
    rows = _rows(raw, "cp1252", ";")
    header = rows[0]
    row = next(r for r in rows if r[header.index("code")] == "re-luce")
    row[header.index("name")] = "Re Luce già visto"
    row[header.index("occhio")] = "5,0"  # as Excel writes a number with a decimal comma
    _write_rows(target, rows, "cp1252", ";")
    run = invoke(built, "import", "bless", str(target))  # delimiter and encoding detected
    assert run.exit_code == 0, run.output
    assert "1 cards changed" in run.stdout
    text = (built / CARDS).read_text("utf-8")
    assert "name: Re Luce già visto" in text
    assert "occhio: 5," in text or "occhio: 5}" in text


def test_utf8_with_bom_is_read(built: Path) -> None:
    target = built / "carte.csv"
    assert invoke(built, "export", "bless", "-o", str(target)).exit_code == 0
    rows = _rows(target.read_bytes(), "utf-8", ",")
    header = rows[0]
    next(r for r in rows if r[header.index("code")] == "re-luce")[header.index("name")] = "Ré Luce"
    _write_rows(target, rows, "utf-8-sig", ",")
    assert target.read_bytes().startswith(b"\xef\xbb\xbf")
    run = invoke(built, "import", "bless", str(target))
    assert run.exit_code == 0, run.output
    assert "name: Ré Luce" in (built / CARDS).read_text("utf-8")


@pytest.mark.parametrize("suffix", ["xlsx", "ods"])
def test_workbooks_both_ways(built: Path, suffix: str) -> None:
    target = built / f"carte.{suffix}"
    before = (built / CARDS).read_bytes()
    assert invoke(built, "export", "bless", "-o", str(target)).exit_code == 0
    unchanged = invoke(built, "import", "bless", str(target))
    assert unchanged.exit_code == 0, unchanged.output
    assert "0 cards changed" in unchanged.stdout
    assert (built / CARDS).read_bytes() == before
    if suffix == "xlsx":
        import openpyxl

        book = openpyxl.load_workbook(target)
        sheet = book.active
        header = [c.value for c in sheet[1]]
        assert isinstance(sheet.cell(2, header.index("occhio") + 1).value, int)
        sheet.cell(2, header.index("name") + 1).value = "Re Luce modificato"
        book.save(target)
    else:
        from odf import opendocument, table, teletype
        from odf.text import P

        doc = opendocument.load(str(target))
        sheet = doc.spreadsheet.getElementsByType(table.Table)[0]
        rows = sheet.getElementsByType(table.TableRow)
        header = [teletype.extractText(c) for c in rows[0].getElementsByType(table.TableCell)]
        cell = rows[1].getElementsByType(table.TableCell)[header.index("name")]
        for child in list(cell.childNodes):
            cell.removeChild(child)
        cell.addElement(P(text="Re Luce modificato"))
        doc.save(str(target))
    run = invoke(built, "import", "bless", str(target))
    assert run.exit_code == 0, run.output
    assert "name: Re Luce modificato" in (built / CARDS).read_text("utf-8")


def test_formulas_are_neutralised_on_export_and_restored_on_import(built: Path) -> None:
    edit(built / CARDS, "name: Re Luce", "name: '=HYPERLINK(\"http://x\")'")
    assert invoke(built, "db", "build").exit_code == 0
    before = (built / CARDS).read_bytes()
    target = built / "carte.csv"
    assert invoke(built, "export", "bless", "-o", str(target)).exit_code == 0
    rows = _rows(target.read_bytes(), "utf-8", ",")
    names = [r[rows[0].index("name")] for r in rows[1:]]
    assert '\'=HYPERLINK("http://x")' in names
    assert not any(n.startswith(("=", "+", "@")) for n in names)
    occhio = [r[rows[0].index("occhio")] for r in rows[1:]]
    assert all(v.lstrip("-").isdigit() for v in occhio)  # numbers are not touched
    run = invoke(built, "import", "bless", str(target))
    assert run.exit_code == 0 and "0 cards changed" in run.stdout, run.output
    assert (built / CARDS).read_bytes() == before
    book = built / "carte.xlsx"
    assert invoke(built, "export", "bless", "-o", str(book)).exit_code == 0
    import openpyxl

    sheet = openpyxl.load_workbook(book).active
    cells = [c for row in sheet.iter_rows() for c in row if str(c.value).startswith("=")]
    assert cells and all(c.data_type == "s" for c in cells)  # a string, never a formula


def test_every_bad_cell_by_row_and_column_and_nothing_written(built: Path) -> None:
    target = built / "carte.csv"
    assert invoke(built, "export", "bless", "--delimiter", ";", "-o", str(target)).exit_code == 0
    rows = _rows(target.read_bytes(), "utf-8", ";")
    header = rows[0]
    rows[3][header.index("occhio")] = "alto"
    rows[5][header.index("forma")] = "Grigio"
    _write_rows(target, rows, "utf-8", ";")
    before = (built / CARDS).read_bytes()
    run = invoke(built, "import", "bless", str(target))
    assert run.exit_code == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{target}:4:{header.index('occhio') + 1}: error:")
    assert "'alto' is not a whole number" in lines[0]
    assert lines[1].startswith(f"{target}:6:{header.index('forma') + 1}: error:")
    assert "'Grigio' is not one of Luce, Ombra, Duale" in lines[1]
    assert (built / CARDS).read_bytes() == before
    assert "Traceback" not in run.output


def test_bad_options_are_usage_errors(built: Path) -> None:
    run = invoke(built, "export", "bless", "--format", "xlsx")
    assert run.exit_code == 2
    assert "invalid value for '--out' / '-o': an .xlsx workbook needs --out FILE" in run.stderr
    run = invoke(built, "export", "bless", "--delimiter", ";;")
    assert run.exit_code == 2 and "invalid value for '--delimiter': give one" in run.stderr
    assert invoke(built, "export", "bless", "--encoding", "nessuna").exit_code == 2
    broken = built / "rotto.xlsx"
    broken.write_bytes(b"not a workbook")
    run = invoke(built, "import", "bless", str(broken))
    assert run.exit_code == 1 and "not an .xlsx workbook" in run.stderr


def test_a_tab_separated_file_is_written_with_tabs_and_read_back(built: Path) -> None:
    target = built / "carte.tsv"
    assert invoke(built, "export", "bless", "-o", str(target)).exit_code == 0
    rows = _rows(target.read_bytes(), "utf-8", "\t")
    assert len(rows) == 63 and "occhio" in rows[0]  # the header and Bless's 62 cards
    before = (built / CARDS).read_bytes()
    run = invoke(built, "import", "bless", str(target))
    assert run.exit_code == 0 and "0 cards changed" in run.stdout, run.output
    assert (built / CARDS).read_bytes() == before


def test_a_file_named_for_another_format_is_refused_not_guessed(built: Path) -> None:
    # `-o carte.docx` wrote CSV under a Word name; an old .xls was decoded as text
    target = built / "carte.docx"
    run = invoke(built, "export", "bless", "-o", str(target))
    assert run.exit_code == 2 and not target.exists()
    assert run.stderr.strip() == (
        "cartiera export: error: invalid value for '--out' / '-o': a .docx file is not a table"
        " (.csv, .tsv, .txt, .xlsx or .ods) (fix: name it .csv, .xlsx, .ods or .json,"
        " or say which with --format)"
    )
    forced = invoke(built, "export", "bless", "-o", str(target), "--format", "csv")
    assert forced.exit_code == 0 and target.read_bytes().startswith(b"number,")
    old = built / "carte.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))  # an OLE2 header
    run = invoke(built, "import", "bless", str(old))
    assert run.exit_code == 1 and "Traceback" not in run.output
    assert run.stderr.splitlines() == [
        f"{old}: error: a .xls file is not a table (.csv, .tsv, .txt, .xlsx or .ods)"
        " (fix: save it as .csv, .xlsx or .ods)"
    ]
