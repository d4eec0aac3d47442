/* The e-graph's hot loop in C: hash consing, union-find, rebuild, semi-naive compiled matching, template rules.
 *
 * A transliteration of uopc/egraph/egraph.py (EGraph: add_enode, union, rebuild, take_touched), the compiled loops of
 * ecompile.py (rep-free patterns), template.py's add_ids and saturate.py's iteration, on flat arrays, step for step
 * in the same order, so it makes the very same e-graph (the same class ids, e-nodes in the same order) as the Python
 * path. An e-node value (op, dtype, arg, children) is a *label* (op, dtype, arg, numbered by Python) and children
 * class ids; every value ever made is interned once ("keys"), and what Python keeps in dicts keyed by an e-node
 * (the hash-cons table `memo`, the stamps `nstamp`) are fields of its key. Python is called only for what it knows:
 * a template's steps for a new combination of argument types, and the clock (every 64 matches applied).
 * Why and when: docs/saturation.md, "## Speed".
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NO_RESULT INT32_MIN   /* a template whose function returned None */
#define MAX_INSTANCES 1000    /* ematch.MAX_INSTANCES: matches per (rule, root class) */
#define SIGNAL_EVERY 4096
#define PREFETCH 4            /* e-nodes of a class fetched this far ahead */
#define APPLY_AHEAD 4         /* matches fetched this far ahead */

/* ---- growable arrays of int32 */

typedef struct { int32_t *a; int64_t n, cap; } IVec;

static int iv_reserve(IVec *v, int64_t want) {
  if (want <= v->cap) return 0;
  int64_t cap = v->cap ? v->cap : 8;
  while (cap < want) cap *= 2;
  int32_t *a = PyMem_Realloc(v->a, (size_t)cap * sizeof(int32_t));
  if (!a) { PyErr_NoMemory(); return -1; }
  v->a = a; v->cap = cap;
  return 0;
}

static inline int iv_push(IVec *v, int32_t x) {
  if (v->n == v->cap && iv_reserve(v, v->n + 1) < 0) return -1;
  v->a[v->n++] = x;
  return 0;
}

static inline int iv_extend(IVec *v, const int32_t *xs, int64_t n) {
  if (v->n + n > v->cap && iv_reserve(v, v->n + n) < 0) return -1;
  if (n <= 4) for (int64_t i = 0; i < n; i++) v->a[v->n + i] = xs[i];   /* a match's names, an e-node's children: no call */
  else memcpy(v->a + v->n, xs, (size_t)n * sizeof(int32_t));
  v->n += n;
  return 0;
}

static void iv_free(IVec *v) { PyMem_Free(v->a); v->a = NULL; v->n = v->cap = 0; }

/* ---- a class's e-nodes: their keys, and beside them their labels, which the matcher tests first: most e-nodes it
 * looks at fail the test (a sum's class holds its products too), and the labels are read in a row where the keys are
 * scattered, a cache miss each */

/* The first two in the record itself: most classes are made for one e-node and merged into another at once, and then
 * allocate nothing. 24 bytes, so that a class record stays in one cache line. */
typedef struct { union { struct { int32_t *key, *label; } heap; int32_t small[4]; } u; int32_t n, cap; } NodeList;   /* cap 0: small */

static inline int32_t *nl_keys(const NodeList *v) { return v->cap ? v->u.heap.key : (int32_t *)v->u.small; }
static inline int32_t *nl_labels(const NodeList *v) { return v->cap ? v->u.heap.label : (int32_t *)v->u.small + 2; }

static int nl_reserve(NodeList *v, int64_t want) {
  if (want <= (v->cap ? v->cap : 2)) return 0;
  if (want > INT32_MAX / 2) { PyErr_NoMemory(); return -1; }
  int32_t cap = v->cap ? v->cap : 4;
  while (cap < want) cap *= 2;
  int32_t *k = PyMem_Malloc((size_t)cap * sizeof(int32_t)), *l = PyMem_Malloc((size_t)cap * sizeof(int32_t));
  if (!k || !l) { PyMem_Free(k); PyMem_Free(l); PyErr_NoMemory(); return -1; }
  memcpy(k, nl_keys(v), (size_t)v->n * sizeof(int32_t));
  memcpy(l, nl_labels(v), (size_t)v->n * sizeof(int32_t));
  if (v->cap) { PyMem_Free(v->u.heap.key); PyMem_Free(v->u.heap.label); }
  v->u.heap.key = k; v->u.heap.label = l; v->cap = cap;
  return 0;
}

static inline int nl_push(NodeList *v, int32_t key, int32_t label) {
  if (v->n == (v->cap ? v->cap : 2) && nl_reserve(v, v->n + 1) < 0) return -1;
  nl_keys(v)[v->n] = key; nl_labels(v)[v->n++] = label;
  return 0;
}

static int nl_extend(NodeList *v, const NodeList *w) {
  if (nl_reserve(v, (int64_t)v->n + w->n) < 0) return -1;
  memcpy(nl_keys(v) + v->n, nl_keys(w), (size_t)w->n * sizeof(int32_t));
  memcpy(nl_labels(v) + v->n, nl_labels(w), (size_t)w->n * sizeof(int32_t));
  v->n += w->n;
  return 0;
}

static void nl_free(NodeList *v) {
  if (v->cap) { PyMem_Free(v->u.heap.key); PyMem_Free(v->u.heap.label); }
  v->n = v->cap = 0;
}

/* A multiply per int, and the high half folded into the low: the tables index by the low bits, which a product alone takes
 * from the ints' low bits only. (A final mix, as murmur's, cost 8% of the core's instructions for no fewer probes.) */
static inline uint64_t hash_ints(uint64_t h, const int32_t *xs, int32_t n) {
  for (int32_t i = 0; i < n; i++) h = (h + (uint32_t)xs[i]) * 0x9e3779b97f4a7c15ULL;
  return h ^ h >> 29;
}

/* A table of slots (each a 32-bit hash and a number + 1, 0 empty; linear probing) grown from oldcap to cap slots (powers of
 * two): the slots are placed in the order of the old table, so that the writes go in two runs (a slot's new home is its old
 * home or that plus oldcap), not a cache miss each as in the order of the entries; the old table freed. NULL on error. */
static uint64_t *slots_grown(uint64_t *old, int64_t oldcap, int64_t cap) {
  uint64_t *s = PyMem_Calloc((size_t)cap, sizeof(uint64_t));
  if (!s) { PyErr_NoMemory(); return NULL; }
  int64_t mask = cap - 1;
  for (int64_t i = 0; i < oldcap; i++) {
    uint64_t sl = old[i];
    if (!sl) continue;
    int64_t j = (int64_t)((sl >> 32) & (uint64_t)mask);
    while (s[j]) j = (j + 1) & mask;
    s[j] = sl;
  }
  PyMem_Free(old);
  return s;
}

/* ---- a set of fixed-width int tuples, each with a value: open addressing; a slot holds an entry's hash and number + 1 */

typedef struct { int32_t w, clearable; uint64_t *slots; int64_t cap, n; IVec data, vals, used; } TMap;   /* used: if clearable */

static inline int same_ints(const int32_t *a, const int32_t *b, int32_t n) {
  for (int32_t i = 0; i < n; i++) if (a[i] != b[i]) return 0;
  return 1;
}

static inline uint32_t tm_hash(const TMap *m, const int32_t *t) { return (uint32_t)hash_ints(7, t, m->w); }

/* The entry of tuple t, added with value val if new (*added says so; an old one keeps its value unless `overwrite`);
 * -1 on error. One probe. */
static int64_t tm_put(TMap *m, const int32_t *t, int32_t val, int overwrite, int *added) {
  if ((m->n + 1) * 2 > m->cap) {
    int64_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *s = slots_grown(m->slots, m->cap, cap);
    if (!s) return -1;
    m->slots = s; m->cap = cap; m->used.n = 0;
    if (m->clearable) {   /* a small table (one root's matches): its used slots found by a scan */
      if (iv_reserve(&m->used, m->n + 1) < 0) return -1;
      for (int64_t j = 0; j < cap; j++) if (s[j]) m->used.a[m->used.n++] = (int32_t)j;
    }
  }
  uint32_t h = tm_hash(m, t);
  int64_t mask = m->cap - 1, j = (int64_t)(h & (uint64_t)mask);
  for (uint64_t sl; (sl = m->slots[j]); j = (j + 1) & mask) {
    if ((uint32_t)(sl >> 32) != h) continue;
    int64_t e = (int64_t)(uint32_t)sl - 1;
    if (same_ints(m->data.a + e * m->w, t, m->w)) {
      *added = 0;
      if (overwrite) m->vals.a[e] = val;
      return e;
    }
  }
  if (iv_extend(&m->data, t, m->w) < 0 || iv_push(&m->vals, val) < 0 || (m->clearable && iv_push(&m->used, (int32_t)j) < 0)) return -1;
  m->slots[j] = (uint64_t)h << 32 | (uint64_t)(m->n + 1);
  *added = 1;
  return m->n++;
}

static void tm_clear(TMap *m) {
  for (int64_t i = 0; i < m->used.n; i++) m->slots[m->used.a[i]] = 0;
  m->used.n = 0; m->n = 0; m->data.n = 0; m->vals.n = 0;
}

static void tm_free(TMap *m) { PyMem_Free(m->slots); m->slots = NULL; m->cap = m->n = 0; iv_free(&m->data); iv_free(&m->vals); iv_free(&m->used); }

/* ---- the model */

/* An e-node value, interned: what egraph.py keys its dicts by. 32 bytes, in an array aligned to cache lines: reading a
 * key (a look-up, the matcher, a rebuild) is one cache line, where 40 bytes straddled two for half the keys. */
typedef struct {
  int32_t label, nk;
  int32_t stamp;             /* nstamp: the iteration it was made, moved or changed in (0: never) */
  int32_t memo;              /* memo: its class in the hash-cons table, or -1 (not a key of it) */
  int32_t mark, tmp;         /* scratch: dedup of a class's e-nodes, a repair's users */
  int32_t head[2];           /* up to two children here (the readers need no other line); more: head[0] is their offset in Core.kidpool */
} Key;
_Static_assert(sizeof(Key) == 32, "two keys a cache line");

typedef struct {
  NodeList nodes;
  IVec parents;   /* pairs (key, class) */
  int32_t konst;   /* the label of its CONST or -1 */
  int32_t alive;
} Class;
_Static_assert(sizeof(Class) <= 64, "a class record in one cache line: the matcher and apply read one per class");

/* A pattern node: a variable (its class) or a structured node (a loop over the class's e-nodes). */
typedef struct { int32_t var, name, ttest, ltest, src_none, norders, len, orders, leaf; } PNode;   /* leaf: structured, only variables below */

/* A template's steps for one combination of argument types. */
typedef struct { int32_t *types; int32_t ok, result, rtype, nsteps; IVec steps; /* per step: label, type, nk, refs */ } TEntry;

typedef struct {
  PNode *p; int32_t np; IVec opool;   /* opool: the children of each order, pattern node numbers */
  int32_t nnames, nparams, *order;    /* order: param j -> its position among the sorted names */
  int32_t height, since;
  TEntry *t; int32_t nt;
  TMap fired;    /* ids (sorted names) -> the class the rule was applied to, or -1 */
  TMap seen;     /* scratch: the distinct matches at one root */
  IVec found;    /* per match: root class, its entry in fired, then nnames ids */
  int64_t applied;
} Rule;

typedef struct {
  PyObject_HEAD
  Key *keys; void *keys_block; int64_t nkeys, capkeys;   /* keys: keys_block's first cache line boundary */
  IVec kidpool;
  uint64_t *slots; int64_t capslots;  /* the intern table: a key's hash and number + 1 */
  Class *cls; int64_t capcls;
  IVec parent, size;                  /* the union-find */
  IVec ctype;                         /* per class, its (dtype, shape) numbered by Python (the same in every class merged): an
                                         array of its own, as applying a match reads it per name */
  int64_t memo_len;
  int64_t enodes;                     /* the live classes' e-nodes, counted as they come and go (the classes made are many) */
  IVec pending, stale, fresh, conflicts;
  IVec congruent;                     /* repair's scratch: pairs of classes to merge */
  int32_t nlabels, nltests; IVec label_const; uint8_t *ltest; int64_t capltest;
  int32_t ntypes, nttests; uint8_t *ttest; int64_t capttest;
  Rule *rules; int32_t nrules;
  IVec changed, changed_start;        /* per iteration: the classes of its new e-nodes (changed_at) */
  IVec mark; int32_t epoch;           /* per class: roots' scratch */
  IVec newer, newer_ep; int32_t newer_epoch, newer_since;   /* per class, within one match(): whether an e-node of it is stamped after newer_since */
  int32_t mark_epoch;                 /* keys' scratch epoch */
  PyObject *steps_fn;
  /* the matcher's state */
  int32_t *bound, *goals; int32_t goals_cap;
  int32_t m_since; Rule *m_rule; int m_full; int m_err; int m_distinct;
  int64_t work;
} Core;

