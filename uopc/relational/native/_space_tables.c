/* The native core's building blocks (_space_tables.h): growth, the 64-bit key map, lists of ints. */
#include "_space_tables.h"

static void map_place(uint64_t *keys, int32_t *vals, int64_t cap, uint64_t key, int32_t val) {
  int64_t j = (int64_t)(fmix(key) & (uint64_t)(cap - 1));
  while (keys[j]) j = (j + 1) & (cap - 1);
  keys[j] = key; vals[j] = val;
}

int map_put(U64Map *m, uint64_t key, int32_t val) {
  if ((m->n + 1) * 2 > m->cap) {
    int64_t cap = m->cap ? m->cap * 2 : 256;
    uint64_t *k = PyMem_Calloc((size_t)cap, sizeof(uint64_t));
    int32_t *v = PyMem_Malloc((size_t)cap * sizeof(int32_t));
    if (!k || !v) { PyMem_Free(k); PyMem_Free(v); PyErr_NoMemory(); return -1; }
    for (int64_t i = 0; i < m->cap; i++) if (m->key[i]) map_place(k, v, cap, m->key[i], m->val[i]);
    PyMem_Free(m->key); PyMem_Free(m->val);
    m->key = k; m->val = v; m->cap = cap;
  }
  map_place(m->key, m->val, m->cap, key, val);
  m->n++;
  return 0;
}

void map_free(U64Map *m) { PyMem_Free(m->key); PyMem_Free(m->val); }

int grow_to(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = PyMem_Realloc(*p, (size_t)c * elem);
  if (!q) { PyErr_NoMemory(); return -1; }
  *p = q; *cap = c;
  return 0;
}

int grow32(void **p, int32_t *cap, int64_t need, size_t elem) {
  int64_t c = *cap;
  if (need > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many nodes or states"); return -1; }
  if (grow(p, &c, need, elem) < 0) return -1;
  *cap = (int32_t)c;
  return 0;
}

/* Parallel arrays sharing one capacity `*cap` (n of them, elems[i] bytes an element), each grown to hold `need`: 0, or -1
 * with MemoryError (the arrays grown before the failing one keep their new size; `*cap` stays, which is safe). */
int grow_parallel_to(int64_t *cap, int64_t need, void **const arrays[], const size_t elems[], int n) {
  if (need <= *cap) return 0;
  int64_t c = *cap;
  for (int i = 0; i < n; i++) {
    c = *cap;   /* each from the same capacity, so each to the same new one */
    if (grow(arrays[i], &c, need, elems[i]) < 0) return -1;
  }
  *cap = c;
  return 0;
}

PyObject *int_list(const int32_t *v, int32_t n) {
  PyObject *out = PyList_New(n);
  if (!out) return NULL;
  for (int32_t i = 0; i < n; i++) {
    PyObject *x = PyLong_FromLong(v[i]);
    if (!x) { Py_DECREF(out); return NULL; }
    PyList_SET_ITEM(out, i, x);
  }
  return out;
}
