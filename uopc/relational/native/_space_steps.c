/* Step maps (step.py's Stepper._compute): a node's map is its steps, (key, result node) pairs, made from its own
 * redexes and its sources' maps, post-order; past map_limit grouped by the graph they make (_space_groups.c) or, where
 * step.py would enumerate them lazily, a bail. */
#include "_space.h"
#include <string.h>

/* ---- step maps (step.py's Stepper._compute, graph semantics) */

static int need_stamps(Space *s, int32_t redex) {
  if (redex < s->cap_stamp) return 0;
  int32_t c = s->cap_stamp, c2 = c, c3 = c, c4 = c;
  if (grow32((void **)&s->stamp, &c, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->stamp_val, &c2, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->reduction.pstamp, &c3, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->reduction.pstamp_val, &c4, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  for (int32_t i = s->cap_stamp; i < c; i++) s->stamp[i] = s->reduction.pstamp[i] = 0;
  s->cap_stamp = c;
  return 0;
}

/* Tree semantics: a new key, the key `inner` at source `idx` (or where idx is -1, the redex `inner` itself); -1 on error. */
int32_t new_key(Space *s, int32_t idx, int32_t inner) {
  if (s->n_keys >= INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many step keys"); return -1; }
  void **const arrays[] = {(void **)&s->key_idx, (void **)&s->key_inner};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&s->cap_keys, s->n_keys + 1, arrays, elems, 2) < 0) return -1;
  s->key_idx[s->n_keys] = idx; s->key_inner[s->n_keys] = inner;
  return (int32_t)s->n_keys++;
}

/* A node's redexes from Python (Stepper._match): numbered here, their ids in the templates' `found`. Their count, -1 on
 * error, -2 to bail. */
static int64_t python_redexes(Space *s, int32_t id) {
  SpaceTemplates *t = &s->templates;
  PyObject *r = PyObject_CallFunction(s->match_cb, "i", (int)id);   /* may make nodes: arrays move */
  if (!r) return -1;
  if (r == Py_None) { Py_DECREF(r); return -2; }
  PyObject *seq = PySequence_Fast(r, "match must return a list");
  Py_DECREF(r);
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  t->n_found = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    int rule, result;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &rule, &result)) { Py_DECREF(seq); return -1; }
    int32_t redex = redex_new(s, id, rule, result);
    if (redex < 0 || push_int(&t->found, &t->n_found, &t->cap_found, redex) < 0) { Py_DECREF(seq); return -1; }
  }
  Py_DECREF(seq);
  return n;
}

/* A node's own redexes, appended to the map pool (under tree semantics, each as a key of its own): made here by the
 * rules' templates where they can (_space_templates.c), else by Python. Their count, -1 on error, -2 to bail. */
static int64_t own_redexes(Space *s, int32_t id) {
  int64_t n = template_redexes(s, id);
  if (n == TPL_PYTHON) n = python_redexes(s, id);
  if (n <= 0) return n;
  if (grow((void **)&s->maps, &s->cap_maps, s->n_maps + 2 * n, sizeof(int32_t)) < 0) return -1;
  for (int64_t i = 0; i < n; i++) {
    int32_t redex = s->templates.found[i], key = redex;
    if (s->tree) { if ((key = new_key(s, -1, redex)) < 0) return -1; }
    else if (need_stamps(s, redex) < 0) return -1;
    s->maps[s->n_maps + 2 * i] = key; s->maps[s->n_maps + 2 * i + 1] = s->templates.red_result[redex];
  }
  return n;
}

/* Append (redex, the node x with sources `src`) to the map pool being made. */
static int add_step(Space *s, int32_t x, int32_t redex, const int32_t *src) {
  int32_t h = intern(s, s->label[x], s->op[x], src, s->src_n[x], 1);
  if (h < 0 || template_inherit(s, h, x) < 0 || grow((void **)&s->maps, &s->cap_maps, s->n_maps + 2, sizeof(int32_t)) < 0) return -1;
  s->maps[s->n_maps++] = redex; s->maps[s->n_maps++] = h;
  return 0;
}

