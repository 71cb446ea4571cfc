"""Join codes, teacher keys, student tokens and nicknames of the classroom game (no streamlit, no database).

* A **join code** has 6 characters from :data:`ALPHABET` (25 symbols without look-alikes: no 0/O, 1/I/L,
  2/Z, 5/S, 8/B), drawn with :mod:`secrets`: 25⁶ ≈ 2.4 · 10⁸ codes. It only lets a student join.
* A **teacher key** is ``"teach-"`` + 32 URL-safe characters from :func:`secrets.token_urlsafe` (192 bits);
  it alone opens the dashboard. The database keeps only its SHA-256 (:func:`hash_secret`): a key of
  192 random bits needs no slow hash (no dictionary to attack).
* A **student token** (128 bits) is the student's capability for their own answers (hashed likewise).
* A **nickname** is what a student types: 1–24 characters after NFC normalisation and trimming, no control,
  format-bidi, surrogate, private-use or unassigned characters. It is stored as typed and shown literally
  (:func:`dpcore.data.literal`) wherever it is displayed.

>>> normalise_join_code(" abc-d3f ") == "ABCD3F"
True
>>> check_nickname("  Ada  ")
'Ada'
"""
from __future__ import annotations

import hashlib
import secrets
import unicodedata

from ..errors import DPValueError

__all__ = ["ALPHABET", "CODE_LENGTH", "MAX_NICKNAME", "TEACHER_PREFIX", "new_join_code", "normalise_join_code",
           "new_teacher_key", "new_student_token", "hash_secret", "looks_like_teacher_key", "check_nickname",
           "check_join_code", "qr_png"]

#: Symbols of a join code: capital letters and digits without look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B).
ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
MAX_NICKNAME = 24
TEACHER_PREFIX = "teach-"
#: Unicode bidirectional embedding/override/isolate controls (category Cf): they reorder the text around a
#: nickname on the projected dashboard, so they are refused (other Cf, e.g. the emoji joiner U+200D, pass).
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}


def new_join_code() -> str:
    """A fresh join code: :data:`CODE_LENGTH` symbols of :data:`ALPHABET` from the OS's CSPRNG."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_teacher_key() -> str:
    """A fresh teacher key: ``"teach-"`` + 192 random bits (URL-safe base64)."""
    return TEACHER_PREFIX + secrets.token_urlsafe(24)


def new_student_token() -> str:
    """A fresh student token: 128 random bits (URL-safe base64)."""
    return secrets.token_urlsafe(16)


def hash_secret(secret: str) -> str:
    """SHA-256 (hex) of a key or token: what the database stores instead of it."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def looks_like_teacher_key(text: str) -> bool:
    """True if ``text`` (e.g. typed into the students' join box) looks like a teacher key."""
    return str(text).strip().lower().startswith(TEACHER_PREFIX)


def normalise_join_code(text: str) -> str:
    """The code as stored: capitals, spaces and hyphens removed (no check; see :func:`check_join_code`)."""
    return "".join(ch for ch in str(text).upper() if ch not in " -\t")


def check_join_code(text: str) -> str:
    """The normalised join code, or a DPValueError saying what is wrong with ``text`` and what to type."""
    if looks_like_teacher_key(text):
        raise DPValueError("this is a teacher key, not a join code: students type the 6-character code shown on "
                           "the projector; teachers open their class under 'Teacher' with the key.")
    code = normalise_join_code(text)
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise DPValueError(f"join code must be {CODE_LENGTH} characters from {ALPHABET} (got {len(code)} "
                           "characters); type the code shown on the projector.")
    return code


def check_nickname(text: str) -> str:
    """The nickname to store (NFC, trimmed), or a DPValueError naming the problem and the fix.

    >>> check_nickname("a\\x00b")
    Traceback (most recent call last):
    ...
    dpcore.errors.DPValueError: nickname contains a control or invisible character (U+0000 at position 2); type letters, digits, spaces or emoji.
    """
    if not isinstance(text, str):
        raise DPValueError(f"nickname must be text (got {type(text).__name__}); type a nickname.")
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise DPValueError("nickname is empty; type a nickname (1 to 24 characters, no real name needed).")
    if len(name) > MAX_NICKNAME:
        raise DPValueError(f"nickname has {len(name)} characters; at most {MAX_NICKNAME} are allowed — shorten it.")
    for i, ch in enumerate(name, start=1):
        if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") or ch in _BIDI:
            raise DPValueError(f"nickname contains a control or invisible character (U+{ord(ch):04X} at position "
                               f"{i}); type letters, digits, spaces or emoji.")
    return name


def qr_png(text: str, scale: int = 8) -> bytes:
    """A QR code of ``text`` as PNG bytes (segno, pure Python; error correction M), for the projector."""
    import io

    import segno

    buf = io.BytesIO()
    segno.make(str(text), error="m").save(buf, kind="png", scale=scale, border=2)
    return buf.getvalue()
