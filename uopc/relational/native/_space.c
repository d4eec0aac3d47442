/* The explorer's hot core in C: nodes in flat arrays, each node's step map, the search.
 *
 * The same algorithm as uopc/relational/space/step.py (Stepper, graph or tree semantics, steps grouped by graph past
 * map_limit) and stream.py (Exploration._drive, breadth or depth first), on its own node layout: a node is a label (its op, dtype
 * and arg, or a leaf UOp, numbered by Python) and its sources' ids; hash consing is one open-addressing
 * table; a state is its root's id. Python is called only to find a node's own redexes (`match`), and
 * only for nodes some rule's pattern may match: matched whole here where the pattern was compiled to a
 * table (patterns.py; `Space.patterns`), else by its signature (op and sources' ops: `may`, cached).
 * Whatever this core does not do the way step.py does (a failed step, a step map past map_limit entries that step.py
 * enumerates lazily) it stops on ("bail"), and the Python explorer takes over: results are the same. A CALL never gets in: its
 * label is refused (NativeSpace._label), where the program or a rule's result enters.
 * Why: docs/native.md.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "_blake2b.h"   /* fingerprint(): BLAKE2b (RFC 7693) */

#define EMPTY_SLOT (-1)
#define NF_USED 1
#define NF_GROUPED 2
#define NO_GROUP INT32_MIN   /* make_grouped: no group yet (a group id is a cat's index, or -(key + 1) for one key) */
#define NO_MAP (-1)
#define SIGNAL_EVERY 4096

/* What expand() returns; the module exports them by these names (drive.py reads them there). */
enum { ST_DONE = 0, ST_MORE = 1, ST_MAX_STATES = 2, ST_BAIL = 3 };

/* What changes() reports per event, in the order they happened (exported as EV_*): a state expanded for the first time
 * (normal or not), expanded again (depth first: its normal flag stays), or given a shorter path (depth first: a new parent,
 * depth and step; EV_MOVED_AGAIN: it had been cut by max_depth and is to be expanded again). EV_REDUCED is or'ed into an
 * expansion that followed a persistent set only. */
enum { EV_NOT_NORMAL = 0, EV_NORMAL = 1, EV_AGAIN = 2, EV_MOVED = 3, EV_MOVED_AGAIN = 4, EV_REDUCED = 8 };

/* One node of a compiled pattern (patterns.py's table): what a graph node must be to match it. */
typedef struct {
  uint8_t ops[32];     /* a bit per op code; every bit where the pattern names no op */
  int32_t check;       /* its dtype and arg constraint, asked of Python once per label (check_cb), or -1 */
  int32_t slot;        /* where its name is bound, or -1 */
  int32_t n_src;       /* sources the pattern names, or -1: the node's sources are not looked at */
  int32_t any_len;     /* 1: at least n_src sources (the first n_src are matched), else exactly n_src */
  int32_t n_orders;    /* orders to try the sources in (a list's permutations) */
  int32_t kids;        /* offset into pat_kids: n_orders rows of n_src pattern nodes */
} PatNode;

/* A rule's quick test: the graph node at `path` below the root (through sources in fixed positions) must have an op
 * of pattern node `pat`. Every such test is necessary for a match, so failing one is a "no" without the search. */
#define PATH_MAX_LEN 4
typedef struct { int32_t pat; int32_t len; int32_t path[PATH_MAX_LEN]; } PatPath;

/* A pair still to match: pattern node `pat` against graph node `node`. */
typedef struct { int32_t pat, node; } PatGoal;

/* A slot of the hash-consing table: a node and the high half of its hash. The tag spares most probes a read of the
 * node's own hash, a cache miss each on a big table (the chains of bench maude spent a third of their time there). */
typedef struct { int32_t id; uint32_t tag; } Slot;

/* A hash map from nonzero 64-bit keys to 32-bit values: open addressing, power-of-two capacity, at most half full. */
typedef struct { uint64_t *key; int32_t *val; int64_t cap, n; } U64Map;

/* A finalizer (murmur3's fmix64): every input bit reaches the low bits the tables index by. */
static inline uint64_t fmix(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL; h ^= h >> 33;
  return h;
}

static int32_t map_get(const U64Map *m, uint64_t key, int32_t absent) {
  if (!m->cap) return absent;
  int64_t mask = m->cap - 1, j = (int64_t)(fmix(key) & (uint64_t)mask);
  for (; m->key[j]; j = (j + 1) & mask) if (m->key[j] == key) return m->val[j];
  return absent;
}

static void map_place(uint64_t *keys, int32_t *vals, int64_t cap, uint64_t key, int32_t val) {
  int64_t j = (int64_t)(fmix(key) & (uint64_t)(cap - 1));
  while (keys[j]) j = (j + 1) & (cap - 1);
  keys[j] = key; vals[j] = val;
}

/* Add a key that is not in the map. */
static int map_put(U64Map *m, uint64_t key, int32_t val) {
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

static void map_free(U64Map *m) { PyMem_Free(m->key); PyMem_Free(m->val); }

typedef struct {
  PyObject_HEAD
  PyObject *match_cb;   /* match(node) -> [(redex, result node), ...] for its own redexes, or None: bail */
  PyObject *may_cb;     /* may(op, n, src ops or None) -> bool: may a rule left to Python match a node of this signature
                           (None: no rule is left to Python) */
  int32_t map_limit;
  int tree;             /* tree semantics: a map's keys are positions (the key pool below), one step per occurrence */
  int dfs;              /* depth-first order (start()): a stack of states, as stream.py's _drive with order="dfs" */
  /* nodes */
  int32_t n_nodes, cap_nodes;
  int32_t *label, *src_off, *src_n, *map_off, *map_n, *state_of;
  uint8_t *op;
  uint8_t *nflags;      /* per node: NF_USED once some node has it as a source (intern: a node of an unused source is new);
                           NF_GROUPED: its map holds its steps grouped by the graph they make (make_grouped) */
  int32_t *srcs; int64_t n_srcs, cap_srcs;
  Slot *table; int64_t cap_table;   /* hash consing: node ids, open addressing, power of two */
  int32_t pending_from;   /* nodes from here on are not in the table yet (intern: fresh nodes; flush_pending) */
  /* step maps: (key, result node) pairs; a key is a redex id, or under tree semantics a position in the key pool */
  int32_t *maps; int64_t n_maps, cap_maps;
  /* tree semantics' keys (step.py's At): key k is the key key_inner[k] one source down, at source key_idx[k]; where
   * key_idx[k] is -1, key_inner[k] is a redex (the node's own) */
  int32_t *key_idx, *key_inner; int64_t n_keys, cap_keys;
  /* grouped steps (step.py's GroupedSteps): a map past map_limit entries holds one (first key, graph) pair per graph its
   * steps make, then each pair's group; a group is a key, -(key + 1), or an index into these arrays: the concatenation
   * of two groups (step.py's _Cat; gt_index -1), or under tree semantics a group's keys one source down, at source
   * gt_index (step.py's _Under: gt_left is the group, its keys read as At(gt_index, key)) */
  int32_t *gt_left, *gt_right, *gt_first, *gt_index; int64_t *gt_size; int64_t n_gt, cap_gt;
  U64Map wrapped;   /* tree semantics: (source index, key) -> the key one level up, made once (wrap_key) */
  /* signatures: key -> 0 / 1, open addressing; asked only for the rules not compiled to patterns */
  U64Map sigs;   /* signature key -> 0 / 1 */
  /* compiled patterns (patterns.py): matched whole on these nodes, so a node goes to Python only where one matches */
  PatNode *pat; int32_t n_pat;
  int32_t *pat_kids;
  int32_t *rule_root, *rule_slots; int32_t n_rules;
  PatPath *paths; int32_t *rule_paths;   /* rule r's quick tests: paths[rule_paths[r] .. rule_paths[r + 1]) */
  int32_t op_first[257], *op_rules;   /* the compiled rules whose root may have op o: op_rules[op_first[o] .. op_first[o + 1]) */
  PyObject *check_cb;   /* check(check, label, node) -> 1 (may pass) / 0 (cannot): a dtype and arg constraint */
  U64Map checked;       /* (check, label) -> 0 / 1: what check_cb said */
  PatGoal *goals; int32_t *bind;   /* the matcher's scratch, sized for the largest rule */
  /* redex scratch: generation stamps, for disjointness and lookups */
  int32_t *stamp, *stamp_val; int32_t cap_stamp, gen;
  int32_t *pstamp, *pstamp_val; int32_t pgen;   /* the same, for persistent sets (making a map inside one uses `stamp`) */
  /* states */
  int32_t n_states, cap_states, next_expand;   /* breadth first: states before next_expand were expanded */
  int32_t entry;   /* the next entry of the map of the state being expanded: a search stopped mid-state goes on there */
  int32_t *st_root, *st_parent, *st_depth, *st_redex;
  int8_t *st_normal;
  int8_t *st_done;      /* per state: 1 once expanded (stream.py: s.out is not None); depth first may set it back to 0 */
  int8_t *st_cut;       /* per state: at max_depth with a successor that was not made (stream.py's `cut` set) */
  int32_t n_cut;        /* states with st_cut set */
  /* depth first: the stack (stream.py's frontier, its top last), the state being expanded and its new successors */
  int32_t *stack; int64_t n_stack, cap_stack;
  int32_t cur;          /* the state being expanded (depth first), or -1 */
  int32_t *fresh; int64_t n_fresh, cap_fresh;
  int32_t *events; int64_t n_events, cap_events;   /* (state, EV_*) pairs since the last changes() */
  /* the Python side: a node's UOp where one exists (strong references; NULL until made), found by identity */
  PyObject **obj;
  U64Map ptrs;   /* a UOp's address -> its node (the UOp is held in obj, so the address is its own) */
  PyObject *labeler;    /* labeler(op, dtype, arg) -> label of an inner node; raises for a node the core does not handle */
  PyObject *label_finder;   /* label_finder(op, dtype, arg) -> its label, or -1 if it has none (makes none) */
  PyObject *op_codes;   /* {Ops member: its code} */
  PyObject **lab_key; int32_t *lab_val; int32_t *lab_op; int64_t cap_lab, n_lab;   /* (op, dtype, arg) by identity -> label */
  int32_t n_leaves;
  struct SpaceRows *rows;   /* codec rows of graphs (_space_rows.h): rows_setup() makes it */
  /* reduction (reduction.py's IslandReduction): on when `reducing` */
  int reducing;
  uint8_t inert[256];           /* ops no rule's pattern can match: their nodes are inert */
  PyObject *inert_cb;           /* inert(node, label, sources) -> 1 / 0, for a node of another op (forms.py's Forms.inert); 2: 0,
                                   and so for every node of this label (a head some pattern matches whatever the sources) */
  int8_t *ninert;               /* per node: -1 not asked yet, else what inert_cb said */
  uint8_t *lab_never; int64_t cap_never;   /* per label: 1 if inert_cb said 2 for a node of it */
  U64Map keep_full;             /* node + 1 -> 1: graphs always expanded fully */
  int32_t *st_out;              /* per state: -1 (its whole map), or where its persistent set is in `chosen` */
  int32_t *chosen; int64_t n_chosen, cap_chosen;   /* [count, redex, node, redex, node, ...] per reduced state */
  int32_t *nstamp; int32_t ngen;   /* per node: the walk that last saw it */
  int64_t ticks;  /* work since the last signal check */
  struct SpaceText *text;   /* a node's text without its UOp (_space_text.h): text_setup() makes it */
  /* fingerprints (cluster/fingerprint.py's, in C: Space.fingerprint): fingerprint_setup() sets fp_cb */
  PyObject *fp_cb;      /* fields(node) -> bytes: node_fields of the node's UOp, asked once per label */
  PyObject **fp_inner, **fp_leaf; int64_t cap_fp_inner, cap_fp_leaf;   /* the fields bytes by label (inner >= 0; leaf -2 - k), or NULL */
  uint8_t *fp, *fp_done; int64_t cap_fp;   /* per node: its 16 bytes, and 1 once they are computed (grown to cap_nodes on use) */
  struct SpaceLevel *level;   /* a cluster worker's levels (_space_level.h): expand_level() makes it */
} Space;

/* ---- growth */

static int grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = PyMem_Realloc(*p, (size_t)c * elem);
  if (!q) { PyErr_NoMemory(); return -1; }
  *p = q; *cap = c;
  return 0;
}

