"""The command line's hints (dpquant/cli/messages.py): the names a mistyped word was meant to be."""

from __future__ import annotations

from dpquant.cli.messages import MAX_SUGGESTIONS, close_names, did_you_mean

NAMES = {
    n: n for n in ("em_no_half", "em_no_width", "em_no_clamp", "em_underflow", "rr_wrong_flip")
}


def test_close_names_finds_a_typo_ignoring_case() -> None:
    assert close_names("em_no_hlaf", NAMES)[0] == "em_no_half"
    assert close_names("EM_NO_HALF", NAMES) == ["em_no_half"] + close_names("EM_NO_HALF", NAMES)[1:]


def test_a_prefix_of_three_characters_or_more_offers_the_names_it_starts() -> None:
    assert set(close_names("em_no", NAMES)) == {"em_no_half", "em_no_width", "em_no_clamp"}
    assert close_names("em", NAMES) == []


def test_nothing_close_and_an_empty_word_give_nothing() -> None:
    assert close_names("zzzz", NAMES) == [] and did_you_mean("zzzz", NAMES) == ""
    assert close_names("   ", NAMES) == []


def test_several_keys_may_offer_one_name_once() -> None:
    names = {"opendp": "peer:opendp", "peer:opendp": "peer:opendp"}
    assert close_names("opendb", names) == ["peer:opendp"]


def test_at_most_the_limit_and_the_sentence_joins_them_with_or() -> None:
    many = {f"name_{i}": f"name_{i}" for i in range(10)}
    assert len(close_names("name_", many)) == MAX_SUGGESTIONS
    assert did_you_mean("em_no_hal", NAMES).startswith("did you mean 'em_no_half'")
    assert did_you_mean("rr_wrong_fli", NAMES) == "did you mean 'rr_wrong_flip'?"
    two = {"alpha_one": "alpha_one", "alpha_two": "alpha_two"}
    assert did_you_mean("alpha_", two) == "did you mean 'alpha_one' or 'alpha_two'?"