static inline int32_t find(Core *g, int32_t i) {
  int32_t *parent = g->parent.a;
  while (parent[i] != i) { parent[i] = parent[parent[i]]; i = parent[i]; }
  return i;
}

/* Key k's children: up to two from the key itself, which the reader has just read (kidpool would be another miss);
 * valid until the next new key (the keys may move). */
static inline const int32_t *kids_of(Core *g, int32_t k) {
  const Key *key = &g->keys[k];
  return key->nk <= 2 ? key->head : g->kidpool.a + key->head[0];
}

static uint32_t key_hash(int32_t label, int32_t nk, const int32_t *kids) {
  return (uint32_t)hash_ints(((uint64_t)(uint32_t)label + 1) * 0xff51afd7ed558ccdULL, kids, nk);
}

static int32_t intern_find(Core *g, int32_t label, int32_t nk, const int32_t *kids) {
  if (!g->capslots) return -1;
  uint32_t h = key_hash(label, nk, kids);
  int64_t mask = g->capslots - 1, j = (int64_t)(h & (uint64_t)mask);
  for (uint64_t sl; (sl = g->slots[j]); j = (j + 1) & mask) {
    if ((uint32_t)(sl >> 32) != h) continue;
    const Key *k = &g->keys[(uint32_t)sl - 1];
    if (k->label != label || k->nk != nk) continue;
    if (nk <= 2 ? nk == 0 || (k->head[0] == kids[0] && (nk == 1 || k->head[1] == kids[1])) : same_ints(g->kidpool.a + k->head[0], kids, nk))
      return (int32_t)((uint32_t)sl - 1);
  }
  return -1;
}

static void intern_place(Core *g, int32_t k, uint32_t h) {
  int64_t mask = g->capslots - 1, j = (int64_t)(h & (uint64_t)mask);
  while (g->slots[j]) j = (j + 1) & mask;
  g->slots[j] = (uint64_t)h << 32 | (uint64_t)(k + 1);
}

/* Room for one more key, its array aligned to a cache line: grown by PyMem_Realloc (a large block is moved by the kernel,
 * not copied), the keys moved within the block only where its alignment changed; -1 on error. */
static int keys_reserve(Core *g) {
  if (g->nkeys < g->capkeys) return 0;
  int64_t cap = g->capkeys ? g->capkeys * 2 : 512;
  size_t was = g->keys_block ? (size_t)((char *)g->keys - (char *)g->keys_block) : 0;
  char *block = PyMem_Realloc(g->keys_block, (size_t)cap * sizeof(Key) + 63);
  if (!block) { PyErr_NoMemory(); return -1; }
  size_t off = (64 - (uintptr_t)block % 64) % 64;
  if (off != was && g->nkeys) memmove(block + off, block + was, (size_t)g->nkeys * sizeof(Key));
  g->keys_block = block; g->keys = (Key *)(block + off); g->capkeys = cap;
  return 0;
}

/* A new key for value (label, kids), which has none; -1 on error. `kids` must not point into kidpool. */
static int32_t intern_new(Core *g, int32_t label, int32_t nk, const int32_t *kids) {
  int32_t k;
  if ((g->nkeys + 1) * 2 > g->capslots) {
    int64_t cap = g->capslots ? g->capslots * 2 : 1024;
    uint64_t *s = slots_grown(g->slots, g->capslots, cap);
    if (!s) return -1;
    g->slots = s; g->capslots = cap;
  }
  if (keys_reserve(g) < 0) return -1;
  int32_t off = (int32_t)g->kidpool.n;
  if (nk > 2 && iv_extend(&g->kidpool, kids, nk) < 0) return -1;
  k = (int32_t)g->nkeys++;
  g->keys[k] = (Key){label, nk, 0, -1, 0, 0, {nk > 2 ? off : nk > 0 ? kids[0] : 0, nk == 2 ? kids[1] : 0}};
  intern_place(g, k, key_hash(label, nk, kids));
  return k;
}

/* The key of value (label, kids), made if new; -1 on error. */
static int32_t intern(Core *g, int32_t label, int32_t nk, const int32_t *kids) {
  int32_t k = intern_find(g, label, nk, kids);
  return k >= 0 ? k : intern_new(g, label, nk, kids);
}

/* canonical(n): n with its children's canonical ids; -1 on error. */
static int32_t canonical(Core *g, int32_t k) {
  int32_t nk = g->keys[k].nk;
  if (!nk) return k;
  int32_t buf[16], *kids = nk <= 16 ? buf : PyMem_Malloc((size_t)nk * sizeof(int32_t));
  if (!kids) { PyErr_NoMemory(); return -1; }
  const int32_t *src = kids_of(g, k);
  int same = 1;
  for (int32_t i = 0; i < nk; i++) { kids[i] = find(g, src[i]); same &= kids[i] == src[i]; }
  int32_t out = same ? k : intern(g, g->keys[k].label, nk, kids);
  if (kids != buf) PyMem_Free(kids);
  return out;
}

static void memo_set(Core *g, int32_t k, int32_t c) { if (g->keys[k].memo < 0) g->memo_len++; g->keys[k].memo = c; }
static void memo_pop(Core *g, int32_t k) { if (g->keys[k].memo >= 0) { g->memo_len--; g->keys[k].memo = -1; } }

static int32_t make_class(Core *g, int32_t type) {
  int32_t c = (int32_t)g->parent.n;
  if (iv_push(&g->parent, c) < 0 || iv_push(&g->size, 1) < 0 || iv_push(&g->ctype, type) < 0) return -1;
  if (c >= g->capcls) {
    int64_t cap = g->capcls ? g->capcls * 2 : 256;
    Class *a = PyMem_Realloc(g->cls, (size_t)cap * sizeof(Class));
    if (!a) { PyErr_NoMemory(); return -1; }
    g->cls = a; g->capcls = cap;
  }
  memset(&g->cls[c], 0, sizeof(Class));
  g->cls[c].konst = -1; g->cls[c].alive = 1;
  return c;
}

/* EGraph.add_enode: the class of e-node (label, kids), made if new; -1 on error. */
static int32_t add_enode(Core *g, int32_t label, int32_t nk, const int32_t *kids, int32_t type) {
  int32_t k = intern_find(g, label, nk, kids);
  if (k >= 0 && g->keys[k].memo >= 0) return find(g, g->keys[k].memo);   /* a key not canonical any more still names its class */
  int32_t buf[16], *ck = nk <= 16 ? buf : PyMem_Malloc((size_t)nk * sizeof(int32_t));
  if (!ck) { PyErr_NoMemory(); return -1; }
  int same = 1;
  for (int32_t i = 0; i < nk; i++) { ck[i] = find(g, kids[i]); same &= ck[i] == kids[i]; }
  if (!same) k = intern_find(g, label, nk, ck);   /* else: the lookup above was of this very value */
  int32_t c = -1;
  if (k < 0 && (k = intern_new(g, label, nk, ck)) < 0) goto done;
  if (g->keys[k].memo >= 0) { c = find(g, g->keys[k].memo); goto done; }
  if ((c = make_class(g, type)) < 0) goto done;
  memo_set(g, k, c);
  if (nl_push(&g->cls[c].nodes, k, label) < 0 || iv_push(&g->fresh, k) < 0) { c = -1; goto done; }
  g->enodes++;
  if (label < g->nlabels && g->label_const.a[label]) g->cls[c].konst = label;
  for (int32_t i = 0; i < nk; i++) {   /* set(n[3]): each child once */
    int dup = 0;
    for (int32_t j = 0; j < i; j++) dup |= ck[j] == ck[i];
    if (dup) continue;
    IVec *ps = &g->cls[ck[i]].parents;
    if (iv_push(ps, k) < 0 || iv_push(ps, c) < 0) { c = -1; goto done; }
  }
done:
  if (ck != buf) PyMem_Free(ck);
  return c;
}

/* EGraph.union: 1 merged, 0 one already or refused (two constants), -1 error. */
static int union_(Core *g, int32_t a, int32_t b) {
  a = find(g, a); b = find(g, b);
  if (a == b) return 0;
  Class *ca = &g->cls[a], *cb = &g->cls[b];
  if (ca->konst >= 0 && cb->konst >= 0) {
    if (iv_push(&g->conflicts, ca->konst) < 0 || iv_push(&g->conflicts, cb->konst) < 0) return -1;
    return 0;
  }
  if (g->ctype.a[a] != g->ctype.a[b]) { PyErr_SetString(PyExc_ValueError, "cannot merge classes of different dtypes or shapes"); return -1; }
  int32_t root = a, gone = b;
  if (g->size.a[a] < g->size.a[b]) { root = b; gone = a; }
  g->parent.a[gone] = root;
  g->size.a[root] += g->size.a[gone];
  Class *keep = &g->cls[root], *gc = &g->cls[gone];
  if (nl_extend(&keep->nodes, &gc->nodes) < 0 || iv_extend(&g->fresh, nl_keys(&gc->nodes), gc->nodes.n) < 0 ||
      iv_extend(&keep->parents, gc->parents.a, gc->parents.n) < 0) return -1;
  if (gc->konst >= 0) keep->konst = gc->konst;
  nl_free(&gc->nodes); iv_free(&gc->parents);
  gc->alive = 0; gc->konst = -1;
  if (iv_push(&g->pending, root) < 0 || iv_push(&g->stale, root) < 0) return -1;
  return 1;
}

static int repair(Core *g, int32_t c) {
  IVec ps = g->cls[c].parents;   /* taken, and rewritten in place into the class's new list: (n, its class) for each user n
                                    in first-seen order (a pair read makes at most one pair written); the unions below extend it */
  memset(&g->cls[c].parents, 0, sizeof(IVec));
  for (int64_t i = 0; i < ps.n; i += 2) memo_pop(g, ps.a[i]);
  int32_t ep = ++g->mark_epoch;
  IVec *congruent = &g->congruent;
  congruent->n = 0;
  int64_t w = 0;
  for (int64_t i = 0; i < ps.n; i += 2) {
    int32_t pc = ps.a[i + 1];
    if (iv_push(&g->stale, pc) < 0) goto fail;
    int32_t n = canonical(g, ps.a[i]);
    if (n < 0) goto fail;
    Key *k = &g->keys[n];
    if (k->mark == ep) { if (iv_push(congruent, pc) < 0 || iv_push(congruent, k->tmp) < 0) goto fail; }
    else {
      k->mark = ep; k->tmp = find(g, pc);
      memo_set(g, n, k->tmp);
      ps.a[w++] = n; ps.a[w++] = k->tmp;
    }
  }
  ps.n = w;
  g->cls[c].parents = ps;   /* nothing above adds users to c */
  for (int64_t i = 0; i < congruent->n; i += 2) if (union_(g, congruent->a[i], congruent->a[i + 1]) < 0) return -1;
  return 0;
fail:
  iv_free(&ps);
  return -1;
}