static int grow32(void **p, int32_t *cap, int64_t need, size_t elem) {
  int64_t c = *cap;
  if (need > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many nodes or states"); return -1; }
  if (grow(p, &c, need, elem) < 0) return -1;
  *cap = (int32_t)c;
  return 0;
}

/* Parallel arrays sharing one capacity `*cap` (n of them, elems[i] bytes an element), each grown to hold `need`: 0, or -1
 * with MemoryError (the arrays grown before the failing one keep their new size; `*cap` stays, which is safe). */
static int grow_parallel(int64_t *cap, int64_t need, void **const arrays[], const size_t elems[], int n) {
  if (need <= *cap) return 0;
  int64_t c = *cap;
  for (int i = 0; i < n; i++) {
    c = *cap;   /* each from the same capacity, so each to the same new one */
    if (grow(arrays[i], &c, need, elems[i]) < 0) return -1;
  }
  *cap = c;
  return 0;
}

static int tick(Space *s, int64_t work) {
  s->ticks += work;
  if (s->ticks < SIGNAL_EVERY) return 0;
  s->ticks = 0;
  return PyErr_CheckSignals();   /* a budget's handler raises BoundHit here, as between bytecodes */
}

/* ---- hash consing */

static inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

static uint64_t node_hash(int32_t label, const int32_t *src, int32_t n) {
  uint64_t h = mix(0x2545f4914f6cdd1dULL, (uint64_t)(uint32_t)label);
  for (int32_t i = 0; i < n; i++) h = mix(h, (uint64_t)(uint32_t)src[i]);
  return fmix(h);
}

static int same_node(Space *s, int32_t id, int32_t label, const int32_t *src, int32_t n) {
  if (s->label[id] != label || s->src_n[id] != n) return 0;
  const int32_t *a = s->srcs + s->src_off[id];
  for (int32_t i = 0; i < n; i++) if (a[i] != src[i]) return 0;
  return 1;
}

/* The hash-consing table's memory. It is read at random, one slot a new node: past a few megabytes, 4 KiB pages cost
 * a TLB miss almost every lookup (and a virtual machine's two-level page walk), so on Linux a big table asks for huge
 * pages. Allocated and freed here only (not PyMem): huge pages want 2 MiB alignment. */
#define HUGE_PAGE (2 * 1024 * 1024)
static Slot *table_alloc(int64_t cap) {
  size_t bytes = (size_t)cap * sizeof(Slot);
  void *t = NULL;
  if (bytes < HUGE_PAGE) return malloc(bytes);
  if (posix_memalign(&t, HUGE_PAGE, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(t, bytes, MADV_HUGEPAGE);   /* advice only: without huge pages it works the same, slower */
#endif
  return t;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH_WRITE(p) ((void)(p))
#endif
#define INSERT_AHEAD 8   /* slots being loaded at once while nodes are put in the table: misses overlap */

/* Put nodes [from, to) into table t (capacity cap, power of two), none of them there yet. Their slots are random: each
 * is a cache miss, so the slot of node id + INSERT_AHEAD is prefetched while node id goes in, and the misses overlap. */
static void table_insert(Space *s, Slot *t, int64_t cap, int32_t from, int32_t to) {
  uint64_t ring[INSERT_AHEAD], mask = (uint64_t)cap - 1;
  for (int32_t id = from; id < to + INSERT_AHEAD; id++) {
    int32_t k = id - INSERT_AHEAD;
    if (k >= from) {   /* node k's hash was computed (and its slot prefetched) INSERT_AHEAD nodes ago */
      uint64_t h = ring[k % INSERT_AHEAD];
      int64_t j = (int64_t)(h & mask);
      while (t[j].id != EMPTY_SLOT) j = (j + 1) & (int64_t)mask;
      t[j] = (Slot){k, (uint32_t)(h >> 32)};
    }
    if (id < to) {
      uint64_t h = ring[id % INSERT_AHEAD] = node_hash(s->label[id], s->srcs + s->src_off[id], s->src_n[id]);
      PREFETCH_WRITE(t + (h & mask));
    }
  }
}

/* The table at a new capacity, with every node in it (those pending too). Hashes are computed again rather than kept
 * per node: a node's 8 bytes more, written and copied as the arrays grow, cost more than this does once per doubling. */
static int rehash(Space *s, int64_t cap) {
  Slot *t = table_alloc(cap);
  if (!t) { PyErr_NoMemory(); return -1; }
  for (int64_t i = 0; i < cap; i++) t[i].id = EMPTY_SLOT;
  table_insert(s, t, cap, 0, s->n_nodes);
  free(s->table);
  s->table = t; s->cap_table = cap; s->pending_from = s->n_nodes;
  return 0;
}

/* The nodes made without a look at the table (intern: a fresh node) go in now, before a lookup that could find one. */
static void flush_pending(Space *s) {
  if (s->pending_from < s->n_nodes) table_insert(s, s->table, s->cap_table, s->pending_from, s->n_nodes);
  s->pending_from = s->n_nodes;
}

/* The node (label, src): found, or made if `make`; -1 if absent (not made) or on error (exception set).
 * A node with a source that no node uses yet cannot exist (a node is made after its sources, and marks them used), so
 * such a node is made without a look at the table and put there later, with others (flush_pending): its lookup would
 * be a cache miss, and nearly every node a rewrite makes is such a node (its rewritten source is new too). */
static int32_t intern(Space *s, int32_t label, uint8_t op, const int32_t *src, int32_t n, int make) {
  int fresh = 0;
  for (int32_t i = 0; i < n && !fresh; i++) fresh = !(s->nflags[src[i]] & NF_USED);
  if (fresh && !make) return -1;
  int64_t j = -1;
  uint32_t tag = 0;
  if (!fresh) {
    flush_pending(s);
    uint64_t h = node_hash(label, src, n);
    int64_t mask = s->cap_table - 1;
    j = (int64_t)(h & (uint64_t)mask);
    tag = (uint32_t)(h >> 32);
    for (int32_t id; (id = s->table[j].id) != EMPTY_SLOT; j = (j + 1) & mask)
      if (s->table[j].tag == tag && same_node(s, id, label, src, n)) return id;
    if (!make) return -1;
  }
  int32_t id = s->n_nodes;
  if (id + 1 > s->cap_nodes) {
    int32_t c = s->cap_nodes, c2;
#define GROW_NODE(f, t) c2 = c; if (grow32((void **)&s->f, &c2, id + 1, sizeof(t)) < 0) return -1;
    GROW_NODE(label, int32_t) GROW_NODE(src_off, int32_t) GROW_NODE(src_n, int32_t) GROW_NODE(map_off, int32_t)
    GROW_NODE(map_n, int32_t) GROW_NODE(state_of, int32_t) GROW_NODE(op, uint8_t) GROW_NODE(nflags, uint8_t) GROW_NODE(obj, PyObject *)
    if (s->reducing) { GROW_NODE(nstamp, int32_t) GROW_NODE(ninert, int8_t) }   /* the reduction's, made by reduce() */
#undef GROW_NODE
    s->cap_nodes = c2;
  }
  if (s->n_srcs + n > s->cap_srcs) {   /* `src` may point into s->srcs: copy it before growing that array */
    int32_t small[8], *copy = small;
    if (n > 8 && !(copy = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
    memcpy(copy, src, (size_t)n * sizeof(int32_t));
    int rc = grow((void **)&s->srcs, &s->cap_srcs, s->n_srcs + n, sizeof(int32_t));
    if (rc == 0) memcpy(s->srcs + s->n_srcs, copy, (size_t)n * sizeof(int32_t));
    if (copy != small) PyMem_Free(copy);
    if (rc < 0) return -1;
  } else memcpy(s->srcs + s->n_srcs, src, (size_t)n * sizeof(int32_t));
  s->label[id] = label; s->op[id] = op; s->nflags[id] = 0;
  s->src_off[id] = (int32_t)s->n_srcs; s->src_n[id] = n;
  for (int32_t i = 0; i < n; i++) s->nflags[s->srcs[s->n_srcs + i]] |= NF_USED;
  s->n_srcs += n;
  s->map_off[id] = NO_MAP; s->map_n[id] = 0; s->state_of[id] = -1; s->obj[id] = NULL;
  if (s->reducing) { s->nstamp[id] = 0; s->ninert[id] = -1; }
  s->n_nodes = id + 1;
  if ((int64_t)s->n_nodes * 2 > s->cap_table) { if (rehash(s, s->cap_table * 2) < 0) return -1; }
  else if (!fresh) { s->table[j] = (Slot){id, tag}; s->pending_from = s->n_nodes; }   /* flushed above: none pending */
  return id;
}

/* ---- signatures: may some rule match a node with this op and these sources' ops? */

static int may_match(Space *s, int32_t id) {
  if (s->may_cb == Py_None) return 0;   /* every rule's pattern is compiled */
  int32_t n = s->src_n[id];
  const int32_t *src = s->srcs + s->src_off[id];
  uint64_t key = (uint64_t)s->op[id] | ((uint64_t)(n > 4 ? 255 : n) << 8);
  if (n <= 4) for (int32_t i = 0; i < n; i++) key |= (uint64_t)s->op[src[i]] << (16 + 8 * i);
  else key |= (uint64_t)(uint32_t)n << 32;
  key += 1;   /* 0 marks an empty slot */
  int32_t known = map_get(&s->sigs, key, -1);
  if (known >= 0) return known;
  PyObject *ops;
  if (n <= 4) {
    if (!(ops = PyTuple_New(n))) return -1;
    for (int32_t i = 0; i < n; i++) PyTuple_SET_ITEM(ops, i, PyLong_FromLong(s->op[src[i]]));
  } else { ops = Py_None; Py_INCREF(ops); }
  PyObject *r = PyObject_CallFunction(s->may_cb, "iiN", (int)s->op[id], (int)n, ops);
  if (!r) return -1;
  int v = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (v < 0) return -1;
  if (map_put(&s->sigs, key, v) < 0) return -1;
  return v;
}

/* ---- compiled patterns: does some rule's pattern match a node, whole (UPat.match, as a yes or no)? */

/* Does node x pass dtype-and-arg check c? 1 or 0, -1 on error. Python answers once per label: an inner node's
 * label is its (op, dtype, arg), and a leaf's label is its own. */
static int pat_check(Space *s, int32_t c, int32_t x) {
  int32_t label = s->label[x];
  uint64_t key = (((uint64_t)(uint32_t)c << 32) | (uint32_t)label) + 1;   /* 0 marks an empty slot */
  int32_t known = map_get(&s->checked, key, -1);
  if (known >= 0) return known;
  PyObject *r = PyObject_CallFunction(s->check_cb, "iii", (int)c, (int)label, (int)x);   /* may make x's UOp: arrays move */
  if (!r) return -1;
  int v = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (v < 0 || map_put(&s->checked, key, v) < 0) return -1;
  return v;
}

static inline int op_fits(const PatNode *p, uint8_t op) { return (p->ops[op >> 3] >> (op & 7)) & 1; }

/* Do the ops of sources `src` fit pattern nodes `kids`? A cheap look one level down before a deeper search: most
 * nodes of a chain fail there (the first source of `(x + 0) + y` is a + whose second source is no CONST). */
static int kids_ops_fit(Space *s, const int32_t *kids, const int32_t *src, int32_t n) {
  for (int32_t i = 0; i < n; i++) if (!op_fits(s->pat + kids[i], s->op[src[i]])) return 0;
  return 1;
}

/* Can the last of the n pairs in `goals` and all the others be matched at once, the names in `bind` (slot -> node,
 * or -1) bound alike? 1 or 0, -1 on error. Depth first with backtracking, as UPat.match joins its sources: each call
 * takes one pair, so the recursion is as deep as the rule has pattern nodes (patterns.py's MAX_NODES), whatever the
 * graph. On return goals[0 .. n) and `bind` are as they were: the caller's other orders start from them. */
static int pat_solve(Space *s, PatGoal *goals, int32_t n, int32_t *bind) {
  if (n == 0) return 1;
  PatGoal g = goals[n - 1];
  const PatNode *p = s->pat + g.pat;   /* patterns are set once: this pointer stays valid */
  int32_t x = g.node;
  if (!op_fits(p, s->op[x])) return 0;
  if (p->check >= 0) {
    int c = pat_check(s, p->check, x);
    if (c <= 0) return c;
  }
  int bound_here = 0;
  if (p->slot >= 0) {
    if (bind[p->slot] >= 0 && bind[p->slot] != x) return 0;   /* a repeated name: the same node (hash consed: the same id) */
    if (bind[p->slot] < 0) { bind[p->slot] = x; bound_here = 1; }
  }
  int r = 0;
  if (p->n_src < 0) r = pat_solve(s, goals, n - 1, bind);
  else if (s->src_n[x] == p->n_src || (p->any_len && s->src_n[x] > p->n_src)) {
    for (int32_t k = 0; k < p->n_orders && r == 0; k++) {
      const int32_t *kids = s->pat_kids + p->kids + (int64_t)k * p->n_src;
      const int32_t *src = s->srcs + s->src_off[x];   /* read again each order: a check may have moved it */
      if (!kids_ops_fit(s, kids, src, p->n_src)) continue;
      /* pushed last first: the first source is matched first, as UPat.match joins them (and where a chain fails) */
      for (int32_t i = 0; i < p->n_src; i++) goals[n - 2 + p->n_src - i] = (PatGoal){kids[i], src[i]};
      r = pat_solve(s, goals, n - 1 + p->n_src, bind);
    }
  }
  goals[n - 1] = g;
  if (bound_here) bind[p->slot] = -1;
  return r;
}

/* Do the nodes at rule's quick-test paths below x have the ops they need? (A chain's node fails here, in a few loads,
 * rather than a few calls into pat_solve: on a chain under a pattern three levels deep that search was a third of the
 * core's time.) */
static int paths_fit(Space *s, int32_t rule, int32_t x) {
  for (int32_t e = s->rule_paths[rule]; e < s->rule_paths[rule + 1]; e++) {
    const PatPath *q = s->paths + e;
    int32_t y = x;
    for (int32_t d = 0; d < q->len; d++) {
      if (s->src_n[y] <= q->path[d]) return 0;   /* the pattern names that source: the node must have it */
      y = s->srcs[s->src_off[y] + q->path[d]];
    }
    if (!op_fits(s->pat + q->pat, s->op[y])) return 0;
  }
  return 1;
}

/* Does some compiled rule's pattern match node x? 1 or 0, -1 on error. */
static int pattern_matches(Space *s, int32_t x) {
  int32_t op = s->op[x];
  for (int32_t k = s->op_first[op]; k < s->op_first[op + 1]; k++) {
    int32_t rule = s->op_rules[k];
    if (!paths_fit(s, rule, x)) continue;
    for (int32_t j = 0; j < s->rule_slots[rule]; j++) s->bind[j] = -1;
    s->goals[0] = (PatGoal){s->rule_root[rule], x};
    int r = pat_solve(s, s->goals, 1, s->bind);
    if (r != 0) return r;
  }
  return 0;
}

/* May some rule match node x: a compiled pattern matches it whole, or a rule left to Python by its signature? */
static int asks_python(Space *s, int32_t x) {
  int m = may_match(s, x);
  return m != 0 ? m : pattern_matches(s, x);
}

/* ---- step maps (step.py's Stepper._compute, graph semantics) */

static int need_stamps(Space *s, int32_t redex) {
  if (redex < s->cap_stamp) return 0;
  int32_t c = s->cap_stamp, c2 = c, c3 = c, c4 = c;
  if (grow32((void **)&s->stamp, &c, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->stamp_val, &c2, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->pstamp, &c3, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  if (grow32((void **)&s->pstamp_val, &c4, (int64_t)redex + 1, sizeof(int32_t)) < 0) return -1;
  for (int32_t i = s->cap_stamp; i < c; i++) s->stamp[i] = s->pstamp[i] = 0;
  s->cap_stamp = c;
  return 0;
}

/* Tree semantics: a new key, the key `inner` at source `idx` (or where idx is -1, the redex `inner` itself); -1 on error. */
static int32_t new_key(Space *s, int32_t idx, int32_t inner) {
  if (s->n_keys >= INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many step keys"); return -1; }
  void **const arrays[] = {(void **)&s->key_idx, (void **)&s->key_inner};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&s->cap_keys, s->n_keys + 1, arrays, elems, 2) < 0) return -1;
  s->key_idx[s->n_keys] = idx; s->key_inner[s->n_keys] = inner;
  return (int32_t)s->n_keys++;
}

/* A node's own redexes, appended to the map pool (under tree semantics, each as a key of its own): their count, -1 on
 * error, -2 to bail. */
static int64_t own_redexes(Space *s, int32_t id) {
  int m = asks_python(s, id);
  if (m <= 0) return m;
  PyObject *r = PyObject_CallFunction(s->match_cb, "i", (int)id);   /* may make nodes: arrays move */
  if (!r) return -1;
  if (r == Py_None) { Py_DECREF(r); return -2; }
  PyObject *seq = PySequence_Fast(r, "match must return a list");
  Py_DECREF(r);
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (grow((void **)&s->maps, &s->cap_maps, s->n_maps + 2 * n, sizeof(int32_t)) < 0) { Py_DECREF(seq); return -1; }
  for (Py_ssize_t i = 0; i < n; i++) {
    int redex, result;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &redex, &result)) { Py_DECREF(seq); return -1; }
    if (s->tree) { if ((redex = new_key(s, -1, redex)) < 0) { Py_DECREF(seq); return -1; } }
    else if (need_stamps(s, redex) < 0) { Py_DECREF(seq); return -1; }
    s->maps[s->n_maps + 2 * i] = redex; s->maps[s->n_maps + 2 * i + 1] = result;
  }
  Py_DECREF(seq);
  return n;
}

/* Append (redex, the node x with sources `src`) to the map pool being made. */
static int add_step(Space *s, int32_t x, int32_t redex, const int32_t *src) {
  int32_t h = intern(s, s->label[x], s->op[x], src, s->src_n[x], 1);
  if (h < 0 || grow((void **)&s->maps, &s->cap_maps, s->n_maps + 2, sizeof(int32_t)) < 0) return -1;
  s->maps[s->n_maps++] = redex; s->maps[s->n_maps++] = h;
  return 0;
}

/* Stamp the redexes of n (redex, node) pairs with generation g, and where `val` is given, each with its node. */
static void stamp_pairs(int32_t *stamp, int32_t *val, const int32_t *pairs, int32_t n, int32_t g) {
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
  for (int32_t e = 0; e < from_n; e++) {
    int32_t redex = s->maps[from_off + 2 * e], c = s->maps[from_off + 2 * e + 1];
    if (other_map >= 0 && s->stamp[redex] == other_map) continue;   /* _both: already made from the left source */
    const int32_t *src = s->srcs + s->src_off[x];
    for (int32_t k = 0; k < n; k++) buf[k] = src[k] == j_node ? c : src[k];
    if (add_step(s, x, redex, buf) < 0) { rc = -1; break; }
  }
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

static int make_grouped(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live);

/* x's steps where its two sources a and b share a redex below them: a redex below both is rewritten in both, (c,
 * mb.get(r, b)) for ma's, then mb's others (step.py's _both and _from_sources). 0, or -1 on error. */
static int fill_shared(Space *s, int32_t x, int32_t a, int32_t b) {
  int32_t ao = s->map_off[a], an = s->map_n[a], bo = s->map_off[b], bn = s->map_n[b], g2 = ++s->gen;
  stamp_pairs(s->stamp, s->stamp_val, s->maps + bo, bn, g2);
  for (int32_t e = 0; e < an; e++) {
    int32_t redex = s->maps[ao + 2 * e], pair[2];
    pair[0] = s->maps[ao + 2 * e + 1];
    pair[1] = s->stamp[redex] == g2 ? s->stamp_val[redex] : b;
    if (add_step(s, x, redex, pair) < 0) return -1;
  }
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
  for (int32_t i = 0; i < n && rc == 0; i++) {
    int32_t si = s->srcs[s->src_off[x] + i];
    for (int32_t e = 0; e < s->map_n[si]; e++) {   /* offsets, not pointers: interning may move every array */
      int32_t k = new_key(s, i, s->maps[s->map_off[si] + 2 * e]), c = s->maps[s->map_off[si] + 2 * e + 1];
      if (k < 0) { rc = -1; break; }
      memcpy(buf, s->srcs + s->src_off[x], (size_t)n * sizeof(int32_t));
      buf[i] = c;
      if (add_step(s, x, k, buf) < 0) { rc = -1; break; }
    }
  }
  if (buf != buf_small) PyMem_Free(buf);
  return rc;
}

/* ---- grouped steps: a map past map_limit entries, as step.py's Stepper._make_grouped makes it under graph semantics */

static inline int32_t group_first(const Space *s, int32_t g) { return g < 0 ? -g - 1 : s->gt_first[g]; }
static inline int64_t group_size(const Space *s, int32_t g) { return g < 0 ? 1 : s->gt_size[g]; }

/* A new group node: (left, right, first key, source index, size); its id, or NO_GROUP on error. */
static int32_t group_node(Space *s, int32_t left, int32_t right, int32_t first, int32_t index, int64_t size) {
  if (s->n_gt >= INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many step groups"); return NO_GROUP; }
  void **const arrays[] = {(void **)&s->gt_left, (void **)&s->gt_right, (void **)&s->gt_first, (void **)&s->gt_index, (void **)&s->gt_size};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int64_t)};
  if (grow_parallel(&s->cap_gt, s->n_gt + 1, arrays, elems, 5) < 0) return NO_GROUP;
  int32_t id = (int32_t)s->n_gt++;
  s->gt_left[id] = left; s->gt_right[id] = right; s->gt_first[id] = first; s->gt_index[id] = index; s->gt_size[id] = size;
  return id;
}

/* The group `g` followed by `more` (step.py's _join): `more` where g is NO_GROUP; NO_GROUP on error. */
static int32_t group_join(Space *s, int32_t g, int32_t more) {
  if (g == NO_GROUP) return more;
  return group_node(s, g, more, group_first(s, g), -1, group_size(s, g) + group_size(s, more));
}

/* Tree semantics: the key `k` at source `index`, one level up (At(index, k)): made once. -1 on error. */
static int32_t wrap_key(Space *s, int32_t index, int32_t k) {
  uint64_t at = (((uint64_t)(uint32_t)index << 32) | (uint32_t)k) + 1;
  int32_t w = map_get(&s->wrapped, at, -1);
  if (w >= 0) return w;
  if ((w = new_key(s, index, k)) < 0 || map_put(&s->wrapped, at, w) < 0) return -1;
  return w;
}

/* Tree semantics: group g of a node's source `index`, seen from the node (step.py's _under): a key becomes its At, a
 * larger group is wrapped once (its keys read one level up as they are listed). NO_GROUP on error. */
static int32_t group_under(Space *s, int32_t index, int32_t g) {
  if (g < 0) { int32_t k = wrap_key(s, index, -g - 1); return k < 0 ? NO_GROUP : -k - 1; }
  int32_t first = wrap_key(s, index, s->gt_first[g]);
  return first < 0 ? NO_GROUP : group_node(s, g, NO_GROUP, first, index, s->gt_size[g]);
}

/* Node x's map holds grouped steps: its pairs (first key, graph), then their groups. */
static inline int grouped(const Space *s, int32_t x) { return s->nflags[x] & NF_GROUPED; }
static inline int32_t group_at(const Space *s, int32_t x, int32_t e) { return s->maps[s->map_off[x] + 2 * (int64_t)s->map_n[x] + e]; }

/* Each key of group g, in order, to `visit` (iterative: a chain's groups nest as deep as it is long). Under tree
 * semantics a key below _Under nodes is read one level up per node, innermost first (step.py's _keys). 0, or -1. */
static int group_keys(Space *s, int32_t g, int (*visit)(void *, int32_t), void *arg) {
  int32_t *stack = NULL, *up_index = NULL, *up_parent = NULL;   /* (group, path) pairs; the paths' nodes (index, outer node) */
  int64_t top = 0, cap = 0, n_up = 0, cap_up = 0, cap_up2 = 0;
  int rc = grow((void **)&stack, &cap, 64, sizeof(int32_t));
  if (rc == 0) { stack[top++] = g; stack[top++] = -1; }
  while (top && rc == 0) {
    int32_t path = stack[--top], h = stack[--top];
    if (h < 0) {
      int32_t k = -h - 1;
      for (int32_t p = path; p >= 0 && k >= 0; p = up_parent[p]) k = wrap_key(s, up_index[p], k);
      rc = k < 0 ? -1 : visit(arg, k);
    } else if (s->gt_index[h] >= 0) {   /* an _Under: its group, one more level on the path */
      if (grow((void **)&up_index, &cap_up, n_up + 1, sizeof(int32_t)) < 0 || grow((void **)&up_parent, &cap_up2, n_up + 1, sizeof(int32_t)) < 0
          || grow((void **)&stack, &cap, top + 2, sizeof(int32_t)) < 0) { rc = -1; break; }
      up_index[n_up] = s->gt_index[h]; up_parent[n_up] = path;
      stack[top++] = s->gt_left[h]; stack[top++] = (int32_t)n_up++;
    } else {
      if (grow((void **)&stack, &cap, top + 4, sizeof(int32_t)) < 0) { rc = -1; break; }
      stack[top++] = s->gt_right[h]; stack[top++] = path; stack[top++] = s->gt_left[h]; stack[top++] = path;
    }
  }
  PyMem_Free(stack); PyMem_Free(up_index); PyMem_Free(up_parent);
  return rc;
}

/* The groups being made: per graph made, its node and group, in the order the steps first make it; `at` finds a node's. */
typedef struct { int32_t *node, *group; int64_t n, cap; U64Map at; } Groups;

static int groups_add(Space *s, Groups *o, int32_t node, int32_t g) {
  int32_t k = map_get(&o->at, (uint64_t)node + 1, -1);
  if (k >= 0) return (o->group[k] = group_join(s, o->group[k], g)) == NO_GROUP ? -1 : 0;
  void **const arrays[] = {(void **)&o->node, (void **)&o->group};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&o->cap, o->n + 1, arrays, elems, 2) < 0) return -1;
  o->node[o->n] = node; o->group[o->n] = g;
  return map_put(&o->at, (uint64_t)node + 1, (int32_t)o->n++);
}

/* x's map, from its own `local` redexes (in the pool from `start`) and the sources at `live` (n_live of them: under graph
 * semantics their maps small and sharing no redex, or one grouped; under tree semantics every source with steps), as its
 * steps grouped by the graph they make: each made once, whatever number of keys make it. 0, -1 on error, -2 to bail (more
 * graphs than map_limit: step.py enumerates them lazily). */
static int make_grouped(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live) {
  Groups o = {0};
  int32_t n = s->src_n[x], buf_small[8], *buf = buf_small;
  int rc = 0;
  if (n > 8 && !(buf = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  for (int64_t e = 0; e < local && rc == 0; e++) rc = groups_add(s, &o, s->maps[start + 2 * e + 1], -s->maps[start + 2 * e] - 1);
  for (int32_t q = 0; q < n_live && rc == 0; q++) {
    int32_t j = live[q], sj = s->srcs[s->src_off[x] + j], from_groups = grouped(s, sj);
    for (int32_t e = 0; e < s->map_n[sj] && rc == 0; e++) {   /* offsets, not pointers: interning may move every array */
      int32_t c = s->maps[s->map_off[sj] + 2 * e + 1], g = from_groups ? group_at(s, sj, e) : -s->maps[s->map_off[sj] + 2 * e] - 1;
      if (s->tree && (g = group_under(s, j, g)) == NO_GROUP) { rc = -1; break; }
      memcpy(buf, s->srcs + s->src_off[x], (size_t)n * sizeof(int32_t));
      buf[j] = c;
      int32_t h = intern(s, s->label[x], s->op[x], buf, n, 1);
      rc = h < 0 ? -1 : groups_add(s, &o, h, g);
    }
  }
  if (rc == 0 && o.n > s->map_limit) rc = -2;
  if (rc == 0 && start + 3 * o.n > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: step maps past 2^31 entries"); rc = -1; }
  if (rc == 0 && grow((void **)&s->maps, &s->cap_maps, start + 3 * o.n, sizeof(int32_t)) < 0) rc = -1;
  if (rc == 0) {   /* the pairs over the own redexes (read above), then the groups */
    for (int64_t k = 0; k < o.n; k++) {
      s->maps[start + 2 * k] = group_first(s, o.group[k]); s->maps[start + 2 * k + 1] = o.node[k];
      s->maps[start + 2 * o.n + k] = o.group[k];
    }
    s->n_maps = start + 3 * o.n;
    s->map_off[x] = (int32_t)start; s->map_n[x] = (int32_t)o.n;
    s->nflags[x] |= NF_GROUPED;
  }
  if (buf != buf_small) PyMem_Free(buf);
  PyMem_Free(o.node); PyMem_Free(o.group); map_free(&o.at);
  return rc;
}

/* Past map_limit: grouped where step.py groups (and the core may: a reduction reads whole maps), else bail. */
static int group_or_bail(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live) {
  return s->reducing ? -2 : make_grouped(s, x, start, local, live, n_live);
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
static int map_of(Space *s, int32_t root) {
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

/* ---- the search (stream.py's Exploration._drive, breadth or depth first) */

static int add_state(Space *s, int32_t root, int32_t parent, int32_t depth, int32_t redex) {
  int32_t i = s->n_states;
  if (i + 1 > s->cap_states) {
    int32_t c = s->cap_states, c2;
#define GROW_STATE(f, t) c2 = c; if (grow32((void **)&s->f, &c2, i + 1, sizeof(t)) < 0) return -1;
    GROW_STATE(st_root, int32_t) GROW_STATE(st_parent, int32_t) GROW_STATE(st_depth, int32_t) GROW_STATE(st_redex, int32_t)
    GROW_STATE(st_normal, int8_t) GROW_STATE(st_out, int32_t) GROW_STATE(st_done, int8_t) GROW_STATE(st_cut, int8_t)
#undef GROW_STATE
    s->cap_states = c2;
  }
  s->st_root[i] = root; s->st_parent[i] = parent; s->st_depth[i] = depth; s->st_redex[i] = redex; s->st_normal[i] = -1; s->st_out[i] = -1;
  s->st_done[i] = 0; s->st_cut[i] = 0;
  s->state_of[root] = i;
  s->n_states = i + 1;
  return 0;
}

static int push_int(int32_t **a, int64_t *n, int64_t *cap, int32_t v) {
  if (grow((void **)a, cap, *n + 1, sizeof(int32_t)) < 0) return -1;
  (*a)[(*n)++] = v;
  return 0;
}

/* start(root, dfs=False): state 0 is the graph of node root; the search is breadth first, or depth first. */
static PyObject *Space_start(Space *s, PyObject *args) {
  int root, dfs = 0;
  if (!PyArg_ParseTuple(args, "i|p", &root, &dfs)) return NULL;
  if (s->n_states) { PyErr_SetString(PyExc_RuntimeError, "the search has started already"); return NULL; }
  if (root < 0 || root >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  if (add_state(s, root, -1, 0, -1) < 0) return NULL;
  s->dfs = dfs; s->cur = -1;
  if (dfs && push_int(&s->stack, &s->n_stack, &s->cap_stack, 0) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- reduction: the persistent set of a state (reduction.py's IslandReduction.persistent, step for step) */


/* Is the step (redex r, island h) of a group whose redexes are stamped `g` closed: h's map has no r and only
 * the group's redexes? 1, 0, or <0 (error, bail) from making h's map. */
static int closed(Space *s, int32_t r, int32_t h, int32_t g) {
  int rc = map_of(s, h);
  if (rc < 0) return rc;
  int32_t off = s->map_off[h], n = s->map_n[h];
  for (int32_t e = 0; e < n; e++) {
    int32_t r2 = s->maps[off + 2 * e];
    if (r2 == r || s->pstamp[r2] != g) return 0;
  }
  return 1;
}

/* Is node u inert (reduction.py: IslandReduction.forms.inert)? 1, 0, or -1 on error. Asked once per node of an op
 * some rule may match: Python reads the rules' patterns against what u's sources can become. */
static int node_inert(Space *s, int32_t u) {
  if (s->inert[s->op[u]]) return 1;
  if (s->ninert[u] >= 0) return s->ninert[u];
  int32_t label = s->label[u];
  if (!s->inert_cb || (label >= 0 && label < s->cap_never && s->lab_never[label])) return 0;
  PyObject *r = PyObject_CallFunction(s->inert_cb, "iii", (int)u, (int)label, (int)s->src_n[u]);   /* may make UOps */
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v == 2 && label >= 0) {
    int64_t cap = s->cap_never;
    if (grow((void **)&s->lab_never, &s->cap_never, (int64_t)label + 1, sizeof(uint8_t)) < 0) return -1;
    memset(s->lab_never + cap, 0, (size_t)(s->cap_never - cap));
    s->lab_never[label] = 1;
  }
  s->ninert[u] = v == 1;
  return v == 1;
}

/* The persistent set of state i (its root's map made, not empty) into `chosen`: 1 (st_out[i] set), 0 (explore
 * every step), -1 error, -2 bail. */
static int persistent(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  if (map_get(&s->keep_full, (uint64_t)root + 1, 0)) return 0;
  int root_inert = node_inert(s, root);
  if (root_inert <= 0) return root_inert;
  int32_t *isl = NULL, *stack = NULL, *grp = NULL, *order = NULL, *list = NULL;
  int64_t n_isl = 0, cap_isl = 0, top = 0, cap_stack = 0, n_order = 0, cap_order = 0, n_list = 0, cap_list = 0;
  int result = 0;
  /* the islands: non-inert nodes with a redex below, reached through inert nodes, depth first, left to right */
  int32_t walk = ++s->ngen;
  if (push_int(&stack, &top, &cap_stack, root) < 0) { result = -1; goto done; }
  while (top) {
    int32_t u = stack[--top];
    if (s->nstamp[u] == walk) continue;
    s->nstamp[u] = walk;
    int in = node_inert(s, u);
    if (in < 0) { result = -1; goto done; }
    if (in) {
      for (int32_t k = s->src_n[u] - 1; k >= 0; k--)
        if (push_int(&stack, &top, &cap_stack, s->srcs[s->src_off[u] + k]) < 0) { result = -1; goto done; }
    } else if (s->map_n[u] > 0 && push_int(&isl, &n_isl, &cap_isl, u) < 0) { result = -1; goto done; }
  }
  if (n_isl < 2) goto done;
  /* the groups: islands that share a redex, merged in reduction._groups' order */
  if (!(grp = PyMem_Malloc((size_t)n_isl * sizeof(int32_t)))) { PyErr_NoMemory(); result = -1; goto done; }
  for (int64_t k = 0; k < n_isl; k++) {
    int32_t g = ++s->pgen;
    stamp_pairs(s->pstamp, NULL, s->maps + s->map_off[isl[k]], s->map_n[isl[k]], g);
    int64_t kept = 0;
    for (int64_t q = 0; q < n_order; q++) {   /* each earlier group, against the keys merged so far */
      int32_t gid = order[q], hit = 0;
      for (int64_t j = 0; j < k && !hit; j++) if (grp[j] == gid) {
        const int32_t *mj = s->maps + s->map_off[isl[j]];
        for (int32_t e = 0; e < s->map_n[isl[j]]; e++) if (s->pstamp[mj[2 * e]] == g) { hit = 1; break; }
      }
      if (!hit) { order[kept++] = gid; continue; }
      for (int64_t j = 0; j < k; j++) if (grp[j] == gid) {
        grp[j] = (int32_t)k;
        stamp_pairs(s->pstamp, NULL, s->maps + s->map_off[isl[j]], s->map_n[isl[j]], g);
      }
    }
    n_order = kept;
    grp[k] = (int32_t)k;
    if (push_int(&order, &n_order, &cap_order, (int32_t)k) < 0) { result = -1; goto done; }
  }
  if (n_order < 2) goto done;
  for (int64_t q = 0; q < n_order && result == 0; q++) {
    int32_t gid = order[q], g = ++s->pgen;
    n_list = 0;   /* the group's redexes, in order, each once */
    for (int64_t j = 0; j < n_isl; j++) if (grp[j] == gid) {
      for (int32_t e = 0; e < s->map_n[isl[j]]; e++) {
        int32_t r = s->maps[s->map_off[isl[j]] + 2 * e];
        if (s->pstamp[r] != g) { s->pstamp[r] = g; if (push_int(&list, &n_list, &cap_list, r) < 0) { result = -1; goto done; } }
      }
    }
    int ok = 1;
    for (int64_t j = 0; j < n_isl && ok; j++) if (grp[j] == gid) {
      for (int32_t e = 0; e < s->map_n[isl[j]] && ok; e++) {
        int32_t r = s->maps[s->map_off[isl[j]] + 2 * e], h = s->maps[s->map_off[isl[j]] + 2 * e + 1];
        int c = closed(s, r, h, g);   /* may make maps (and call Python): offsets are read again each time */
        if (c < 0) { result = c; goto done; }
        ok = c;
      }
    }
    if (!ok) continue;
    /* every redex of the group is a step of the whole graph too, and no step leads to an expanded state (the
     * cycle proviso): this is the persistent set */
    int32_t g2 = ++s->pgen, roff = s->map_off[root], rn = s->map_n[root];
    stamp_pairs(s->pstamp, s->pstamp_val, s->maps + roff, rn, g2);
    int all_steps = 1;
    for (int64_t e = 0; e < n_list && all_steps; e++) all_steps = s->pstamp[list[e]] == g2;
    if (!all_steps) continue;   /* as reduction.py: the next closed group may do */
    for (int64_t e = 0; e < n_list; e++) {   /* the cycle proviso fails: every step is explored */
      int32_t t = s->state_of[s->pstamp_val[list[e]]];
      if (t >= 0 && s->st_done[t]) goto done;
    }
    int64_t at = s->n_chosen;
    if (at > INT32_MAX - 1 - 2 * n_list) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many reduced states"); result = -1; goto done; }
    if (push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, (int32_t)n_list) < 0) { result = -1; goto done; }
    for (int64_t e = 0; e < n_list; e++)
      if (push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, list[e]) < 0 ||
          push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, s->pstamp_val[list[e]]) < 0) { result = -1; goto done; }
    s->st_out[i] = (int32_t)at;
    result = 1;
  }
done:
  PyMem_Free(isl); PyMem_Free(stack); PyMem_Free(grp); PyMem_Free(order); PyMem_Free(list);
  return result;
}

/* An event for changes(): state i's `ev` (EV_*). 0, or -1 on error. */
static int log_event(Space *s, int32_t i, int32_t ev) {
  if (grow((void **)&s->events, &s->cap_events, s->n_events + 2, sizeof(int32_t)) < 0) return -1;
  s->events[s->n_events++] = i; s->events[s->n_events++] = ev;
  return 0;
}

/* State i is at max_depth and a successor was not made. */
static void mark_cut(Space *s, int32_t i) { if (!s->st_cut[i]) { s->st_cut[i] = 1; s->n_cut++; } }

/* State i's expansion is over: logged. `normal` (0 or 1) becomes its flag where it has none yet; a second expansion (depth
 * first) keeps the one it has (EV_AGAIN), except that max_states (normal 0) makes it not normal, as stream.py does. */
static int finish_state(Space *s, int32_t i, int normal) {
  int ev = EV_AGAIN;
  if (s->st_normal[i] < 0 || normal == 0) ev = s->st_normal[i] = (int8_t)(normal != 0);   /* max_states: not normal */
  s->st_done[i] = 1;
  return log_event(s, i, ev | (s->st_out[i] >= 0 ? EV_REDUCED : 0));
}

#define MAX_POSITIONS 4096   /* tree semantics: positions looked at per state for its islands (reduction.py's _MAX_POSITIONS) */

/* Tree semantics (reduction.py's _persistent_tree): the steps inside the first island by position (depth first, left
 * to right, through inert nodes), where the root is inert and there are two islands or more. 1 (st_out[i] set), 0
 * (every step), -1 error. An island is a position: hash consing cannot merge two, and steps at disjoint ones commute. */
static int persistent_tree(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  if (map_get(&s->keep_full, (uint64_t)root + 1, 0)) return 0;
  int root_inert = node_inert(s, root);
  if (root_inert <= 0) return root_inert;
  int32_t *stack = NULL, *up_index = NULL, *up_parent = NULL, *first = NULL;   /* (node, position) pairs; positions */
  int64_t top = 0, cap = 0, n_up = 0, cap_up = 0, cap_up2 = 0, n_first = 0, cap_first = 0;
  int32_t islands = 0, first_at = -1, walked = 0;
  int result = 0;
  if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) { result = -1; goto done; }
  stack[top++] = root; stack[top++] = -1;
  for (int32_t it = 0; it < MAX_POSITIONS; it++) {   /* a DAG shared through inert nodes can have too many positions */
    if (!top) { walked = 1; break; }
    int32_t at = stack[--top], u = stack[--top], in = node_inert(s, u);
    if (in < 0) { result = -1; goto done; }
    if (!in) {
      if (s->map_n[u] > 0 && islands++ == 0) first_at = at;
      continue;
    }
    int32_t n = s->src_n[u];
    if (grow((void **)&stack, &cap, top + 2 * (int64_t)n, sizeof(int32_t)) < 0 || grow((void **)&up_index, &cap_up, n_up + n, sizeof(int32_t)) < 0 ||
        grow((void **)&up_parent, &cap_up2, n_up + n, sizeof(int32_t)) < 0) { result = -1; goto done; }
    for (int32_t k = n - 1; k >= 0; k--) {   /* the first source on top */
      up_index[n_up] = k; up_parent[n_up] = at;
      stack[top++] = s->srcs[s->src_off[u] + k]; stack[top++] = (int32_t)n_up++;
    }
  }
  if (!walked || islands < 2) goto done;
  for (int32_t p = first_at; p >= 0; p = up_parent[p])   /* the first island's position, from the root down (reversed) */
    if (push_int(&first, &n_first, &cap_first, up_index[p]) < 0) { result = -1; goto done; }
  int32_t off = s->map_off[root], m = s->map_n[root];
  int64_t at = s->n_chosen;
  if (push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, 0) < 0) { result = -1; goto done; }
  for (int32_t e = 0; e < m; e++) {   /* the root's steps at a position inside it, in order */
    int32_t k = s->maps[off + 2 * e], inside = 1;
    for (int64_t d = n_first - 1; d >= 0 && inside; d--) {
      inside = s->key_idx[k] == first[d];
      k = s->key_inner[k];
    }
    if (!inside) continue;
    int32_t t = s->state_of[s->maps[off + 2 * e + 1]];
    if (t >= 0 && s->st_done[t]) { s->n_chosen = at; goto done; }   /* the cycle proviso fails: every step is explored */
    if (push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, s->maps[off + 2 * e]) < 0 ||
        push_int(&s->chosen, &s->n_chosen, &s->cap_chosen, s->maps[off + 2 * e + 1]) < 0) { result = -1; goto done; }
  }
  if (s->n_chosen > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many reduced states"); result = -1; goto done; }
  if (s->n_chosen == at + 1) { s->n_chosen = at; goto done; }   /* (each island's steps are among the root's: not reached) */
  s->chosen[at] = (int32_t)((s->n_chosen - at - 1) / 2);
  s->st_out[i] = (int32_t)at;
  result = 1;
done:
  PyMem_Free(stack); PyMem_Free(up_index); PyMem_Free(up_parent); PyMem_Free(first);
  return result;
}

/* The map of state i's graph and, reducing, its persistent set, before its first step is followed: 0, -1 error, -2 bail. */
static int begin_state(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  int rc = map_of(s, root);
  if (rc < 0) return rc;
  s->st_out[i] = -1;   /* depth first expands a state again: its persistent set, if any, is chosen again */
  if (s->reducing && s->map_n[root] > 0) {
    rc = s->tree ? persistent_tree(s, i) : persistent(s, i);
    if (rc < 0) return rc;
  }
  return 0;
}

/* The steps to follow from state i: the root's map, or the persistent set (no array moves while they are followed). */
static const int32_t *state_steps(Space *s, int32_t i, int32_t *m);

/* Breadth first (stream.py's _admit with order="bfs"): up to `count` states from next_expand on. */
static int expand_bfs(Space *s, long long count, long long max_states, long long max_depth, long long until) {
  for (long long k = 0; k < count; k++) {
    if (s->next_expand >= s->n_states) return ST_DONE;
    int32_t i = s->next_expand, m, depth = s->st_depth[i];
    if (s->entry == 0) {
      int rc = begin_state(s, i);
      if (rc == -1) return -1;
      if (rc == -2) return ST_BAIL;
    }
    const int32_t *steps = state_steps(s, i, &m);
    for (int32_t e = s->entry; e < m; e++) {
      int32_t h = steps[2 * e + 1];
      if (s->state_of[h] >= 0) continue;
      if (depth >= max_depth) { mark_cut(s, i); continue; }
      if (s->n_states >= max_states) {
        s->next_expand = i + 1; s->entry = 0;
        return finish_state(s, i, 0) < 0 ? -1 : ST_MAX_STATES;
      }
      if (add_state(s, h, i, depth + 1, steps[2 * e]) < 0) return -1;
      if (s->n_states >= until && e + 1 < m) { s->entry = e + 1; return ST_MORE; }
    }
    s->entry = 0;
    s->next_expand = i + 1;
    if (finish_state(s, i, m == 0) < 0 || tick(s, m + 1) < 0) return -1;
    if (s->n_states >= until) break;
  }
  return s->next_expand >= s->n_states ? ST_DONE : ST_MORE;
}

/* The next state on the stack that was not expanded (depth first skips those pushed twice), or -1. */
static int32_t pop_unexpanded(Space *s) {
  while (s->n_stack) {
    int32_t i = s->stack[--s->n_stack];
    if (!s->st_done[i]) return i;
  }
  return -1;
}

/* Depth first (stream.py's _admit with order="dfs"): a state's successors not seen before are pushed, the first on top; a
 * state seen before at a greater depth takes this shorter path (parent, depth, step), and if max_depth had cut it, it
 * is expanded again from its new depth. */
static int expand_dfs(Space *s, long long count, long long max_states, long long max_depth, long long until) {
  for (long long k = 0; k < count; k++) {
    int32_t i = s->cur, m;
    if (i < 0) {
      if ((i = pop_unexpanded(s)) < 0) return ST_DONE;
      s->cur = i; s->entry = 0; s->n_fresh = 0;
    }
    if (s->entry == 0) {
      int rc = begin_state(s, i);
      if (rc == -1) return -1;
      if (rc == -2) return ST_BAIL;   /* cur stays: the Python search expands it first (frontier()) */
    }
    const int32_t *steps = state_steps(s, i, &m);
    int32_t depth = s->st_depth[i];
    for (int32_t e = s->entry; e < m; e++) {
      int32_t h = steps[2 * e + 1], t = s->state_of[h];
      if (t >= 0) {
        if (s->st_depth[t] > depth + 1) {
          s->st_parent[t] = i; s->st_depth[t] = depth + 1; s->st_redex[t] = steps[2 * e];
          int again = s->st_cut[t];
          if (again) { s->st_cut[t] = 0; s->n_cut--; s->st_done[t] = 0; }
          if (log_event(s, t, again ? EV_MOVED_AGAIN : EV_MOVED) < 0) return -1;
          if (again && push_int(&s->fresh, &s->n_fresh, &s->cap_fresh, t) < 0) return -1;
        }
        continue;
      }
      if (depth >= max_depth) { mark_cut(s, i); continue; }
      if (s->n_states >= max_states) {
        s->cur = -1; s->entry = 0;
        return finish_state(s, i, 0) < 0 ? -1 : ST_MAX_STATES;
      }
      if (add_state(s, h, i, depth + 1, steps[2 * e]) < 0 || push_int(&s->fresh, &s->n_fresh, &s->cap_fresh, s->n_states - 1) < 0) return -1;
      if (s->n_states >= until && e + 1 < m) { s->entry = e + 1; return ST_MORE; }
    }
    if (grow((void **)&s->stack, &s->cap_stack, s->n_stack + s->n_fresh, sizeof(int32_t)) < 0) return -1;
    for (int64_t f = s->n_fresh - 1; f >= 0; f--) s->stack[s->n_stack++] = s->fresh[f];   /* the first successor on top */
    s->cur = -1; s->entry = 0; s->n_fresh = 0;
    if (finish_state(s, i, m == 0) < 0 || tick(s, m + 1) < 0) return -1;
    if (s->n_states >= until) break;
  }
  while (s->n_stack && s->st_done[s->stack[s->n_stack - 1]]) s->n_stack--;
  return s->n_stack ? ST_MORE : ST_DONE;
}

/* expand(count, max_states, max_depth, until): expand up to `count` states in the search's order, stopping early
 * (mid-state, to go on there) once there are `until` states: a stream takes only what it asks for. Returns ST_DONE
 * (nothing left to expand), ST_MORE, ST_MAX_STATES (a new state was needed past max_states: the state being expanded
 * keeps its map and is not normal), or ST_BAIL (the state to expand next was not expanded: the Python explorer goes
 * on from frontier()). What happened to which states is in changes(). */
static PyObject *Space_expand(Space *s, PyObject *args) {
  long long count, max_states, max_depth, until;
  if (!PyArg_ParseTuple(args, "LLLL", &count, &max_states, &max_depth, &until)) return NULL;
  if (!s->n_states) { PyErr_SetString(PyExc_RuntimeError, "start() first"); return NULL; }
  int rc = (s->dfs ? expand_dfs : expand_bfs)(s, count, max_states, max_depth, until);
  return rc < 0 ? NULL : PyLong_FromLong(rc);
}

/* changes() -> (states, events, moves): what happened since the last call, in order: per event its state and EV_* code,
 * and per EV_MOVED or EV_MOVED_AGAIN event, the state's (parent, depth, step key) as they are now. */
static PyObject *Space_changes(Space *s, PyObject *noargs) {
  int64_t n = s->n_events / 2;
  PyObject *ids = PyList_New(n), *evs = PyList_New(n), *moves = PyList_New(0);
  if (!ids || !evs || !moves) goto fail;
  for (int64_t k = 0; k < n; k++) {
    int32_t i = s->events[2 * k], ev = s->events[2 * k + 1];
    PyObject *a = PyLong_FromLong(i), *b = PyLong_FromLong(ev);
    if (!a || !b) { Py_XDECREF(a); Py_XDECREF(b); goto fail; }
    PyList_SET_ITEM(ids, k, a); PyList_SET_ITEM(evs, k, b);
    if (ev == EV_MOVED || ev == EV_MOVED_AGAIN) {
      PyObject *t = Py_BuildValue("iii", (int)s->st_parent[i], (int)s->st_depth[i], (int)s->st_redex[i]);
      if (!t) goto fail;
      int bad = PyList_Append(moves, t);
      Py_DECREF(t);
      if (bad < 0) goto fail;
    }
  }
  s->n_events = 0;
  return Py_BuildValue("NNN", ids, evs, moves);
fail:
  Py_XDECREF(ids); Py_XDECREF(evs); Py_XDECREF(moves);
  return NULL;
}

/* frontier() -> the states the Python search goes on from after ST_BAIL, in its frontier's order: breadth first, those
 * not expanded yet; depth first, the stack from its bottom, the state that stopped the core on top. */
static PyObject *Space_frontier(Space *s, PyObject *noargs) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  int64_t from = s->dfs ? 0 : s->next_expand, to = s->dfs ? s->n_stack : s->n_states;
  for (int64_t k = from; k <= to; k++) {
    int32_t i = k < to ? (s->dfs ? s->stack[k] : (int32_t)k) : s->dfs ? s->cur : -1;
    if (i < 0) continue;
    PyObject *v = PyLong_FromLong(i);
    if (!v || PyList_Append(out, v) < 0) { Py_XDECREF(v); Py_DECREF(out); return NULL; }
    Py_DECREF(v);
  }
  return out;
}

/* cut_states() -> the states at max_depth with a successor that was not made (stream.py's `cut`), in id order. */
static PyObject *Space_cut_states(Space *s, PyObject *noargs) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  for (int32_t i = 0; i < s->n_states; i++) if (s->st_cut[i]) {
    PyObject *v = PyLong_FromLong(i);
    if (!v || PyList_Append(out, v) < 0) { Py_XDECREF(v); Py_DECREF(out); return NULL; }
    Py_DECREF(v);
  }
  return out;
}

/* key(k) -> (source index, inner key), or (-1, redex): a step key of tree semantics, one level of step.py's At. */
static PyObject *Space_key(Space *s, PyObject *arg) {
  long k = PyLong_AsLong(arg);
  if (k == -1 && PyErr_Occurred()) return NULL;
  if (!s->tree || k < 0 || k >= s->n_keys) { PyErr_SetString(PyExc_IndexError, "no such step key"); return NULL; }
  return Py_BuildValue("ii", (int)s->key_idx[k], (int)s->key_inner[k]);
}

/* ---- UOps in and out: identity tables */

static int32_t ptr_find(Space *s, PyObject *u) { return map_get(&s->ptrs, (uint64_t)(uintptr_t)u, -1); }

/* Node `id` is the UOp `u` from now on (a new reference is kept). */
static int bind(Space *s, int32_t id, PyObject *u) {
  if (s->obj[id]) return 0;
  if (map_put(&s->ptrs, (uint64_t)(uintptr_t)u, id) < 0) return -1;
  Py_INCREF(u);
  s->obj[id] = u;
  return 0;
}

static uint64_t label_hash(PyObject *const key[3]) {
  return fmix(mix(mix((uint64_t)(uintptr_t)key[0], (uint64_t)(uintptr_t)key[1]), (uint64_t)(uintptr_t)key[2]));
}

/* The label and op code of an inner node's (op, dtype, arg), cached by identity: the UOps holding them are kept
 * (bind), so an address is never reused while the space lives. */
/* Tables keyed by the identity of an (op, dtype, arg) triple, a label and an op code a key (label_of's, and
 * _space_decode.h's a call's): open addressing, power of two, label_hash. The slot of key: where it is, or the empty
 * slot where it would go. */
static int64_t lab_probe(PyObject *const *keys, int64_t cap, PyObject *const key[3]) {
  int64_t mask = cap - 1, j = (int64_t)(label_hash(key) & (uint64_t)mask);
  while (keys[3 * j] && !(keys[3 * j] == key[0] && keys[3 * j + 1] == key[1] && keys[3 * j + 2] == key[2])) j = (j + 1) & mask;
  return j;
}

/* Put key (absent) in such a table, grown to stay at most half full; its slot, or -1 (MemoryError). */
static int64_t lab_put(PyObject ***keys, int32_t **labels, int32_t **codes, int64_t *cap, int64_t *n, PyObject *const key[3],
                       int32_t label, int32_t code) {
  if ((*n + 1) * 2 > *cap) {
    int64_t c = *cap * 2;
    PyObject **k = PyMem_Calloc((size_t)c * 3, sizeof(PyObject *));
    int32_t *lv = PyMem_Malloc((size_t)c * sizeof(int32_t)), *lo = PyMem_Malloc((size_t)c * sizeof(int32_t));
    if (!k || !lv || !lo) { PyMem_Free(k); PyMem_Free(lv); PyMem_Free(lo); PyErr_NoMemory(); return -1; }
    for (int64_t i = 0; i < *cap; i++) if ((*keys)[3 * i]) {
      int64_t t = lab_probe(k, c, *keys + 3 * i);
      memcpy(k + 3 * t, *keys + 3 * i, 3 * sizeof(PyObject *)); lv[t] = (*labels)[i]; lo[t] = (*codes)[i];
    }
    PyMem_Free(*keys); PyMem_Free(*labels); PyMem_Free(*codes);
    *keys = k; *labels = lv; *codes = lo; *cap = c;
  }
  int64_t j = lab_probe(*keys, *cap, key);
  memcpy(*keys + 3 * j, key, 3 * sizeof(PyObject *));
  (*labels)[j] = label; (*codes)[j] = code; (*n)++;
  return j;
}

static int label_of(Space *s, PyObject *op, PyObject *dtype, PyObject *arg, int32_t *label, int32_t *code, int make) {
  PyObject *const key[3] = {op, dtype, arg};
  int64_t j = lab_probe(s->lab_key, s->cap_lab, key);
  if (s->lab_key[3 * j]) { *label = s->lab_val[j]; *code = s->lab_op[j]; return 0; }
  PyObject *r = PyObject_CallFunctionObjArgs(make ? s->labeler : s->label_finder, op, dtype, arg, NULL);
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0) { *label = -1; *code = 0; return 0; }   /* finding only: no node was ever made with this (op, dtype, arg) */
  PyObject *c = PyDict_GetItemWithError(s->op_codes, op);
  if (!c) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "an op without a code"); return -1; }
  *label = (int32_t)v; *code = (int32_t)PyLong_AsLong(c);
  if (!make) return 0;   /* not cached: the UOp holding these objects may not be kept, and a freed address is reused */
  return lab_put(&s->lab_key, &s->lab_val, &s->lab_op, &s->cap_lab, &s->n_lab, key, *label, *code) < 0 ? -1 : 0;
}

static PyObject *str_src, *str_op, *str_dtype, *str_arg;

/* The node of UOp u, made with every node below it that is new if `make` (post-order, iterative); else only
 * found (-1 if it does not exist). Either way each node found or made is bound to its UOp. -2 on error. */
static int32_t walk(Space *s, PyObject *u, int make) {
  int32_t found = ptr_find(s, u);
  if (found >= 0) return found;
  PyObject **stack = NULL; int64_t cap = 0, top = 0;
  int32_t small[8], *buf = small; int64_t cap_buf = 8;
  if (grow((void **)&stack, &cap, 64, sizeof(PyObject *)) < 0) return -2;
  stack[top++] = u;   /* borrowed: each node is held by its user's src tuple, the root by the caller */
  int ok = 1, absent = 0;
  while (top && ok) {
    PyObject *x = stack[top - 1];
    if (ptr_find(s, x) >= 0) { top--; continue; }
    PyObject *src = PyObject_GetAttr(x, str_src);
    if (!src) { ok = 0; break; }
    if (!PyTuple_Check(src)) { Py_DECREF(src); PyErr_SetString(PyExc_TypeError, "a UOp's src must be a tuple"); ok = 0; break; }
    Py_ssize_t n = PyTuple_GET_SIZE(src);
    int64_t before = top;
    if (grow((void **)&stack, &cap, top + n, sizeof(PyObject *)) < 0) { Py_DECREF(src); ok = 0; break; }
    for (Py_ssize_t i = 0; i < n; i++) if (ptr_find(s, PyTuple_GET_ITEM(src, i)) < 0) stack[top++] = PyTuple_GET_ITEM(src, i);
    if (top > before) { Py_DECREF(src); continue; }
    top--;
    int32_t label, code;
    PyObject *op = PyObject_GetAttr(x, str_op);
    if (!op) { Py_DECREF(src); ok = 0; break; }
    if (n == 0 && !make) { Py_DECREF(op); Py_DECREF(src); absent = 1; break; }   /* a leaf never seen */
    if (n == 0) {   /* a leaf: a label of its own (negative: apart from inner nodes' labels) */
      PyObject *c = PyDict_GetItemWithError(s->op_codes, op);
      if (!c) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "an op without a code"); Py_DECREF(op); Py_DECREF(src); ok = 0; break; }
      label = -2 - s->n_leaves++; code = (int32_t)PyLong_AsLong(c);
    } else {
      PyObject *dtype = PyObject_GetAttr(x, str_dtype), *arg = dtype ? PyObject_GetAttr(x, str_arg) : NULL;
      int rc = arg ? label_of(s, op, dtype, arg, &label, &code, make) : -1;
      Py_XDECREF(dtype); Py_XDECREF(arg);
      if (rc < 0) { Py_DECREF(op); Py_DECREF(src); ok = 0; break; }
      if (label < 0) { Py_DECREF(op); Py_DECREF(src); absent = 1; break; }
    }
    Py_DECREF(op);
    if (n > cap_buf) {
      int32_t *nb = PyMem_Malloc((size_t)n * sizeof(int32_t));
      if (!nb) { Py_DECREF(src); PyErr_NoMemory(); ok = 0; break; }
      if (buf != small) PyMem_Free(buf);
      buf = nb; cap_buf = n;
    }
    for (Py_ssize_t i = 0; i < n; i++) buf[i] = ptr_find(s, PyTuple_GET_ITEM(src, i));
    Py_DECREF(src);
    int32_t id = intern(s, label, (uint8_t)code, buf, (int32_t)n, make);
    if (id < 0 && !make && !PyErr_Occurred()) { absent = 1; break; }
    if (id < 0 || bind(s, id, x) < 0) { ok = 0; break; }
  }
  PyMem_Free(stack);
  if (buf != small) PyMem_Free(buf);
  return !ok ? -2 : absent ? -1 : ptr_find(s, u);
}

