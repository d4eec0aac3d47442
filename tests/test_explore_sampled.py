"""``uopc/cli/reports/sampled.py`` and the wording of incomplete runs: ``normal-forms`` and ``order`` sample normal forms
after a bound, and no output states a count or a verdict the search did not establish, in text and JSON."""
import json

from uopc import parse_uir, show, symbolic
from uopc.relational.analyses.replay import replay
from tests.test_explore_pairs_cli import ROOT, uopc

FIVE = ROOT / "examples" / "five_params.uir"   # 16 normal forms, 488,511 graphs: far past --max-states 2000
CUT = ("--max-states", "2000")


def test_normal_forms_text_of_an_incomplete_run_says_what_it_knows(capsys):
  code, out, _ = uopc(capsys, "explore", "normal-forms", FIVE, *CUT, "--samples", "300")
  lines = out.splitlines()
  assert code == 3
  assert "no normal form found by the exploration (there may be more: it stopped before exhausting the space)" in lines
  assert any(l.startswith("sampled 300 random runs to a normal form (seed 0, ") and l.endswith("11 not found by the exploration:")
             for l in lines)
  assert "at least 11 normal forms (sampled: the space was not exhausted)" in lines
  assert "[1] add(add(add(add(p0, p1), p2), p3), p4)   (sampled)   <- canonical (graph_rewrite gives this one)" in lines
  assert "canonical: add(add(add(add(p0, p1), p2), p3), p4) = normal form [1] (sampled)" in lines
  assert "0 normal forms" not in out and "found so far" not in out


def test_normal_forms_json_keeps_the_exhaustive_list_apart_and_each_sampled_path_replays(capsys):
  code, out, _ = uopc(capsys, "explore", "normal-forms", FIVE, *CUT, "--samples", "300", "--format", "json")
  data = json.loads(out)
  assert code == 3 and data["exhaustive"] is False and data["complete"] is False and data["normal_forms"] == []
  assert data["sampling"]["runs"] == 300 and data["sampling"]["seed"] == 0 and data["sampling"]["stopped"] == "--samples runs done"
  forms = data["sampled_normal_forms"]
  assert len(forms) == 11 and len({f["term"] for f in forms}) == 11
  prog = parse_uir(FIVE.read_text())
  for f in forms: assert show(replay(prog, f["path"], symbolic)) == f["term"]


def test_a_complete_run_is_exhaustive_and_samples_nothing(capsys):
  code, out, _ = uopc(capsys, "explore", "normal-forms", ROOT / "examples" / "order.uir", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["exhaustive"] is True and data["sampled_normal_forms"] == [] and data["sampling"] is None
  code, out, _ = uopc(capsys, "explore", "normal-forms", ROOT / "examples" / "order.uir")
  assert "2 normal forms:" in out.splitlines() and "sampled" not in out


def test_order_without_evidence_gives_no_verdict(capsys):
  code, out, _ = uopc(capsys, "explore", "order", FIVE, *CUT, "--samples", "0")
  assert code == 3
  assert "does not depend" not in out and "one normal form" not in out and "0 normal forms" not in out
  assert ("not established whether the result depends on rule order: the search stopped before exhausting the space, "
          "and no normal form was found; there may be normal forms it did not reach, and orders that never end") in out.splitlines()
  code, out, _ = uopc(capsys, "explore", "order", FIVE, *CUT, "--samples", "0", "--format", "json")
  data = json.loads(out)
  assert data["verdict"] == "unknown" and data["exhaustive"] is False and data["normal_forms"] == [] and data["sampling"] is None


def test_order_reports_a_sampled_witness_of_order_dependence(capsys):
  code, out, _ = uopc(capsys, "explore", "order", FIVE, *CUT, "--samples", "300")
  lines = out.splitlines()
  assert code == 3
  assert "the result depends on rule order: a sampled run reaches a normal form other than the canonical result" in lines
  assert ("witness (sampled): a run reaches [2] add(add(add(add(p1, p0), p2), p3), p4), not the canonical result: syntactic: "
          "equal for all inputs (proved by z3)") in lines
  code, out, _ = uopc(capsys, "explore", "order", FIVE, *CUT, "--samples", "300", "--format", "json")
  data = json.loads(out)
  w = data["sampled_witness"]
  assert data["verdict"] == "depends" and len(data["sampled_normal_forms"]) == 11
  assert w["other_is_canonical"] and w["other"] == data["canonical"] and w["kind"] == "syntactic"
  assert show(replay(parse_uir(FIVE.read_text()), w["path"], symbolic)) == w["normal_form"]


def test_order_verdicts_of_complete_runs(capsys, tmp_path):
  prog = tmp_path / "p.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 1\n")
  code, out, _ = uopc(capsys, "explore", "order", prog, "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["verdict"] == "independent" and data["exhaustive"] is True
  assert data["verdict_text"] == "the result does not depend on rule order: one normal form, and every rule order terminates"
  assert data["one_normal_form"] is True and data["termination"]["terminates"] is True and data["termination"]["loop"] is None
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--format", "json")
  assert json.loads(out)["verdict"] == "depends"


def test_reachable_summary_of_an_incomplete_run_counts_only_what_it_found(capsys):
  code, out, _ = uopc(capsys, "explore", "reachable", ROOT / "examples" / "order.uir", "--max-states", "3")
  summary = [l for l in out.splitlines() if " states, " in l][0]
  assert code == 3 and "0 normal forms found (there may be more)" in summary


def test_defaults_are_counts_of_work_and_the_help_says_so(capsys):
  # a default run is bounded by counts (states, sampled runs), not by the clock: the same output on a busy machine
  from uopc.cli.main import build_parser
  from uopc.cli.options import DEFAULT_MAX_STATES, DEFAULT_SAMPLE_GRAPHS, DEFAULT_TIMEOUT
  args = build_parser().parse_args(["explore", "normal-forms", str(FIVE)])
  assert (args.max_states, args.timeout, args.max_memory, args.samples) == (DEFAULT_MAX_STATES, DEFAULT_TIMEOUT, 4 << 30, None)
  assert DEFAULT_MAX_STATES == 50_000 and DEFAULT_TIMEOUT >= 120 and DEFAULT_SAMPLE_GRAPHS == 600_000
  code, out, _ = uopc(capsys, "explore", "normal-forms", "--help")
  text = " ".join(out.split())
  assert code == 0 and "(default 50,000: a default run is bounded by this count" in text and "half of --timeout" not in text
  assert "(default 300: a safety net, the counts bound a default run)" in text and "have made 600,000 graphs" in text
  assert "time left" not in text


def test_a_default_run_stops_by_its_counts_and_samples_a_fixed_number_of_runs(capsys, monkeypatch):
  import uopc.relational.analyses.sample as sample
  calls = []
  real = sample.sample_normal_forms
  def spy(*a, **kw):
    calls.append(kw)
    return real(*a, **kw)
  monkeypatch.setattr(sample, "sample_normal_forms", spy)
  code, out, _ = uopc(capsys, "explore", "normal-forms", FIVE, "--format", "json")
  data = json.loads(out)
  assert code == 3 and data["bound"] == "max_states" and data["complete"] is False and data["bounds"]["max_states"] == 50_000
  assert (calls[0]["max_runs"], calls[0]["patience"], calls[0]["max_graphs"], calls[0].get("timeout")) == (None, 50, 600_000, None)
  assert data["sampling"]["graphs"] >= 600_000 and data["sampling"]["stopped"] == "the runs made 600,000 graphs (the default)"
  assert len(data["sampled_normal_forms"]) == 16   # all of five_params' normal forms, by run 1,893 (508,709 graphs)
