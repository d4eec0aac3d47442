#!/usr/bin/env bash
# The native cores under AddressSanitizer: every extension setup.py declares (the explorer's core, uopc/relational/native/_space*.c with its
# headers; uopc/egraph/_egraph.c, uopc/_term.c and uopc/_uir.c), each from its sources as setup.py lists them, built with -fsanitize=address into
# a copy of the package, and the differential tests (native against Python, its pattern matcher against UPat.match, the e-graph's
# C core against its Python loop, the C let form against term.py's, a native node's text against show, the core's successors and fingerprints against steps_of and Fingerprints.of, its codec rows against Codec.encode and back against Codec.decode, the C .uir plain lines against uir.py's) and the reduction's tests run on them with libasan preloaded (docs/native.md, docs/saturation.md).
# Fails when pytest fails or when ASan reports anything, in any process: reports go to log files, since pytest's
# capture would swallow what ASan writes to stderr before it ends the process.
# `dev/asan.sh [pytest arguments]`: without any, the test files below; `make test-cores` runs it. Env: ASAN_PYTHON, CC, TMPDIR (its build cache).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${ASAN_PYTHON:-$ROOT/.venv/bin/python}"   # the project's venv (PYTHON is the Makefile's, for making it)
CC="${CC:-gcc}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# a copy, not the tree: the installed (editable) package stays as it is, and others' edits during the run do not matter
mkdir "$WORK/repo"
cp -r "$ROOT/uopc" "$ROOT/tests" "$ROOT/examples" "$ROOT/conftest.py" "$WORK/repo/"

find "$WORK/repo" -name __pycache__ -prune -exec rm -rf {} +
SUFFIX="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
INCLUDE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
# setup.py's extensions, a line each: the module, then its sources (relative to the tree)
mapfile -t EXTENSIONS < <(cd "$ROOT" && "$PY" -c 'import setuptools
setuptools.setup = lambda **kw: [print(e.name, *e.sources) for e in kw["ext_modules"]]
exec(open("setup.py").read())')
[[ ${#EXTENSIONS[@]} -gt 0 ]] || { echo "dev/asan.sh: no extension read from setup.py" >&2; exit 1; }
FLAGS=(-shared -fPIC -g -O1 -fsanitize=address -fno-omit-frame-pointer -fvisibility=hidden -I"$INCLUDE")   # hidden: as setup.py builds them
# the sanitized builds are kept by what they are made of (the C sources and headers, the compiler and its flags): a second
# run, make test-cores after the suite's own tests of this script, builds nothing
KEY="$( { cd "$WORK/repo" && printf '%s\n' "${EXTENSIONS[@]}" && cat $(printf '%s\n' "${EXTENSIONS[@]}" | cut -d' ' -f2-) $(find uopc -name "*.h" | sort); "$CC" --version; echo "${FLAGS[*]}"; } | sha256sum | cut -c1-16)"
CACHE="${TMPDIR:-/tmp}/uopc-asan-$(id -u)"
if [[ ! -d "$CACHE/$KEY" ]]; then
  BUILD="$(mktemp -d "${TMPDIR:-/tmp}/uopc-asan-build.XXXXXX")"
  for ext in "${EXTENSIONS[@]}"; do
    read -r name sources <<< "$ext"
    out="${name//.//}$SUFFIX"   # uopc.relational.native._space: uopc/relational/native/_space<suffix>, beside its sources
    mkdir -p "$BUILD/$(dirname "$out")"
    (cd "$WORK/repo" && "$CC" "${FLAGS[@]}" $sources -o "$BUILD/$out")
  done
  mkdir -p "$CACHE"
  find "$CACHE" -mindepth 1 -maxdepth 1 -mmin +60 -exec rm -rf {} +   # older keys: other trees' sources
  mv -T "$BUILD" "$CACHE/$KEY" 2>/dev/null || rm -rf "$BUILD"   # a parallel run stored the same build first
fi
for ext in "${EXTENSIONS[@]}"; do
  read -r name sources <<< "$ext"
  rm -f "$WORK/repo/${name//.//}".*so
  cp "$CACHE/$KEY/${name//.//}$SUFFIX" "$WORK/repo/${name//.//}$SUFFIX"
done

cd "$WORK/repo"
export LD_PRELOAD="$("$CC" -print-file-name=libasan.so)"
export ASAN_OPTIONS="detect_leaks=0:log_path=$WORK/asan"   # CPython keeps objects to the end on purpose: leaks are not bugs here
# the sanitized builds are the ones imported, not the installed ones
for ext in "${EXTENSIONS[@]}"; do
  read -r name sources <<< "$ext"
  LOADED="$("$PY" -c "import $name as s; print(s.__file__)")"
  [[ "$LOADED" == "$WORK/repo/${name//.//}$SUFFIX" ]] || { echo "dev/asan.sh: imported $LOADED, not the sanitized build" >&2; exit 1; }
done

[[ $# -gt 0 ]] || set -- tests/test_relational_native_drive.py tests/test_relational_native_patterns.py tests/test_relational_native_templates.py tests/test_relational_native_folds.py tests/test_relational_reduction.py tests/test_term.py \
  tests/test_egraph_native.py tests/test_uir_native.py tests/test_native_text.py tests/test_relational_native_successors.py tests/test_relational_cluster_shard.py \
  tests/test_relational_cluster_codec_native.py tests/test_relational_cluster_decode_native.py
status=0
"$PY" -m pytest -p no:cacheprovider -o addopts="-q" "$@" || status=$?
if compgen -G "$WORK/asan.*" > /dev/null; then
  cat "$WORK"/asan.* >&2
  echo "dev/asan.sh: AddressSanitizer reported the above" >&2
  exit 1
fi
exit "$status"
