/* A cluster worker's stepping in C (cluster/shard.py): one graph's steps without a state (successors(), shard.py's
 * Stepper.successors), and a whole level in one call (expand_level(), Shard.expand), from the step maps and the fingerprints.
 *
 * expand_level(nodes, shards) takes the graphs a shard expands at one level, in its frontier's order, and gives back
 * in one call what the Python loop made a step at a time: each state's step count (-1 where the core stops: the caller
 * steps that graph in Python), each step's key and its target (an index into the call's table of distinct targets'
 * fingerprints, each computed and listed once a call, not once a step), each state's own fingerprint, and the
 * candidates: the first step (by position) to each target not made a candidate before, with the shard that owns it
 * (its fingerprint's first 8 bytes, little endian, mod shards: fingerprint.py's owner). "Before" is, per node, the call
 * that made it a candidate (a step to one of an earlier call's sets maybe_cycle: only such a step can close a cycle): a
 * graph is one node of the core (hash consing), so its node stands for its fingerprint, and an array indexed by node
 * costs no hashing (a table keyed by fingerprint did: a cache miss a step); forget_candidates() empties it (it is only a
 * saving: an owner drops what it has). Arrays come back as bytes (int32 native order, fingerprints 16 bytes each), for
 * numpy.frombuffer.
 *
 * expand_level(nodes, 1, keyed=True) is the only shard's, which keys its states by node while its core lasts (shard.py):
 * no fingerprint is computed (a BLAKE2b a new node, the most of what a worker adds to one process), the states' and the
 * candidates' fingerprints and owners come back empty, as does the targets' table: each step's target is its node, not
 * an index into it. The caller asks the core for the fingerprints it reads (fingerprints()), after the run if at all. */
#include "_space.h"
#include "_space_fingerprint.h"
#include "_space_level.h"
#include <string.h>

/* Growable output arrays (kept from call to call: a level's room is the last one's, not grown again from nothing). */
typedef struct { uint8_t *p; int64_t n, cap; } Buf;

static int buf_put(Buf *b, const void *v, size_t k) {
  if (grow((void **)&b->p, &b->cap, b->n + (int64_t)k, 1) < 0) return -1;
  memcpy(b->p + b->n, v, k);
  b->n += (int64_t)k;
  return 0;
}
static inline int buf_i32(Buf *b, int32_t v) { return buf_put(b, &v, 4); }

/* A level being made: its output arrays (the first LEVEL_PARTS, in expand_level's order), one state's step targets before
 * they are read, and whether a step reached an earlier level's candidate. */
#define LEVEL_PARTS 9
typedef struct {
  Buf counts, keys, tix, sfps, c_state, c_pos, c_node, c_fp, c_owner, tfps;
  Buf st_targets;
  int maybe_cycle;
  uint32_t level;
  int shards;
  int keyed;   /* expand_level's keyed: nodes, no fingerprints */
} Level;

#define LEVEL_BUFS (LEVEL_PARTS + 2)
static void level_bufs(Level *out, Buf **all) {   /* every array of a call's */
  Buf *const bufs[LEVEL_BUFS] = {&out->counts, &out->keys, &out->tix, &out->sfps, &out->c_state, &out->c_pos, &out->c_node, &out->c_fp,
                                 &out->c_owner, &out->tfps, &out->st_targets};
  memcpy(all, bufs, sizeof(bufs));
}

struct SpaceLevel {
  uint32_t *cand; int64_t cap_cand, n_cand;   /* per node: the call that made it a candidate (0: none) */
  uint32_t level;                             /* this call's stamp (1, 2, ...) */
  uint32_t *t_level; int32_t *t_index; int64_t cap_first;   /* per node: the call that listed it as a target, and where */
  Level out;                                              /* the arrays of a call (their room kept) */
};

void level_free(struct SpaceLevel *lv) {
  if (!lv) return;
  PyMem_Free(lv->cand); PyMem_Free(lv->t_level); PyMem_Free(lv->t_index);
  Buf *bufs[LEVEL_BUFS];
  level_bufs(&lv->out, bufs);
  for (int i = 0; i < LEVEL_BUFS; i++) PyMem_Free(bufs[i]->p);
  PyMem_Free(lv);
}

/* successors(node)'s two lists, sized beforehand, the next place in them, and the graph of the group being listed. */
typedef struct { PyObject *keys, *targets; Py_ssize_t at; int32_t h; } SuccVisit;

