"""Join codes, teacher keys, student tokens, nicknames and the QR code (dpcore.classroom.codes)."""
from __future__ import annotations

import pytest

from dpcore.classroom import codes
from dpcore.errors import DPValueError


def test_join_codes_use_an_alphabet_without_look_alikes():
    assert not set("0O1IL2Z5S8B") & set(codes.ALPHABET)
    drawn = {codes.new_join_code() for _ in range(2000)}
    assert all(len(c) == 6 and set(c) <= set(codes.ALPHABET) for c in drawn)
    assert len(drawn) >= 1990                 # 25⁶ ≈ 2.4e8 codes: collisions among 2 000 are rare
    used = set("".join(drawn))
    assert used == set(codes.ALPHABET)        # every symbol is used


def test_join_code_is_normalised_and_checked():
    assert codes.check_join_code(" ac-d3f9 ") == "ACD3F9"
    for bad in ("", "ACD3F", "ACD3F9X", "ACD3F0", "ABCDEF"):
        with pytest.raises(DPValueError, match="6 characters from"):
            codes.check_join_code(bad)
    with pytest.raises(DPValueError, match="this is a teacher key"):
        codes.check_join_code(codes.new_teacher_key())


def test_teacher_keys_and_tokens_carry_enough_entropy_and_are_hashed():
    k = codes.new_teacher_key()
    body = k[len(codes.TEACHER_PREFIX):]
    assert len(body) * 6 >= 128 and k != codes.new_teacher_key()
    assert len(codes.new_student_token()) * 6 >= 128
    assert codes.hash_secret(k) == codes.hash_secret(k) and len(codes.hash_secret(k)) == 64
    assert codes.looks_like_teacher_key("  " + k) and not codes.looks_like_teacher_key("ACD3F9")


@pytest.mark.parametrize("bad, what", [("", "empty"), ("   ", "empty"), ("x" * 25, "25 characters"),
                                       ("a\x07b", "U\\+0007"), ("evil\u202egnp", "U\\+202E"), ("a\nb", "U\\+000A"),
                                       ("\ue000", "U\\+E000"), (3, "must be text")])
def test_bad_nicknames_are_refused_with_the_reason(bad, what):
    with pytest.raises(DPValueError, match=what):
        codes.check_nickname(bad)


def test_good_nicknames_are_kept_as_typed():
    assert codes.check_nickname("  [x](http://h/) **b**  ") == "[x](http://h/) **b**"
    assert codes.check_nickname("Zoë 👩\u200d🔬") == "Zoë 👩\u200d🔬"          # emoji with a joiner pass
    assert codes.check_nickname("Zoe\u0308") == "Zoë"                          # NFC
    assert codes.check_nickname("x" * 24) == "x" * 24


def test_qr_code_is_a_png():
    png = codes.qr_png("http://127.0.0.1:8501/classroom?join=ACD3F9")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 200