/* index(u) -> the node of UOp u, made with every node below it that is new. */
static PyObject *Space_index(Space *s, PyObject *u) {
  int32_t id = walk(s, u, 1);
  return id == -2 ? NULL : PyLong_FromLong(id);
}

/* lookup(u) -> the node of UOp u if it exists, else -1: nothing is made. */
static PyObject *Space_lookup(Space *s, PyObject *u) {
  int32_t id = walk(s, u, 0);
  return id == -2 ? NULL : PyLong_FromLong(id);
}

/* materialize(id, make, labels) -> the node's UOp: made, with every node below it that has none, by
 * make(op, src, arg, dtype) from labels[label] = (op, dtype, arg) (post-order, iterative), and bound. */
static PyObject *Space_materialize(Space *s, PyObject *args) {
  int root; PyObject *make, *labels;
  if (!PyArg_ParseTuple(args, "iOO!", &root, &make, &PyList_Type, &labels)) return NULL;
  if (root < 0 || root >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  if (s->obj[root]) { Py_INCREF(s->obj[root]); return s->obj[root]; }   /* made already: the usual case */
  int32_t *stack = NULL; int64_t cap = 0, top = 0;
  if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) return NULL;
  stack[top++] = root;
  int ok = 1;
  while (top && ok) {
    int32_t x = stack[top - 1];
    if (s->obj[x]) { top--; continue; }
    int32_t n = s->src_n[x];
    int64_t before = top;
    if (grow((void **)&stack, &cap, top + n, sizeof(int32_t)) < 0) { ok = 0; break; }
    for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[x] + i]; if (!s->obj[c]) stack[top++] = c; }
    if (top > before) continue;
    top--;
    int32_t label = s->label[x];
    if (label < 0 || label >= PyList_GET_SIZE(labels)) { PyErr_SetString(PyExc_IndexError, "a node without its label"); ok = 0; break; }
    PyObject *key = PyList_GET_ITEM(labels, label), *src = PyTuple_New(n);   /* key: (op, dtype, arg) */
    if (!src) { ok = 0; break; }
    for (int32_t i = 0; i < n; i++) { PyObject *c = s->obj[s->srcs[s->src_off[x] + i]]; Py_INCREF(c); PyTuple_SET_ITEM(src, i, c); }
    PyObject *u = PyObject_CallFunctionObjArgs(make, PyTuple_GET_ITEM(key, 0), src, PyTuple_GET_ITEM(key, 2), PyTuple_GET_ITEM(key, 1), NULL);
    Py_DECREF(src);
    if (!u || bind(s, x, u) < 0) ok = 0;
    Py_XDECREF(u);
  }
  PyMem_Free(stack);
  if (!ok) return NULL;
  Py_INCREF(s->obj[root]);
  return s->obj[root];
}