/* The classes that go away in a union keep their list until the union: repair() took c's, so a union of c moves none. */
static int rebuild(Core *g) {
  while (g->pending.n) {
    IVec todo = g->pending;
    memset(&g->pending, 0, sizeof(IVec));
    int32_t ep = ++g->epoch;   /* dict.fromkeys(find(c) for c in pending): first-seen order */
    if (iv_reserve(&g->mark, g->parent.n) < 0) { iv_free(&todo); return -1; }
    for (int64_t i = g->mark.n; i < g->parent.n; i++) g->mark.a[i] = 0;
    g->mark.n = g->parent.n;
    int64_t m = 0;
    for (int64_t i = 0; i < todo.n; i++) {
      int32_t c = find(g, todo.a[i]);
      if (g->mark.a[c] == ep) continue;
      g->mark.a[c] = ep;
      todo.a[m++] = c;
    }
    for (int64_t i = 0; i < m; i++) if (repair(g, find(g, todo.a[i])) < 0) { iv_free(&todo); return -1; }
    iv_free(&todo);
  }
  IVec stale = g->stale;
  memset(&g->stale, 0, sizeof(IVec));
  int32_t ep = ++g->epoch;
  if (iv_reserve(&g->mark, g->parent.n) < 0) { iv_free(&stale); return -1; }
  for (int64_t i = g->mark.n; i < g->parent.n; i++) g->mark.a[i] = 0;
  g->mark.n = g->parent.n;
  for (int64_t i = 0; i < stale.n; i++) {
    int32_t c = find(g, stale.a[i]);
    if (g->mark.a[c] == ep) continue;
    g->mark.a[c] = ep;
    NodeList *nodes = &g->cls[c].nodes;
    int32_t kep = ++g->mark_epoch, *keys = nl_keys(nodes), *labels = nl_labels(nodes);
    int64_t m = 0;
    for (int64_t j = 0; j < nodes->n; j++) {   /* dict.fromkeys(canonical nodes): first occurrences, in order */
      int32_t n = keys[j], cn = canonical(g, n);
      if (cn < 0) { iv_free(&stale); return -1; }
      if (cn != n && iv_push(&g->fresh, cn) < 0) { iv_free(&stale); return -1; }
      if (g->keys[cn].mark == kep) continue;
      g->keys[cn].mark = kep;
      labels[m] = labels[j];   /* a canonical e-node keeps its label */
      keys[m++] = cn;
    }
    g->enodes -= nodes->n - m;
    nodes->n = m;
  }
  iv_free(&stale);
  return 0;
}

/* take_touched and the stamps of iteration `it`: the fresh e-nodes (canonical) stamped it, their classes logged. */
static int take(Core *g, int32_t it) {
  if (iv_push(&g->changed_start, (int32_t)g->changed.n) < 0) return -1;
  for (int64_t i = 0; i < g->fresh.n; i++) {
    int32_t n = canonical(g, g->fresh.a[i]);
    if (n < 0) return -1;
    g->keys[n].stamp = it;
    if (g->keys[n].memo >= 0 && iv_push(&g->changed, find(g, g->keys[n].memo)) < 0) return -1;
  }
  g->fresh.n = 0;
  return 0;
}

/* SemiNaive.roots: the classes up to `height` levels above a class with an e-node stamped after `since`, sorted. */
static int cmp_i32(const void *a, const void *b) { int32_t x = *(const int32_t *)a, y = *(const int32_t *)b; return (x > y) - (x < y); }

static int roots(Core *g, int32_t since, int32_t height, int32_t it, IVec *out) {
  out->n = 0;
  int32_t ep = ++g->epoch;
  if (iv_reserve(&g->mark, g->parent.n) < 0) return -1;
  for (int64_t i = g->mark.n; i < g->parent.n; i++) g->mark.a[i] = 0;
  g->mark.n = g->parent.n;
  int64_t from = since + 1 <= it ? g->changed_start.a[since + 1] : g->changed.n;   /* changed_at[since + 1:] */
  for (int64_t i = from; i < g->changed.n; i++) {
    int32_t c = find(g, g->changed.a[i]);
    if (g->mark.a[c] != ep) { g->mark.a[c] = ep; if (iv_push(out, c) < 0) return -1; }
  }
  int64_t lo = 0;
  for (int32_t d = 0; d < height; d++) {
    int64_t hi = out->n;
    for (int64_t i = lo; i < hi; i++) {
      IVec *ps = &g->cls[out->a[i]].parents;
      for (int64_t j = 1; j < ps->n; j += 2) {
        int32_t p = find(g, ps->a[j]);
        if (g->mark.a[p] != ep) { g->mark.a[p] = ep; if (iv_push(out, p) < 0) return -1; }
      }
    }
    lo = hi;
  }
  qsort(out->a, (size_t)out->n, sizeof(int32_t), cmp_i32);
  return 0;
}

/* ---- compiled matching (ecompile's loops for a rep-free pattern): goals on a stack, each restored when done */

static inline int ltest(const Core *g, int32_t label, int32_t t) { return label < g->nlabels && g->ltest[(int64_t)label * g->nltests + t]; }
static inline int ttest(Core *g, int32_t type, int32_t t) { return type < g->ntypes && g->ttest[(int64_t)type * g->nttests + t]; }

/* Whether class c has an e-node stamped after the rule's since (cached for the rules of one since: stamps do not change
 * while matching). */
static int class_newer(Core *g, int32_t c) {
  if (g->newer_ep.a[c] == g->newer_epoch) return g->newer.a[c];
  const NodeList *nodes = &g->cls[c].nodes;
  const int32_t *keys = nl_keys(nodes);
  int32_t out = 0;
  for (int64_t i = 0; i < nodes->n && !out; i++) {
    if (i + PREFETCH < nodes->n) __builtin_prefetch(&g->keys[keys[i + PREFETCH]]);
    out = g->keys[keys[i]].stamp > g->m_since;
  }
  g->newer_ep.a[c] = g->newer_epoch; g->newer.a[c] = out;
  return out;
}

/* Whether the goals still to go after a leaf goal, goals[0, sp), with nothing new read so far, can read an e-node stamped
 * after since. Only when every structured goal among them is a leaf (its sources variables, so its class is known) can it
 * say no: then a match reads new only from those classes' e-nodes, and the leaf's. A match that reads nothing new is
 * dropped, so pruning where nothing new can be read drops only such matches, and the others are found in the same order. */
static int rest_may_read_newer(Core *g, const Rule *r, int32_t sp) {
  for (int32_t i = 0; i < sp; i++) {
    const PNode *q = &r->p[g->goals[2 * i]];
    if (q->var) continue;
    if (!q->leaf || class_newer(g, g->goals[2 * i + 1])) return 1;
  }
  return 0;
}

/* Whether rule r's matcher can reach one match (its names' classes) only once at a root, so that the matches need no
 * table to be told apart: every name is named, every structured node has its sources in one order and exactly, and passes
 * its label test with one label at most of those made so far; and no merge was ever refused. Then each e-node a match
 * reads is the one e-node of its label and children (the e-graph is rebuilt: its classes' e-nodes canonical, each in one
 * class), bottom up from the names' classes, and two ways to one match would be one way. A refused merge (two constants)
 * leaves a congruent e-node in both classes: two ways to one match (`add(1, p1) + add(1, p1)` under x + x -> x * 2 and
 * a * b -> b, which claim 1 = 2). */
static int distinct_matches(const Core *g, const Rule *r) {
  if (g->conflicts.n) return 0;
  for (int32_t j = 0; j < r->np; j++) {
    const PNode *q = &r->p[j];
    if (q->var) { if (q->name < 0) return 0; continue; }
    if (q->src_none || q->norders > 1) return 0;
    int32_t passing = 0;
    for (int32_t l = 0; l < g->nlabels; l++) if (ltest(g, l, q->ltest) && ++passing > 1) return 0;
  }
  return 1;
}

static void mrun(Core *g, int32_t sp, int d) {
  Rule *r = g->m_rule;
  if (g->m_full || g->m_err) return;
  if (sp == 0) {
    if (!d) return;
    if (g->m_distinct) {   /* no match is found twice at one root (distinct_matches): listed as seen lists it, unhashed */
      if (iv_extend(&r->seen.data, g->bound, r->nnames) < 0 || iv_push(&r->seen.vals, 0) < 0) { g->m_err = 1; return; }
      r->seen.n++;
    } else {
      int added;
      if (tm_put(&r->seen, g->bound, 0, 0, &added) < 0) { g->m_err = 1; return; }
      if (!added) return;
    }
    if (r->seen.n >= MAX_INSTANCES) g->m_full = 1;
    return;
  }
  int32_t p = g->goals[2 * (sp - 1)], c = g->goals[2 * (sp - 1) + 1];
  sp--;
  const PNode *q = &r->p[p];
  if (q->ttest >= 0 && !ttest(g, g->ctype.a[c], q->ttest)) goto restore;
  if (q->var) {
    if (q->name >= 0) {
      int32_t was = g->bound[q->name];
      if (was >= 0) { if (was == c) mrun(g, sp, d); }
      else { g->bound[q->name] = c; mrun(g, sp, d); g->bound[q->name] = -1; }
    } else mrun(g, sp, d);
    goto restore;
  }
  int only_new = 0;   /* nothing new read so far nor to be read after: only this class's new e-nodes make matches */
  if (!d && q->leaf) {
    only_new = !rest_may_read_newer(g, r, sp);
    if (only_new && !class_newer(g, c)) goto restore;
  }
  const NodeList *nodes = &g->cls[c].nodes;
  const int32_t *keys = nl_keys(nodes), *labels = nl_labels(nodes);
  for (int64_t i = 0, ahead = 0; i < nodes->n; i++) {
    if (!ltest(g, labels[i], q->ltest)) continue;   /* the key is not read */
    for (ahead = ahead > i ? ahead : i + 1; ahead < nodes->n && ahead <= i + PREFETCH; ahead++)   /* keys are scattered: a miss each */
      if (ltest(g, labels[ahead], q->ltest)) __builtin_prefetch(&g->keys[keys[ahead]]);
    int32_t n = keys[i];
    const Key *k = &g->keys[n];
    if (only_new && k->stamp <= g->m_since) continue;
    g->work++;
    int d2 = d || k->stamp > g->m_since;
    if (q->src_none) { mrun(g, sp, d2); continue; }
    if (k->nk != q->len) continue;
    const int32_t *kids = kids_of(g, n);
    for (int32_t o = 0; o < q->norders; o++) {
      const int32_t *sub = r->opool.a + q->orders + o * q->len;
      for (int32_t j = 0; j < q->len; j++) {   /* the first source on top: matched first, as the loops nest */
        g->goals[2 * (sp + j)] = sub[q->len - 1 - j];
        g->goals[2 * (sp + j) + 1] = kids[q->len - 1 - j];
      }
      mrun(g, sp + q->len, d2);
      if (g->m_full || g->m_err) break;
    }
    if (g->m_full || g->m_err) break;
  }
restore:
  g->goals[2 * sp] = p; g->goals[2 * sp + 1] = c;
}

/* ---- the Python type */

static void rule_free(Rule *r) {
  PyMem_Free(r->p); iv_free(&r->opool); PyMem_Free(r->order);
  for (int32_t i = 0; i < r->nt; i++) { PyMem_Free(r->t[i].types); iv_free(&r->t[i].steps); }
  PyMem_Free(r->t);
  tm_free(&r->fired); tm_free(&r->seen); iv_free(&r->found);
}

static void core_free(Core *g) {
  PyMem_Free(g->keys_block); g->keys_block = NULL; g->keys = NULL; g->nkeys = g->capkeys = 0; g->enodes = 0; iv_free(&g->kidpool); PyMem_Free(g->slots); g->slots = NULL;
  for (int64_t c = 0; c < g->parent.n; c++) { nl_free(&g->cls[c].nodes); iv_free(&g->cls[c].parents); }
  PyMem_Free(g->cls); g->cls = NULL;
  iv_free(&g->parent); iv_free(&g->size); iv_free(&g->ctype); iv_free(&g->pending); iv_free(&g->stale); iv_free(&g->fresh); iv_free(&g->conflicts); iv_free(&g->congruent);
  iv_free(&g->label_const); PyMem_Free(g->ltest); g->ltest = NULL; PyMem_Free(g->ttest); g->ttest = NULL;
  for (int32_t i = 0; i < g->nrules; i++) rule_free(&g->rules[i]);
  PyMem_Free(g->rules); g->rules = NULL; g->nrules = 0;
  iv_free(&g->changed); iv_free(&g->changed_start); iv_free(&g->mark); iv_free(&g->newer); iv_free(&g->newer_ep);
  PyMem_Free(g->bound); g->bound = NULL; PyMem_Free(g->goals); g->goals = NULL;
}

static int Core_traverse(Core *g, visitproc visit, void *arg) { Py_VISIT(g->steps_fn); return 0; }
static int Core_clear(Core *g) { Py_CLEAR(g->steps_fn); return 0; }
static void Core_dealloc(Core *g) {
  PyObject_GC_UnTrack(g);
  Core_clear(g);
  core_free(g);
  Py_TYPE(g)->tp_free((PyObject *)g);
}

