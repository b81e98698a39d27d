"""One embedded subset per font file per output PDF, named after its own glyphs.

Every face comes from its own small WeasyPrint PDF with its own font subsets, all under
one name per font ("ABCDEF+Inter-Bold"). Imposed together they would carry many programs
under one name, which preflights reject and some RIPs draw with missing glyphs. WeasyPrint
keeps glyph ids when it subsets, so every subset of a font is compatible with one made
from the installed font for the union of the glyphs: that one replaces them all, and its
tag comes from its bytes, so two different programs never share a name and the same
glyphs always give the same bytes, however the faces were batched.
"""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pikepdf
from fontTools import subset
from fontTools.ttLib import TTFont

from pipeline.common.output import atomic_write

_BFCHAR = re.compile(rb"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>")


@cache
def installed_fonts() -> dict[str, Path]:
    """PostScript name -> font file, from fontconfig (what WeasyPrint found them with)."""
    try:
        listing = subprocess.run(
            ["fc-list", "--format", "%{postscriptname}\t%{file}\n"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    found: dict[str, Path] = {}
    for line in sorted(listing.splitlines()):
        name, _, path = line.partition("\t")
        if name and path:
            found.setdefault(name, Path(path))
    return found


@dataclass
class _Group:
    """Every Type0 font of one output cut from the same installed font file."""

    members: list[pikepdf.Object] = field(default_factory=list)
    widths: dict[int, float] = field(default_factory=dict)


def _widths(array: pikepdf.Array) -> dict[int, float]:
    """The W array of a CIDFont: `c [w1 w2 …]` and `cfirst clast w` runs."""
    out: dict[int, float] = {}
    items = list(array)
    i = 0
    while i < len(items):
        first = int(items[i])
        if isinstance(items[i + 1], pikepdf.Array):
            for offset, width in enumerate(items[i + 1]):
                out[first + offset] = float(width)
            i += 2
        else:
            for cid in range(first, int(items[i + 1]) + 1):
                out[cid] = float(items[i + 2])
            i += 3
    return out


def _to_unicode(stream: pikepdf.Object) -> dict[int, str]:
    data = stream.read_bytes()
    out: dict[int, str] = {}
    for gid, text in _BFCHAR.findall(data):
        out.setdefault(int(gid, 16), bytes.fromhex(text.decode()).decode("utf-16-be", "replace"))
    return out


def _program(font: pikepdf.Object) -> tuple[pikepdf.Object, str] | None:
    descriptor = font.DescendantFonts[0].get("/FontDescriptor")
    if descriptor is None:
        return None
    for key in ("/FontFile3", "/FontFile2"):
        if key in descriptor:
            return descriptor[key], key
    return None


def _original(program: bytes) -> Path | None:
    """The installed font a subset was cut from, by its PostScript name."""
    try:
        name = TTFont(io.BytesIO(program), lazy=True)["name"].getDebugName(6)
    except Exception:  # a program fontTools cannot read: leave it as it is
        return None
    return installed_fonts().get(name or "")


def subset_font(original: Path, gids: list[int], cache_dir: Path | None) -> bytes:
    """The installed font cut down to `gids`, keeping glyph ids (cached by content)."""
    stat = original.stat()
    key = hashlib.sha256(
        f"1|{original}|{stat.st_size}|{stat.st_mtime_ns}|{gids}".encode()
    ).hexdigest()[:24]
    cached = cache_dir / f"{key}.font" if cache_dir else None
    if cached is not None and cached.exists():
        return cached.read_bytes()
    options = subset.Options(
        retain_gids=True,
        desubroutinize=True,
        hinting=False,
        notdef_outline=True,
        name_IDs=["*"],
        name_languages=["*"],
        ignore_missing_glyphs=True,
    )
    options.drop_tables += ["GSUB", "GPOS", "SVG", "BASE", "DSIG", "JSTF", "FFTM"]
    font = TTFont(original, recalcTimestamp=False)
    # The subsetter drops the layout tables only after decompiling them (fontTools
    # "compacts" GSUB/GPOS on entry), which was most of its time: an Inter subset took
    # 0.35 s, 0.12 s when they are never read. Dropped here as the subsetter would drop
    # them, `kern` too when GPOS is there (legacy_kern is off): the same bytes.
    if "GPOS" in font and "kern" in font:
        del font["kern"]
    for tag in ("GSUB", "GPOS"):
        if tag in font:
            del font[tag]
    subsetter = subset.Subsetter(options)
    subsetter.populate(gids=gids)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    data = out.getvalue()
    if cached is not None:
        atomic_write(cached, data)
    return data


def _tag(data: bytes) -> str:
    return "".join(chr(65 + b % 26) for b in hashlib.sha256(data).digest()[:6])


def _cmap(unicode: dict[int, str]) -> bytes:
    lines = [
        b"/CIDInit /ProcSet findresource begin",
        b"12 dict begin",
        b"begincmap",
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        b"/CMapName /Adobe-Identity-UCS def",
        b"/CMapType 2 def",
        b"1 begincodespacerange",
        b"<0000> <ffff>",
        b"endcodespacerange",
    ]
    items = sorted(unicode.items())
    for start in range(0, len(items), 100):
        chunk = items[start : start + 100]
        lines.append(f"{len(chunk)} beginbfchar".encode())
        lines.extend(f"<{g:04x}> <{t.encode('utf-16-be').hex()}>".encode() for g, t in chunk)
        lines.append(b"endbfchar")
    lines += [b"endcmap", b"CMapName currentdict /CMap defineresource pop", b"end", b"end"]
    return b"\n".join(lines)


def _w_array(widths: dict[int, float]) -> pikepdf.Array:
    out: list[object] = []
    run: list[float] = []
    previous = None
    for cid in sorted(widths):
        if previous is None or cid != previous + 1:
            if run:
                out.append(pikepdf.Array(run))
            out.append(cid)
            run = []
        run.append(round(widths[cid], 3))
        previous = cid
    if run:
        out.append(pikepdf.Array(run))
    return pikepdf.Array(out)


def _merged(
    pdf: pikepdf.Pdf, original: Path, group: _Group, cache_dir: Path | None
) -> dict[tuple[int, int], pikepdf.Object]:
    """One program for every member of the group, and one Type0 font per name the
    members had (a small-caps face maps the same glyphs to other text): member objgen
    -> its replacement."""
    first = group.members[0]
    found = _program(first)
    assert found is not None  # members are chosen for having a program
    program_key = found[1]
    data = subset_font(original, sorted({0, *group.widths}), cache_dir)
    tag = _tag(data)
    extra = (
        {"/Subtype": pikepdf.Name.OpenType}
        if program_key == "/FontFile3"
        else {"/Length1": len(data)}
    )
    program = pdf.make_stream(data, pikepdf.Dictionary(extra))
    by_name: dict[str, list[pikepdf.Object]] = {}
    for member in group.members:
        by_name.setdefault(str(member.BaseFont)[1:].split("+", 1)[-1], []).append(member)
    out: dict[tuple[int, int], pikepdf.Object] = {}
    for name in sorted(by_name):
        members = by_name[name]
        unicode: dict[int, str] = {}
        for member in members:
            if "/ToUnicode" in member:
                for gid, text in _to_unicode(member.ToUnicode).items():
                    unicode.setdefault(gid, text)
        base = pikepdf.Name(f"/{tag}+{name}")
        descendant = members[0].DescendantFonts[0]
        descriptor = pikepdf.Dictionary(
            {k: v for k, v in descendant.FontDescriptor.items() if k != program_key}
        )
        descriptor.FontName = base
        descriptor[program_key] = program
        cid_font = pikepdf.Dictionary({k: v for k, v in descendant.items()})
        cid_font.BaseFont = base
        cid_font.FontDescriptor = pdf.make_indirect(descriptor)
        cid_font.W = _w_array(group.widths)
        font = pikepdf.Dictionary({k: v for k, v in members[0].items()})
        font.BaseFont = base
        font.DescendantFonts = pikepdf.Array([pdf.make_indirect(cid_font)])
        font.ToUnicode = pdf.make_stream(_cmap(unicode))
        merged = pdf.make_indirect(font)
        for member in members:
            out[member.objgen] = merged
    return out


def _font_dicts(obj: pikepdf.Object) -> list[pikepdf.Dictionary]:
    """The /Font resource dictionaries of `obj` (a page, a form or a resources dict),
    direct ones included: indirect resources are visited on their own."""
    if isinstance(obj, pikepdf.Stream):
        obj = obj.stream_dict
    if not isinstance(obj, pikepdf.Dictionary):
        return []
    found = []
    fonts = obj.get("/Font")
    if isinstance(fonts, pikepdf.Dictionary):
        found.append(fonts)
    resources = obj.get("/Resources")
    if isinstance(resources, pikepdf.Dictionary) and not resources.is_indirect:
        found.extend(_font_dicts(resources))
    return found


def unify_fonts(pdf: pikepdf.Pdf, cache_dir: Path | None = None) -> None:
    """Replace every font subset of `pdf` by one per installed font file, with a name
    unique to its program (a font we cannot trace to a file is left as it is)."""
    groups: dict[Path, _Group] = {}
    originals: dict[bytes, Path | None] = {}  # program digest -> installed font file
    for obj in pdf.objects:
        if not (
            isinstance(obj, pikepdf.Dictionary)
            and obj.get("/Type") == pikepdf.Name.Font
            and obj.get("/Subtype") == pikepdf.Name.Type0
        ):
            continue
        found = _program(obj)
        if found is None:
            continue
        program = found[0].read_bytes()
        digest = hashlib.sha256(program).digest()
        if digest not in originals:
            originals[digest] = _original(program)
        original = originals[digest]
        if original is None:
            continue
        group = groups.setdefault(original, _Group())
        group.members.append(obj)
        widths = obj.DescendantFonts[0].get("/W")
        if isinstance(widths, pikepdf.Array):
            group.widths.update(_widths(widths))
    replace: dict[tuple[int, int], pikepdf.Object] = {}
    for original in sorted(groups):
        replace.update(_merged(pdf, original, groups[original], cache_dir))
    for obj in list(pdf.objects):
        for fonts in _font_dicts(obj):
            for name, value in list(fonts.items()):
                indirect = isinstance(value, pikepdf.Object) and value.is_indirect
                if indirect and value.objgen in replace:
                    fonts[name] = replace[value.objgen]