/* prepare(node): the step map of node and of every node below it (a program's first indexing). */
static PyObject *Space_prepare(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return NULL;
  if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  int rc = map_of(s, (int32_t)id);
  if (rc == -1) return NULL;
  return PyBool_FromLong(rc == 0);
}

/* asks(node) -> whether the core would ask Python for the node's own redexes: a compiled pattern matches it, or its
 * signature lets a rule left to Python match it (the differential tests hold this against UPat.match). */
static PyObject *Space_asks(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return NULL;
  if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  int m = asks_python(s, (int32_t)id);
  if (m < 0) return NULL;
  return PyBool_FromLong(m);
}

#include "_space_rows.h"   /* rows(roots, stream, first): a batch of graphs as cluster/codec.py's rows */
#include "_space_decode.h"   /* intern_rows(rows, made, make): a batch of codec rows as nodes, the reverse */

/* ---- steps and fingerprints of one graph, for a cluster's worker (cluster/shard.py: steps_of and Fingerprints.of) */

/* Every step out of node x's map, in order (its entries, or every key of its grouped steps group by group, as out()
 * lists a state's): visit(arg, key), with *h set to the graph the step makes first. 0, or what a visit gave (< 0). */
static int each_step(Space *s, int32_t x, int (*visit)(void *, int32_t), void *arg, int32_t *h) {
  int is_grouped = grouped(s, x);
  for (int32_t e = 0; e < s->map_n[x]; e++) {   /* offsets read again each entry: group_keys may make keys */
    *h = s->maps[s->map_off[x] + 2 * (int64_t)e + 1];
    int rc = is_grouped ? group_keys(s, group_at(s, x, e), visit, arg) : visit(arg, s->maps[s->map_off[x] + 2 * (int64_t)e]);
    if (rc < 0) return rc;
  }
  return 0;
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

/* successors(node) -> (keys, graphs): every step out of the graph rooted at node, in the order shard.py's steps_of lists
 * them (the map's entries, or every key of its grouped steps in group order, as out() lists a state's), without a state;
 * None where the core stops (a bail: the caller steps that graph in Python; the nodes below keep the maps made). */
static PyObject *Space_successors(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return NULL;
  if (s->reducing) { PyErr_SetString(PyExc_RuntimeError, "successors: a reducing space follows persistent sets, not every step"); return NULL; }
  if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
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

/* fingerprint_setup(fields): fields(node) -> the bytes cluster/fingerprint.py's node_fields gives of its UOp. */
static PyObject *Space_fingerprint_setup(Space *s, PyObject *cb) {
  if (!PyCallable_Check(cb)) { PyErr_SetString(PyExc_TypeError, "fingerprint_setup: fields must be callable"); return NULL; }
  Py_INCREF(cb);
  Py_XSETREF(s->fp_cb, cb);
  Py_RETURN_NONE;
}

/* The fields bytes of node x (borrowed), asked of Python once per label: a label stands for one (op, dtype, arg), or one
 * leaf. NULL on error. */
static PyObject *fp_fields(Space *s, int32_t x) {
  int32_t label = s->label[x];
  PyObject ***tab = label >= 0 ? &s->fp_inner : &s->fp_leaf;
  int64_t *cap = label >= 0 ? &s->cap_fp_inner : &s->cap_fp_leaf, k = label >= 0 ? label : -2 - (int64_t)label;
  if (k < *cap && (*tab)[k]) return (*tab)[k];
  PyObject *r = PyObject_CallFunction(s->fp_cb, "i", (int)x);   /* may make UOps (materialize), not nodes */
  if (!r) return NULL;
  if (!PyBytes_Check(r)) { Py_DECREF(r); PyErr_SetString(PyExc_TypeError, "fingerprint: fields(node) must return bytes"); return NULL; }
  int64_t old = *cap;
  if (k >= old) {
    if (grow((void **)tab, cap, k + 1, sizeof(PyObject *)) < 0) { Py_DECREF(r); return NULL; }
    memset(*tab + old, 0, (size_t)(*cap - old) * sizeof(PyObject *));
  }
  (*tab)[k] = r;   /* kept: freed with the space */
  return r;
}

/* The 16 bytes of node `root` into `out`: BLAKE2b of its fields followed by its sources' fingerprints, each node's
 * computed once and kept (post-order, iterative: any depth). 0, or -1 on error. */
static int fp_of(Space *s, int32_t root, uint8_t *out) {
  if (s->cap_fp < s->n_nodes) {   /* room for every node so far (fresh ones not computed) */
    int64_t old = s->cap_fp;
    void **const arrays[] = {(void **)&s->fp, (void **)&s->fp_done};
    const size_t elems[] = {16, 1};
    if (grow_parallel(&s->cap_fp, s->cap_nodes, arrays, elems, 2) < 0) return -1;
    memset(s->fp_done + old, 0, (size_t)(s->cap_fp - old));
  }
  int rc = 0;
  if (!s->fp_done[root]) {
    int32_t *stack = NULL; int64_t cap = 0, top = 0;
    if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) return -1;
    stack[top++] = root;
    while (top) {
      int32_t x = stack[top - 1], n = s->src_n[x];
      if (s->fp_done[x]) { top--; continue; }
      int64_t before = top;
      if (grow((void **)&stack, &cap, top + n, sizeof(int32_t)) < 0) { rc = -1; break; }
      for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[x] + i]; if (!s->fp_done[c]) stack[top++] = c; }
      if (top > before) continue;
      top--;
      PyObject *f = fp_fields(s, x);
      if (!f) { rc = -1; break; }
      Blake2b b;
      b2_init(&b, 16);
      b2_update(&b, (const uint8_t *)PyBytes_AS_STRING(f), (size_t)PyBytes_GET_SIZE(f));
      for (int32_t i = 0; i < n; i++) b2_update(&b, s->fp + 16 * (int64_t)s->srcs[s->src_off[x] + i], 16);
      b2_final(&b, s->fp + 16 * (int64_t)x);
      s->fp_done[x] = 1;
      if ((rc = tick(s, 1)) < 0) break;
    }
    PyMem_Free(stack);
  }
  if (rc == 0) memcpy(out, s->fp + 16 * (int64_t)root, 16);
  return rc;
}

