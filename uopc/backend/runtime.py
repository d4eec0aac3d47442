"""The C runtime every generated program starts with: ``exec_alu`` in C, plus value I/O.

Each helper mirrors one case of ``uopc/alu.py`` literally (same formula, same order of
tests), so that agreement is visible by reading the two side by side:

- i32 wraps: the arithmetic is done on ``uint32_t`` (defined overflow) and converted back;
- f32 ops compute in double and round to float once, as exec_alu computes on Python
  floats and then ``truncate``s; for + * / sqrt that is exactly IEEE single arithmetic,
  for exp2/log2/sin it is the same libm double function Python's ``math`` calls;
- the cases exec_alu refuses (x // 0, x % 0, INT_MIN // -1, a non-finite or
  out-of-range f32 -> i32 cast) and out-of-bounds indices call ``uopc_fail``: the
  kernel keeps computing harmless zeros and returns 1, and the runner reports the first
  error instead of running into undefined behaviour.

Bools are ``uint8_t`` holding 0 or 1 (ADD of bools is OR, MUL is AND: ``truncate`` of
the integer sum or product).

Values are read as text tokens (argv, or stdin) and printed either as a Python literal
(readable mode, the same text ``uopc run`` prints) or, with ``--raw``, as ``ok`` and one
token per element, floats as their 8-hex-digit bit pattern, which the Python driver turns
back into exactly the Python value (see ``uopc.backend.values``).

>>> "uopc_floordiv_i32" in PRELUDE and "uopc_print" in PRELUDE
True
"""
from __future__ import annotations