static int as_i32(PyObject *o, int32_t *out) {
  long v = PyLong_AsLong(o);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < INT32_MIN || v > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "not a 32-bit int"); return -1; }
  *out = (int32_t)v;
  return 0;
}

/* A tuple of ints into buf (at most n); its length, or -1. */
static int32_t ints_of(PyObject *t, int32_t *buf, int32_t n) {
  PyObject *seq = PySequence_Fast(t, "expected a sequence of ints");
  if (!seq) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  if (len > n) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "too many ints"); return -1; }
  for (Py_ssize_t i = 0; i < len; i++) if (as_i32(PySequence_Fast_GET_ITEM(seq, i), &buf[i]) < 0) { Py_DECREF(seq); return -1; }
  Py_DECREF(seq);
  return (int32_t)len;
}

/* Core(rules, n_label_tests, n_type_tests, steps_fn): rules are (pattern nodes, n names, param order, height); a pattern
 * node is (var, name slot, type test, label test, src_none, orders: tuple of tuples of pattern node numbers). */
static int Core_init(Core *g, PyObject *args, PyObject *kw) {
  PyObject *rules, *steps_fn;
  int nl, nt;
  if (!PyArg_ParseTuple(args, "O!iiO", &PyList_Type, &rules, &nl, &nt, &steps_fn)) return -1;
  core_free(g);
  Py_XSETREF(g->steps_fn, Py_NewRef(steps_fn));
  g->nltests = nl > 0 ? nl : 1; g->nttests = nt > 0 ? nt : 1;
  Py_ssize_t nr = PyList_GET_SIZE(rules);
  g->rules = PyMem_Calloc((size_t)(nr ? nr : 1), sizeof(Rule));
  if (!g->rules) { PyErr_NoMemory(); return -1; }
  int32_t maxnames = 1, maxgoals = 4;
  for (Py_ssize_t i = 0; i < nr; i++) {
    Rule *r = &g->rules[i];
    g->nrules = (int32_t)i + 1;
    PyObject *pats, *order;
    int nn, h;
    if (!PyArg_ParseTuple(PyList_GET_ITEM(rules, i), "O!iO!i", &PyTuple_Type, &pats, &nn, &PyTuple_Type, &order, &h)) return -1;
    r->np = (int32_t)PyTuple_GET_SIZE(pats);
    r->p = PyMem_Calloc((size_t)(r->np ? r->np : 1), sizeof(PNode));
    r->nparams = (int32_t)PyTuple_GET_SIZE(order);
    r->order = PyMem_Calloc((size_t)(r->nparams ? r->nparams : 1), sizeof(int32_t));
    if (!r->p || !r->order) { PyErr_NoMemory(); return -1; }
    r->nnames = nn; r->height = h; r->since = -1;
    r->fired.w = r->seen.w = nn;
    r->seen.clearable = 1;
    if (nn > maxnames) maxnames = nn;
    if (ints_of(order, r->order, r->nparams) < 0) return -1;
    int32_t total = 0;
    for (int32_t j = 0; j < r->np; j++) {
      PNode *q = &r->p[j];
      PyObject *orders;
      int var, name, tt, lt, sn;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(pats, j), "iiiiiO!", &var, &name, &tt, &lt, &sn, &PyTuple_Type, &orders)) return -1;
      if (name >= nn || tt >= g->nttests || lt >= g->nltests || (!var && lt < 0)) { PyErr_SetString(PyExc_ValueError, "bad pattern node"); return -1; }
      *q = (PNode){var, name, tt, lt, sn, (int32_t)PyTuple_GET_SIZE(orders), 0, (int32_t)r->opool.n};
      for (int32_t o = 0; o < q->norders; o++) {
        PyObject *sub = PyTuple_GET_ITEM(orders, o);
        int32_t buf[64];
        int32_t len = ints_of(sub, buf, 64);
        if (len < 0) return -1;
        if (o && len != q->len) { PyErr_SetString(PyExc_ValueError, "orders of different lengths"); return -1; }
        q->len = len;
        for (int32_t x = 0; x < len; x++) if (buf[x] <= j || buf[x] >= r->np) { PyErr_SetString(PyExc_ValueError, "bad child"); return -1; }
        if (iv_extend(&r->opool, buf, len) < 0) return -1;
      }
      total += q->len;
    }
    for (int32_t j = 0; j < r->np; j++) {
      PNode *q = &r->p[j];
      q->leaf = !q->var;
      for (int32_t x = 0; x < q->norders * q->len; x++) q->leaf &= r->p[r->opool.a[q->orders + x]].var;
    }
    if (total + 1 > maxgoals) maxgoals = total + 1;
  }
  g->bound = PyMem_Malloc((size_t)maxnames * sizeof(int32_t));
  g->goals_cap = maxgoals;
  g->goals = PyMem_Malloc((size_t)maxgoals * 2 * sizeof(int32_t));
  if (!g->bound || !g->goals) { PyErr_NoMemory(); return -1; }
  return 0;
}

static int grow_bytes(uint8_t **a, int64_t *cap, int64_t want) {
  if (want <= *cap) return 0;
  int64_t c = *cap ? *cap : 256;
  while (c < want) c *= 2;
  uint8_t *b = PyMem_Realloc(*a, (size_t)c);
  if (!b) { PyErr_NoMemory(); return -1; }
  *a = b; *cap = c;
  return 0;
}

/* label(is_const, tests) -> the next label's number; tests: a byte per label test (1: passes). */
static PyObject *Core_label(Core *g, PyObject *args) {
  int is_const;
  Py_buffer b;
  if (!PyArg_ParseTuple(args, "py*", &is_const, &b)) return NULL;
  int32_t id = g->nlabels;
  if (grow_bytes(&g->ltest, &g->capltest, (int64_t)(id + 1) * g->nltests) < 0 || iv_push(&g->label_const, is_const) < 0) { PyBuffer_Release(&b); return NULL; }
  memset(g->ltest + (int64_t)id * g->nltests, 0, (size_t)g->nltests);
  memcpy(g->ltest + (int64_t)id * g->nltests, b.buf, (size_t)(b.len < g->nltests ? b.len : g->nltests));
  PyBuffer_Release(&b);
  g->nlabels++;
  return PyLong_FromLong(id);
}

static PyObject *Core_type(Core *g, PyObject *args) {
  Py_buffer b;
  if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
  int32_t id = g->ntypes;
  if (grow_bytes(&g->ttest, &g->capttest, (int64_t)(id + 1) * g->nttests) < 0) { PyBuffer_Release(&b); return NULL; }
  memset(g->ttest + (int64_t)id * g->nttests, 0, (size_t)g->nttests);
  memcpy(g->ttest + (int64_t)id * g->nttests, b.buf, (size_t)(b.len < g->nttests ? b.len : g->nttests));
  PyBuffer_Release(&b);
  g->ntypes++;
  return PyLong_FromLong(id);
}

static int check_class(Core *g, int32_t c) {
  if (c < 0 || c >= g->parent.n) { PyErr_SetString(PyExc_IndexError, "no such class"); return -1; }
  return 0;
}

/* add_enode(label, type, kids) -> its class */
static PyObject *Core_add_enode(Core *g, PyObject *args) {
  int label, type;
  PyObject *kt;
  if (!PyArg_ParseTuple(args, "iiO", &label, &type, &kt)) return NULL;
  int32_t kids[64];
  int32_t nk = ints_of(kt, kids, 64);
  if (nk < 0) return NULL;
  if (label < 0 || label >= g->nlabels || type < 0 || type >= g->ntypes) { PyErr_SetString(PyExc_ValueError, "unknown label or type"); return NULL; }
  for (int32_t i = 0; i < nk; i++) if (check_class(g, kids[i]) < 0) return NULL;
  int32_t c = add_enode(g, label, nk, kids, type);
  return c < 0 ? NULL : PyLong_FromLong(c);
}

static PyObject *Core_rebuild(Core *g, PyObject *unused) { if (rebuild(g) < 0) return NULL; Py_RETURN_NONE; }

static PyObject *Core_take(Core *g, PyObject *arg) {
  int32_t it;
  if (as_i32(arg, &it) < 0) return NULL;
  if (it != g->changed_start.n) { PyErr_SetString(PyExc_ValueError, "take(it): iterations 0, 1, 2, ... in turn"); return NULL; }
  if (take(g, it) < 0) return NULL;
  Py_RETURN_NONE;
}

/* match(it, runnable) -> per rule the number of new matches found (-1: not run). */
static PyObject *Core_match(Core *g, PyObject *args) {
  int it;
  PyObject *runnable;
  if (!PyArg_ParseTuple(args, "iO!", &it, &PyList_Type, &runnable)) return NULL;
  if (PyList_GET_SIZE(runnable) != g->nrules || it + 1 != g->changed_start.n) { PyErr_SetString(PyExc_ValueError, "one flag per rule, after take"); return NULL; }
  PyObject *out = PyList_New(g->nrules);
  if (!out) return NULL;
  IVec *cache = PyMem_Calloc((size_t)(g->nrules ? g->nrules : 1), sizeof(IVec));
  int32_t *ck = PyMem_Malloc((size_t)(g->nrules ? g->nrules : 1) * 2 * sizeof(int32_t));
  int32_t ncache = 0;
  int first = 1;
  if (!cache || !ck) { PyErr_NoMemory(); goto fail; }
  for (int32_t i = 0; i < g->nrules; i++) {
    Rule *r = &g->rules[i];
    int run = PyObject_IsTrue(PyList_GET_ITEM(runnable, i));
    if (run < 0) goto fail;
    r->found.n = 0;
    if (!run) { PyList_SET_ITEM(out, i, PyLong_FromLong(-1)); continue; }
    IVec *cands = NULL;   /* the roots, shared by the rules of one since and height */
    for (int32_t j = 0; j < ncache; j++) if (ck[2 * j] == r->since && ck[2 * j + 1] == r->height) cands = &cache[j];
    if (!cands) {
      cands = &cache[ncache];
      ck[2 * ncache] = r->since; ck[2 * ncache + 1] = r->height; ncache++;
      if (roots(g, r->since, r->height, it, cands) < 0) goto fail;
    }
    int64_t count = 0;
    g->m_rule = r; g->m_since = r->since; g->m_distinct = distinct_matches(g, r);
    if (iv_reserve(&g->newer, g->parent.n) < 0 || iv_reserve(&g->newer_ep, g->parent.n) < 0) goto fail;
    for (int64_t j = g->newer_ep.n; j < g->parent.n; j++) g->newer_ep.a[j] = 0;
    g->newer.n = g->newer_ep.n = g->parent.n;
    if (first || r->since != g->newer_since) { g->newer_epoch++; g->newer_since = r->since; first = 0; }   /* take() restamped */
    for (int64_t ci = 0; ci < cands->n; ci++) {
      int32_t c = cands->a[ci];
      tm_clear(&r->seen);
      for (int32_t j = 0; j < r->nnames; j++) g->bound[j] = -1;
      g->goals[0] = 0; g->goals[1] = c;
      g->m_full = g->m_err = 0;
      mrun(g, 1, 0);
      if (g->m_err) goto fail;
      if (r->fired.cap) for (int64_t e = 0; e < r->seen.n; e++)   /* fired is large: its slots fetched at once, not one miss at a time */
        __builtin_prefetch(&r->fired.slots[tm_hash(&r->fired, r->seen.data.a + e * r->nnames) & (uint64_t)(r->fired.cap - 1)]);
      for (int64_t e = 0; e < r->seen.n; e++) {   /* fired: an entry made now holds -1 (not applied) until apply sets it */
        const int32_t *ids = r->seen.data.a + e * r->nnames;
        int added;
        int64_t f = tm_put(&r->fired, ids, -1, 0, &added);
        if (f < 0) goto fail;
        if (r->fired.vals.a[f] >= 0 && find(g, r->fired.vals.a[f]) == c) continue;
        if (iv_push(&r->found, c) < 0 || iv_push(&r->found, (int32_t)f) < 0 || iv_extend(&r->found, ids, r->nnames) < 0) goto fail;
        count++;
      }
      if ((g->work += 64) >= SIGNAL_EVERY) { g->work = 0; if (PyErr_CheckSignals() < 0) goto fail; }
    }
    PyList_SET_ITEM(out, i, PyLong_FromLongLong(count));
  }
  for (int32_t j = 0; j < ncache; j++) iv_free(&cache[j]);
  PyMem_Free(cache); PyMem_Free(ck);
  return out;
fail:
  if (cache) for (int32_t j = 0; j < ncache; j++) iv_free(&cache[j]);
  PyMem_Free(cache); PyMem_Free(ck);
  Py_DECREF(out);
  return NULL;
}

