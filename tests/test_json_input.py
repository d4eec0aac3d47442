"""``uopc/json_input.py``: JSON that Python's parser takes but nothing downstream can use is a one-line error with its place."""
import pytest

from uopc.json_input import MAX_NESTING, JSONInputError, parse_json


@pytest.mark.parametrize("text,message", [
  ('{"a": 1,\n "b": NaN}', "f.json:2:7: NaN is not a JSON number"),
  ('[-Infinity]', "f.json:1:2: -Infinity is not a JSON number"),
  ('{"x": "NaN", "y": 1e999}', "f.json:1:19: 1e999 is too large for a float"),
  ('{"n": ' + "7" * 4301 + "}", "f.json:1:7: an integer of 4,301 digits (at most 4,300)"),
  ('{"t": "ok",\n  "u": "a\\ud800b"}', "f.json:2:10: \\ud800 is a lone surrogate, not a character"),
  ('["\\udc00"]', "f.json:1:3: \\udc00 is a lone surrogate, not a character"),
  ("[" * 100_000 + "]" * 100_000, f"f.json:1:{MAX_NESTING + 1}: nested more than {MAX_NESTING} deep"),
  ('{"a": [1,]}', "f.json:1:10: not JSON: Expecting value"),
])
def test_bad_json_is_one_message_with_its_place(text, message):
  with pytest.raises(JSONInputError) as e: parse_json(text, "f.json")
  assert str(e.value) == message


def test_good_json_is_what_json_loads_gives():
  text = '{"a": [1, -2.5e3, "\\ud83d\\ude00", "[{", {"b": null}], "n": ' + "9" * 4300 + "}"
  data = parse_json(text, "f.json")
  assert data["a"] == [1, -2500.0, "\U0001F600", "[{", {"b": None}] and data["n"] == int("9" * 4300)
  deep = "[" * MAX_NESTING + "]" * MAX_NESTING   # as deep as allowed
  assert parse_json(deep, "f.json") == eval(deep)
