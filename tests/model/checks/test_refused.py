"""``prescale.model.checks.refused``: which entries a rule may read, when field validation refused some."""

from prescale.model.checks.refused import NOTHING_REFUSED, Refused


def test_entries_keep_their_stack_file_index_and_a_refused_section_hides_its_view(valid):
    refused = Refused(frozenset({"placeholders"}), frozenset(), frozenset({1}), frozenset(), {})
    # The validated list lacks the refused entry, and each entry keeps its index in the stack file.
    assert [index for index, _ in refused.entries("event_windows", valid.event_windows)] == [0, 2]
    assert [index for index, _ in NOTHING_REFUSED.entries("event_windows", valid.event_windows)] == [0, 1]
    assert refused.view(valid, placeholders={"failsafe_grace"}) is None
    assert NOTHING_REFUSED.view(valid, placeholders={"failsafe_grace"}) is not None