/* The template entry of rule r for the argument types `types` (asked of Python on first use); NULL on error. */
static TEntry *template_of(Core *g, int32_t ri, const int32_t *types) {
  Rule *r = &g->rules[ri];
  for (int32_t i = 0; i < r->nt; i++) if (same_ints(r->t[i].types, types, r->nparams)) return &r->t[i];
  PyObject *tt = PyTuple_New(r->nparams);
  if (!tt) return NULL;
  for (int32_t j = 0; j < r->nparams; j++) PyTuple_SET_ITEM(tt, j, PyLong_FromLong(types[j]));
  PyObject *res = PyObject_CallFunction(g->steps_fn, "iO", ri, tt);
  Py_DECREF(tt);
  if (!res) return NULL;
  TEntry e = {0};
  e.types = PyMem_Malloc((size_t)(r->nparams ? r->nparams : 1) * sizeof(int32_t));
  if (!e.types) { Py_DECREF(res); PyErr_NoMemory(); return NULL; }
  memcpy(e.types, types, (size_t)r->nparams * sizeof(int32_t));
  if (res != Py_None) {   /* (result, result type, steps: (label, type, refs)) */
    PyObject *steps;
    int result, rtype;
    if (!PyArg_ParseTuple(res, "iiO!", &result, &rtype, &PyList_Type, &steps)) goto bad;
    e.ok = 1; e.result = result; e.rtype = rtype; e.nsteps = (int32_t)PyList_GET_SIZE(steps);
    for (int32_t s = 0; s < e.nsteps; s++) {
      int label, type;
      PyObject *refs;
      if (!PyArg_ParseTuple(PyList_GET_ITEM(steps, s), "iiO", &label, &type, &refs)) goto bad;
      int32_t buf[64];
      int32_t nk = ints_of(refs, buf, 64);
      if (nk < 0) goto bad;
      if (label < 0 || label >= g->nlabels || type < 0 || type >= g->ntypes) { PyErr_SetString(PyExc_ValueError, "unknown label or type"); goto bad; }
      for (int32_t x = 0; x < nk; x++) if (buf[x] >= s || buf[x] < -r->nparams) { PyErr_SetString(PyExc_ValueError, "bad step"); goto bad; }
      if (iv_push(&e.steps, label) < 0 || iv_push(&e.steps, type) < 0 || iv_push(&e.steps, nk) < 0 || iv_extend(&e.steps, buf, nk) < 0) goto bad;
    }
    if (result != NO_RESULT && (result >= e.nsteps || result < -r->nparams)) { PyErr_SetString(PyExc_ValueError, "bad result"); goto bad; }
  }
  Py_DECREF(res);
  TEntry *t = PyMem_Realloc(r->t, (size_t)(r->nt + 1) * sizeof(TEntry));
  if (!t) { PyMem_Free(e.types); iv_free(&e.steps); PyErr_NoMemory(); return NULL; }
  r->t = t;
  r->t[r->nt] = e;
  return &r->t[r->nt++];
bad:
  Py_DECREF(res);
  PyMem_Free(e.types); iv_free(&e.steps);
  return NULL;
}

/* What applying a match a few ahead reads, fetched now: its entry in fired, its classes, and (when the last match's
 * template would make it with the same types) the intern table's slot of its first step. A hint: no effect but time. */
static void prefetch_match(Core *g, const Rule *r, const int32_t *m, const TEntry *t) {
  __builtin_prefetch(&r->fired.vals.a[m[1]]);
  for (int32_t j = 0; j < r->nnames; j++) __builtin_prefetch(&g->ctype.a[m[2 + j]]);
  if (!t || !t->ok || !t->nsteps || !g->capslots) return;
  const int32_t *s = t->steps.a;
  int32_t nk = s[2], kids[64];
  for (int32_t x = 0; x < nk; x++) {
    if (s[3 + x] >= 0) return;   /* a child made by an earlier step */
    kids[x] = m[2 + r->order[-1 - s[3 + x]]];
  }
  __builtin_prefetch(&g->slots[key_hash(s[0], nk, kids) & (uint64_t)(g->capslots - 1)]);
}

/* apply(it, admitted, max_enodes, deadline, clock) -> (stop: 0 none, 1 enodes, 2 timeout; changed, matches, applied, rejected) */
static PyObject *Core_apply(Core *g, PyObject *args) {
  int it;
  long long max_enodes;
  PyObject *admitted, *deadline, *clock;
  if (!PyArg_ParseTuple(args, "iO!LOO", &it, &PyList_Type, &admitted, &max_enodes, &deadline, &clock)) return NULL;
  if (PyList_GET_SIZE(admitted) != g->nrules) { PyErr_SetString(PyExc_ValueError, "one flag per rule"); return NULL; }
  double until = 0;
  int timed = deadline != Py_None;
  if (timed && (until = PyFloat_AsDouble(deadline)) == -1.0 && PyErr_Occurred()) return NULL;
  int stop = 0, changed = 0;
  long long matches = 0, applied = 0, rejected = 0, n_done = 0;
  int32_t types[64], ids[64], outbuf[256], *out = outbuf;
  int32_t outcap = 256;
  for (int32_t i = 0; i < g->nrules && !stop; i++) {
    int ad = PyObject_IsTrue(PyList_GET_ITEM(admitted, i));
    if (ad < 0) goto fail;
    if (!ad) continue;
    Rule *r = &g->rules[i];
    r->since = it;
    int32_t w = 2 + r->nnames;   /* per match: root, fired entry, ids */
    if (r->nparams > 64) { PyErr_SetString(PyExc_ValueError, "too many parameters"); goto fail; }
    TEntry *last = NULL;
    for (int64_t f = 0; f < r->found.n; f += w, n_done++) {
      if (g->memo_len > max_enodes) { stop = 1; break; }
      if (f + APPLY_AHEAD * w < r->found.n) prefetch_match(g, r, r->found.a + f + APPLY_AHEAD * w, last);
      if (timed && n_done % 64 == 0) {
        PyObject *now = PyObject_CallNoArgs(clock);
        if (!now) goto fail;
        double t = PyFloat_AsDouble(now);
        Py_DECREF(now);
        if (t == -1.0 && PyErr_Occurred()) goto fail;
        if (t > until) { stop = 2; break; }
      }
      if (n_done % SIGNAL_EVERY == SIGNAL_EVERY - 1 && PyErr_CheckSignals() < 0) goto fail;
      int32_t c = r->found.a[f];
      const int32_t *key = r->found.a + f + 2;
      r->fired.vals.a[r->found.a[f + 1]] = c;
      matches++;
      int64_t before = g->parent.n;
      for (int32_t j = 0; j < r->nparams; j++) { ids[j] = key[r->order[j]]; types[j] = g->ctype.a[find(g, ids[j])]; }   /* find: its paths halve as the Python loop's */
      TEntry *t = template_of(g, i, types);
      if (!t) goto fail;
      last = t;
      if (!t->ok) { rejected++; continue; }
      if (t->result == NO_RESULT) continue;
      if (t->rtype != g->ctype.a[find(g, c)]) { rejected++; continue; }
      if (t->nsteps > outcap) {
        int32_t *o = PyMem_Realloc(out == outbuf ? NULL : out, (size_t)t->nsteps * sizeof(int32_t));
        if (!o) { PyErr_NoMemory(); goto fail; }
        out = o; outcap = t->nsteps;
      }
      const int32_t *s = t->steps.a;
      for (int32_t j = 0; j < t->nsteps; j++) {
        int32_t label = s[0], type = s[1], nk = s[2], kids[64];
        for (int32_t x = 0; x < nk; x++) kids[x] = s[3 + x] >= 0 ? out[s[3 + x]] : ids[-1 - s[3 + x]];
        if ((out[j] = add_enode(g, label, nk, kids, type)) < 0) goto fail;
        s += 3 + nk;
      }
      int32_t made = t->result >= 0 ? out[t->result] : find(g, ids[-1 - t->result]);
      int u = union_(g, c, made);
      if (u < 0) goto fail;
      if (u || g->parent.n != before) { changed = 1; applied++; r->applied++; }
    }
  }
  if (out != outbuf) PyMem_Free(out);
  return Py_BuildValue("iiLLL", stop, changed, matches, applied, rejected);
fail:
  if (out != outbuf) PyMem_Free(out);
  return NULL;
}

/* Bit sets of extract_all's sharing mode (its _Bits): a bit per distinct node, in the order they were first seen. */
typedef struct { uint64_t *w; int64_t n; } Bits;

static int bits_set(Bits *b, int64_t i) {
  int64_t need = i / 64 + 1;
  if (b->n < need) {
    uint64_t *w = PyMem_Realloc(b->w, (size_t)need * sizeof(uint64_t));
    if (!w) { PyErr_NoMemory(); return -1; }
    memset(w + b->n, 0, (size_t)(need - b->n) * sizeof(uint64_t));
    b->w = w; b->n = need;
  }
  b->w[i / 64] |= 1ULL << (i % 64);
  return 0;
}

static int64_t bits_count(const Bits *a, const Bits *mask) {
  int64_t c = 0, n = mask && mask->n < a->n ? mask->n : a->n;
  for (int64_t j = 0; j < n; j++) c += __builtin_popcountll(mask ? a->w[j] & mask->w[j] : a->w[j]);
  return c;
}

/* _Bits.weight(bits): w * count with one weight, else sum(w * count of its nodes) in the order the weights were seen. */
static PyObject *bits_weight(const Bits *nodes, PyObject *wlist, const Bits *masks, PyObject *sum) {
  Py_ssize_t nw = PyList_GET_SIZE(wlist);
  if (nw == 1) {
    PyObject *cnt = PyLong_FromLongLong(bits_count(nodes, NULL));
    PyObject *v = cnt ? PyNumber_Multiply(PyList_GET_ITEM(wlist, 0), cnt) : NULL;
    Py_XDECREF(cnt);
    return v;
  }
  PyObject *terms = PyList_New(nw);
  if (!terms) return NULL;
  for (Py_ssize_t p = 0; p < nw; p++) {
    PyObject *cnt = PyLong_FromLongLong(bits_count(nodes, &masks[p]));
    PyObject *t = cnt ? PyNumber_Multiply(PyList_GET_ITEM(wlist, p), cnt) : NULL;
    Py_XDECREF(cnt);
    if (!t) { Py_DECREF(terms); return NULL; }
    PyList_SET_ITEM(terms, p, t);
  }
  PyObject *v = PyObject_CallOneArg(sum, terms);
  Py_DECREF(terms);
  return v;
}

/* extract()'s worklist: what it is given, and each class's best so far */
typedef struct {
  Core *g;
  PyObject *labels, *make, *uerr, *weights, *fn, *weight_of, *sum;   /* sum: borrowed, the builtin */
  int sharing;        /* weight_of given: a DAG cost with sharing */
  int64_t nc;
  PyObject **graph, **value;   /* each class's best graph and its cost (new references) */
  int64_t *changed;   /* the tick a class's best last changed */
  int64_t **seen;     /* per class, per e-node: the tick it was last looked at (-1 never) */
  uint8_t *queued;
  IVec queue; int64_t head, tick;
  /* sharing: each distinct node's bit (index: node -> bit), the bits of each weight (masks, in the order the weights
     were seen: wpos weight -> position, wlist), each class's best's nodes, and the candidate's */
  Bits *best_bits, *masks, cand; int64_t nbits, nmasks;
  PyObject *index, *wpos, *wlist;
} Extract;

static void extract_free(Extract *e) {
  for (int64_t c = 0; c < e->nc; c++) {
    if (e->graph) Py_XDECREF(e->graph[c]);
    if (e->value) Py_XDECREF(e->value[c]);
    if (e->seen) PyMem_Free(e->seen[c]);
    if (e->best_bits) PyMem_Free(e->best_bits[c].w);
  }
  for (int64_t p = 0; p < e->nmasks; p++) PyMem_Free(e->masks[p].w);
  PyMem_Free(e->masks); PyMem_Free(e->cand.w); PyMem_Free(e->best_bits);
  PyMem_Free(e->graph); PyMem_Free(e->value); PyMem_Free(e->changed); PyMem_Free(e->seen); PyMem_Free(e->queued); iv_free(&e->queue);
  Py_XDECREF(e->index); Py_XDECREF(e->wpos); Py_XDECREF(e->wlist);
}

