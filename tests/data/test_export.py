"""Tests for dpcore.data.export: CSV-injection-safe output and inert Markdown."""
from __future__ import annotations

import csv
import io
import re

import pandas as pd

from dpcore import data as D


# ------------------------------------------------------------------------------------------------
# Output hygiene
# ------------------------------------------------------------------------------------------------
def test_to_safe_csv_neutralises_formulas():
    frame = pd.DataFrame({
        "=SUM(A1:A2)": ["=cmd()", "+1", "-2+3", "@x", "plain"],
        "n": [-2, 1, 2, 3, 4],
        "f": [-2.5, 0.0, 1.0, 2.0, 3.0],
        "t": ["\tx", "\ry", " =z", "a=b", None],
    })
    text = D.to_safe_csv(frame)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["'=SUM(A1:A2)", "n", "f", "t"]
    assert [r[0] for r in rows[1:]] == ["'=cmd()", "'+1", "'-2+3", "'@x", "plain"]
    assert [r[1] for r in rows[1:]] == ["-2", "1", "2", "3", "4"]          # numbers untouched
    assert rows[1][2] == "-2.5"
    assert [r[3] for r in rows[1:]] == ["'\tx", "'\ry", "' =z", "a=b", ""]
    assert frame.iloc[0, 0] == "=cmd()"                                      # input untouched
    ds = D.load_csv(text.encode())                                           # numeric columns survive
    assert "n" in ds.numeric_columns and "f" in ds.numeric_columns


def _assert_inert_markdown(escaped: str, original: str) -> None:
    assert "\n" not in escaped
    # every ASCII punctuation character is backslash-escaped ...
    assert re.search(r"(?<!\\)[<>*_\[\]()`#!|~$]", escaped.replace("\\\\", "")) is None
    # ... and CommonMark's backslash-unescape gives back exactly what the user typed (plus invisible word
    # joiners U+2060 that stop GitHub-flavoured Markdown from autolinking "scheme:", "www." and "@")
    unescaped = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped)
    assert unescaped.replace("\u2060", "") == original.replace("\n", " ")
    assert re.search(r"(?i)(https?|javascript):[/\w]|www\.|@\w", unescaped) is None


def test_escape_markdown():
    for s in ["<script>alert(1)</script>", "**bold**", "[x](javascript:alert(1))", "$x^2$ :red[hi] # h",
              "a\\b_c", "line1\nline2", "see https://bare.example or www.x.org, mail a@b.org"]:
        _assert_inert_markdown(D.escape_markdown(s), s)
    assert D.escape_markdown("**bold**") == r"\*\*bold\*\*"
    assert D.escape_markdown("<script>alert(1)</script>") == r"\<script\>alert\(1\)\<\/script\>"
    assert D.escape_markdown("plain text 42") == "plain text 42"


def test_html_markdown_column_names_are_kept_as_data():
    ds = D.load_csv(b"<script>alert(1)</script>,**y**\n1,2\n3,4\n")
    assert list(ds.frame.columns) == ["<script>alert(1)</script>", "**y**"]
    for name in ds.frame.columns:
        _assert_inert_markdown(D.escape_markdown(name), name)
