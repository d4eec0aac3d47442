"""``UOPC_NATIVE`` (``uopc/native_switch.py``): one meaning of its values, honoured by each of the four C extensions.

Each extension is checked both ways, on and off, so a core that ignored the switch (or one the switch could not
turn back on) fails here: the explorer's search, saturation, the let form's text and the .uir plain lines."""
import pytest

from tests.helpers import param
from uopc import native_switch, symbolic, term, uir
from uopc.egraph import native as egraph_native, saturate
from uopc.relational import explore
from uopc.relational import native as relational_native
from uopc.rulesets import resolve_rules

EX9 = resolve_rules("examples/saturation_rules.py:rules")
OFF = ["0", "false", "FALSE", "No", " off ", "off\n"]
ON = ["1", "true", "yes", "on", "", "2", "offline"]


@pytest.fixture(params=[*OFF, *ON, None], ids=lambda v: repr(v))
def setting(request, monkeypatch) -> bool:
  """Sets UOPC_NATIVE (None: unset); whether that setting means on."""
  if request.param is None: monkeypatch.delenv("UOPC_NATIVE", raising=False)
  else: monkeypatch.setenv("UOPC_NATIVE", request.param)
  return request.param not in OFF


class Spy:
  """One of the extension modules, counting the calls of one of its functions."""

  def __init__(self, module: object, name: str) -> None:
    self.module, self.name, self.calls = module, name, 0

  def __getattr__(self, attr: str) -> object:
    found = getattr(self.module, attr)
    if attr != self.name: return found
    def counted(*args: object) -> object:
      self.calls += 1
      return found(*args)
    return counted


def test_the_values_that_mean_off(setting):
  assert native_switch.enabled() is setting
  assert (native_switch.why_off() is None) is setting


def test_the_explorer_honours_it(setting):
  assert relational_native.available()   # built by setup.py: the suite runs with it
  ex = explore((param(0) + 0) * 1, symbolic)
  assert ex.native is setting and relational_native.enabled() is setting


def test_saturation_honours_it(setting):
  assert egraph_native._egraph is not None
  assert saturate(param(0) + 0, EX9).native is setting and egraph_native.available() is setting
  if not setting:
    with pytest.raises(ValueError, match="UOPC_NATIVE="): saturate(param(0) + 0, EX9, native=True)


def test_the_let_form_honours_it(setting, monkeypatch):
  spy = Spy(term._native, "let_text")
  monkeypatch.setattr(term, "_native", spy)
  a = param(0) + 0
  with term.memo(): assert term.show(a * a) == "let a = add(p0, 0) in mul(a, a)"
  assert (spy.calls > 0) is setting


def test_the_uir_reader_honours_it(setting, monkeypatch):
  spy = Spy(uir._native, "plain_lines")
  monkeypatch.setattr(uir, "_native", spy)
  assert uir.parse_uir("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n") is param(0) + 0
  assert (spy.calls > 0) is setting
