"""Shared helpers for the tests of dpcore.data: files built in code, an UploadedFile stand-in."""
from __future__ import annotations

import io
import zipfile

import pytest

from dpcore import data as D
from dpcore.errors import DataError


def xlsx_bytes() -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    wb.active.append(["x", "y"])
    wb.active.append([1, 2])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data.csv", "x\n1\n2\n")
    return buf.getvalue()


class Upload(io.BytesIO):
    """Mimics Streamlit's UploadedFile (a BytesIO with .name and .size)."""

    def __init__(self, data: bytes, name: str = "mydata.csv", size: int | None = None):
        super().__init__(data)
        self.name = name
        self.size = len(data) if size is None else size


def load_error(source, **kw) -> str:
    with pytest.raises(DataError) as info:
        D.load_csv(source, **kw)
    return str(info.value)


def assert_words(msg: str, words) -> None:
    for w in words:
        assert w.lower() in msg.lower(), f"{w!r} not in message: {msg}"
