"""Minimal .xlsx workbooks written part by part (zipfile + XML strings), for the loaders' hostile-input
tests: nothing binary is committed. ``bomb_dimension`` and ``bomb_shared_strings`` are the two files of
issue 18 (findings 1 and 2)."""
from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/xl/workbook.xml" '
       'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
       '<Override PartName="/xl/worksheets/sheet1.xml" '
       'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '{sst}</Types>')
_SST_CT = ('<Override PartName="/xl/sharedStrings.xml" '
           'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
         '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
         'officeDocument" Target="xl/workbook.xml"/></Relationships>')
_WB = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="{NS}" xmlns:r="{REL}">'
       '<sheets><sheet name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>')
_WB_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'worksheet" Target="worksheets/sheet1.xml"/>{sst}</Relationships>')
_SST_REL = ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'sharedStrings" Target="sharedStrings.xml"/>')


def sheet_xml(rows: str, dimension: str | None = None) -> str:
    """A worksheet part: ``rows`` is the XML inside <sheetData>."""
    dim = f'<dimension ref="{dimension}"/>' if dimension else ""
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="{NS}">{dim}'
            f"<sheetData>{rows}</sheetData></worksheet>")


def workbook(sheet: str, shared: str | Iterable[str] | None = None, *, sheet_name: str = "Sheet1",
             extra: dict[str, bytes] | None = None) -> bytes:
    """An .xlsx with one worksheet part ``sheet`` (see :func:`sheet_xml`) and optional sharedStrings part
    (a string, or an iterable of pieces streamed into the archive)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CT.format(sst=_SST_CT if shared is not None else ""))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WB.format(name=sheet_name))
        z.writestr("xl/_rels/workbook.xml.rels", _WB_RELS.format(sst=_SST_REL if shared is not None else ""))
        z.writestr("xl/worksheets/sheet1.xml", sheet)
        if isinstance(shared, str):
            z.writestr("xl/sharedStrings.xml", shared)
        elif shared is not None:
            with z.open("xl/sharedStrings.xml", "w") as f:
                for piece in shared:
                    f.write(piece.encode("utf-8"))
        for k, v in (extra or {}).items():
            z.writestr(k, v)
    return buf.getvalue()


def table(rows: list[list[object]], dimension: str | None = None, **kw) -> bytes:
    """A small workbook from Python values (numbers as <v>, text as inline strings)."""
    out = []
    for i, row in enumerate(rows, start=1):
        cells = []
        for j, v in enumerate(row):
            ref = f"{chr(65 + j)}{i}"
            if v is None:
                continue
            if isinstance(v, (int, float)):
                cells.append(f'<c r="{ref}"><v>{v}</v></c>')
            else:
                esc = str(v).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t>{esc}</t></is></c>')
        out.append(f'<row r="{i}">{"".join(cells)}</row>')
    return workbook(sheet_xml("".join(out), dimension), **kw)


def bomb_dimension() -> bytes:
    """Finding 1: ~1.5 KB; the sheet declares A1:XFD1048576 and holds a header and one blank cell in the
    last row (openpyxl then yields ~1 M rows of 16 384 empty cells)."""
    rows = ('<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>'
            '<row r="1048576"><c r="XFD1048576" s="0"/></row>')
    return workbook(sheet_xml(rows, "A1:XFD1048576"))


def bomb_shared_strings(n: int = 20_000_000, declare: bool = True, text: str = "a") -> bytes:
    """Finding 2: n tiny shared strings (openpyxl parses every one before any row is read; 20 M make the
    issue's 826 KB file); ``declare`` False omits the count attributes, so only the part itself tells;
    ``text`` may hold ``{i}`` (distinct strings, which compress less)."""
    counts = f' count="{n}" uniqueCount="{n}"' if declare else ""

    def pieces() -> Iterator[str]:
        yield f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="{NS}"{counts}>'
        block = 100_000
        for start in range(0, n, block):
            if "{i}" in text:
                yield "".join(f"<si><t>{text.format(i=i)}</t></si>" for i in range(start, min(n, start + block)))
            else:
                yield f"<si><t>{text}</t></si>" * (min(n, start + block) - start)
        yield "</sst>"
    rows = '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2"><v>1</v></c></row>'
    return workbook(sheet_xml(rows, "A1:A2"), pieces())
