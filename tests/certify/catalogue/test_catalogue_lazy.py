"""The catalogue is built on first use (issue 39: every test worker imports every test module, so
work done at import is paid once per worker on every run): importing a group module imports no
other group and computes no sparse vector law; the public names still read the same values."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from dpquant.certify import catalogue as package
from dpquant.certify.catalogue import classic, classic_svt, classic_svt6


def test_importing_a_group_builds_nothing_else() -> None:
    """In a fresh interpreter: after importing the aamand25 group and the sparse vector modules,
    no other group is imported and no answer-list law has been computed."""
    code = textwrap.dedent(
        """
        import sys
        import dpquant.certify.catalogue.aamand25
        from dpquant.certify.catalogue import classic, classic_laws, classic_svt, classic_svt6
        groups = ("fukuchi19", "imola25", "tzamos20", "measures", "measures_conversions")
        print([g for g in groups if "dpquant.certify.catalogue." + g in sys.modules])
        print(classic_laws._text.cache_info().currsize, classic.certifications.cache_info().currsize)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "0 0"]


def test_the_public_names_read_the_built_values() -> None:
    from dpquant.certify.catalogue import CATALOGUE

    assert CATALOGUE is package.CATALOGUE is package.catalogue()
    assert classic.CERTIFICATIONS is classic.certifications()
    assert classic_svt.SVT4 is classic_svt.SVT4 and classic_svt.SVT4 in CATALOGUE
    assert classic_svt6.SVT6_RARE_BEST_PAIRS in classic.CERTIFICATIONS
    assert [s.claim for s in classic.CERTIFICATIONS][4:7] == [
        "classic/fact-SVT4", "classic/fact-SVT5", "classic/fact-SVT6"
    ]


@pytest.mark.parametrize("module", [package, classic, classic_svt, classic_svt6])
def test_an_unknown_name_is_still_an_attribute_error(module) -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018
