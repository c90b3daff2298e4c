"""`unknown()`: the one-line 'unknown X' error says plainly when nothing is known to choose from,
instead of ending in "valid:" and an empty list (an empty store, a device with no interfaces)."""

from __future__ import annotations

from netopsai.common.errors import UnknownName, unknown


def test_no_choices_says_none_is_known() -> None:
    err = unknown("device", "leaf9", [])
    assert isinstance(err, UnknownName) and (err.kind, err.word) == ("device", "leaf9")
    assert str(err) == "unknown device 'leaf9'; none is known yet"
    assert "valid" not in str(err)


def test_empty_iterator_reads_the_same_as_an_empty_list() -> None:
    # callers pass query results and generators: consumed once, still empty
    assert str(unknown("site", "dc9", iter(()))) == "unknown site 'dc9'; none is known yet"


def test_short_lists_and_suggestions_are_kept() -> None:
    assert str(unknown("spec", "gpu", ["default", "ai"])) == "unknown spec 'gpu'; valid: default, ai"
    assert "did you mean leaf1" in str(unknown("device", "leaf01", ["leaf1", "spine1"]))