/* The node id of a Python int, checked; -1 with an exception set. */
static int32_t fp_node(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return -1;
  if (!s->fp_cb) { PyErr_SetString(PyExc_RuntimeError, "fingerprint_setup() first"); return -1; }
  if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return -1; }
  return (int32_t)id;
}

/* fingerprint(node) -> cluster/fingerprint.py's Fingerprints().of of the node's UOp: 16 bytes. */
static PyObject *Space_fingerprint(Space *s, PyObject *arg) {
  uint8_t d[16];
  int32_t id = fp_node(s, arg);
  if (id < 0 || fp_of(s, id, d) < 0) return NULL;
  return PyBytes_FromStringAndSize((const char *)d, 16);
}

/* fingerprints(nodes) -> [fingerprint(node) for node in nodes], in one call. */
static PyObject *Space_fingerprints(Space *s, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "fingerprints: a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject *out = PyList_New(n);
  for (Py_ssize_t k = 0; k < n && out; k++) {
    uint8_t d[16];
    int32_t id = fp_node(s, PySequence_Fast_GET_ITEM(seq, k));
    PyObject *b = id < 0 || fp_of(s, id, d) < 0 ? NULL : PyBytes_FromStringAndSize((const char *)d, 16);
    if (!b) Py_CLEAR(out);
    else PyList_SET_ITEM(out, k, b);
  }
  Py_DECREF(seq);
  return out;
}

