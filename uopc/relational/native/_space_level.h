/* A cluster worker's level in C (cluster/shard.py's Shard.expand): included by _space.c after successors() and the
 * fingerprints, whose pieces it uses.
 *
 * expand_level(nodes, shards) takes the graphs a shard expands at one level, in its frontier's order, and gives back
 * in one call what the Python loop made a step at a time: each state's step count (-1 where the core stops: the caller
 * steps that graph in Python), each step's key and its target's fingerprint, each state's own fingerprint, and the
 * candidates: the first step (by position) to each target not made a candidate before, with the shard that owns it
 * (its fingerprint's first 8 bytes, little endian, mod shards: fingerprint.py's owner). "Before" is a table of every
 * fingerprint made a candidate at this or an earlier call (a step to one of an earlier call's sets maybe_cycle: only
 * such a step can close a cycle); forget_candidates() empties it (the table is only a saving: an owner drops what it
 * has). Arrays come back as bytes (int32 native order, fingerprints 16 bytes each), for numpy.frombuffer. */

typedef struct { uint8_t fp[16]; uint32_t level; } CandSlot;   /* level 0: empty */

struct SpaceLevel {
  CandSlot *cand; int64_t cap_cand, n_cand;   /* open addressing on the fingerprint's first 8 bytes; power of two */
  uint32_t level;                             /* this call's stamp (1, 2, ...) */
  int32_t *first_stamp, *first_pos; int64_t cap_first; int32_t gen;   /* per node: the state that last saw it, and where */
};

static void level_free(struct SpaceLevel *lv) {
  if (!lv) return;
  PyMem_Free(lv->cand); PyMem_Free(lv->first_stamp); PyMem_Free(lv->first_pos);
  PyMem_Free(lv);
}

static inline uint64_t fp_word(const uint8_t *fp) { uint64_t w; memcpy(&w, fp, 8); return w; }   /* little endian: x86, arm */

/* The slot of fp: its own, or the empty one where it would go. */
static CandSlot *cand_slot(struct SpaceLevel *lv, const uint8_t *fp) {
  uint64_t mask = (uint64_t)lv->cap_cand - 1, i = fmix(fp_word(fp)) & mask;
  while (lv->cand[i].level && memcmp(lv->cand[i].fp, fp, 16)) i = (i + 1) & mask;
  return &lv->cand[i];
}

static int cand_room(struct SpaceLevel *lv) {
  if (2 * (lv->n_cand + 1) <= lv->cap_cand) return 0;
  int64_t old_cap = lv->cap_cand, cap = old_cap ? 2 * old_cap : 1024;
  CandSlot *old = lv->cand, *t = PyMem_Calloc((size_t)cap, sizeof(CandSlot));
  if (!t) { PyErr_NoMemory(); return -1; }
  lv->cand = t; lv->cap_cand = cap;
  for (int64_t i = 0; i < old_cap; i++) if (old[i].level) *cand_slot(lv, old[i].fp) = old[i];
  PyMem_Free(old);
  return 0;
}

/* Growable output arrays. */
typedef struct { uint8_t *p; int64_t n, cap; } Buf;

static int buf_put(Buf *b, const void *v, size_t k) {
  if (grow((void **)&b->p, &b->cap, b->n + (int64_t)k, 1) < 0) return -1;
  memcpy(b->p + b->n, v, k);
  b->n += (int64_t)k;
  return 0;
}
static inline int buf_i32(Buf *b, int32_t v) { return buf_put(b, &v, 4); }

/* One state's steps as group_keys lists them: each (key, target) appended. */
typedef struct { Buf *keys, *targets; int32_t h; } LevelVisit;

static int level_put(void *arg, int32_t key) {
  LevelVisit *v = arg;
  return buf_i32(v->keys, key) < 0 || buf_i32(v->targets, v->h) < 0 ? -1 : 0;
}

