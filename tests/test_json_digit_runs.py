"""The plan files' reader refuses a number too long to be one we accept, wherever the text is not ASCII too."""

import pytest

from zerodesk.core.errors import PlanError
from zerodesk.core.json_files import MAX_NUMBER_DIGITS, parse_json, plain_json


@pytest.mark.parametrize("prefix", ["", "«Модель» — ", "\U0001F600 "])
def test_a_number_past_the_digit_limit_is_refused_beside_any_text(prefix):
    long = "9" * (MAX_NUMBER_DIGITS + 1)
    with pytest.raises(PlanError, match="at most 40 digits"):
        parse_json(f'{{"name": "{prefix}", "params": {long}}}', "plan file x.json")
    assert not plain_json(f'{{"name": "{prefix}", "params": {long}}}')


@pytest.mark.parametrize("prefix", ["", "«Модель» — ", "\U0001F600 "])
def test_numbers_up_to_the_limit_and_long_digit_strings_read_back(prefix):
    at_limit = "9" * MAX_NUMBER_DIGITS
    text = f'{{"name": "{prefix}", "params": {at_limit}, "id": "{prefix}{"7" * 60}"}}'
    assert plain_json(f'{{"name": "{prefix}", "params": {at_limit}}}')
    assert not plain_json(text)  # a long run inside a string: the careful reading, which accepts it
    assert parse_json(text, "plan file x.json") == {"name": prefix, "params": int(at_limit), "id": prefix + "7" * 60}
