"""``run()``: the canonical engine evaluates a program, and the explorer says whether the order mattered (docs/guide.md).

``run`` rewrites with ``symbolic`` plus the evaluation rules (ALU ops through STACKs, INDEX into a STACK, CALLs
inlined) until a closed program is its value; ``to_python`` reads the value out. A program with free PARAMs is
closed by binding them (``bind_params``). examples/order.uir, ``(-0.0 + 0.0) * p0``, has two normal forms under
``symbolic``: run on each, the values differ, so which order the rules fire in changes the answer.

  python explore/run_program.py
"""
from pathlib import Path

from uopc.uir import read_uir
from uopc import run, show, simplify, symbolic, to_python
from uopc.evaluate import bind_params
from uopc.relational import normal_forms

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"   # the input files the docs use



def main() -> None:
  # A closed program: a * b + a with a = [1, 2, 3], b = [10, 20, 30].
  vector = read_uir(EXAMPLES / "vector.uir")
  print(f"run({show(vector)}) = {to_python(run(vector))}")

  # A program with a PARAM: simplify() is the canonical engine alone, run() evaluates once p0 is bound.
  affine = read_uir(EXAMPLES / "affine.uir")
  print(f"simplify({show(affine)}) = {show(simplify(affine))}; with p0 = 5, run gives {to_python(run(bind_params(affine, {0: 5})))}")

  # Every normal form of examples/order.uir (a small space: max_states is a safety bound), each run with p0 = -1.0.
  order = read_uir(EXAMPLES / "order.uir")
  nf = normal_forms(order, symbolic, max_states=100)
  print(f"{show(order)}: {len(nf.forms)} normal forms under symbolic; with p0 = -1.0:")
  for form in nf.forms:
    mark = "   <- graph_rewrite gives this one" if form is nf.canonical_state else ""
    print(f"  {form.term()} runs to {to_python(run(bind_params(form.graph, {0: -1.0})))}{mark}")
  print(f"run() of the program itself, p0 = -1.0 bound first: {to_python(run(bind_params(order, {0: -1.0})))}")


if __name__ == "__main__": main()