#include "_space_level.h"   /* expand_level(nodes, shards): a cluster worker's level, from successors() and the fingerprints */

/* reduce(inert ops, keep_full nodes, inert): explore persistent sets from now on (before the search starts); a node
 * of an op not in `inert ops` is inert if inert(node, label, its number of sources) says so. */
static PyObject *Space_reduce(Space *s, PyObject *args) {
  PyObject *ops, *keep, *cb;
  if (!PyArg_ParseTuple(args, "O!O!O", &PyTuple_Type, &ops, &PyTuple_Type, &keep, &cb)) return NULL;
  if (s->n_states) { PyErr_SetString(PyExc_RuntimeError, "the search has started already"); return NULL; }
  memset(s->inert, 0, sizeof(s->inert));
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ops); k++) {
    long op = PyLong_AsLong(PyTuple_GET_ITEM(ops, k));
    if (op < 0 || op > 255) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an op code is a byte"); return NULL; }
    s->inert[op] = 1;
  }
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(keep); k++) {
    long id = PyLong_AsLong(PyTuple_GET_ITEM(keep, k));
    if (id < 0 || id >= s->n_nodes) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
    if (!map_get(&s->keep_full, (uint64_t)id + 1, 0) && map_put(&s->keep_full, (uint64_t)id + 1, 1) < 0) return NULL;
  }
  Py_INCREF(cb);
  Py_XSETREF(s->inert_cb, cb);
  /* the per-node arrays only a reduction reads, for the nodes so far (intern makes them for new ones from now on) */
  int64_t cap = s->cap_nodes ? s->cap_nodes : 1;
  PyMem_Free(s->nstamp); PyMem_Free(s->ninert);
  s->nstamp = PyMem_Calloc((size_t)cap, sizeof(int32_t));
  s->ninert = PyMem_Malloc((size_t)cap);
  if (!s->nstamp || !s->ninert) { PyErr_NoMemory(); return NULL; }
  memset(s->ninert, -1, (size_t)cap);
  s->reducing = 1;
  Py_RETURN_NONE;
}

/* Node k of a rule's pattern from patterns.py's tuple (ops or None, check, slot, n_src, any_len, orders), its kids' ids
 * offset by `base` (the rule's first node) and appended at pat_kids[*n_kids]; 0, or -1 with an exception set. The
 * pattern must be a tree whose kids come after their parent (`parent`: per node, the one whose source it is, or -1):
 * then a match holds each pattern node at most once in its goals, and the matcher's scratch is large enough. */
static int read_pat_node(Space *s, PyObject *t, int32_t k, PatNode *p, int32_t base, int32_t n_nodes, int32_t *parent,
                         int64_t *n_kids, int64_t *cap_kids) {
  PyObject *ops, *orders;
  int check, slot, n_src, any_len;
  if (!PyArg_ParseTuple(t, "OiiiiO!", &ops, &check, &slot, &n_src, &any_len, &PyTuple_Type, &orders)) return -1;
  memset(p->ops, ops == Py_None ? 0xff : 0, sizeof(p->ops));
  if (ops != Py_None) {
    if (!PyTuple_Check(ops)) { PyErr_SetString(PyExc_TypeError, "a pattern node's ops: a tuple of op codes, or None"); return -1; }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ops); k++) {
      long op = PyLong_AsLong(PyTuple_GET_ITEM(ops, k));
      if (op < 0 || op > 255) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an op code is a byte"); return -1; }
      p->ops[op >> 3] |= (uint8_t)(1u << (op & 7));
    }
  }
  if (slot >= n_nodes || n_src >= n_nodes || (n_src < 0 && PyTuple_GET_SIZE(orders))) {
    PyErr_SetString(PyExc_ValueError, "a pattern node's slot, sources or orders are out of range"); return -1;
  }
  p->check = check < 0 ? -1 : check; p->slot = slot < 0 ? -1 : slot; p->n_src = n_src < 0 ? -1 : n_src; p->any_len = any_len != 0;
  p->n_orders = (int32_t)PyTuple_GET_SIZE(orders); p->kids = (int32_t)*n_kids;
  if (n_src > 0 && grow((void **)&s->pat_kids, cap_kids, *n_kids + (int64_t)p->n_orders * n_src, sizeof(int32_t)) < 0) return -1;
  for (int32_t o = 0; o < p->n_orders; o++) {
    PyObject *order = PyTuple_GET_ITEM(orders, o);
    if (!PyTuple_Check(order) || PyTuple_GET_SIZE(order) != n_src) { PyErr_SetString(PyExc_ValueError, "an order names each source once"); return -1; }
    for (int32_t i = 0; i < n_src; i++) {
      long kid = PyLong_AsLong(PyTuple_GET_ITEM(order, i));
      if (kid <= k || kid >= n_nodes || (parent[kid] >= 0 && parent[kid] != k)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a pattern's sources are later nodes, each of one parent");
        return -1;
      }
      parent[kid] = k;
      s->pat_kids[(*n_kids)++] = base + (int32_t)kid;
    }
  }
  return 0;
}

static int op_any(const PatNode *p) {
  for (int i = 0; i < 32; i++) if (p->ops[i] != 0xff) return 0;
  return 1;
}

/* Each rule's quick tests (PatPath): the pattern nodes below its root, reached through nodes whose sources have one
 * order (a tuple: source i is the node's i-th), PATH_MAX_LEN levels down at most, that name ops. Breadth first. */