static PyObject *Space_expand_level(Space *s, PyObject *args) {
  PyObject *arg;
  int shards;
  if (!PyArg_ParseTuple(args, "Oi", &arg, &shards)) return NULL;
  if (shards < 1) { PyErr_SetString(PyExc_ValueError, "expand_level: shards must be at least 1"); return NULL; }
  if (s->reducing) { PyErr_SetString(PyExc_RuntimeError, "expand_level: a reducing space follows persistent sets, not every step"); return NULL; }
  if (!s->fp_cb) { PyErr_SetString(PyExc_RuntimeError, "fingerprint_setup() first"); return NULL; }
  if (!s->level && !(s->level = PyMem_Calloc(1, sizeof(struct SpaceLevel)))) return PyErr_NoMemory();
  struct SpaceLevel *lv = s->level;
  if (lv->level == UINT32_MAX) { PyErr_SetString(PyExc_OverflowError, "expand_level: too many levels"); return NULL; }
  uint32_t level = ++lv->level;
  PyObject *seq = PySequence_Fast(arg, "expand_level: a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n_states = PySequence_Fast_GET_SIZE(seq);
  Buf counts = {0}, keys = {0}, tfps = {0}, sfps = {0}, c_state = {0}, c_pos = {0}, c_node = {0}, c_fp = {0}, c_owner = {0};
  Buf st_keys = {0}, st_targets = {0};   /* one state's steps, before they are read */
  int maybe_cycle = 0, ok = 1;
  PyObject *out = NULL;
  for (Py_ssize_t k = 0; k < n_states && ok; k++) {
    long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
    if (id == -1 && PyErr_Occurred()) { ok = 0; break; }
    if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); ok = 0; break; }
    int32_t x = (int32_t)id;
    uint8_t gfp[16];
    int rc = map_of(s, x);
    if (rc == -1) { ok = 0; break; }
    if (rc == -2) {   /* the core stops here: the caller steps this graph in Python */
      if (buf_i32(&counts, -1) < 0 || fp_of(s, x, gfp) < 0 || buf_put(&sfps, gfp, 16) < 0) ok = 0;
      continue;
    }
    if (fp_of(s, x, gfp) < 0 || buf_put(&sfps, gfp, 16) < 0) { ok = 0; break; }
    st_keys.n = st_targets.n = 0;
    LevelVisit v = {&st_keys, &st_targets, -1};
    if (each_step(s, x, level_put, &v, &v.h) < 0) { ok = 0; break; }
    int64_t n = st_keys.n / 4;
    if (n > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "expand_level: too many steps"); ok = 0; break; }
    if (buf_i32(&counts, (int32_t)n) < 0 || buf_put(&keys, st_keys.p, (size_t)st_keys.n) < 0) { ok = 0; break; }
    if (lv->cap_first < s->n_nodes) {
      int64_t old = lv->cap_first;
      void **const arrays[] = {(void **)&lv->first_stamp, (void **)&lv->first_pos};
      const size_t elems[] = {sizeof(int32_t), sizeof(int32_t)};
      if (grow_parallel(&lv->cap_first, s->cap_nodes, arrays, elems, 2) < 0) { ok = 0; break; }
      memset(lv->first_stamp + old, 0, (size_t)(lv->cap_first - old) * sizeof(int32_t));
    }
    if (lv->gen == INT32_MAX) { memset(lv->first_stamp, 0, (size_t)lv->cap_first * sizeof(int32_t)); lv->gen = 0; }
    int32_t g = ++lv->gen;
    const int32_t *targets = (const int32_t *)st_targets.p;
    for (int64_t e = 0; e < n && ok; e++) {   /* each target's fingerprint, and its first step */
      int32_t h = targets[e];
      uint8_t fp[16];
      if (fp_of(s, h, fp) < 0 || buf_put(&tfps, fp, 16) < 0) { ok = 0; break; }
      if (lv->first_stamp[h] == g) continue;
      lv->first_stamp[h] = g;
      if (cand_room(lv) < 0) { ok = 0; break; }
      CandSlot *slot = cand_slot(lv, fp);
      if (slot->level == level) continue;          /* a candidate already at this level */
      if (slot->level) { maybe_cycle = 1; continue; }   /* one of an earlier level (its owner has it by now) */
      memcpy(slot->fp, fp, 16); slot->level = level; lv->n_cand++;
      int32_t owner = (int32_t)(fp_word(fp) % (uint64_t)shards);
      if (buf_i32(&c_state, (int32_t)k) < 0 || buf_i32(&c_pos, (int32_t)e) < 0 || buf_i32(&c_node, h) < 0
          || buf_put(&c_fp, fp, 16) < 0 || buf_i32(&c_owner, owner) < 0) ok = 0;
    }
    if (ok && tick(s, n + 1) < 0) ok = 0;
  }
  if (ok) {
    Buf *parts[] = {&counts, &keys, &tfps, &sfps, &c_state, &c_pos, &c_node, &c_fp, &c_owner};
    out = PyTuple_New(11);
    for (int i = 0; out && i < 9; i++) {
      PyObject *b = PyBytes_FromStringAndSize(parts[i]->p ? (char *)parts[i]->p : "", (Py_ssize_t)parts[i]->n);
      if (!b) Py_CLEAR(out);
      else PyTuple_SET_ITEM(out, i, b);
    }
    if (out) { PyTuple_SET_ITEM(out, 9, PyBool_FromLong(maybe_cycle)); PyObject *c = PyLong_FromLongLong(lv->n_cand);
               if (!c) Py_CLEAR(out); else PyTuple_SET_ITEM(out, 10, c); }
  }
  Buf *bufs[] = {&counts, &keys, &tfps, &sfps, &c_state, &c_pos, &c_node, &c_fp, &c_owner, &st_keys, &st_targets};
  for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) PyMem_Free(bufs[i]->p);
  Py_DECREF(seq);
  return out;
}

/* forget_candidates(): the table of fingerprints made candidates empties (a shard's memory bound). */
static PyObject *Space_forget_candidates(Space *s, PyObject *noargs) {
  struct SpaceLevel *lv = s->level;
  if (lv) { PyMem_Free(lv->cand); lv->cand = NULL; lv->cap_cand = lv->n_cand = 0; }
  Py_RETURN_NONE;
}
