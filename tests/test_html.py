"""``uopc/cli/reports/page.py``: the page embeds exactly the JSON the command prints, for every command with ``--format html``."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from uopc.cli.reports.html import KINDS, embedded_json, page
from uopc.cli.main import main
from tests.helpers import SUM_UIR

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
MY_RULES = f"{EX / 'my_rules.py'}:rules"

# each command once: the argv after the subcommand's file, and its page kind
COMMANDS = [
  (["explore", "reachable", str(EX / "order.uir")], "reachable"),
  (["explore", "normal-forms", str(EX / "fork.uir"), "--rules", MY_RULES], "normal-forms"),
  (["explore", "order", str(EX / "fork.uir"), "--rules", MY_RULES], "order"),
  (["explore", "search", str(EX / "affine.uir"), "--target", "add(mul(p0, 3), ?c)"], "search"),
  (["explore", "search", str(EX / "equal_a.uir"), "--to", str(EX / "equal_b.uir")], "search"),
  (["explore", "pairs", "fold", "--max-instances", "4"], "pairs"),
  (["trace", str(EX / "affine.uir")], "trace"),
  (["simplify", str(EX / "affine.uir")], "trace"),
]


def embedded(text: str) -> dict:
  m = re.search(r'<script type="application/json" id="uopc-data">(.*?)</script>', text, re.S)
  assert m is not None
  return json.loads(m.group(1))


def without_timing(d: dict) -> dict:
  """The JSON minus wall-clock fields, which differ between two runs."""
  def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k not in ("elapsed", "seconds", "line")}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
  return strip(d)


@pytest.mark.parametrize("argv,kind", COMMANDS, ids=[" ".join(a[:2]) + (" --to" if "--to" in a else "") for a, _ in COMMANDS])
def test_the_page_embeds_the_json_the_command_prints(capsys, tmp_path, argv, kind):
  code_json = main([*argv, "--format", "json"])
  printed = json.loads(capsys.readouterr().out)
  out = tmp_path / "page.html"
  code_html = main([*argv, "--format", "html", "-o", str(out)])
  assert capsys.readouterr().out == ""   # the page went to the file
  text = out.read_text()
  assert code_html == code_json
  assert f'data-kind="{kind}"' in text
  assert without_timing(embedded(text)) == without_timing(printed)


def test_the_page_is_self_contained():
  text = page({"program": "p0"}, "trace", "t")
  assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)   # nothing fetched at view time
  assert "fetch(" not in text and "XMLHttpRequest" not in text
  assert text.count("<script") == 2 and "<style>" in text


def test_the_page_builds_outside_the_repository(tmp_path):
  # the viewer is package data of uopc: found from any directory, not only where explore/ is importable
  code = "from uopc.cli.reports.html import page; print(len(page({'program': 'p0'}, 'trace', 't')))"
  out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
  assert out.returncode == 0, out.stderr
  assert int(out.stdout) > 1000


def test_html_goes_to_stdout_without_o(capsys):
  assert main(["trace", str(EX / "affine.uir"), "--format", "html"]) == 0
  out = capsys.readouterr().out
  assert out.startswith("<!doctype html>") and embedded(out)["result"] == "add(mul(p0, 3), 11)"


def test_an_unwritable_output_is_one_line_exit_2(capsys, tmp_path):
  code = main(["explore", "reachable", str(EX / "order.uir"), "--format", "html", "-o", str(tmp_path / "no" / "page.html")])
  err = capsys.readouterr().err
  assert code == 2 and err.count("\n") == 1 and "cannot write" in err


def test_embedded_json_cannot_close_its_script_element():
  data = {"t": "</script><!-- <script>"}
  text = embedded_json(data)
  assert "<" not in text and json.loads(text) == data


def test_an_unknown_kind_is_refused():
  with pytest.raises(ValueError): page({}, "nope", "t")
  assert "reachable" in KINDS


@pytest.mark.parametrize("argv", [a for a, _ in COMMANDS], ids=[" ".join(a[:2]) + (" --to" if "--to" in a else "") for a, _ in COMMANDS])
def test_json_to_a_file_is_what_stdout_gets(capsys, tmp_path, argv):
  main([*argv, "--format", "json"])
  printed = capsys.readouterr().out
  out = tmp_path / "saved.json"
  main([*argv, "--format", "json", "-o", str(out)])
  assert capsys.readouterr().out == ""
  assert without_timing(json.loads(out.read_text())) == without_timing(json.loads(printed))


@pytest.mark.parametrize("argv", [["simplify"], ["explore", "normal-forms"], ["saturate"]], ids=" ".join)
def test_a_file_name_that_is_not_utf8_is_shown_escaped(capsys, tmp_path, argv):
  # argv holds the name's 0xff byte surrogate-escaped ('\udcff'), which UTF-8 cannot encode: the title was exit 4
  prog, rules, out = tmp_path / "\udcff.uir", tmp_path / "r\udcfe.py", tmp_path / "page.html"
  prog.write_bytes((EX / "affine.uir").read_bytes())
  rules.write_text("from uopc.symbolic import symbolic as rules\n")
  assert main([*argv, str(prog), "--rules", f"{rules}:rules", "--format", "html", "-o", str(out)]) == 0
  text = out.read_text(encoding="utf-8")
  assert f"{tmp_path}/\\xff.uir</title>" in text and embedded(text)["rules"] == f"{tmp_path}/r\\xfe.py:rules"
  assert main([*argv, str(prog), "--rules", f"{rules}:rules", "--format", "json"]) == 0
  assert json.loads(capsys.readouterr().out)["rules"] == f"{tmp_path}/r\\xfe.py:rules"


def chunks_of(text: str) -> list[dict]:
  return [json.loads(m) for m in re.findall(r'<script type="application/json" id="uopc-chunk-\d+">(.*?)</script>', text, re.S)]


def test_a_big_exploration_is_embedded_in_chunks_that_hold_every_state_and_step(capsys, tmp_path):
  (tmp_path / "sum.uir").write_text(SUM_UIR)
  assert main(["explore", "reachable", str(tmp_path / "sum.uir"), "--format", "json"]) == 0
  data = json.loads(capsys.readouterr().out)
  n = len(data["states"])
  assert n == 72
  text = page(data, "reachable", "t", chunk_states=10)
  main_part, parts = embedded(text), chunks_of(text)
  assert len(parts) == 8 and "states" not in main_part and "edges" not in main_part
  assert [s for p in parts for s in p["states"]] == data["states"]
  assert sorted((e["from"], e["to"], e["rule"]) for p in parts for e in p["edges"]) == \
         sorted((e["from"], e["to"], e["rule"]) for e in data["edges"])
  assert all(e["from"] // 10 == k for k, p in enumerate(parts) for e in p["edges"])   # a chunk holds the steps from its states
  summary = main_part.pop("chunks")
  assert main_part == {k: v for k, v in data.items() if k not in ("states", "edges")}
  assert (summary["states"], summary["edges"], summary["count"]) == (n, len(data["edges"]), len(parts))
  assert [row[1] for row in summary["depths"]] == [sum(s["depth"] == d for s in data["states"]) for d in range(len(summary["depths"]))]
  assert summary["canonical_path"][0] == 0 and summary["canonical_path"][-1] == data["canonical_state"]
  assert chunks_of(page(data, "reachable", "t")) == []   # small: one element, the JSON as printed


def test_a_page_over_the_size_limit_is_written_with_a_warning(capsys, tmp_path, monkeypatch):
  import uopc.cli.reports.page
  out = tmp_path / "page.html"
  assert main(["explore", "reachable", str(EX / "order.uir"), "--format", "html", "-o", str(out)]) == 0
  assert capsys.readouterr().err == ""
  monkeypatch.setattr(uopc.cli.reports.page, "WARN_BYTES", 1000)
  assert main(["explore", "reachable", str(EX / "order.uir"), "--format", "html", "-o", str(out)]) == 0
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and err.startswith("uopc: warning: the page is 0 MB: a browser takes long to open it") and out.exists()