static int make_paths(Space *s, int32_t n_rules) {
  int64_t n = 0, cap = 0;
  PyMem_Free(s->paths); PyMem_Free(s->rule_paths);
  s->paths = NULL;
  if (!(s->rule_paths = PyMem_Malloc((size_t)(n_rules + 1) * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  PatPath queue[64];   /* per rule: the nodes to look below, as paths (a tree of at most MAX_NODES = 64 nodes) */
  for (int32_t r = 0; r < n_rules; r++) {
    s->rule_paths[r] = (int32_t)n;
    int32_t head = 0, tail = 0;
    queue[tail++] = (PatPath){s->rule_root[r], 0, {0}};
    while (head < tail) {
      PatPath q = queue[head++];
      const PatNode *p = s->pat + q.pat;
      if (p->n_orders != 1 || p->n_src <= 0 || q.len == PATH_MAX_LEN) continue;
      for (int32_t i = 0; i < p->n_src; i++) {
        PatPath kid = q;
        kid.pat = s->pat_kids[p->kids + i]; kid.path[kid.len++] = i;
        if (!op_any(s->pat + kid.pat)) {
          if (grow((void **)&s->paths, &cap, n + 1, sizeof(PatPath)) < 0) return -1;
          s->paths[n++] = kid;
        }
        if (tail < 64) queue[tail++] = kid;
      }
    }
  }
  s->rule_paths[n_rules] = (int32_t)n;
  return 0;
}

/* patterns(tables, check): the rules' compiled patterns (patterns.py), each a tuple of pattern nodes, its root first;
 * check(check, label, node) -> 1 / 0 answers their dtype and arg constraints. Once, before any node is made: every
 * node's redexes are then found with them (and with `may` for the rules not among them). */
static PyObject *Space_patterns(Space *s, PyObject *args) {
  PyObject *tables, *cb;
  if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &tables, &cb)) return NULL;
  if (s->n_nodes || s->n_rules) { PyErr_SetString(PyExc_RuntimeError, "patterns are set once, before the first node"); return NULL; }
  Py_ssize_t n_rules = PyTuple_GET_SIZE(tables), n_pat = 0;
  for (Py_ssize_t r = 0; r < n_rules; r++) {
    PyObject *t = PyTuple_GET_ITEM(tables, r);
    if (!PyTuple_Check(t) || !PyTuple_GET_SIZE(t)) { PyErr_SetString(PyExc_TypeError, "a rule's pattern: a tuple of its nodes"); return NULL; }
    n_pat += PyTuple_GET_SIZE(t);
  }
  if (n_pat > INT32_MAX / 2) { PyErr_SetString(PyExc_ValueError, "too many pattern nodes"); return NULL; }
  int64_t n_kids = 0, cap_kids = 0;
  int32_t *parent = NULL, base = 0, max_nodes = 0, at = 0;
  PyMem_Free(s->pat); PyMem_Free(s->pat_kids); PyMem_Free(s->rule_root); PyMem_Free(s->rule_slots);   /* a call that failed */
  PyMem_Free(s->op_rules); PyMem_Free(s->goals); PyMem_Free(s->bind);
  s->pat_kids = NULL; s->goals = NULL; s->bind = NULL;
  s->pat = PyMem_Calloc((size_t)(n_pat ? n_pat : 1), sizeof(PatNode));
  s->rule_root = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * sizeof(int32_t));
  s->rule_slots = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * sizeof(int32_t));
  s->op_rules = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * 256 * sizeof(int32_t));
  parent = PyMem_Malloc((size_t)(n_pat ? n_pat : 1) * sizeof(int32_t));
  if (!s->pat || !s->rule_root || !s->rule_slots || !s->op_rules || !parent) goto no_memory;
  for (Py_ssize_t r = 0; r < n_rules; r++) {
    PyObject *t = PyTuple_GET_ITEM(tables, r);
    int32_t nodes = (int32_t)PyTuple_GET_SIZE(t), slots = 0;
    for (int32_t k = 0; k < nodes; k++) parent[k] = -1;
    for (int32_t k = 0; k < nodes; k++) {
      if (read_pat_node(s, PyTuple_GET_ITEM(t, k), k, s->pat + base + k, base, nodes, parent, &n_kids, &cap_kids) < 0) goto fail;
      if (s->pat[base + k].slot >= slots) slots = s->pat[base + k].slot + 1;
    }
    s->rule_root[r] = base; s->rule_slots[r] = slots;
    if (nodes > max_nodes) max_nodes = nodes;
    base += nodes;
  }
  s->goals = PyMem_Malloc((size_t)(max_nodes + 1) * sizeof(PatGoal));
  s->bind = PyMem_Malloc((size_t)(max_nodes + 1) * sizeof(int32_t));
  if (!s->goals || !s->bind) goto no_memory;
  if (make_paths(s, (int32_t)n_rules) < 0) goto fail;
  /* each op's rules, in rule order: a rule is under every op its root may have (the last step: until it is done, no
   * rule is under any op, and a failed call leaves none) */
  for (int op = 0; op < 256; op++) {
    s->op_first[op] = at;
    for (Py_ssize_t r = 0; r < n_rules; r++) {
      if (op_fits(s->pat + s->rule_root[r], (uint8_t)op)) s->op_rules[at++] = (int32_t)r;
    }
  }
  s->op_first[256] = at;
  PyMem_Free(parent);
  s->n_pat = (int32_t)n_pat; s->n_rules = (int32_t)n_rules;
  Py_INCREF(cb);
  Py_XSETREF(s->check_cb, cb);
  Py_RETURN_NONE;
no_memory:
  PyErr_NoMemory();
fail:   /* op_first stays all 0 (no rule under any op) until a call succeeds; the arrays are freed by the next call or dealloc */
  PyMem_Free(parent);
  return NULL;
}

/* ---- access from Python */

static int check_state(Space *s, int i) {
  if (i < 0 || i >= s->n_states) { PyErr_SetString(PyExc_IndexError, "no such state"); return -1; }
  return 0;
}

/* states(start, end): (root, parent, depth, redex, normal, reduced) lists of the states start to end - 1. */
static PyObject *Space_states(Space *s, PyObject *args) {
  int start, end;
  if (!PyArg_ParseTuple(args, "ii", &start, &end)) return NULL;
  if (start < 0) start = 0;
  if (end > s->n_states) end = s->n_states;
  int32_t n = end > start ? end - start : 0;
  PyObject *lists[6];
  const int32_t *cols[4] = {s->st_root, s->st_parent, s->st_depth, s->st_redex};
  for (int c = 0; c < 6; c++) {
    if (!(lists[c] = PyList_New(n))) { for (int d = 0; d < c; d++) Py_DECREF(lists[d]); return NULL; }
    for (int32_t k = 0; k < n; k++)
      PyList_SET_ITEM(lists[c], k, PyLong_FromLong(c < 4 ? cols[c][start + k] : c == 4 ? s->st_normal[start + k] : s->st_out[start + k] >= 0));
  }
  return Py_BuildValue("NNNNNN", lists[0], lists[1], lists[2], lists[3], lists[4], lists[5]);
}

/* out(i)'s list and the graph of the group being listed: each key of a group becomes a (key, graph, its state) tuple. */
typedef struct { Space *s; PyObject *out; int32_t h; } OutVisit;

static int out_append(void *arg, int32_t key) {
  OutVisit *v = arg;
  PyObject *t = Py_BuildValue("iii", (int)key, (int)v->h, (int)v->s->state_of[v->h]);
  if (!t) return -1;
  int rc = PyList_Append(v->out, t);
  Py_DECREF(t);
  return rc;
}

/* out(i): [(key, result node, target state or -1)] for the steps out of state i's graph: its map, its persistent set,
 * or every key of its grouped steps (in group order, as GroupedSteps iterates). */
static PyObject *Space_out(Space *s, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i) || check_state(s, i) < 0) return NULL;
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) Py_RETURN_NONE;
  const int32_t *steps = state_steps(s, i, &m);
  OutVisit v = {s, PyList_New(0), -1};
  if (!v.out) return NULL;
  for (int32_t e = 0; e < m; e++) {
    v.h = steps[2 * e + 1];
    int rc = s->st_out[i] < 0 && grouped(s, root) ? group_keys(s, group_at(s, root, e), out_append, &v) : out_append(&v, steps[2 * e]);
    if (rc < 0) { Py_DECREF(v.out); return NULL; }
  }
  return v.out;
}

/* step_to(i, key): the step of state i keyed `key` (a redex id) without listing the others: out(i)'s search in C. */
typedef struct { int32_t want, found; } FindVisit;

static int find_visit(void *arg, int32_t key) {
  FindVisit *v = arg;
  if (key != v->want) return 0;
  v->found = 1;
  return 1;   /* stops group_keys */
}

static PyObject *Space_step_to(Space *s, PyObject *args) {
  int i, key;
  if (!PyArg_ParseTuple(args, "ii", &i, &key) || check_state(s, i) < 0) return NULL;
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) Py_RETURN_NONE;
  const int32_t *steps = state_steps(s, i, &m);
  int in_groups = s->st_out[i] < 0 && grouped(s, root);
  for (int32_t e = 0; e < m; e++) {
    int found = steps[2 * e] == key;
    if (in_groups) {
      FindVisit v = {key, 0};
      if (group_keys(s, group_at(s, root, e), find_visit, &v) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "step_to: a group's keys could not be listed");
        return NULL;
      }
      found = v.found;
    }
    if (found) { int32_t h = steps[2 * e + 1]; return Py_BuildValue("ii", (int)h, (int)s->state_of[h]); }
  }
  Py_RETURN_NONE;
}

/* How many steps entry e of state i's steps stands for: a group's keys, or one. */
static inline int64_t entry_steps(Space *s, int32_t i, int32_t e) {
  int32_t root = s->st_root[i];
  return s->st_out[i] < 0 && grouped(s, root) ? group_size(s, group_at(s, root, e)) : 1;
}

/* n_steps(i) -> len(out(i)) without listing them (a grouped graph's steps are counted per group). */
static PyObject *Space_n_steps(Space *s, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i) || check_state(s, i) < 0) return NULL;
  int32_t m;
  if (s->map_off[s->st_root[i]] == NO_MAP) return PyLong_FromLong(0);
  state_steps(s, i, &m);
  int64_t n = 0;
  for (int32_t e = 0; e < m; e++) n += entry_steps(s, i, e);
  return PyLong_FromLongLong(n);
}

/* The steps out of expanded state i, as `out` reads them: its map, or its persistent set. */
static const int32_t *state_steps(Space *s, int32_t i, int32_t *m) {
  if (s->st_out[i] >= 0) { *m = s->chosen[s->st_out[i]]; return s->chosen + s->st_out[i] + 1; }
  *m = s->map_n[s->st_root[i]];
  return s->maps + s->map_off[s->st_root[i]];
}

/* cycles() -> (steps between made states, [closed components]): the strongly connected components of more than one
   state that no step leaves (Tarjan, iterative), over the expanded states' steps to made states (Exploration.edges'
   edges). cycles.py keeps those whose states were all expanded fully; the report counts the steps. */
static PyObject *Space_cycles(Space *s, PyObject *noargs) {
  int32_t n = s->n_states, counter = 0, top = 0, wtop = 0;
  long long steps = 0;
  int32_t *index = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *low = PyMem_Malloc(sizeof(int32_t) * (n + 1));
  int32_t *stack = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *work = PyMem_Malloc(sizeof(int32_t) * 2 * (n + 1));
  int8_t *on = PyMem_Calloc(n + 1, 1);
  PyObject *found = PyList_New(0);
  if (!index || !low || !stack || !work || !on || !found) { PyErr_NoMemory(); goto fail; }
  for (int32_t i = 0; i < n; i++) index[i] = -1;
  for (int32_t i = 0; i < n; i++) {
    int32_t m;
    if (!s->st_done[i]) continue;
    const int32_t *st = state_steps(s, i, &m);
    for (int32_t e = 0; e < m; e++) if (s->state_of[st[2 * e + 1]] >= 0) steps += entry_steps(s, i, e);
  }
  for (int32_t root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    work[0] = root; work[1] = 0; wtop = 1;
    while (wtop) {
      int32_t v = work[2 * (wtop - 1)], e = work[2 * (wtop - 1) + 1];
      if (e == 0 && index[v] < 0) { index[v] = low[v] = counter++; stack[top++] = v; on[v] = 1; }
      int32_t m = 0;
      const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
      while (e < m && s->state_of[st[2 * e + 1]] < 0) e++;   /* a step to a graph the bound left unmade */
      if (e < m) {
        int32_t w = s->state_of[st[2 * e + 1]];
        work[2 * (wtop - 1) + 1] = e + 1;
        if (index[w] < 0) { work[2 * wtop] = w; work[2 * wtop + 1] = 0; wtop++; }
        else if (on[w] && index[w] < low[v]) low[v] = index[w];
        if (tick(s, 1) < 0) goto fail;
        continue;
      }
      wtop--;
      if (low[v] == index[v]) {
        int32_t start = top;
        do start--; while (stack[start] != v);
        int closed = top - start > 1;
        for (int32_t k = start; k < top; k++) on[stack[k]] = 2;   /* 2: in the component being closed */
        for (int32_t k = start; k < top && closed; k++) {
          int32_t u = stack[k], mu = 0;
          const int32_t *su = s->st_done[u] ? state_steps(s, u, &mu) : NULL;
          for (int32_t f = 0; f < mu && closed; f++) { int32_t t = s->state_of[su[2 * f + 1]]; if (t >= 0 && on[t] != 2) closed = 0; }
        }
        if (closed) {
          PyObject *comp = PyList_New(top - start);
          if (!comp) goto fail;
          for (int32_t k = start; k < top; k++) PyList_SET_ITEM(comp, k - start, PyLong_FromLong(stack[k]));
          int bad = PyList_Append(found, comp);
          Py_DECREF(comp);
          if (bad < 0) goto fail;
        }
        for (int32_t k = start; k < top; k++) on[stack[k]] = 0;
        top = start;
      }
      if (wtop) { int32_t u = work[2 * (wtop - 1)]; if (low[v] < low[u]) low[u] = low[v]; }
    }
  }
  PyMem_Free(index); PyMem_Free(low); PyMem_Free(stack); PyMem_Free(work); PyMem_Free(on);
  return Py_BuildValue("LN", steps, found);
fail:
  PyMem_Free(index); PyMem_Free(low); PyMem_Free(stack); PyMem_Free(work); PyMem_Free(on);
  Py_XDECREF(found);
  return NULL;
}

/* The made state a step of an expanded state reaches, or -1 (a graph the bound left unmade). */
static inline int32_t step_target(Space *s, const int32_t *st, int32_t e) {
  int32_t t = s->state_of[st[2 * e + 1]];
  return t < s->n_states ? t : -1;
}

static PyObject *int_list(const int32_t *v, int32_t n) {
  PyObject *out = PyList_New(n);
  if (!out) return NULL;
  for (int32_t i = 0; i < n; i++) {
    PyObject *x = PyLong_FromLong(v[i]);
    if (!x) { Py_DECREF(out); return NULL; }
    PyList_SET_ITEM(out, i, x);
  }
  return out;
}

/* last_reaching(path) -> per state, the index of the last state of `path` (state ids) from which it is reachable over
   the explored steps, or -1: searches from the path's end back, each state labelled by the first search that finds it
   (analyses/order.py's forks; Exploration.successor_ids's steps, so the same labels as its Python search). */
static PyObject *Space_last_reaching(Space *s, PyObject *args) {
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &path)) return NULL;
  int32_t n = s->n_states, top = 0;
  int32_t *label = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *todo = PyMem_Malloc(sizeof(int32_t) * (n + 1));
  PyObject *out = NULL;
  if (!label || !todo) { PyErr_NoMemory(); goto end; }
  for (int32_t i = 0; i < n; i++) label[i] = -1;
  for (Py_ssize_t k = PyTuple_GET_SIZE(path) - 1; k >= 0; k--) {
    long start = PyLong_AsLong(PyTuple_GET_ITEM(path, k));
    if (start == -1 && PyErr_Occurred()) goto end;
    if (start < 0 || start >= n) { PyErr_SetString(PyExc_IndexError, "no such state"); goto end; }
    if (label[start] >= 0) continue;
    label[start] = (int32_t)k;
    todo[top++] = (int32_t)start;
    while (top) {
      int32_t v = todo[--top], m = 0;
      const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
      for (int32_t e = 0; e < m; e++) {
        int32_t t = step_target(s, st, e);
        if (t >= 0 && label[t] < 0) { label[t] = (int32_t)k; todo[top++] = t; }
      }
      if (tick(s, m + 1) < 0) goto end;
    }
  }
  out = int_list(label, n);
end:
  PyMem_Free(label); PyMem_Free(todo);
  return out;
}

/* bfs(start, targets) -> per state, the state it was first reached from in a breadth-first search from `start` over the
   explored steps in order (-1: not reached, or the start), stopping once every state of `targets` is reached. */
