#!/usr/bin/env bash
# The native cores under AddressSanitizer: _space.c (with _space_text.h, a state's text from its nodes), uopc/egraph/_egraph.c, uopc/_term.c and uopc/_uir.c built with -fsanitize=address into
# a copy of the package, and the differential tests (native against Python, its pattern matcher against UPat.match, the e-graph's
# C core against its Python loop, the C let form against term.py's, a native node's text against show, the C .uir plain lines against uir.py's) and the reduction's tests run on them with libasan preloaded (docs/native.md, docs/saturation.md).
# Fails when pytest fails or when ASan reports anything, in any process: reports go to log files, since pytest's
# capture would swallow what ASan writes to stderr before it ends the process.
# `dev/asan.sh [pytest arguments]`: without any, the four test files below; `make test` runs it. Env: ASAN_PYTHON, CC.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${ASAN_PYTHON:-$ROOT/.venv/bin/python}"   # the project's venv (PYTHON is the Makefile's, for making it)
CC="${CC:-gcc}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# a copy, not the tree: the installed (editable) package stays as it is, and others' edits during the run do not matter
mkdir "$WORK/repo"
cp -r "$ROOT/uopc" "$ROOT/tests" "$ROOT/examples" "$ROOT/conftest.py" "$WORK/repo/"
cp -r "$ROOT/explore" "$WORK/repo/uopc/explore"   # where it installs (pyproject.toml's package-dir)
find "$WORK/repo" -name __pycache__ -prune -exec rm -rf {} +
NATIVE="$WORK/repo/uopc/relational/native"
EGRAPH="$WORK/repo/uopc/egraph"
rm -f "$NATIVE"/_space*.so "$EGRAPH"/_egraph*.so
SUFFIX="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
INCLUDE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
"$CC" -shared -fPIC -g -O1 -fsanitize=address -fno-omit-frame-pointer -I"$INCLUDE" "$NATIVE/_space.c" -o "$NATIVE/_space$SUFFIX"
rm -f "$WORK/repo/uopc"/_term*.so   # the let form's walk (uopc/_term.c), which every report prints with
"$CC" -shared -fPIC -g -O1 -fsanitize=address -fno-omit-frame-pointer -I"$INCLUDE" "$WORK/repo/uopc/_term.c" -o "$WORK/repo/uopc/_term$SUFFIX"
"$CC" -shared -fPIC -g -O1 -fsanitize=address -fno-omit-frame-pointer -I"$INCLUDE" "$EGRAPH/_egraph.c" -o "$EGRAPH/_egraph$SUFFIX"
rm -f "$WORK/repo/uopc"/_uir*.so   # the .uir parser's plain lines (uopc/_uir.c)
"$CC" -shared -fPIC -g -O1 -fsanitize=address -fno-omit-frame-pointer -I"$INCLUDE" "$WORK/repo/uopc/_uir.c" -o "$WORK/repo/uopc/_uir$SUFFIX"

cd "$WORK/repo"
export LD_PRELOAD="$("$CC" -print-file-name=libasan.so)"
export ASAN_OPTIONS="detect_leaks=0:log_path=$WORK/asan"   # CPython keeps objects to the end on purpose: leaks are not bugs here
# the sanitized build is the one imported, not the installed one
LOADED="$("$PY" -c 'import uopc.relational.native._space as s; print(s.__file__)')"
[[ "$LOADED" == "$NATIVE/_space$SUFFIX" ]] || { echo "dev/asan.sh: imported $LOADED, not the sanitized build" >&2; exit 1; }
LOADED="$("$PY" -c 'import uopc.egraph._egraph as s; print(s.__file__)')"
[[ "$LOADED" == "$EGRAPH/_egraph$SUFFIX" ]] || { echo "dev/asan.sh: imported $LOADED, not the sanitized build" >&2; exit 1; }
LOADED="$("$PY" -c 'import uopc._term as s; print(s.__file__)')"
[[ "$LOADED" == "$WORK/repo/uopc/_term$SUFFIX" ]] || { echo "dev/asan.sh: imported $LOADED, not the sanitized build" >&2; exit 1; }
LOADED="$("$PY" -c 'import uopc._uir as s; print(s.__file__)')"
[[ "$LOADED" == "$WORK/repo/uopc/_uir$SUFFIX" ]] || { echo "dev/asan.sh: imported $LOADED, not the sanitized build" >&2; exit 1; }

[[ $# -gt 0 ]] || set -- tests/test_relational_native_drive.py tests/test_relational_native_patterns.py tests/test_relational_reduction.py tests/test_term.py \
  tests/test_egraph_native.py tests/test_uir_native.py tests/test_native_text.py
status=0
"$PY" -m pytest -p no:cacheprovider -o addopts="-q" "$@" || status=$?
if compgen -G "$WORK/asan.*" > /dev/null; then
  cat "$WORK"/asan.* >&2
  echo "dev/asan.sh: AddressSanitizer reported the above" >&2
  exit 1
fi
exit "$status"