/* An extraction's start, for either extractor: every live class queued, each of its e-nodes not seen yet (-1) */
static int queue_every_class(Core *g, int64_t nc, IVec *queue, uint8_t *queued, int64_t **seen) {
  for (int64_t c = 0; c < nc; c++) if (g->cls[c].alive) {
    if (iv_push(queue, (int32_t)c) < 0) return -1;
    queued[c] = 1;
    int64_t n = g->cls[c].nodes.n;
    if (!(seen[c] = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t)))) { PyErr_NoMemory(); return -1; }
    for (int64_t j = 0; j < n; j++) seen[c][j] = -1;
  }
  return 0;
}

/* the arrays, and every live class queued with none of its e-nodes seen */
static int extract_init(Extract *e) {
  Core *g = e->g;
  size_t nc = (size_t)(e->nc ? e->nc : 1);
  e->graph = PyMem_Calloc(nc, sizeof(PyObject *)); e->value = PyMem_Calloc(nc, sizeof(PyObject *));
  e->changed = PyMem_Calloc(nc, sizeof(int64_t)); e->seen = PyMem_Calloc(nc, sizeof(int64_t *)); e->queued = PyMem_Calloc(nc, 1);
  if (e->sharing) {
    e->best_bits = PyMem_Calloc(nc, sizeof(Bits));
    e->index = PyDict_New(); e->wpos = PyDict_New(); e->wlist = PyList_New(0);
  }
  e->sum = PyDict_GetItemString(PyEval_GetBuiltins(), "sum");
  if (!e->graph || !e->value || !e->changed || !e->seen || !e->queued || !e->sum || (e->sharing && (!e->best_bits || !e->index || !e->wpos || !e->wlist))) {
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
  }
  return queue_every_class(g, e->nc, &e->queue, e->queued, e->seen);
}

/* e-node n's graph from its children's bests (*u): 1 made, 0 not well-formed on these graphs (make raised uerr), -1 error */
static int enode_graph(Extract *e, int32_t n, PyObject **u) {
  Core *g = e->g;
  int32_t nk = g->keys[n].nk, label = g->keys[n].label;
  const int32_t *kids = kids_of(g, n);
  PyObject *lab = PyList_GET_ITEM(e->labels, label);
  if (g->label_const.a[label]) { *u = Py_NewRef(PyTuple_GET_ITEM(lab, 2)); return 1; }
  PyObject *src = PyTuple_New(nk);
  if (!src) return -1;
  for (int32_t x = 0; x < nk; x++) PyTuple_SET_ITEM(src, x, Py_NewRef(e->graph[find(g, kids[x])]));
  *u = PyObject_CallFunctionObjArgs(e->make, PyTuple_GET_ITEM(lab, 0), src, PyTuple_GET_ITEM(lab, 2), PyTuple_GET_ITEM(lab, 1), NULL);
  Py_DECREF(src);
  if (*u) return 1;
  if (!PyErr_ExceptionMatches(e->uerr)) return -1;
  PyErr_Clear();
  return 0;
}

/* the position of weight w among the weights seen (a new one gets the next, with an empty mask); -1 on error */
static int64_t weight_position(Extract *e, PyObject *w) {
  PyObject *pos = PyDict_GetItemWithError(e->wpos, w);
  if (pos) return PyLong_AsLongLong(pos);
  if (PyErr_Occurred()) return -1;
  int64_t p = e->nmasks;
  PyObject *pv = PyLong_FromLongLong(p);
  Bits *m = PyMem_Realloc(e->masks, (size_t)(e->nmasks + 1) * sizeof(Bits));
  int bad = !pv || !m || PyDict_SetItem(e->wpos, w, pv) < 0 || PyList_Append(e->wlist, w) < 0;
  Py_XDECREF(pv);
  if (m) { e->masks = m; e->masks[e->nmasks++] = (Bits){0}; }
  else if (!PyErr_Occurred()) PyErr_NoMemory();
  return bad ? -1 : p;
}

/* node u's bit (_Bits.bit(u)): a new node gets the next, set in its weight's mask; -1 on error */
static int64_t node_bit(Extract *e, PyObject *u, PyObject *op) {
  PyObject *bi = PyDict_GetItemWithError(e->index, u);
  if (bi) return PyLong_AsLongLong(bi);
  if (PyErr_Occurred()) return -1;
  int64_t i = e->nbits++;
  PyObject *iv = PyLong_FromLongLong(i), *w = PyObject_CallOneArg(e->weight_of, op);
  int bad = !iv || !w || PyDict_SetItem(e->index, u, iv) < 0;
  Py_XDECREF(iv);
  int64_t p = bad ? -1 : weight_position(e, w);
  Py_XDECREF(w);
  if (p < 0 || bits_set(&e->masks[p], i) < 0) return -1;
  return i;
}

/* nodes = bits.bit(u) | the children's nodes (in cand); value = bits.weight(nodes) */
static PyObject *sharing_value(Extract *e, PyObject *u, int32_t n) {
  Core *g = e->g;
  int32_t nk = g->keys[n].nk;
  const int32_t *kids = kids_of(g, n);
  int64_t i = node_bit(e, u, PyTuple_GET_ITEM(PyList_GET_ITEM(e->labels, g->keys[n].label), 0));
  if (i < 0) return NULL;
  int64_t words = (e->nbits + 63) / 64;
  if (e->cand.n < words) {
    uint64_t *w = PyMem_Realloc(e->cand.w, (size_t)words * sizeof(uint64_t));
    if (!w) return PyErr_NoMemory();
    e->cand.w = w;
  }
  e->cand.n = words;
  memset(e->cand.w, 0, (size_t)words * sizeof(uint64_t));
  e->cand.w[i / 64] |= 1ULL << (i % 64);
  for (int32_t x = 0; x < nk; x++) {
    const Bits *kb = &e->best_bits[find(g, kids[x])];
    for (int64_t q = 0; q < kb->n; q++) e->cand.w[q] |= kb->w[q];
  }
  return bits_weight(&e->cand, e->wlist, e->masks, e->sum);
}

/* the children's best costs, as a list */
static PyObject *kid_costs(Extract *e, int32_t n) {
  int32_t nk = e->g->keys[n].nk;
  const int32_t *kids = kids_of(e->g, n);
  PyObject *costs = PyList_New(nk);
  if (!costs) return NULL;
  for (int32_t x = 0; x < nk; x++) PyList_SET_ITEM(costs, x, Py_NewRef(e->value[find(e->g, kids[x])]));
  return costs;
}

/* e-node n's cost with graph u, in extract's way */
static PyObject *enode_value(Extract *e, int32_t n, PyObject *u) {
  if (e->sharing) return sharing_value(e, u, n);
  PyObject *costs = kid_costs(e, n), *v;
  if (!costs) return NULL;
  if (e->weights != Py_None) {   /* weight(u.op) + sum(k.cost for k in kids) */
    PyObject *total = PyObject_CallOneArg(e->sum, costs);
    v = total ? PyNumber_Add(PyList_GET_ITEM(e->weights, e->g->keys[n].label), total) : NULL;
    Py_XDECREF(total);
  } else v = PyObject_CallFunctionObjArgs(e->fn, u, costs, NULL);
  Py_DECREF(costs);
  return v;
}

/* dst = src (a class's best's nodes kept as its candidate's): 0, or -1 out of memory */
static int copy_bits(Bits *dst, const Bits *src) {
  if (dst->n < src->n) {
    uint64_t *w = PyMem_Realloc(dst->w, (size_t)src->n * sizeof(uint64_t));
    if (!w) { PyErr_NoMemory(); return -1; }
    dst->w = w;
  }
  dst->n = src->n;
  memcpy(dst->w, src->w, (size_t)src->n * sizeof(uint64_t));
  return 0;
}

/* u at cost v for class c (both references taken): kept if cheaper than its best. 1 kept, 0 not, -1 error */
static int offer(Extract *e, int32_t c, PyObject *u, PyObject *v) {
  int better = 1;
  if (e->value[c] && (better = PyObject_RichCompareBool(v, e->value[c], Py_LT)) <= 0) { Py_DECREF(u); Py_DECREF(v); return better; }
  Py_XSETREF(e->graph[c], u); Py_XSETREF(e->value[c], v);
  e->changed[c] = ++e->tick;
  if (!e->sharing) return 1;
  return copy_bits(&e->best_bits[c], &e->cand) < 0 ? -1 : 1;
}

/* class c's e-node j looked at again where a child's best changed since: 1 it became the best, 0 not, -1 error */
static int visit_enode(Extract *e, int32_t c, int64_t j) {
  Core *g = e->g;
  int32_t n = nl_keys(&g->cls[c].nodes)[j], nk = g->keys[n].nk;
  const int32_t *kids = kids_of(g, n);
  int stale = e->seen[c][j] < 0;
  for (int32_t x = 0; x < nk; x++) {
    int32_t k = find(g, kids[x]);
    if (!e->graph[k]) return 0;   /* a child has no graph yet */
    stale |= e->changed[k] > e->seen[c][j];
  }
  if (!stale) return 0;   /* nothing it reads changed */
  e->seen[c][j] = e->tick;
  PyObject *u;
  int made = enode_graph(e, n, &u);
  if (made <= 0) return made;
  PyObject *v = enode_value(e, n, u);
  if (!v) { Py_DECREF(u); return -1; }
  return offer(e, c, u, v);
}

/* One step of an extraction's worklist, for either extractor: the next queued class's e-nodes looked at (`visit`, 1
 * where the class's best improved), its parents queued if its best changed */
typedef int (*VisitEnode)(void *extractor, int32_t c, int64_t j);

static int visit_next_class(Core *g, IVec *queue, int64_t *head, uint8_t *queued, VisitEnode visit, void *extractor) {
  int32_t c = queue->a[(*head)++];
  if (*head > 4096 && *head * 2 > queue->n) {
    memmove(queue->a, queue->a + *head, (size_t)(queue->n - *head) * sizeof(int32_t));
    queue->n -= *head; *head = 0;
  }
  queued[c] = 0;
  int improved = 0;
  for (int64_t j = 0; j < g->cls[c].nodes.n; j++) {
    int r = visit(extractor, c, j);
    if (r < 0) return -1;
    improved |= r;
  }
  if (improved) {
    IVec *ps = &g->cls[c].parents;
    for (int64_t j = 1; j < ps->n; j += 2) {
      int32_t pc = find(g, ps->a[j]);
      if (!queued[pc]) { queued[pc] = 1; if (iv_push(queue, pc) < 0) return -1; }
    }
  }
  if ((g->work += g->cls[c].nodes.n + 1) >= SIGNAL_EVERY) { g->work = 0; if (PyErr_CheckSignals() < 0) return -1; }
  return 0;
}

static int visit_enode_of(void *e, int32_t c, int64_t j) { return visit_enode((Extract *)e, c, j); }

static int visit_class(Extract *e) { return visit_next_class(e->g, &e->queue, &e->head, e->queued, visit_enode_of, e); }

/* {class: (graph, cost)} for each class with a graph */
static PyObject *extract_result(Extract *e) {
  PyObject *res = PyDict_New();
  if (!res) return NULL;
  for (int64_t c = 0; c < e->nc; c++) if (e->graph[c]) {
    PyObject *k = PyLong_FromLongLong(c), *item = PyTuple_Pack(2, e->graph[c], e->value[c]);
    int bad = !k || !item || PyDict_SetItem(res, k, item) < 0;
    Py_XDECREF(k); Py_XDECREF(item);
    if (bad) { Py_DECREF(res); return NULL; }
  }
  return res;
}

/* extract(labels, make_uop, uop_error, weights, fn, weight_of) -> {class: (graph, cost)}: extract.extract_all's worklist
 * on the core's classes, in one of its three ways: weight_of (Cost.weight) given, a DAG cost with sharing (bit sets of
 * distinct nodes, as its _Bits); weights (a list: each label's weight), a DAG cost summed as a tree, weight + sum(kids);
 * else fn(node, kids' costs) (Cost.node). Python's sum() adds, as there. A class's e-node is looked at again only when one
 * of its children's best changed since it was last: with the same children's graphs it makes the same graph, nodes and
 * cost, which did not beat the class's best then and cannot beat it now (bests only get cheaper). */