static PyObject *Space_bfs(Space *s, PyObject *args) {
  int start;
  PyObject *targets;
  if (!PyArg_ParseTuple(args, "iO!", &start, &PyTuple_Type, &targets) || check_state(s, start) < 0) return NULL;
  int32_t n = s->n_states, head = 0, tail = 0;
  int32_t *parent = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *queue = PyMem_Malloc(sizeof(int32_t) * (n + 1));
  uint8_t *seen = PyMem_Calloc(n + 1, 1), *wanted = PyMem_Calloc(n + 1, 1);
  PyObject *out = NULL;
  Py_ssize_t left = 0;
  if (!parent || !queue || !seen || !wanted) { PyErr_NoMemory(); goto end; }
  for (int32_t i = 0; i < n; i++) parent[i] = -1;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(targets); k++) {
    long t = PyLong_AsLong(PyTuple_GET_ITEM(targets, k));
    if (t == -1 && PyErr_Occurred()) goto end;
    if (t < 0 || t >= n) { PyErr_SetString(PyExc_IndexError, "no such state"); goto end; }
    if (!wanted[t] && t != start) { wanted[t] = 1; left++; }
  }
  seen[start] = 1;
  queue[tail++] = start;
  while (head < tail && left) {
    int32_t v = queue[head++], m = 0;
    const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
    for (int32_t e = 0; e < m; e++) {
      int32_t t = step_target(s, st, e);
      if (t < 0 || seen[t]) continue;
      seen[t] = 1; parent[t] = v; queue[tail++] = t;
      if (wanted[t]) left--;
    }
    if (tick(s, m + 1) < 0) goto end;
  }
  out = int_list(parent, n);
end:
  PyMem_Free(parent); PyMem_Free(queue); PyMem_Free(seen); PyMem_Free(wanted);
  return out;
}

static PyObject *Space_state_of(Space *s, PyObject *args) {
  int id;
  if (!PyArg_ParseTuple(args, "i", &id)) return NULL;
  return PyLong_FromLong(id >= 0 && id < s->n_nodes ? s->state_of[id] : -1);
}

static PyObject *Space_get_progress(Space *s, void *closure) {
  (void)closure;
  return Py_BuildValue("iii", (int)s->n_states, (int)s->next_expand, (int)s->n_cut);
}

static PyObject *Space_get_counts(Space *s, void *closure) {
  (void)closure;
  return Py_BuildValue("{s:i,s:L,s:i,s:i,s:i,s:L,s:L}", "nodes", (int)s->n_nodes, "bound", (long long)s->ptrs.n, "states", (int)s->n_states,
                       "expanded", (int)s->next_expand, "cut", (int)s->n_cut, "map_entries", (long long)(s->n_maps / 2),
                       "bytes", (long long)(s->cap_nodes * (6 * 4 + 2 + 8 + (s->reducing ? 5 : 0)) + (s->ptrs.cap + s->sigs.cap + s->keep_full.cap + s->checked.cap) * 12 +
                                            s->cap_srcs * 4 + s->cap_table * (int64_t)sizeof(Slot) + s->cap_maps * 4 + s->cap_states * (5 * 4 + 3) +
                                            (s->cap_stack + s->cap_fresh + s->cap_events + 2 * s->cap_keys) * 4 + s->cap_gt * 24 + s->wrapped.cap * 12 +
                                            s->cap_stamp * 16 + s->cap_chosen * 4 + s->cap_never + s->cap_lab * (3 * 8 + 4 + 4) +
                                            s->cap_fp * 17 + (s->cap_fp_inner + s->cap_fp_leaf) * (int64_t)sizeof(PyObject *) + rows_bytes(s->rows)));
}

/* ---- the type */

static int Space_init(Space *s, PyObject *args, PyObject *kw) {
  static char *names[] = {"match", "may", "labeler", "label_finder", "op_codes", "map_limit", "tree", NULL};
  PyObject *match, *may, *labeler, *finder, *op_codes; int limit, tree = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO!i|p", names, &match, &may, &labeler, &finder, &PyDict_Type, &op_codes, &limit, &tree))
    return -1;
  if (s->table) { PyErr_SetString(PyExc_RuntimeError, "a Space is made once"); return -1; }
  Py_INCREF(match); Py_INCREF(may); Py_INCREF(labeler); Py_INCREF(finder); Py_INCREF(op_codes);
  s->match_cb = match; s->may_cb = may; s->labeler = labeler; s->label_finder = finder; s->op_codes = op_codes;
  s->map_limit = limit; s->tree = tree; s->cur = -1;
  s->cap_lab = 64;
  s->lab_key = PyMem_Calloc((size_t)s->cap_lab * 3, sizeof(PyObject *));
  s->lab_val = PyMem_Malloc((size_t)s->cap_lab * sizeof(int32_t));
  s->lab_op = PyMem_Malloc((size_t)s->cap_lab * sizeof(int32_t));
  if (!s->lab_key || !s->lab_val || !s->lab_op) { PyErr_NoMemory(); return -1; }
  if (rehash(s, 1024) < 0) return -1;
  return 0;
}

/* The UOps in obj are not visited: they hold no reference back to a Space, so no cycle goes through them,
 * and visiting a graph's every node on every collection would cost what the core saves. */
#include "_space_text.h"   /* text(node, limit): a state's text from these nodes */

static int Space_traverse(Space *s, visitproc visit, void *arg) {
  if (s->text) Py_VISIT(s->text->cb);
  if (s->rows) Py_VISIT(s->rows->labels);
  Py_VISIT(s->fp_cb);
  Py_VISIT(s->match_cb); Py_VISIT(s->may_cb); Py_VISIT(s->labeler); Py_VISIT(s->label_finder); Py_VISIT(s->op_codes); Py_VISIT(s->inert_cb); Py_VISIT(s->check_cb);
  return 0;
}
static int Space_clear(Space *s) {
  if (s->text) Py_CLEAR(s->text->cb);
  if (s->rows) Py_CLEAR(s->rows->labels);
  Py_CLEAR(s->fp_cb);
  Py_CLEAR(s->match_cb); Py_CLEAR(s->may_cb); Py_CLEAR(s->labeler); Py_CLEAR(s->label_finder); Py_CLEAR(s->op_codes); Py_CLEAR(s->inert_cb); Py_CLEAR(s->check_cb);
  return 0;
}

static void Space_dealloc(Space *s) {
  PyObject_GC_UnTrack(s);
  Space_clear(s);
  text_free(s->text);
  level_free(s->level);
  for (int32_t i = 0; i < s->n_nodes; i++) Py_XDECREF(s->obj[i]);
  for (int64_t i = 0; i < s->cap_fp_inner; i++) Py_XDECREF(s->fp_inner[i]);
  for (int64_t i = 0; i < s->cap_fp_leaf; i++) Py_XDECREF(s->fp_leaf[i]);
  void *arrays[] = {s->label, s->src_off, s->src_n, s->map_off, s->map_n, s->state_of, s->op, s->nflags, s->srcs,
                    s->maps, s->stamp, s->pstamp, s->pstamp_val, s->stamp_val, s->st_root, s->st_parent, s->st_depth,
                    s->st_redex, s->st_normal, s->obj, s->lab_key, s->lab_val, s->lab_op, s->st_out, s->chosen, s->nstamp, s->ninert, s->lab_never,
                    s->pat, s->pat_kids, s->rule_root, s->rule_slots, s->op_rules, s->goals, s->bind,
                    s->paths, s->rule_paths, s->gt_left, s->gt_right, s->gt_first, s->gt_index, s->gt_size, s->key_idx, s->key_inner, s->st_done, s->st_cut, s->stack, s->fresh, s->events,
                    s->fp_inner, s->fp_leaf, s->fp, s->fp_done};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&s->sigs); map_free(&s->ptrs); map_free(&s->keep_full); map_free(&s->checked); map_free(&s->wrapped);
  free(s->table);
  rows_free(s->rows);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyMethodDef Space_methods[] = {
  {"index", (PyCFunction)Space_index, METH_O, "index(u) -> the node of UOp u (made, with those below it, where new)."},
  {"lookup", (PyCFunction)Space_lookup, METH_O, "lookup(u) -> the node of UOp u if it exists, else -1 (makes none)."},
  {"text_setup", (PyCFunction)Space_text_setup, METH_VARARGS, "text_setup(pieces(node) -> str | [str | source index], let names): for text()."},
  {"text", (PyCFunction)Space_text, METH_VARARGS, "text(node or its UOp, limit=None) -> uopc.term.show of its UOp, made from the nodes (None: a UOp of none)."},
  {"materialize", (PyCFunction)Space_materialize, METH_VARARGS, "materialize(id, make, labels) -> the node's UOp, made where new."},
  {"prepare", (PyCFunction)Space_prepare, METH_O, "prepare(id) -> True once the step maps of id's graph exist, False if the core stops there."},
  {"successors", (PyCFunction)Space_successors, METH_O, "successors(id) -> (step keys, graphs) of every step out of id's graph, in steps_of's order; None if the core stops there."},
  {"fingerprint_setup", (PyCFunction)Space_fingerprint_setup, METH_O, "fingerprint_setup(fields(node) -> bytes): for fingerprint(), fields asked once per label."},
  {"fingerprint", (PyCFunction)Space_fingerprint, METH_O, "fingerprint(id) -> cluster/fingerprint.py's 16 bytes of id's graph (BLAKE2b), computed in C."},
  {"fingerprints", (PyCFunction)Space_fingerprints, METH_O, "fingerprints(ids) -> [fingerprint(id) for id in ids]."},
  {"expand_level", (PyCFunction)Space_expand_level, METH_VARARGS, "expand_level(nodes, shards) -> a cluster worker's level: steps, fingerprints, candidates (_space_level.h)."},
  {"forget_candidates", (PyCFunction)Space_forget_candidates, METH_NOARGS, "forget_candidates(): expand_level's table of candidates made empties."},
  {"asks", (PyCFunction)Space_asks, METH_O, "asks(id) -> whether the core would ask Python for node id's own redexes."},
  {"patterns", (PyCFunction)Space_patterns, METH_VARARGS, "patterns(tables, check(check, label, node)): the rules' compiled patterns (patterns.py), before the first node."},
  {"reduce", (PyCFunction)Space_reduce, METH_VARARGS, "reduce(inert op codes, keep_full nodes, inert(node, label, sources)): explore persistent sets (docs/reduction.md)."},
  {"start", (PyCFunction)Space_start, METH_VARARGS, "start(root, dfs=False): state 0 is the graph of node root; breadth or depth first."},
  {"expand", (PyCFunction)Space_expand, METH_VARARGS, "expand(count, max_states, max_depth, until) -> ST_DONE, ST_MORE, ST_MAX_STATES or ST_BAIL."},
  {"changes", (PyCFunction)Space_changes, METH_NOARGS, "changes() -> (states, EV_* events, moves): what happened to states since the last call."},
  {"frontier", (PyCFunction)Space_frontier, METH_NOARGS, "frontier() -> the states the Python search goes on from, in its frontier's order."},
  {"cut_states", (PyCFunction)Space_cut_states, METH_NOARGS, "cut_states() -> the states max_depth cut a successor of."},
  {"key", (PyCFunction)Space_key, METH_O, "key(k) -> (source index, inner key) or (-1, redex): a tree semantics step key."},
  {"states", (PyCFunction)Space_states, METH_VARARGS, "states(start, end) -> six lists of the states start to end - 1: roots, parents, depths, redexes, normal, reduced."},
  {"out", (PyCFunction)Space_out, METH_VARARGS, "out(i) -> [(redex, result node, target state or -1)], or None if unexpanded."},
  {"step_to", (PyCFunction)Space_step_to, METH_VARARGS, "step_to(i, key) -> (result node, target state or -1) of state i's step keyed key, or None."},
  {"n_steps", (PyCFunction)Space_n_steps, METH_VARARGS, "n_steps(i) -> len(out(i)), counted without listing the steps."},
  {"state_of", (PyCFunction)Space_state_of, METH_VARARGS, "state_of(node) -> the state whose graph it is, or -1."},
  {"cycles", (PyCFunction)Space_cycles, METH_NOARGS, "cycles() -> (steps between made states, closed components of more than one state)."},
  {"last_reaching", (PyCFunction)Space_last_reaching, METH_VARARGS, "last_reaching(path) -> per state, the last path index reaching it, or -1."},
  {"bfs", (PyCFunction)Space_bfs, METH_VARARGS, "bfs(start, targets) -> per state, its breadth-first parent from start, or -1."},
  {"rows_setup", (PyCFunction)Space_rows_setup, METH_VARARGS, "rows_setup(base nodes, labels): for rows(), the program's nodes in Codec.base order (ref -1 - i)."},
  {"rows", (PyCFunction)Space_rows, METH_VARARGS, "rows(roots, stream, first) -> (rows, refs): Codec.encode's rows of the roots' nodes stream 0 or 1 does not know yet."},
  {"rows_reset", (PyCFunction)Space_rows_reset, METH_O, "rows_reset(stream): the stream forgets all but the base (stream 1: a new epoch)."},
  {"intern_rows", (PyCFunction)Space_intern_rows, METH_VARARGS, "intern_rows(rows, made, make) -> each codec row's node, made where new; made extended with them."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef Space_getset[] = {
  {"progress", (getter)Space_get_progress, NULL, "(states, states expanded, whether max_depth cut a step)", NULL},
  {"counts", (getter)Space_get_counts, NULL, "nodes, nodes bound to a UOp, states, expanded, cut, map entries, bytes held", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SpaceType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "uopc.relational.native._space.Space",
  .tp_doc = "Nodes, step maps and a breadth- or depth-first search, in flat arrays (see docs/native.md).",
  .tp_basicsize = sizeof(Space),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_new = PyType_GenericNew,
  .tp_init = (initproc)Space_init,
  .tp_dealloc = (destructor)Space_dealloc,
  .tp_traverse = (traverseproc)Space_traverse,
  .tp_clear = (inquiry)Space_clear,
  .tp_methods = Space_methods,
  .tp_getset = Space_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_space", "The explorer's hot core in C (docs/native.md).", -1, NULL};

PyMODINIT_FUNC PyInit__space(void) {
  if (PyType_Ready(&SpaceType) < 0) return NULL;
  if (!(str_src = PyUnicode_InternFromString("src")) || !(str_op = PyUnicode_InternFromString("op")) ||
      !(str_dtype = PyUnicode_InternFromString("dtype")) || !(str_arg = PyUnicode_InternFromString("arg"))) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&SpaceType);
  if (PyModule_AddObject(m, "Space", (PyObject *)&SpaceType) < 0) { Py_DECREF(&SpaceType); Py_DECREF(m); return NULL; }
  static const struct { const char *name; int value; } constants[] = {
    {"ST_DONE", ST_DONE}, {"ST_MORE", ST_MORE}, {"ST_MAX_STATES", ST_MAX_STATES}, {"ST_BAIL", ST_BAIL},
    {"EV_NOT_NORMAL", EV_NOT_NORMAL}, {"EV_NORMAL", EV_NORMAL}, {"EV_AGAIN", EV_AGAIN}, {"EV_MOVED", EV_MOVED},
    {"EV_MOVED_AGAIN", EV_MOVED_AGAIN}, {"EV_REDUCED", EV_REDUCED},
  };
  for (size_t k = 0; k < sizeof(constants) / sizeof(constants[0]); k++)
    if (PyModule_AddIntConstant(m, constants[k].name, constants[k].value) < 0) { Py_DECREF(m); return NULL; }
  return m;
}