static int succ_put(void *arg, int32_t key) {
  SuccVisit *v = arg;
  PyObject *k = PyLong_FromLong(key), *t = PyLong_FromLong(v->h);
  if (!k || !t) { Py_XDECREF(k); Py_XDECREF(t); return -1; }
  PyList_SET_ITEM(v->keys, v->at, k); PyList_SET_ITEM(v->targets, v->at, t);   /* the places left are NULL: safe to free */
  v->at++;
  return 0;
}

/* successors(node) -> (keys, graphs): every step out of the graph rooted at node, in the order Stepper.successors lists
 * them (the map's entries, or every key of its grouped steps in group order, as out() lists a state's), without a state;
 * None where the core stops (a bail: the caller steps that graph in Python; the nodes below keep the maps made). */
PyObject *Space_successors(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return NULL;
  if (s->reduction.on) { PyErr_SetString(PyExc_RuntimeError, "successors: a reducing space follows persistent sets, not every step"); return NULL; }
  if (check_node(s, id) < 0) return NULL;
  int32_t x = (int32_t)id;
  int rc = map_of(s, x);
  if (rc == -1) return NULL;
  if (rc == -2) Py_RETURN_NONE;
  int is_grouped = grouped(s, x);
  int64_t n = 0;
  for (int32_t e = 0; e < s->map_n[x]; e++) n += is_grouped ? group_size(s, group_at(s, x, e)) : 1;
  if (n > PY_SSIZE_T_MAX / 2) { PyErr_SetString(PyExc_MemoryError, "successors: too many steps"); return NULL; }
  SuccVisit v = {PyList_New((Py_ssize_t)n), PyList_New((Py_ssize_t)n), 0, -1};
  if (!v.keys || !v.targets || each_step(s, x, succ_put, &v, &v.h) < 0) goto fail;
  if (v.at != (Py_ssize_t)n) { PyErr_SetString(PyExc_RuntimeError, "successors: a group's size is not its keys'"); goto fail; }
  return Py_BuildValue("NN", v.keys, v.targets);
fail:
  Py_XDECREF(v.keys); Py_XDECREF(v.targets);
  return NULL;
}

static inline uint64_t fp_word(const uint8_t *fp) { uint64_t w; memcpy(&w, fp, 8); return w; }   /* little endian: x86, arm */

/* The candidate stamps cover every node (the new ones: none). 0, or -1 with MemoryError. */
static int cand_cover(Space *s, struct SpaceLevel *lv) {
  if (lv->cap_cand >= s->n_nodes) return 0;
  int64_t old = lv->cap_cand;
  if (grow((void **)&lv->cand, &lv->cap_cand, s->cap_nodes, sizeof(uint32_t)) < 0) return -1;
  memset(lv->cand + old, 0, (size_t)(lv->cap_cand - old) * sizeof(uint32_t));
  return 0;
}


/* One state's steps as group_keys lists them: each (key, target) appended. */
typedef struct { Buf *keys, *targets; int32_t h; } LevelVisit;

static int level_put(void *arg, int32_t key) {
  LevelVisit *v = arg;
  return buf_i32(v->keys, key) < 0 || buf_i32(v->targets, v->h) < 0 ? -1 : 0;
}


/* Node x's map's pairs (not grouped: a step each), keys to `keys` and targets to `targets`, each_step's without a call a
 * step. 0, or -1 with MemoryError. */
static int level_pairs(Space *s, int32_t x, Buf *keys, Buf *targets) {
  int64_t m = s->map_n[x];
  if (grow((void **)&keys->p, &keys->cap, keys->n + 4 * m, 1) < 0 || grow((void **)&targets->p, &targets->cap, targets->n + 4 * m, 1) < 0)
    return -1;
  const int32_t *pairs = s->maps + s->map_off[x];
  int32_t *k = (int32_t *)(keys->p + keys->n), *t = (int32_t *)(targets->p + targets->n);
  for (int64_t e = 0; e < m; e++) { k[e] = pairs[2 * e]; t[e] = pairs[2 * e + 1]; }
  keys->n += 4 * m; targets->n += 4 * m;
  return 0;
}