PRELUDE = r"""/* uopc C runtime: the reference semantics of uopc/alu.py (exec_alu), bit for bit. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runtime errors: the first one of a kernel call is kept, the kernel returns 1 */
static int uopc_failed;
static char uopc_error[240];
static void uopc_fmt_f32(char *out, float f);   /* repr() of a float, below */

static void uopc_fail(const char *fmt, ...) {
  va_list ap;
  if (uopc_failed) return;
  uopc_failed = 1;
  va_start(ap, fmt);
  vsnprintf(uopc_error, sizeof uopc_error, fmt, ap);
  va_end(ap);
}

/* ---- i32: two's complement wrapping without signed overflow (UB in C) */
static inline int32_t uopc_wrap(uint32_t v) { return (int32_t)v; }   /* modulo 2^32 on gcc and clang */
static inline int32_t uopc_add_i32(int32_t a, int32_t b) { return uopc_wrap((uint32_t)a + (uint32_t)b); }
static inline int32_t uopc_mul_i32(int32_t a, int32_t b) { return uopc_wrap((uint32_t)a * (uint32_t)b); }
static inline int32_t uopc_max_i32(int32_t a, int32_t b) { return b > a ? b : a; }

/* floor division and modulo (Python's // and %), trapping where exec_alu returns None */
static inline int32_t uopc_floordiv_i32(int32_t a, int32_t b) {
  int32_t q, r;
  if (b == 0) { uopc_fail("division by zero: %d // 0", (int)a); return 0; }
  if (b == -1) {
    if (a == INT32_MIN) { uopc_fail("overflow: %d // -1", (int)a); return 0; }
    return -a;
  }
  q = a / b; r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int32_t uopc_floormod_i32(int32_t a, int32_t b) {
  int32_t r;
  if (b == 0) { uopc_fail("modulo by zero: %d %% 0", (int)a); return 0; }
  if (b == -1) return 0;   /* INT32_MIN % -1 is UB in C; the floor modulo is 0 */
  r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* ---- bool: truncate(bool, a + b) is a | b, truncate(bool, a * b) is a & b */
static inline uint8_t uopc_add_bool(uint8_t a, uint8_t b) { return (uint8_t)(a | b); }
static inline uint8_t uopc_mul_bool(uint8_t a, uint8_t b) { return (uint8_t)(a & b); }
static inline uint8_t uopc_max_bool(uint8_t a, uint8_t b) { return b > a ? b : a; }

/* ---- f32: computed in double, rounded to float once (like exec_alu + truncate) */
static inline float uopc_add_f32(float a, float b) { return (float)((double)a + (double)b); }
static inline float uopc_mul_f32(float a, float b) { return (float)((double)a * (double)b); }
/* MAX is IEEE 754-2019 maximum (commutative): NaN if either is NaN, +0.0 above -0.0 */
static inline float uopc_max_f32(float a, float b) {
  if (a != a || b != b) return NAN;
  if (a == b) return signbit(a) ? b : a;
  return b > a ? b : a;
}
static inline float uopc_recip_f32(float a) { double d = a; return (float)(d != 0 ? 1.0 / d : copysign(INFINITY, d)); }
static inline float uopc_exp2_f32(float a) { double d = a; return (float)(d != d ? NAN : pow(2.0, d)); }
static inline float uopc_log2_f32(float a) { double d = a; return (float)(d > 0 ? log2(d) : d == 0 ? -INFINITY : NAN); }
static inline float uopc_sqrt_f32(float a) { double d = a; return (float)(d >= 0 ? sqrt(d) : NAN); }
static inline float uopc_sin_f32(float a) { double d = a; return (float)(isfinite(d) ? sin(d) : NAN); }

/* ---- casts: C-style, truncation toward zero; a non-finite or out-of-range float -> i32 traps */
static inline uint8_t uopc_cast_bool_bool(uint8_t a) { return a; }
static inline int32_t uopc_cast_bool_i32(uint8_t a) { return (int32_t)a; }
static inline float uopc_cast_bool_f32(uint8_t a) { return (float)a; }
static inline uint8_t uopc_cast_i32_bool(int32_t a) { return (uint8_t)(a != 0); }
static inline int32_t uopc_cast_i32_i32(int32_t a) { return a; }
static inline float uopc_cast_i32_f32(int32_t a) { return (float)(double)a; }
static inline uint8_t uopc_cast_f32_bool(float a) { return (uint8_t)(a != 0); }   /* NaN is true */
static inline float uopc_cast_f32_f32(float a) { return a; }
static inline int32_t uopc_cast_f32_i32(float a) {
  double d = a;
  if (!(d > -2147483649.0 && d < 2147483648.0)) {
    char text[48];
    uopc_fmt_f32(text, a);
    uopc_fail("cast of %s to i32 is undefined", text);
    return 0;
  }
  return (int32_t)d;
}

/* ---- INDEX: bounds-checked; a bad index reads element 0 and fails the kernel */
static inline long uopc_index(int32_t i, long n, int axis) {
  if (i < 0 || i >= n) { uopc_fail("index %d out of bounds for axis %d of size %ld", (int)i, axis, n); return 0; }
  return i;
}

/* ---- input: whitespace-separated tokens from argv (when given) or stdin */
static char **uopc_args;
static int uopc_nargs;

static const char *uopc_token(void) {
  static char buf[256];
  if (uopc_args) { if (uopc_nargs <= 0) return NULL; uopc_nargs--; return *uopc_args++; }
  return scanf("%255s", buf) == 1 ? buf : NULL;
}
static int uopc_bad(const char *what, const char *tok) {
  fprintf(stderr, "bad input: expected %s, got %s\n", what, tok ? tok : "end of input");
  return 0;
}
/* after a kernel's PARAMs are read: argv must hold no more values */
static int uopc_inputs_done(void) {
  if (!uopc_args || uopc_nargs <= 0) return 1;
  fprintf(stderr, "bad input: %d more value(s) than the program's PARAMs take\n", uopc_nargs);
  return 0;
}
static inline int uopc_read_i32(int32_t *dst, long n) {
  long k;
  for (k = 0; k < n; k++) {
    const char *t = uopc_token();
    char *end;
    long long v;
    if (!t) return uopc_bad("an i32", t);
    errno = 0;
    v = strtoll(t, &end, 10);
    if (end == t || *end || errno) return uopc_bad("an i32", t);
    dst[k] = uopc_wrap((uint32_t)(unsigned long long)v);   /* wraps like truncate(i32, v) */
  }
  return 1;
}
static inline int uopc_read_f32(float *dst, long n) {
  long k;
  for (k = 0; k < n; k++) {
    const char *t = uopc_token();
    char *end;
    double v;
    if (!t) return uopc_bad("an f32", t);
    v = strtod(t, &end);
    if (end == t || *end) return uopc_bad("an f32", t);
    dst[k] = (float)v;   /* rounds like truncate(f32, v) */
  }
  return 1;
}
static inline int uopc_read_bool(uint8_t *dst, long n) {
  long k;
  for (k = 0; k < n; k++) {
    const char *t = uopc_token();
    if (t && (!strcmp(t, "1") || !strcmp(t, "True") || !strcmp(t, "true"))) dst[k] = 1;
    else if (t && (!strcmp(t, "0") || !strcmp(t, "False") || !strcmp(t, "false"))) dst[k] = 0;
    else return uopc_bad("a bool", t);
  }
  return 1;
}

/* ---- output. Readable: Python's repr. A float prints as the shortest decimal that
   round-trips its double value, in repr's layout (1e+16, 1e-05, 100.0, -0.0, nan). */
static int uopc_roundtrips(const char *digits, int nd, int exp10, double mag) {
  char buf[48];
  snprintf(buf, sizeof buf, "%c.%.*se%d", digits[0], nd - 1, digits + 1, exp10);
  return strtod(buf, NULL) == mag;
}
/* the shortest digits of mag > 0: value = D.DDD x 10^exp10; returns the digit count */
static int uopc_shortest(double mag, char *digits, int *exp10) {
  char e[40];
  int p, nd, k;
  for (p = 1; p <= 17; p++) {
    const char *s = e;
    snprintf(e, sizeof e, "%.*e", p - 1, mag);   /* correctly rounded to p digits */
    for (nd = 0; *s != 'e'; s++) if (*s != '.') digits[nd++] = *s;
    *exp10 = atoi(s + 1);
    if (uopc_roundtrips(digits, nd, *exp10, mag)) return nd;
    /* at a power of two the gap below is half the gap above: the nearest p-digit decimal
       can miss the (narrow) lower half-gap while the next one up lands in the upper one */
    for (k = nd - 1; k >= 0 && digits[k] == '9'; k--) digits[k] = '0';
    if (k >= 0) digits[k]++;
    else { digits[0] = '1'; ++*exp10; }
    if (uopc_roundtrips(digits, nd, *exp10, mag)) return nd;
  }
  return nd;   /* not reached: 17 digits always round-trip */
}
static void uopc_fmt_f32(char *out, float f) {
  char digits[24];
  double d = f;
  int nd, exp10, decpt, k;
  if (d != d) { strcpy(out, "nan"); return; }
  if (isinf(d)) { strcpy(out, d > 0 ? "inf" : "-inf"); return; }
  if (d == 0) { strcpy(out, signbit(d) ? "-0.0" : "0.0"); return; }
  if (d < 0) { *out++ = '-'; d = -d; }
  nd = uopc_shortest(d, digits, &exp10);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  decpt = exp10 + 1;   /* value = 0.DIGITS x 10^decpt */
  if (decpt <= -4 || decpt > 16) {
    *out++ = digits[0];
    if (nd > 1) { *out++ = '.'; for (k = 1; k < nd; k++) *out++ = digits[k]; }
    sprintf(out, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    return;
  }
  if (decpt <= 0) {
    *out++ = '0'; *out++ = '.';
    for (k = 0; k < -decpt; k++) *out++ = '0';
    for (k = 0; k < nd; k++) *out++ = digits[k];
  } else {
    for (k = 0; k < decpt; k++) *out++ = k < nd ? digits[k] : '0';
    *out++ = '.';
    if (nd > decpt) for (k = decpt; k < nd; k++) *out++ = digits[k];
    else *out++ = '0';
  }
  *out = 0;
}

enum { UOPC_READABLE = 0, UOPC_RAW = 1 };

static void uopc_put(const void *data, char dtype, long at, int mode) {
  char buf[48];
  if (dtype == 'i') { printf("%d", (int)((const int32_t *)data)[at]); return; }
  if (dtype == 'b') {
    int v = ((const uint8_t *)data)[at];
    fputs(mode == UOPC_RAW ? (v ? "1" : "0") : (v ? "True" : "False"), stdout);
    return;
  }
  if (mode == UOPC_RAW) {
    uint32_t bits;
    memcpy(&bits, (const float *)data + at, sizeof bits);
    printf("%08x", (unsigned)bits);
    return;
  }
  uopc_fmt_f32(buf, ((const float *)data)[at]);
  fputs(buf, stdout);
}

static long uopc_print_rec(const void *data, char dtype, const long *shape, int rank, long at) {
  long k;
  if (rank == 0) { uopc_put(data, dtype, at, UOPC_READABLE); return at + 1; }
  putchar('[');
  for (k = 0; k < shape[0]; k++) {
    if (k) fputs(", ", stdout);
    at = uopc_print_rec(data, dtype, shape + 1, rank - 1, at);
  }
  putchar(']');
  return at;
}

/* a kernel's result: READABLE prints the Python literal, RAW prints "ok" and one token per element */
static void uopc_print(const void *data, char dtype, const long *shape, int rank, long n, int mode) {
  long k;
  if (mode == UOPC_RAW) {
    fputs("ok", stdout);
    for (k = 0; k < n; k++) { putchar(' '); uopc_put(data, dtype, k, mode); }
  } else uopc_print_rec(data, dtype, shape, rank, 0);
  putchar('\n');
}

/* after a failed kernel: RAW reports on stdout (so a batch can go on), READABLE on stderr */
static int uopc_report(int mode) {
  if (mode == UOPC_RAW) printf("err %s\n", uopc_error);
  else fprintf(stderr, "runtime error: %s\n", uopc_error);
  return 1;
}
"""
