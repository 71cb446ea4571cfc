"""Output hygiene: CSV the app writes back (formula injection neutralised) and user text shown as Markdown."""
from __future__ import annotations

import re
import string
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError

__all__ = ["escape_markdown", "literal", "plotly_literal", "plotly_literal_spec", "to_safe_csv"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _neutralise(v: Any) -> Any:
    if isinstance(v, str) and v.lstrip(" ").startswith(_FORMULA_START):
        return "'" + v
    return v


def to_safe_csv(frame: pd.DataFrame, *, index: bool = False) -> str:
    """CSV text with spreadsheet formula injection neutralised (OWASP "CSV injection").

    Every *string* cell — and column name — that starts (after spaces) with ``= + - @``, a tab or a
    carriage return gets a leading apostrophe, so spreadsheets show it as text instead of evaluating
    it. Numbers (numeric dtypes, and numeric objects in object columns) are written unchanged. Lines
    end with CRLF (RFC 4180), so cells containing a CR or LF are quoted. Use for every CSV the app
    writes back.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"to_safe_csv needs a pandas DataFrame; got {type(frame).__name__}.")
    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_datetime64_any_dtype(col.dtype):
            continue
        out[c] = col.astype(object).map(_neutralise)
    out.columns = [_neutralise(c) if isinstance(c, str) else c for c in out.columns]
    if index:
        if not pd.api.types.is_numeric_dtype(out.index.dtype):
            out.index = pd.Index([_neutralise(v) for v in out.index], name=_neutralise(out.index.name))
        elif isinstance(out.index.name, str):
            out.index = out.index.rename(_neutralise(out.index.name))
    return out.to_csv(index=index, lineterminator="\r\n")


_MD_ESCAPE = frozenset(string.punctuation)


def escape_markdown(text: Any) -> str:
    """User text made inert for ``st.markdown``/``st.error``: every ASCII punctuation character is
    backslash-escaped (CommonMark renders "\\c" as the literal c), so ``<script>``, ``**bold**``,
    links, ``$…$`` LaTeX and ``:red[…]`` directives show as typed; newlines become spaces. Bare URLs
    and e-mail addresses, which GitHub-flavoured Markdown links even when escaped, get an invisible
    word joiner (U+2060) after ``https:``, ``www`` or ``@``.
    For Markdown contexts only (plain-text widgets such as ``st.dataframe`` need no escaping).

    >>> print(escape_markdown("**bold** <b>"))
    \\*\\*bold\\*\\* \\<b\\>
    """
    s = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    s = _AUTOLINK.sub(lambda m: m.group(0) + _WJ, s)
    return "".join("\\" + ch if ch in _MD_ESCAPE else ch for ch in s)


#: U+2060 WORD JOINER (invisible): Streamlit's GitHub-flavoured Markdown autolinks bare URLs and e-mail
#: addresses *after* parsing, in the text nodes (backslash escapes are already resolved there), so
#: "https://…", "www.…" and "a@b.c" are broken with an invisible joiner after "scheme:", "www" and "@".
_WJ = "\u2060"
_AUTOLINK = re.compile(r"(?i)\b(?:https?|ftp|mailto|file|javascript|data):(?=/|\w)|\bwww(?=\.)|@(?=[-\w])")


def literal(text: Any) -> str:
    """THE rule for user-provided text (column names, categories, cells, sheet and file names) and any
    message that may contain it, wherever it reaches Markdown: ``st.markdown``/``caption``/``info``/
    ``warning``/``error``, widget labels, radio options, help texts. Shown literally — never as a link
    (``[x](url)``, ``<url>``, a bare ``https://…`` or ``www.…``, which GitHub-flavoured Markdown
    autolinks), image, HTML, emoji/icon shortcode, colour directive or LaTeX. Same as
    :func:`escape_markdown`; plain-text widgets (``st.dataframe``, selectbox/multiselect options)
    and plotly (see :func:`plotly_literal`) need their own rule.

    >>> literal("[x](https://h/) www.h.org").replace("\u2060", "|")
    '\\\\[x\\\\]\\\\(https\\\\:|\\\\/\\\\/h\\\\/\\\\) www|\\\\.h\\\\.org'
    """
    return escape_markdown(text)


def sentence(text: Any) -> str:
    """:func:`literal` ``text`` as one sentence: ending with exactly one full stop, whether or not it had one (issue
    32: a provenance ending "… 12 columns." followed by ". Each covariate …" read "columns.. Each").

    >>> print(sentence("442 rows x 11 columns."), sentence("built-in table"))
    442 rows x 11 columns\\. built\\-in table\\.
    """
    s = str(text).rstrip()
    return literal(s if s.endswith((".", "!", "?")) else s + ".")


_PLOTLY_ENTITIES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}


def plotly_literal(text: Any) -> str:
    """User text made literal for plotly, which renders a subset of HTML (``<a href>``, ``<b>``, ``<br>``,
    ``<span style>``…) in titles, axis and tick labels, legend names, hover text and annotations:
    ``&``, ``<`` and ``>`` become HTML entities (plotly shows them as the characters); newlines
    become spaces.

    >>> plotly_literal('<a href="http://h">y</a> & co')
    '&lt;a href="http://h"&gt;y&lt;/a&gt; &amp; co'
    """
    s = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return s.translate(_PLOTLY_ENTITIES)


#: Keys of a plotly spec whose strings are templates the app writes (``<br>`` and ``%{x}`` meant as such);
#: user text inside them must be made literal where the template is built.
TEMPLATE_KEYS = frozenset({"hovertemplate", "texttemplate", "hovertemplatefallback", "texttemplatefallback"})


def plotly_literal_spec(spec: Any) -> Any:
    """A copy of a plotly figure's JSON (``fig.to_plotly_json()``) with :func:`plotly_literal` applied to
    every string that holds ``&``, ``<`` or ``>`` — titles, names, tick/category labels, hover text,
    annotations — except under :data:`TEMPLATE_KEYS`. Applied to every figure a page shows, so text
    from the data never renders as HTML or a link whichever figure builder it went through."""
    if isinstance(spec, str):
        return plotly_literal(spec) if ("<" in spec or ">" in spec or "&" in spec) else spec
    if isinstance(spec, dict):
        return {k: (v if k in TEMPLATE_KEYS else plotly_literal_spec(v)) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [plotly_literal_spec(v) for v in spec]
    if isinstance(spec, np.ndarray) and spec.dtype.kind in "OUS":
        return np.array([plotly_literal_spec(v) for v in spec.ravel().tolist()], dtype=object).reshape(spec.shape)
    return spec
