/* A report's states and steps as JSON text from the core (_space_json.c; uopc/cli/reports/stream.py reads them). */
#ifndef UOPC_SPACE_JSON_H
#define UOPC_SPACE_JSON_H
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct Space Space;
/* steps_json(start, end, rules, limit, max_chars, forks, cut, write, comma) -> (next state, steps, cut short):
   the steps of states start.. as JSON, comma-separated (a comma first if `comma`), up to the state where the text passes
   max_chars, handed to write(memoryview) once (the view released after: its memory is the table's, written again by the
   next call); the steps to states past `limit` left out (limit < 0: none); a step key not read yet is read as it is
   first met: its rule, and its node's and result's rows in the node table (added where new, kept with the table:
   TableKey); one whose rows cut() stopped ends the steps before its state */
PyObject *Space_steps_json(Space *s, PyObject *args);
/* states_json(start, end, rules, seen, cut, max_chars, write, comma) -> (next state, cut short): states start.. as JSON,
   handed to write as steps_json's */
PyObject *Space_states_json(Space *s, PyObject *args);
/* depths(n, forks) -> a page's summary of states 0..n-1 by depth: [depth, states, normal forms, forks, first, last] */
PyObject *Space_depths(Space *s, PyObject *args);

/* Text a report is written into: grown by doubling, written by put and put_int once text_room said there is room. */
typedef struct { char *buf; int64_t n, cap; } Text;

static inline int text_room(Text *t, int64_t more) {
  if (t->n + more <= t->cap) return 0;
  int64_t cap = t->cap ? t->cap : 1 << 16;
  while (cap < t->n + more) cap *= 2;
  char *b = PyMem_Realloc(t->buf, (size_t)cap);
  if (!b) { PyErr_NoMemory(); return -1; }
  t->buf = b;
  t->cap = cap;
  return 0;
}

static inline void text_drop(Text *t) {
  PyMem_Free(t->buf);
  t->buf = NULL; t->n = t->cap = 0;
}

static inline void put(Text *t, const char *p, size_t n) { memcpy(t->buf + t->n, p, n); t->n += (int64_t)n; }

/* the digits of u: from its bits, the power of ten below (bits * log10(2), 1233 / 4096) and one comparison */
static inline int n_digits(uint64_t u) {
  static const uint64_t pow10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
                                     1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
                                     100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
                                     1000000000000000000ULL, 10000000000000000000ULL};
  int t = ((64 - __builtin_clzll(u | 1)) * 1233) >> 12;
  return t + (u >= pow10[t]) + (u == 0);
}

/* as Python's str(int), at most 20 characters, written at p: the end. From its last digit back, two at a time (a step
   is four numbers: this was most of the steps' time a digit at a time), in 32 bits below 2**32 (a cheaper division) */
static inline char *int_text(char *p, int64_t x) {
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                              "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";
  uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  if (x < 0) *p++ = '-';
  char *end = p + n_digits(u);
  p = end;
  for (; u >> 32; u /= 100) { p -= 2; memcpy(p, pairs + 2 * (u % 100), 2); }
  uint32_t v = (uint32_t)u;
  for (; v >= 100; v /= 100) { p -= 2; memcpy(p, pairs + 2 * (v % 100), 2); }
  if (v >= 10) memcpy(p - 2, pairs + 2 * v, 2);
  else p[-1] = (char)('0' + v);
  return end;
}

static inline void put_int(Text *t, int64_t x) { t->n = int_text(t->buf + t->n, x) - t->buf; }

#define LIT(t, s) put(t, s, sizeof(s) - 1)

/* the text as bytes (the UTF-8 the report's file holds), the Text emptied; NULL on error */
static inline PyObject *text_bytes(Text *t) {
  PyObject *b = PyBytes_FromStringAndSize(t->buf ? t->buf : "", (Py_ssize_t)t->n);
  text_drop(t);
  return b;
}

/* the text so far handed to write(memoryview), the view released after (as io's buffered reader hands its buffer to
   readinto: write keeps no view of it, the memory is written again), the Text emptied and kept: 0, or -1 on error */
static inline int text_write(Text *t, PyObject *write) {
  if (t->n == 0) return 0;
  PyObject *view = PyMemoryView_FromMemory(t->buf, (Py_ssize_t)t->n, PyBUF_READ);
  if (!view) return -1;
  PyObject *r = PyObject_CallOneArg(write, view), *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);   /* (write's error, kept while the view is released) */
  PyObject *released = PyObject_CallMethod(view, "release", NULL);
  Py_DECREF(view);
  if (type) { Py_XDECREF(released); PyErr_Restore(type, value, tb); return -1; }   /* write's error first */
  Py_DECREF(r);
  if (!released) return -1;
  Py_DECREF(released);
  t->n = 0;
  return 0;
}

#endif
