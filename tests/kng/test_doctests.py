"""The examples in the KNG modules' docstrings run (they are the documentation a newcomer copies)."""
import doctest

import pytest

from dpcore.kng import _release, configs


@pytest.mark.parametrize("module", [configs, _release], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