/* The per-node table stamps cover every node. 0, or -1 with MemoryError. */
static int level_cover(Space *s, struct SpaceLevel *lv) {
  if (lv->cap_first >= s->n_nodes) return 0;
  int64_t old = lv->cap_first;
  void **const arrays[] = {(void **)&lv->t_level, (void **)&lv->t_index};
  const size_t elems[] = {sizeof(uint32_t), sizeof(int32_t)};
  if (grow_parallel(&lv->cap_first, s->cap_nodes, arrays, elems, 2) < 0) return -1;
  memset(lv->t_level + old, 0, (size_t)(lv->cap_first - old) * sizeof(uint32_t));
  return 0;
}

/* State k's steps' targets (the n nodes at `targets`): unless keyed, each one's index in the call's table of targets
 * (its fingerprint listed there the first time a step of the call reaches it: keyed, each step's target is its node,
 * listed already); and its first step a candidate where its target was none before (a second step of the state to it
 * finds it one of this level's). 0, or -1 on error. */
static int level_targets(Space *s, struct SpaceLevel *lv, Level *out, Py_ssize_t k, const int32_t *targets, int64_t n) {
  if (!out->keyed) {
    if (level_cover(s, lv) < 0) return -1;
    for (int64_t e = 0; e < n; e++) {   /* each target's fingerprint */
      int32_t h = targets[e];
      if (lv->t_level[h] != out->level) {   /* the call's first step to h: its fingerprint, listed */
        uint8_t fresh[16];
        if (fp_of(s, h, fresh) < 0 || buf_put(&out->tfps, fresh, 16) < 0) return -1;
        lv->t_level[h] = out->level;
        lv->t_index[h] = (int32_t)(out->tfps.n / 16 - 1);
      }
      if (buf_i32(&out->tix, lv->t_index[h]) < 0) return -1;
    }
  }
  if (cand_cover(s, lv) < 0) return -1;
  for (int64_t e = 0; e < n; e++) {
    int32_t h = targets[e];
    uint32_t *at = &lv->cand[h];
    if (*at == out->level) continue;          /* a candidate already at this level */
    if (*at) { out->maybe_cycle = 1; continue; }   /* one of an earlier level (its owner has it by now) */
    *at = out->level; lv->n_cand++;
    if (out->keyed) {
      if (buf_i32(&out->c_state, (int32_t)k) < 0 || buf_i32(&out->c_pos, (int32_t)e) < 0 || buf_i32(&out->c_node, h) < 0) return -1;
      continue;
    }
    const uint8_t *fp = out->tfps.p + 16 * (int64_t)lv->t_index[h];
    int32_t owner = (int32_t)(fp_word(fp) % (uint64_t)out->shards);
    if (buf_i32(&out->c_state, (int32_t)k) < 0 || buf_i32(&out->c_pos, (int32_t)e) < 0 || buf_i32(&out->c_node, h) < 0
        || buf_put(&out->c_fp, fp, 16) < 0 || buf_i32(&out->c_owner, owner) < 0) return -1;
  }
  return 0;
}

/* Node x's fingerprint appended to the states' (none where keyed). 0, or -1 on error. */
static int level_state_fp(Space *s, Level *out, int32_t x) {
  uint8_t gfp[16];
  return out->keyed ? 0 : fp_of(s, x, gfp) < 0 || buf_put(&out->sfps, gfp, 16) < 0 ? -1 : 0;
}

/* State k of the level, the graph of node `item`: its fingerprint, steps and their targets. 0, or -1 on error. */
static int level_state(Space *s, struct SpaceLevel *lv, Level *out, Py_ssize_t k, PyObject *item) {
  int32_t x = node_arg(s, item);
  if (x < 0) return -1;
  int rc = map_of(s, x);
  if (rc == -1) return -1;
  if (rc == -2)   /* the core stops here: the caller steps this graph in Python */
    return buf_i32(&out->counts, -1) < 0 || level_state_fp(s, out, x) < 0 ? -1 : 0;
  if (level_state_fp(s, out, x) < 0) return -1;
  /* the keys straight into the level's, and the targets (keyed: each step's target is its node, in the level's too) */
  Buf *targets = out->keyed ? &out->tix : &out->st_targets;
  int64_t first = out->keyed ? out->tix.n : (out->st_targets.n = 0);
  if (grouped(s, x)) {   /* every key of each group */
    LevelVisit v = {&out->keys, targets, -1};
    if (each_step(s, x, level_put, &v, &v.h) < 0) return -1;
  } else if (level_pairs(s, x, &out->keys, targets) < 0) return -1;
  int64_t n = (targets->n - first) / 4;
  if (n > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "expand_level: too many steps"); return -1; }
  if (buf_i32(&out->counts, (int32_t)n) < 0) return -1;
  if (level_targets(s, lv, out, k, (const int32_t *)(targets->p + first), n) < 0) return -1;
  return tick(s, n + 1);
}

