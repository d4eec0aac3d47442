/* A report's states and steps as JSON text from the core (_space_json.c; uopc/cli/reports/stream.py reads them). */
#ifndef UOPC_SPACE_JSON_H
#define UOPC_SPACE_JSON_H
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct Space Space;
/* table_keys(start, end, rule_of, node_of, result_of, limit, cut) -> the state the steps end before: the step
   keys of states start..end-1 not read yet (rule_of[key] == -1), each read once, in the order the steps name them: its
   rule, and its node's and result's rows in the node table (_space_table.c: added where new, node then result); a key
   whose rows cut() stopped (the state naming it first) ends them, else end */
PyObject *Space_table_keys(Space *s, PyObject *args);
/* steps_json(start, end, rule_of, node_of, result_of, rules, limit, max_chars, forks) -> (text, next state,
   steps): the steps of states start.. as JSON, comma-separated, up to the state where the text passes max_chars */
PyObject *Space_steps_json(Space *s, PyObject *args);
/* states_json(start, end, rules, seen, cut, max_chars) -> (text, next state, cut short): states start.. as JSON */
PyObject *Space_states_json(Space *s, PyObject *args);
/* step_key_count() -> the step keys numbered so far: redexes, or under tree semantics positions */
PyObject *Space_step_key_count(Space *s, PyObject *noargs);

/* Text a report is written into: grown by doubling, written by put and put_int once text_room said there is room. */
typedef struct { char *buf; int64_t n, cap; } Text;

static inline int text_room(Text *t, int64_t more) {
  if (t->n + more <= t->cap) return 0;
  int64_t cap = t->cap ? t->cap : 1 << 16;
  while (cap < t->n + more) cap *= 2;
  char *b = PyMem_Realloc(t->buf, (size_t)cap);
  if (!b) { PyErr_NoMemory(); return -1; }
  t->buf = b; t->cap = cap;
  return 0;
}

static inline void put(Text *t, const char *p, size_t n) { memcpy(t->buf + t->n, p, n); t->n += (int64_t)n; }

static inline void put_int(Text *t, int64_t x) {   /* as Python's str(int): at most 20 characters */
  char d[20]; int k = 0;
  uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  do { d[k++] = (char)('0' + u % 10); u /= 10; } while (u);
  if (x < 0) t->buf[t->n++] = '-';
  while (k) t->buf[t->n++] = d[--k];
}

#define LIT(t, s) put(t, s, sizeof(s) - 1)

/* the text as bytes (the UTF-8 the report's file holds, its strings as the rules' and templates' bytes were encoded),
   its buffer freed; NULL on error */
static inline PyObject *text_bytes(Text *t) {
  PyObject *b = PyBytes_FromStringAndSize(t->buf ? t->buf : "", (Py_ssize_t)t->n);
  PyMem_Free(t->buf);
  t->buf = NULL; t->n = t->cap = 0;
  return b;
}

#endif