/* Steps being appended to the map pool a few at a time (fill_from, fill_shared, fill_tree: all of one node x): each
 * step's node is hashed and its slot prefetched as the step comes, and the batch is interned when full, so that the
 * lookups' cache misses overlap. Nearly every such node exists already (another graph's: on the ADD-bubble, 7 lookups
 * in 8 find their node), and each lookup was a miss of its own, one after the other. */
#define STEP_BATCH 8
#define STEP_BATCH_SRC 4   /* a node of more sources is added at once (add_step) */
typedef struct { int32_t x, n, k; int32_t key[STEP_BATCH], node[STEP_BATCH], src[STEP_BATCH][STEP_BATCH_SRC]; uint64_t h[STEP_BATCH]; } StepBatch;

static inline void batch_start(Space *s, StepBatch *b, int32_t x) { b->x = x; b->n = s->src_n[x]; b->k = 0; }

/* The batch's steps appended, in order. 0, or -1 on error. */
static int batch_flush(Space *s, StepBatch *b) {
  int32_t x = b->x, label = s->label[x], k = b->k;
  uint8_t op = s->op[x];
  b->k = 0;
  for (int32_t i = 0; i < k; i++)
    if ((b->node[i] = intern_hashed(s, label, op, b->src[i], b->n, 1, b->h[i])) < 0) return -1;
  if (grow((void **)&s->maps, &s->cap_maps, s->n_maps + 2 * k, sizeof(int32_t)) < 0) return -1;
  for (int32_t i = 0; i < k; i++) {
    if (template_inherit(s, b->node[i], x) < 0) return -1;
    s->maps[s->n_maps++] = b->key[i]; s->maps[s->n_maps++] = b->node[i];
  }
  return 0;
}

/* Append (key, x with sources `src`) to the map pool, through the batch. 0, or -1 on error. */
static int batch_add(Space *s, StepBatch *b, int32_t key, const int32_t *src) {
  int32_t n = b->n, i = b->k, label = s->label[b->x], used = 1;
  if (n > STEP_BATCH_SRC) return add_step(s, b->x, key, src);
  for (int32_t j = 0; j < n; j++) b->src[i][j] = src[j];   /* (n <= 4: a loop, not a call) */
  b->key[i] = key;
  b->h[i] = node_hash(label, src, n);
  for (int32_t j = 0; j < n && used; j++) used = s->nflags[src[j]] & NF_USED;
  if (used) intern_prefetch(s, b->h[i]);   /* (a fresh node is not looked up) */
  return ++b->k == STEP_BATCH ? batch_flush(s, b) : 0;
}

/* Stamp the redexes of n (redex, node) pairs with generation g, and where `val` is given, each with its node. */
void stamp_pairs(int32_t *stamp, int32_t *val, const int32_t *pairs, int32_t n, int32_t g) {
  for (int32_t e = 0; e < n; e++) {
    stamp[pairs[2 * e]] = g;
    if (val) val[pairs[2 * e]] = pairs[2 * e + 1];
  }
}

/* Append (redex, x with the sources equal to src[j] replaced by c) for every (redex, c) of `from`'s map.
 * Pool offsets, not pointers: interning may move every array. */