static PyObject *Core_extract(Core *g, PyObject *args) {
  Extract e = {.g = g, .tick = 1};
  if (!PyArg_ParseTuple(args, "O!OOOOO", &PyList_Type, &e.labels, &e.make, &e.uerr, &e.weights, &e.fn, &e.weight_of)) return NULL;
  if (PyList_GET_SIZE(e.labels) < g->nlabels || (e.weights != Py_None && (!PyList_Check(e.weights) || PyList_GET_SIZE(e.weights) < g->nlabels))) {
    PyErr_SetString(PyExc_ValueError, "a (op, dtype, arg) and a weight per label");
    return NULL;
  }
  e.sharing = e.weight_of != Py_None;
  e.nc = g->parent.n;
  int ok = extract_init(&e) == 0;
  while (ok && e.head < e.queue.n) ok = visit_class(&e) == 0;
  PyObject *res = ok ? extract_result(&e) : NULL;
  extract_free(&e);
  return res;
}

/* ---- extraction for the built-in costs (a weight per label, Cost.weights and Cost.tree): Core_extract's worklist, step
 * for step, on numbers. A candidate graph is a *graph node*: (label, its children's graph nodes), interned, so that the
 * same graph is the same number, as the same UOp is the same object (hash consing); with sharing, a graph node's number
 * is its bit. Costs are int64 sums of int weights, exact as Python's ints are until they would overflow, which is
 * reported (the caller then runs Core_extract). The UOp is made only for the root's best graph. No UOpError can
 * happen on the way where Core_extract catches one: that needs a CALL, which never runs in the core. */
typedef struct {
  Core *g;
  const int64_t *w;      /* each label's weight */
  int sharing, overflow;
  int64_t nc;
  int32_t *best;         /* each class's best graph node, -1 none */
  int64_t *value, *changed, **seen;
  uint8_t *queued;
  IVec queue; int64_t head, tick;
  IVec gn_label, gn_nk, gn_off, gn_pool;   /* graph nodes */
  uint64_t *gslots; int64_t gcap;
  Bits *best_bits, cand, *masks; int64_t *mweight; int64_t nmasks;   /* sharing: the bits of each distinct weight */
} NExtract;

static void nextract_free(NExtract *e) {
  for (int64_t c = 0; c < e->nc; c++) {
    if (e->seen) PyMem_Free(e->seen[c]);
    if (e->best_bits) PyMem_Free(e->best_bits[c].w);
  }
  for (int64_t p = 0; p < e->nmasks; p++) PyMem_Free(e->masks[p].w);
  PyMem_Free(e->masks); PyMem_Free(e->mweight); PyMem_Free(e->cand.w); PyMem_Free(e->best_bits);
  PyMem_Free(e->best); PyMem_Free(e->value); PyMem_Free(e->changed); PyMem_Free(e->seen); PyMem_Free(e->queued);
  iv_free(&e->queue); iv_free(&e->gn_label); iv_free(&e->gn_nk); iv_free(&e->gn_off); iv_free(&e->gn_pool); PyMem_Free(e->gslots);
}

static int nextract_init(NExtract *e) {
  Core *g = e->g;
  size_t nc = (size_t)(e->nc ? e->nc : 1);
  e->best = PyMem_Malloc(nc * sizeof(int32_t)); e->value = PyMem_Calloc(nc, sizeof(int64_t));
  e->changed = PyMem_Calloc(nc, sizeof(int64_t)); e->seen = PyMem_Calloc(nc, sizeof(int64_t *)); e->queued = PyMem_Calloc(nc, 1);
  if (e->sharing) e->best_bits = PyMem_Calloc(nc, sizeof(Bits));
  if (!e->best || !e->value || !e->changed || !e->seen || !e->queued || (e->sharing && !e->best_bits)) { PyErr_NoMemory(); return -1; }
  for (int64_t c = 0; c < e->nc; c++) e->best[c] = -1;
  return queue_every_class(g, e->nc, &e->queue, e->queued, e->seen);
}

static void gn_place(NExtract *e, int32_t i, uint32_t h) {
  int64_t mask = e->gcap - 1, j = (int64_t)(h & (uint64_t)mask);
  while (e->gslots[j]) j = (j + 1) & mask;
  e->gslots[j] = (uint64_t)h << 32 | (uint64_t)(i + 1);
}

/* the graph node (label, kids), made if new (*fresh says so); -1 on error */
static int32_t gn_intern(NExtract *e, int32_t label, int32_t nk, const int32_t *kids, int *fresh) {
  if ((e->gn_label.n + 1) * 2 > e->gcap) {
    int64_t cap = e->gcap ? e->gcap * 2 : 1024;
    uint64_t *s = PyMem_Calloc((size_t)cap, sizeof(uint64_t));
    if (!s) { PyErr_NoMemory(); return -1; }
    PyMem_Free(e->gslots);
    e->gslots = s; e->gcap = cap;
    for (int64_t i = 0; i < e->gn_label.n; i++)
      gn_place(e, (int32_t)i, key_hash(e->gn_label.a[i], e->gn_nk.a[i], e->gn_pool.a + e->gn_off.a[i]));
  }
  uint32_t h = key_hash(label, nk, kids);
  int64_t mask = e->gcap - 1, j = (int64_t)(h & (uint64_t)mask);
  for (uint64_t sl; (sl = e->gslots[j]); j = (j + 1) & mask) {
    if ((uint32_t)(sl >> 32) != h) continue;
    int32_t i = (int32_t)((uint32_t)sl - 1);
    if (e->gn_label.a[i] == label && e->gn_nk.a[i] == nk && same_ints(e->gn_pool.a + e->gn_off.a[i], kids, nk)) { *fresh = 0; return i; }
  }
  int32_t i = (int32_t)e->gn_label.n;
  if (iv_push(&e->gn_label, label) < 0 || iv_push(&e->gn_nk, nk) < 0 || iv_push(&e->gn_off, (int32_t)e->gn_pool.n) < 0 ||
      iv_extend(&e->gn_pool, kids, nk) < 0) return -1;
  e->gslots[j] = (uint64_t)h << 32 | (uint64_t)(i + 1);
  *fresh = 1;
  return i;
}

/* sharing: graph node i's bit set in its weight's mask (_Bits.bit); -1 on error */
static int gn_bit(NExtract *e, int32_t i, int64_t w) {
  int64_t p = 0;
  while (p < e->nmasks && e->mweight[p] != w) p++;
  if (p == e->nmasks) {
    Bits *m = PyMem_Realloc(e->masks, (size_t)(p + 1) * sizeof(Bits));
    if (m) e->masks = m;
    int64_t *mw = m ? PyMem_Realloc(e->mweight, (size_t)(p + 1) * sizeof(int64_t)) : NULL;
    if (!mw) { PyErr_NoMemory(); return -1; }
    e->mweight = mw; e->masks[p] = (Bits){0}; e->mweight[p] = w; e->nmasks++;
  }
  return bits_set(&e->masks[p], i);
}

/* sharing: the candidate's nodes (bit gn and its children's bests' nodes, in cand) and their weight in *v; -1 on error */
static int gn_sharing_value(NExtract *e, int32_t gn, int32_t nk, const int32_t *kids, int64_t *v) {
  Core *g = e->g;
  int64_t words = (e->gn_label.n + 63) / 64;
  if (e->cand.n < words) {
    uint64_t *w = PyMem_Realloc(e->cand.w, (size_t)words * sizeof(uint64_t));
    if (!w) { PyErr_NoMemory(); return -1; }
    e->cand.w = w;
  }
  e->cand.n = words;
  memset(e->cand.w, 0, (size_t)words * sizeof(uint64_t));
  e->cand.w[gn / 64] |= 1ULL << (gn % 64);
  for (int32_t x = 0; x < nk; x++) {
    const Bits *kb = &e->best_bits[find(g, kids[x])];
    for (int64_t q = 0; q < kb->n; q++) e->cand.w[q] |= kb->w[q];
  }
  int64_t total = 0;
  for (int64_t p = 0; p < e->nmasks; p++) {
    int64_t t;
    if (__builtin_mul_overflow(e->mweight[p], bits_count(&e->cand, &e->masks[p]), &t) || __builtin_add_overflow(total, t, &total)) {
      e->overflow = 1; return -1;
    }
  }
  *v = total;
  return 0;
}

/* Core_extract's visit_enode and offer, on numbers: 1 it became its class's best, 0 not, -1 error or overflow */
static int nvisit_enode(NExtract *e, int32_t c, int64_t j) {
  Core *g = e->g;
  int32_t n = nl_keys(&g->cls[c].nodes)[j], nk = g->keys[n].nk, label = g->keys[n].label;
  const int32_t *kids = kids_of(g, n);
  int stale = e->seen[c][j] < 0;
  for (int32_t x = 0; x < nk; x++) {
    int32_t k = find(g, kids[x]);
    if (e->best[k] < 0) return 0;
    stale |= e->changed[k] > e->seen[c][j];
  }
  if (!stale) return 0;
  e->seen[c][j] = e->tick;
  int32_t buf[16], *gk = nk <= 16 ? buf : PyMem_Malloc((size_t)nk * sizeof(int32_t));
  if (!gk) { PyErr_NoMemory(); return -1; }
  for (int32_t x = 0; x < nk; x++) gk[x] = e->best[find(g, kids[x])];
  int fresh = 0;
  int32_t gn = gn_intern(e, label, nk, gk, &fresh);
  if (gk != buf) PyMem_Free(gk);
  if (gn < 0 || (fresh && e->sharing && gn_bit(e, gn, e->w[label]) < 0)) return -1;
  int64_t v = e->w[label];
  if (e->sharing) { if (gn_sharing_value(e, gn, nk, kids, &v) < 0) return -1; }
  else for (int32_t x = 0; x < nk; x++) if (__builtin_add_overflow(v, e->value[find(g, kids[x])], &v)) { e->overflow = 1; return -1; }
  if (e->best[c] >= 0 && !(v < e->value[c])) return 0;
  e->best[c] = gn; e->value[c] = v; e->changed[c] = ++e->tick;
  if (!e->sharing) return 1;
  return copy_bits(&e->best_bits[c], &e->cand) < 0 ? -1 : 1;
}

static int nvisit_enode_of(void *e, int32_t c, int64_t j) { return nvisit_enode((NExtract *)e, c, j); }

static int nvisit_class(NExtract *e) { return visit_next_class(e->g, &e->queue, &e->head, e->queued, nvisit_enode_of, e); }

/* graph node `root` as a UOp: each of its nodes made once, children first (make_uop(op, src, arg, dtype); a CONST's
 * label holds its UOp) */
static PyObject *gn_graph(NExtract *e, int32_t root, PyObject *labels, PyObject *make) {
  int64_t ng = e->gn_label.n;
  PyObject **made = PyMem_Calloc((size_t)(ng ? ng : 1), sizeof(PyObject *));
  IVec stack = {0};
  PyObject *out = NULL;
  if (!made) return PyErr_NoMemory();
  if (iv_push(&stack, root) < 0) goto done;
  while (stack.n) {
    int32_t i = stack.a[stack.n - 1], nk = e->gn_nk.a[i];
    const int32_t *kids = e->gn_pool.a + e->gn_off.a[i];
    if (made[i]) { stack.n--; continue; }
    int ready = 1;
    for (int32_t x = 0; x < nk; x++) if (!made[kids[x]]) { ready = 0; if (iv_push(&stack, kids[x]) < 0) goto done; }
    if (!ready) continue;
    stack.n--;
    PyObject *lab = PyList_GET_ITEM(labels, e->gn_label.a[i]);
    if (e->g->label_const.a[e->gn_label.a[i]]) { made[i] = Py_NewRef(PyTuple_GET_ITEM(lab, 2)); continue; }
    PyObject *src = PyTuple_New(nk);
    if (!src) goto done;
    for (int32_t x = 0; x < nk; x++) PyTuple_SET_ITEM(src, x, Py_NewRef(made[kids[x]]));
    made[i] = PyObject_CallFunctionObjArgs(make, PyTuple_GET_ITEM(lab, 0), src, PyTuple_GET_ITEM(lab, 2), PyTuple_GET_ITEM(lab, 1), NULL);
    Py_DECREF(src);
    if (!made[i]) goto done;
  }
  out = Py_NewRef(made[root]);
done:
  for (int64_t i = 0; i < ng; i++) Py_XDECREF(made[i]);
  PyMem_Free(made); iv_free(&stack);
  return out;
}

