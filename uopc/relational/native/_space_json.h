/* A report's states and steps as JSON text from the core (_space_json.c; uopc/cli/reports/stream.py reads them). */
#ifndef UOPC_SPACE_JSON_H
#define UOPC_SPACE_JSON_H
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct Space Space;
/* steps_json(start, end, rule_of, rules, limit, max_chars, forks, cut) -> (text, next state,
   steps, cut short): the steps of states start.. as JSON, comma-separated, up to the state where the text passes
   max_chars; a step key not read yet (rule_of[key] == -1) is read as it is first met: its rule, and its node's and
   result's rows in the node table (added where new, kept as its text); one whose rows cut() stopped ends the steps before its state */
PyObject *Space_steps_json(Space *s, PyObject *args);
/* states_json(start, end, rules, seen, cut, max_chars) -> (text, next state, cut short): states start.. as JSON */
PyObject *Space_states_json(Space *s, PyObject *args);
/* depths(n, forks) -> a page's summary of states 0..n-1 by depth: [depth, states, normal forms, forks, first, last] */
PyObject *Space_depths(Space *s, PyObject *args);
/* step_key_count() -> the step keys numbered so far: redexes, or under tree semantics positions */
PyObject *Space_step_key_count(Space *s, PyObject *noargs);

/* Text a report is written into: grown by doubling, written by put and put_int once text_room said there is room. One
   opened by text_open is a bytes object written in place, handed to Python whole (text_bytes: no copy of it made). */
typedef struct { char *buf; int64_t n, cap; PyObject *bytes; } Text;

static inline int text_room(Text *t, int64_t more) {
  if (t->n + more <= t->cap) return 0;
  int64_t cap = t->cap ? t->cap : 1 << 16;
  while (cap < t->n + more) cap *= 2;
  if (t->bytes) {
    if (_PyBytes_Resize(&t->bytes, (Py_ssize_t)cap) < 0) { t->buf = NULL; t->n = t->cap = 0; return -1; }   /* (gone) */
    t->buf = PyBytes_AS_STRING(t->bytes);
  } else {
    char *b = PyMem_Realloc(t->buf, (size_t)cap);
    if (!b) { PyErr_NoMemory(); return -1; }
    t->buf = b;
  }
  t->cap = cap;
  return 0;
}

/* a Text written into a new bytes object of `cap` bytes to begin with: 0, or -1 */
static inline int text_open(Text *t, int64_t cap) {
  memset(t, 0, sizeof(*t));
  if (!(t->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap))) return -1;
  t->buf = PyBytes_AS_STRING(t->bytes);
  t->cap = cap;
  return 0;
}

static inline void text_drop(Text *t) {
  if (t->bytes) Py_CLEAR(t->bytes); else PyMem_Free(t->buf);
  t->buf = NULL; t->n = t->cap = 0;
}

static inline void put(Text *t, const char *p, size_t n) { memcpy(t->buf + t->n, p, n); t->n += (int64_t)n; }

static inline int n_digits(uint64_t u) {
  int n = 1;
  for (;;) {
    if (u < 10) return n;
    if (u < 100) return n + 1;
    if (u < 1000) return n + 2;
    if (u < 10000) return n + 3;
    u /= 10000; n += 4;
  }
}

/* as Python's str(int), at most 20 characters: written from its last digit back, two at a time (a step is four numbers:
   this was most of the steps' time a digit at a time) */
static inline void put_int(Text *t, int64_t x) {
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                              "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";
  uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  if (x < 0) t->buf[t->n++] = '-';
  int n = n_digits(u);
  char *p = t->buf + t->n + n;
  while (u >= 100) { const char *d = pairs + 2 * (u % 100); u /= 100; *--p = d[1]; *--p = d[0]; }
  if (u >= 10) { const char *d = pairs + 2 * u; *--p = d[1]; *--p = d[0]; }
  else *--p = (char)('0' + u);
  t->n += n;
}

#define LIT(t, s) put(t, s, sizeof(s) - 1)

/* the text as bytes (the UTF-8 the report's file holds, its strings as the rules' and templates' bytes were encoded),
   the Text emptied; NULL on error */
static inline PyObject *text_bytes(Text *t) {
  PyObject *b = t->bytes;
  if (b) {   /* its own: shrunk, not copied */
    Py_ssize_t n = (Py_ssize_t)t->n;
    t->bytes = NULL; t->buf = NULL; t->n = t->cap = 0;
    return _PyBytes_Resize(&b, n) < 0 ? NULL : b;
  }
  b = PyBytes_FromStringAndSize(t->buf ? t->buf : "", (Py_ssize_t)t->n);
  text_drop(t);
  return b;
}

#endif