static int fill_from(Space *s, int32_t x, int32_t from_off, int32_t from_n, int32_t j_node, int32_t other_map) {
  int32_t n = s->src_n[x], buf_small[8], *buf = buf_small;
  if (n > 8 && !(buf = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  int rc = 0;
  StepBatch b;
  batch_start(s, &b, x);
  for (int32_t e = 0; e < from_n; e++) {
    int32_t redex = s->maps[from_off + 2 * e], c = s->maps[from_off + 2 * e + 1];
    if (other_map >= 0 && s->stamp[redex] == other_map) continue;   /* _both: already made from the left source */
    const int32_t *src = s->srcs + s->src_off[x];
    for (int32_t k = 0; k < n; k++) buf[k] = src[k] == j_node ? c : src[k];
    if (batch_add(s, &b, redex, buf) < 0) { rc = -1; break; }
  }
  if (rc == 0) rc = batch_flush(s, &b);
  if (buf != buf_small) PyMem_Free(buf);
  return rc;
}

/* The general case: several sources with redexes below them (and a redex below two is rewritten in both). */
static int fill_general(Space *s, int32_t x, int64_t start) {
  int32_t n = s->src_n[x];
  int32_t *buf = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
  if (!buf) { PyErr_NoMemory(); return -1; }
  int rc = 0;
  for (int32_t i = 0; i < n && rc == 0; i++) {
    int32_t si = s->srcs[s->src_off[x] + i];
    for (int32_t e = 0; e < s->map_n[si] && rc == 0; e++) {
      int32_t redex = s->maps[s->map_off[si] + 2 * e];
      int done = 0;
      for (int64_t q = start; q < s->n_maps; q += 2) if (s->maps[q] == redex) { done = 1; break; }
      if (done) continue;
      for (int32_t k = 0; k < n; k++) {
        int32_t sk = s->srcs[s->src_off[x] + k], v = sk;
        for (int32_t f = 0; f < s->map_n[sk]; f++) if (s->maps[s->map_off[sk] + 2 * f] == redex) { v = s->maps[s->map_off[sk] + 2 * f + 1]; break; }
        buf[k] = v;
      }
      if (add_step(s, x, redex, buf) < 0) { rc = -1; break; }
    }
  }
  PyMem_Free(buf);
  return rc;
}

/* x's steps where its two sources a and b share a redex below them: a redex below both is rewritten in both, (c,
 * mb.get(r, b)) for ma's, then mb's others (step.py's _both and _from_sources). 0, or -1 on error. */
static int fill_shared(Space *s, int32_t x, int32_t a, int32_t b) {
  int32_t ao = s->map_off[a], an = s->map_n[a], bo = s->map_off[b], bn = s->map_n[b], g2 = ++s->gen;
  stamp_pairs(s->stamp, s->stamp_val, s->maps + bo, bn, g2);
  StepBatch batch;
  batch_start(s, &batch, x);
  for (int32_t e = 0; e < an; e++) {
    int32_t redex = s->maps[ao + 2 * e], pair[2];
    pair[0] = s->maps[ao + 2 * e + 1];
    pair[1] = s->stamp[redex] == g2 ? s->stamp_val[redex] : b;
    if (batch_add(s, &batch, redex, pair) < 0) return -1;
  }
  if (batch_flush(s, &batch) < 0) return -1;
  int32_t g3 = ++s->gen;   /* mark ma's redexes with a third generation, then take mb's others */
  stamp_pairs(s->stamp, NULL, s->maps + ao, an, g3);   /* maps may have moved: offsets, not pointers, are kept */
  return fill_from(s, x, bo, bn, b, g3);
}

/* Tree semantics (step.py's _compute_tree): the node's own redexes, then for each source i in order and each entry
 * (k, c) of its map, (At(i, k), x with source i alone replaced by c): one step per occurrence; past map_limit (or above
 * a grouped source) the steps grouped by the graph they make (make_grouped). 0, -2 to bail, -1 on error. The own
 * redexes are in the pool already, `local` of them, from `start`. */
static int fill_tree(Space *s, int32_t x, int64_t start, int64_t local) {
  int32_t n = s->src_n[x], buf_small[8], *buf = buf_small, any_grouped = 0, n_live = 0;
  int64_t total = local;
  for (int32_t i = 0; i < n; i++) {
    int32_t si = s->srcs[s->src_off[x] + i];
    total += s->map_n[si]; any_grouped |= s->nflags[si] & NF_GROUPED;
  }
  if (any_grouped || total > s->map_limit) {   /* buf: the sources with steps below them */
    if (n > 8 && !(buf = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
    for (int32_t i = 0; i < n; i++) if (s->map_n[s->srcs[s->src_off[x] + i]]) buf[n_live++] = i;
    int rc = make_grouped(s, x, start, local, buf, n_live);
    if (buf != buf_small) PyMem_Free(buf);
    return rc;
  }
  if (total == local) return 0;
  if (n > 8 && !(buf = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  int rc = 0;
  StepBatch b;
  batch_start(s, &b, x);
  for (int32_t i = 0; i < n && rc == 0; i++) {
    int32_t si = s->srcs[s->src_off[x] + i];
    for (int32_t e = 0; e < s->map_n[si]; e++) {   /* offsets, not pointers: interning may move every array */
      int32_t k = new_key(s, i, s->maps[s->map_off[si] + 2 * e]), c = s->maps[s->map_off[si] + 2 * e + 1];
      if (k < 0) { rc = -1; break; }
      memcpy(buf, s->srcs + s->src_off[x], (size_t)n * sizeof(int32_t));
      buf[i] = c;
      if (batch_add(s, &b, k, buf) < 0) { rc = -1; break; }
    }
  }
  if (rc == 0) rc = batch_flush(s, &b);
  if (buf != buf_small) PyMem_Free(buf);
  return rc;
}

/* Past map_limit: grouped where step.py groups (and the core may: a reduction reads whole maps), else bail. */
static int group_or_bail(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live) {
  return s->reduction.on ? -2 : make_grouped(s, x, start, local, live, n_live);
}

/* The map of x, whose sources' maps exist: 0, -1 on error, -2 to bail (as step.py would make it big or stuck). */
static int compute(Space *s, int32_t x) {
  int64_t start = s->n_maps;
  if (start > INT32_MAX - 2 * (int64_t)s->map_limit - 2) { PyErr_SetString(PyExc_MemoryError, "native explorer: step maps past 2^31 entries"); return -1; }
  int64_t local = own_redexes(s, x);
  if (local < 0) { s->n_maps = start; return (int)local; }
  s->n_maps += 2 * local;
  if (s->tree) {
    int rc = fill_tree(s, x, start, local);
    if (rc < 0) { s->n_maps = start; return rc; }
    if (s->nflags[x] & NF_GROUPED) return tick(s, s->map_n[x] + 1);   /* make_grouped set its map */
    s->map_off[x] = (int32_t)start;
    s->map_n[x] = (int32_t)((s->n_maps - start) / 2);
    return tick(s, s->map_n[x] + 1);
  }
  int32_t n = s->src_n[x], limit = s->map_limit, live = 0, single = -1, any_grouped = 0, live_small[8], *live_at = live_small;
  int64_t total = 0;
  if (n > 8 && !(live_at = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { s->n_maps = start; PyErr_NoMemory(); return -1; }
  for (int32_t i = 0; i < n; i++) {
    int32_t si = s->srcs[s->src_off[x] + i], m = s->map_n[si];
    if (m) { live_at[live++] = i; single = i; total += m; any_grouped |= grouped(s, si); }
  }
  int rc = 0;
  if (live == 0) { /* only its own redexes */ }
  else {
    const int32_t *src = s->srcs + s->src_off[x];
    int over = total + local > limit;
    /* past map_limit (or above a grouped source), step.py groups the steps where one source has redexes below it, or
     * several whose maps share no redex; else (a redex below two sources) it enumerates them lazily: the core bails */
    if (any_grouped) rc = live == 1 ? group_or_bail(s, x, start, local, live_at, 1) : -2;
    else if (n == 2 && src[0] == src[1]) rc = s->map_n[src[0]] + local > limit ? -2 : fill_from(s, x, s->map_off[src[0]], s->map_n[src[0]], src[0], -1);
    else if (live == 1) {
      int32_t j = src[single];
      if (over) rc = group_or_bail(s, x, start, local, live_at, 1);
      else rc = fill_from(s, x, s->map_off[j], s->map_n[j], j, -1);
    } else if (n == 2) {
      int32_t a = src[0], b = src[1];
      if (over) {
        int32_t g = ++s->gen, shared = 0, an = s->map_n[a], bn = s->map_n[b];
        stamp_pairs(s->stamp, NULL, s->maps + s->map_off[a], an, g);
        for (int32_t e = 0; e < bn; e++) shared += s->stamp[s->maps[s->map_off[b] + 2 * e]] == g;
        /* redexes below both: step.py's _from_sources makes the map whole where their union is within the limit */
        rc = !shared ? group_or_bail(s, x, start, local, live_at, 2) : an + bn - shared + local <= limit ? fill_shared(s, x, a, b) : -2;
      } else {
        int32_t g = ++s->gen, ao = s->map_off[a], an = s->map_n[a], bo = s->map_off[b], bn = s->map_n[b];
        stamp_pairs(s->stamp, s->stamp_val, s->maps + ao, an, g);
        int disjoint = 1;
        for (int32_t e = 0; e < bn; e++) if (s->stamp[s->maps[bo + 2 * e]] == g) { disjoint = 0; break; }
        if (disjoint) {
          rc = fill_from(s, x, ao, an, a, -1);
          if (rc == 0) rc = fill_from(s, x, bo, bn, b, -1);
        } else rc = fill_shared(s, x, a, b);
      }
    } else {
      /* three or more sources, several with redexes: the union of their redexes, within the limit */
      int32_t g = ++s->gen;
      int64_t keys = 0;
      for (int32_t i = 0; i < n; i++) {
        int32_t si = src[i];
        for (int32_t e = 0; e < s->map_n[si]; e++) {
          int32_t redex = s->maps[s->map_off[si] + 2 * e];
          if (s->stamp[redex] != g) { s->stamp[redex] = g; keys++; }
        }
      }
      if (keys + local > limit) rc = keys == total ? group_or_bail(s, x, start, local, live_at, live) : -2;
      else rc = fill_general(s, x, start);
    }
  }
  if (live_at != live_small) PyMem_Free(live_at);
  if (rc < 0) { s->n_maps = start; return rc; }
  if (grouped(s, x)) return tick(s, s->map_n[x] + 1);   /* make_grouped set its map */
  s->map_off[x] = (int32_t)start;   /* pool offsets stay below 2^31 entries: checked by grow32 on states and nodes */
  s->map_n[x] = (int32_t)((s->n_maps - start) / 2);
  return tick(s, s->map_n[x] + 1);
}

/* The map of `root` and of every node below it without one: post-order, iterative. */
int map_of(Space *s, int32_t root) {
  if (s->map_off[root] != NO_MAP) return 0;
  int32_t *stack = NULL; int64_t cap = 0, top = 0;
  if (grow((void **)&stack, &cap, 16, sizeof(int32_t)) < 0) return -1;
  stack[top++] = root;
  int rc = 0;
  while (top) {
    int32_t x = stack[top - 1];
    if (s->map_off[x] != NO_MAP) { top--; continue; }
    int64_t before = top;
    int32_t n = s->src_n[x];
    if (grow((void **)&stack, &cap, top + n, sizeof(int32_t)) < 0) { rc = -1; break; }
    for (int32_t i = 0; i < n; i++) {
      int32_t c = s->srcs[s->src_off[x] + i];
      if (s->map_off[c] == NO_MAP) stack[top++] = c;
    }
    if (top > before) continue;
    top--;
    if ((rc = compute(s, x)) < 0) break;
  }
  PyMem_Free(stack);
  return rc;
}

/* prepare(node): the step map of node and of every node below it (a program's first indexing). */
PyObject *Space_prepare(Space *s, PyObject *arg) {
  int32_t id = node_arg(s, arg);
  if (id < 0) return NULL;
  int rc = map_of(s, id);
  if (rc == -1) return NULL;
  return PyBool_FromLong(rc == 0);
}

/* key(k) -> (source index, inner key), or (-1, redex): a step key of tree semantics, one level of step.py's At. */
PyObject *Space_key(Space *s, PyObject *arg) {
  long k = PyLong_AsLong(arg);
  if (k == -1 && PyErr_Occurred()) return NULL;
  if (!s->tree || k < 0 || k >= s->n_keys) { PyErr_SetString(PyExc_IndexError, "no such step key"); return NULL; }
  return Py_BuildValue("ii", (int)s->key_idx[k], (int)s->key_inner[k]);
}