/* extract_best(root, weights, sharing, labels, make_uop) -> (graph, cost) of class root, or None when an int64 sum would
 * overflow (Python's ints would not: run extract); weights: an int >= 0 per label. */
static PyObject *Core_extract_best(Core *g, PyObject *args) {
  int root, sharing;
  PyObject *weights, *labels, *make;
  if (!PyArg_ParseTuple(args, "iO!pO!O", &root, &PyList_Type, &weights, &sharing, &PyList_Type, &labels, &make)) return NULL;
  if (PyList_GET_SIZE(labels) < g->nlabels || PyList_GET_SIZE(weights) < g->nlabels) {
    PyErr_SetString(PyExc_ValueError, "a (op, dtype, arg) and a weight per label");
    return NULL;
  }
  if (check_class(g, root) < 0) return NULL;
  int64_t *w = PyMem_Malloc((size_t)(g->nlabels ? g->nlabels : 1) * sizeof(int64_t));
  if (!w) return PyErr_NoMemory();
  for (int32_t i = 0; i < g->nlabels; i++) {
    long long v = PyLong_AsLongLong(PyList_GET_ITEM(weights, i));
    if (v == -1 && PyErr_Occurred()) { PyMem_Free(w); return NULL; }
    if (v < 0) { PyMem_Free(w); PyErr_SetString(PyExc_ValueError, "a weight is >= 0"); return NULL; }
    w[i] = v;
  }
  NExtract e = {.g = g, .w = w, .sharing = sharing, .tick = 1, .nc = g->parent.n};
  int ok = nextract_init(&e) == 0;
  while (ok && e.head < e.queue.n) ok = nvisit_class(&e) == 0;
  PyObject *res = NULL;
  int32_t r = find(g, root);
  if (ok && e.best[r] < 0) PyErr_SetString(PyExc_KeyError, "the root class has no graph");
  else if (ok) {
    PyObject *graph = gn_graph(&e, e.best[r], labels, make);
    res = graph ? Py_BuildValue("(NL)", graph, (long long)e.value[r]) : NULL;
  } else if (e.overflow) res = Py_NewRef(Py_None);
  nextract_free(&e);
  PyMem_Free(w);
  return res;
}

static PyObject *Core_enode_count(Core *g, PyObject *unused) {
  return PyLong_FromLongLong(g->enodes);
}

static PyObject *Core_per_rule(Core *g, PyObject *unused) {
  PyObject *out = PyList_New(g->nrules);
  if (!out) return NULL;
  for (int32_t i = 0; i < g->nrules; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(g->rules[i].applied));
  return out;
}

/* the refused merges' constant labels, in the order met (export's conflicts, without making the e-graph) */
static PyObject *Core_conflicts(Core *g, PyObject *unused) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  for (int64_t i = 0; i < g->conflicts.n; i += 2) {
    PyObject *pair = Py_BuildValue("(ii)", g->conflicts.a[i], g->conflicts.a[i + 1]);
    if (!pair || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); Py_DECREF(out); return NULL; }
    Py_DECREF(pair);
  }
  return out;
}

static PyObject *Core_find(Core *g, PyObject *arg) {
  int32_t c;
  if (as_i32(arg, &c) < 0 || check_class(g, c) < 0) return NULL;
  return PyLong_FromLong(find(g, c));
}

/* export(labels) -> (parent, size, classes: [(id, nodes, parents, type, const label)], memo, conflicts, applied per rule);
 * labels: per label its (op, dtype, arg) as egraph.py's e-nodes hold them. */
static PyObject *Core_export(Core *g, PyObject *arg) {
  if (!PyList_Check(arg) || PyList_GET_SIZE(arg) < g->nlabels) { PyErr_SetString(PyExc_ValueError, "a list of every label's (op, dtype, arg)"); return NULL; }
  PyObject **made = PyMem_Calloc((size_t)(g->nkeys ? g->nkeys : 1), sizeof(PyObject *));
  PyObject *parent = NULL, *size = NULL, *classes = NULL, *memo = NULL, *conf = NULL, *per = NULL, *res = NULL;
  if (!made) return PyErr_NoMemory();
  parent = PyList_New(g->parent.n); size = PyList_New(g->parent.n); classes = PyList_New(0); memo = PyDict_New();
  conf = PyList_New(0); per = PyList_New(g->nrules);
  if (!parent || !size || !classes || !memo || !conf || !per) goto out;
  for (int64_t c = 0; c < g->parent.n; c++) {
    PyList_SET_ITEM(parent, c, PyLong_FromLong(g->parent.a[c]));
    PyList_SET_ITEM(size, c, PyLong_FromLong(g->size.a[c]));
  }
  for (int32_t i = 0; i < g->nrules; i++) PyList_SET_ITEM(per, i, PyLong_FromLongLong(g->rules[i].applied));
  for (int64_t k = 0; k < g->nkeys; k++) {
    {
      Key *key = &g->keys[k];
      PyObject *kids = PyTuple_New(key->nk);
      if (!kids) goto out;
      const int32_t *ks = kids_of(g, (int32_t)k);
      for (int32_t j = 0; j < key->nk; j++) PyTuple_SET_ITEM(kids, j, PyLong_FromLong(ks[j]));
      PyObject *lab = PyList_GET_ITEM(arg, key->label);
      if (!PyTuple_Check(lab) || PyTuple_GET_SIZE(lab) != 3) { Py_DECREF(kids); PyErr_SetString(PyExc_ValueError, "a label is (op, dtype, arg)"); goto out; }
      made[k] = PyTuple_Pack(4, PyTuple_GET_ITEM(lab, 0), PyTuple_GET_ITEM(lab, 1), PyTuple_GET_ITEM(lab, 2), kids);
      Py_DECREF(kids);
      if (!made[k]) goto out;
    }
    if (g->keys[k].memo >= 0) {
      PyObject *v = PyLong_FromLong(g->keys[k].memo);
      if (!v || PyDict_SetItem(memo, made[k], v) < 0) { Py_XDECREF(v); goto out; }
      Py_DECREF(v);
    }
  }
  for (int64_t c = 0; c < g->parent.n; c++) {
    Class *cl = &g->cls[c];
    if (!cl->alive) continue;
    PyObject *nodes = PyList_New(cl->nodes.n), *ps = PyList_New(cl->parents.n / 2);
    if (!nodes || !ps) { Py_XDECREF(nodes); Py_XDECREF(ps); goto out; }
    for (int64_t j = 0; j < cl->nodes.n; j++) PyList_SET_ITEM(nodes, j, Py_NewRef(made[nl_keys(&cl->nodes)[j]]));
    for (int64_t j = 0; j < cl->parents.n; j += 2) PyList_SET_ITEM(ps, j / 2, Py_BuildValue("Oi", made[cl->parents.a[j]], cl->parents.a[j + 1]));
    PyObject *item = Py_BuildValue("(lNNii)", (long)c, nodes, ps, g->ctype.a[c], cl->konst);
    if (!item || PyList_Append(classes, item) < 0) { Py_XDECREF(item); goto out; }
    Py_DECREF(item);
  }
  for (int64_t i = 0; i < g->conflicts.n; i += 2) {
    PyObject *pair = Py_BuildValue("(ii)", g->conflicts.a[i], g->conflicts.a[i + 1]);
    if (!pair || PyList_Append(conf, pair) < 0) { Py_XDECREF(pair); goto out; }
    Py_DECREF(pair);
  }
  res = Py_BuildValue("(OOOOOO)", parent, size, classes, memo, conf, per);
out:
  for (int64_t k = 0; k < g->nkeys; k++) Py_XDECREF(made[k]);
  PyMem_Free(made);
  Py_XDECREF(parent); Py_XDECREF(size); Py_XDECREF(classes); Py_XDECREF(memo); Py_XDECREF(conf); Py_XDECREF(per);
  return res;
}

static PyObject *Core_counts(Core *g, void *unused) {
  long long keys = (long long)(g->capkeys * sizeof(Key) + g->kidpool.cap * 4 + g->capslots * 8);
  long long classes = (long long)(g->capcls * sizeof(Class) + (g->parent.cap + g->size.cap + g->ctype.cap) * 4), matches = 0;
  long long enodes = g->enodes, nclasses = 0, fired = 0;
  for (int64_t c = 0; c < g->parent.n; c++) {
    Class *cl = &g->cls[c];
    classes += (2 * cl->nodes.cap + cl->parents.cap) * 4;
    nclasses += cl->alive;
  }
  for (int32_t i = 0; i < g->nrules; i++) {
    Rule *r = &g->rules[i];
    matches += r->fired.cap * 8 + (r->fired.data.cap + r->fired.vals.cap + r->fired.used.cap + r->found.cap) * 4;
    fired += r->fired.n;
  }
  return Py_BuildValue("{sLsLsLsLsLsLsLsLsL}", "enodes", enodes, "classes", nclasses, "classes_made", (long long)g->parent.n, "memo",
                       (long long)g->memo_len, "keys", (long long)g->nkeys, "fired", fired, "bytes", keys + classes + matches,
                       "bytes_keys", keys, "bytes_classes", classes);
}

static PyMethodDef Core_methods[] = {
  {"label", (PyCFunction)Core_label, METH_VARARGS, "label(is_const, tests) -> a new label's number"},
  {"type", (PyCFunction)Core_type, METH_VARARGS, "type(tests) -> a new (dtype, shape)'s number"},
  {"add_enode", (PyCFunction)Core_add_enode, METH_VARARGS, "add_enode(label, type, kids) -> its class (EGraph.add_enode)"},
  {"rebuild", (PyCFunction)Core_rebuild, METH_NOARGS, "EGraph.rebuild"},
  {"take", (PyCFunction)Core_take, METH_O, "take(it): stamp what changed since the last take with iteration it"},
  {"match", (PyCFunction)Core_match, METH_VARARGS, "match(it, runnable) -> new matches per rule (-1: not run)"},
  {"apply", (PyCFunction)Core_apply, METH_VARARGS, "apply(it, admitted, max_enodes, deadline, clock) -> (stop, changed, matches, applied, rejected)"},
  {"enode_count", (PyCFunction)Core_enode_count, METH_NOARGS, "EGraph.enode_count"},
  {"find", (PyCFunction)Core_find, METH_O, "the canonical id of a class"},
  {"per_rule", (PyCFunction)Core_per_rule, METH_NOARGS, "per rule: its results that changed the e-graph"},
  {"conflicts", (PyCFunction)Core_conflicts, METH_NOARGS, "conflicts() -> [(label, label)]: the refused merges of two constants"},
  {"extract", (PyCFunction)Core_extract, METH_VARARGS, "extract(labels, make_uop, uop_error, weights, fn, weight_of) -> {class: (graph, cost)}"},
  {"extract_best", (PyCFunction)Core_extract_best, METH_VARARGS, "extract_best(root, weights, sharing, labels, make_uop) -> (graph, cost) or None (an int64 overflow)"},
  {"export", (PyCFunction)Core_export, METH_O, "export(labels) -> the e-graph as egraph.py holds it"},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef Core_getset[] = {
  {"counts", (getter)Core_counts, NULL, "enodes, classes (and classes_made), memo (hash-cons entries), keys (e-node values made), fired "
   "(matches kept), bytes (and bytes_keys, bytes_classes: the rest is the matches')", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "uopc.egraph._egraph.Core",
  .tp_doc = "An e-graph, its rules and their semi-naive matching in flat arrays (see docs/saturation.md).",
  .tp_basicsize = sizeof(Core),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_new = PyType_GenericNew,
  .tp_init = (initproc)Core_init,
  .tp_dealloc = (destructor)Core_dealloc,
  .tp_traverse = (traverseproc)Core_traverse,
  .tp_clear = (inquiry)Core_clear,
  .tp_methods = Core_methods,
  .tp_getset = Core_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_egraph", "The e-graph's hot loop in C (docs/saturation.md).", -1, NULL};

PyMODINIT_FUNC PyInit__egraph(void) {
  if (PyType_Ready(&CoreType) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  if (PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) < 0 || PyModule_AddIntConstant(m, "NO_RESULT", NO_RESULT) < 0 ||
      PyModule_AddIntConstant(m, "MAX_INSTANCES", MAX_INSTANCES) < 0) { Py_DECREF(m); return NULL; }
  return m;
}