/* expand_level's tuple: the arrays as bytes, maybe_cycle, the number of candidates kept, and the targets' table. NULL on
 * error. */
static PyObject *level_result(const Level *out, int64_t n_cand) {
  const Buf *parts[LEVEL_PARTS] = {&out->counts, &out->keys, &out->tix, &out->sfps, &out->c_state, &out->c_pos, &out->c_node, &out->c_fp,
                                   &out->c_owner};
  PyObject *t = PyTuple_New(LEVEL_PARTS + 3);
  for (int i = 0; t && i < LEVEL_PARTS; i++) {
    PyObject *b = PyBytes_FromStringAndSize(parts[i]->p ? (char *)parts[i]->p : "", (Py_ssize_t)parts[i]->n);
    if (!b) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, i, b);
  }
  if (!t) return NULL;
  PyTuple_SET_ITEM(t, LEVEL_PARTS, PyBool_FromLong(out->maybe_cycle));
  PyObject *c = PyLong_FromLongLong(n_cand);
  if (!c) { Py_DECREF(t); return NULL; }
  PyTuple_SET_ITEM(t, LEVEL_PARTS + 1, c);
  PyObject *table = PyBytes_FromStringAndSize(out->tfps.p ? (char *)out->tfps.p : "", (Py_ssize_t)out->tfps.n);
  if (!table) { Py_DECREF(t); return NULL; }
  PyTuple_SET_ITEM(t, LEVEL_PARTS + 2, table);
  return t;
}

PyObject *Space_expand_level(Space *s, PyObject *args) {
  PyObject *arg;
  int shards, keyed = 0;
  if (!PyArg_ParseTuple(args, "Oi|p", &arg, &shards, &keyed)) return NULL;
  if (shards < 1) { PyErr_SetString(PyExc_ValueError, "expand_level: shards must be at least 1"); return NULL; }
  if (keyed && shards != 1) { PyErr_SetString(PyExc_ValueError, "expand_level: keyed by node is the only shard's"); return NULL; }
  if (s->reduction.on) { PyErr_SetString(PyExc_RuntimeError, "expand_level: a reducing space follows persistent sets, not every step"); return NULL; }
  if (!s->fingerprints) { PyErr_SetString(PyExc_RuntimeError, "fingerprint_setup() first"); return NULL; }
  if (!s->level && !(s->level = PyMem_Calloc(1, sizeof(struct SpaceLevel)))) return PyErr_NoMemory();
  struct SpaceLevel *lv = s->level;
  if (lv->level == UINT32_MAX) { PyErr_SetString(PyExc_OverflowError, "expand_level: too many levels"); return NULL; }
  Level *out = &lv->out;
  Buf *bufs[LEVEL_BUFS];
  level_bufs(out, bufs);
  for (int i = 0; i < LEVEL_BUFS; i++) bufs[i]->n = 0;
  out->maybe_cycle = 0; out->level = ++lv->level; out->shards = shards; out->keyed = keyed;
  PyObject *seq = PySequence_Fast(arg, "expand_level: a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n_states = PySequence_Fast_GET_SIZE(seq);
  int ok = 1;
  /* a signal's handler between states: a worker asked to stop (Shard.stop) leaves its level there, not at its end */
  for (Py_ssize_t k = 0; k < n_states && ok; k++)
    ok = (k & 63 || PyErr_CheckSignals() == 0) && level_state(s, lv, out, k, PySequence_Fast_GET_ITEM(seq, k)) == 0;
  PyObject *result = ok ? level_result(out, lv->n_cand) : NULL;
  Py_DECREF(seq);
  return result;
}

/* forget_candidates(): the table of fingerprints made candidates empties (a shard's memory bound). */
PyObject *Space_forget_candidates(Space *s, PyObject *noargs) {
  struct SpaceLevel *lv = s->level;
  if (lv) { PyMem_Free(lv->cand); lv->cand = NULL; lv->cap_cand = lv->n_cand = 0; }
  Py_RETURN_NONE;
}
