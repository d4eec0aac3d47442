/* The explorer's hot core in C: what its units share (uopc/relational/native/_space*.c, one extension module).
 *
 * The same algorithm as uopc/relational/space/step.py (Stepper, graph or tree semantics, steps grouped by graph past
 * map_limit) and stream.py (Exploration._drive, breadth or depth first), on its own node layout: a node is a label (its op, dtype
 * and arg, or a leaf UOp, numbered by Python) and its sources' ids; hash consing is one open-addressing
 * table; a state is its root's id. Python is called only to find a node's own redexes (`match`), and
 * only for nodes some rule's pattern may match: matched whole here where the pattern was compiled to a
 * table (patterns.py; `Space.patterns`), else by its signature (op and sources' ops: `may`, cached), and not for nodes
 * whose matching rules are all templates: those are applied here (_space_templates.c; `Space.templates`).
 * Whatever this core does not do the way step.py does (a failed step, a step map past map_limit entries that step.py
 * enumerates lazily) it stops on ("bail"), and the Python explorer takes over: results are the same. A CALL never gets in: its
 * label is refused (NativeSpace._label), where the program or a rule's result enters.
 *
 * The core: nodes and hash consing (_space_nodes.c), step maps (_space_steps.c, grouped past map_limit in
 * _space_groups.c), states and the search (_space_search.c, read from Python in _space_states.c), the type (_space.c).
 * Beside it, each with its own header and state: the compiled patterns, UOps in and out, the reduction (embedded here),
 * the cycles and paths over the states, fingerprints, codec rows and their decoding, a cluster worker's level, and
 * state texts (pointed to, made on first use). Why: docs/native.md.
 */
#ifndef UOPC_SPACE_H
#define UOPC_SPACE_H
#include "_space_tables.h"
#include "_space_patterns.h"
#include "_space_groups.h"
#include "_space_reduction.h"
#include "_space_uops.h"
#include "_space_templates.h"


#define NF_USED 1
#define NF_GROUPED 2
#define NF_PENDING 4    /* a source of a node not in the hash-consing table yet (intern: a lookup that cannot be one goes on) */
#define PENDING_MAX 256   /* nodes kept out of the table at most, then put in together (their cache misses overlap) */
#define NO_MAP (-1)
#define SIGNAL_EVERY 4096

/* What expand() returns; the module exports them by these names (drive.py reads them there). */
enum { ST_DONE = 0, ST_MORE = 1, ST_MAX_STATES = 2, ST_BAIL = 3 };

/* What changes() reports per event, in the order they happened (exported as EV_*): a state expanded for the first time
 * (normal or not), expanded again (depth first: its normal flag stays), or given a shorter path (depth first: a new parent,
 * depth and step; EV_MOVED_AGAIN: it had been cut by max_depth and is to be expanded again). EV_REDUCED is or'ed into an
 * expansion that followed a persistent set only. */
enum { EV_NOT_NORMAL = 0, EV_NORMAL = 1, EV_AGAIN = 2, EV_MOVED = 3, EV_MOVED_AGAIN = 4, EV_REDUCED = 8 };

/* A slot of the hash-consing table: a node and its key, its label and up to two sources (`a`, `b`: -1 past its last
 * source; `b` SLOT_MORE for a node of more sources, compared on the node). A probe compares the key in the slot, so a
 * lookup costs one cache miss, not one more for each of the node's arrays it would read (label, source count, offset,
 * sources: 35% of the ADD-bubble's time was there, with an 8-byte slot of a node and half its hash). */
typedef struct { int32_t id, label, a, b; } Slot;
#define SLOT_MORE (-2)

struct Space {
  PyObject_HEAD
  PyObject *match_cb;   /* match(node) -> [(rule index, result node), ...] for its own redexes (numbered here), or None: bail */
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
  int table_shift;      /* a key's first slot is its hash's top bits: hash >> table_shift (slot_home) */
  int32_t pending_from;   /* nodes from here on are not in the table yet (intern; flush_pending), their sources NF_PENDING */
  /* step maps: (key, result node) pairs; a key is a redex id, or under tree semantics a position in the key pool */
  int32_t *maps; int64_t n_maps, cap_maps;
  /* tree semantics' keys (step.py's At): key k is the key key_inner[k] one source down, at source key_idx[k]; where
   * key_idx[k] is -1, key_inner[k] is a redex (the node's own) */
  int32_t *key_idx, *key_inner; int64_t n_keys, cap_keys;
  StepGroups groups;    /* grouped steps, past map_limit (_space_groups.h) */
  SpacePatterns patterns;   /* the rules' compiled patterns and signatures (_space_patterns.h) */
  SpaceTemplates templates;   /* template rules applied here, and every redex's node, rule and result (_space_templates.h) */
  /* redex scratch: generation stamps, for disjointness and lookups */
  int32_t *stamp, *stamp_val; int32_t cap_stamp, gen;
  /* states */
  int32_t n_states, cap_states, next_expand;   /* breadth first: states before next_expand were expanded */
  int32_t entry;   /* the next entry of the map of the state being expanded: a search stopped mid-state goes on there */
  int32_t *st_root, *st_parent, *st_depth, *st_redex;
  int8_t *st_normal;
  int8_t *st_done;      /* per state: 1 once expanded (stream.py: s.out is not None); depth first may set it back to 0 */
  int8_t *st_cut;       /* per state: at max_depth with a successor that was not made (stream.py's `cut` set) */
  int32_t *st_out;      /* per state: -1 (its whole map), or where its persistent set is in the reduction's `chosen` */
  int32_t n_cut;        /* states with st_cut set */
  /* depth first: the stack (stream.py's frontier, its top last), the state being expanded and its new successors */
  int32_t *stack; int64_t n_stack, cap_stack;
  int32_t cur;          /* the state being expanded (depth first), or -1 */
  int32_t *fresh; int64_t n_fresh, cap_fresh;
  int32_t *events; int64_t n_events, cap_events;   /* (state, EV_*) pairs since the last changes() */
  /* the Python side: a node's UOp where one exists (strong references; NULL until made), found by identity */
  PyObject **obj;
  U64Map ptrs;   /* a UOp's address -> its node (the UOp is held in obj, so the address is its own) */
  SpaceLabels labels;   /* inner nodes' labels by (op, dtype, arg) identity (_space_uops.h) */
  SpaceReduction reduction;   /* persistent sets (_space_reduction.h): on after reduce() */
  int64_t ticks;  /* work since the last signal check */
  struct SpaceRows *rows;   /* codec rows of graphs (_space_rows.h): rows_setup() makes it */
  struct SpaceText *text;   /* a node's text without its UOp (_space_text.h): text_setup() makes it */
  struct SpaceFingerprints *fingerprints;   /* space/fingerprint.py's, in C (_space_fingerprint.h): fingerprint_setup() */
  struct SpaceLevel *level;   /* a cluster worker's levels (_space_level.h): expand_level() makes it */
  struct SpaceTable *table_json;   /* a report's node table by node id (_space_table.h): table_setup() makes it */
};

static inline int tick(Space *s, int64_t work) {
  s->ticks += work;
  if (s->ticks < SIGNAL_EVERY) return 0;
  s->ticks = 0;
  return PyErr_CheckSignals();   /* a budget's handler raises BoundHit here, as between bytecodes */
}

/* ---- nodes and hash consing (_space_nodes.c) */

/* The node (label, src): found, or made if `make`; -1 if absent (not made) or on error (exception set). */
int32_t intern(Space *s, int32_t label, uint8_t op, const int32_t *src, int32_t n, int make);
/* The same with the key's hash computed before (node_hash): a caller with several lookups to make hashes them first and
 * prefetches their slots (intern_prefetch), so that their cache misses overlap. */
int32_t intern_hashed(Space *s, int32_t label, uint8_t op, const int32_t *src, int32_t n, int make, uint64_t h);
uint64_t node_hash(int32_t label, const int32_t *src, int32_t n);
/* The first slot a key of hash h is looked for at: the hash's top bits, so that the table's order is the hashes' order,
 * and a table twice as big has the same order (rehash reads the old one in order and writes the new one nearly so). */
static inline int64_t slot_home(const Space *s, uint64_t h) { return (int64_t)(h >> s->table_shift); }
static inline void intern_prefetch(const Space *s, uint64_t h) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(s->table + slot_home(s, h));
#else
  (void)s; (void)h;
#endif
}
int rehash(Space *s, int64_t cap);   /* the hash-consing table at a new capacity, every node in it */

/* ---- step maps (_space_steps.c) */

int map_of(Space *s, int32_t root);   /* the map of root and of every node below it without one: 0, -1 error, -2 bail */
int32_t new_key(Space *s, int32_t idx, int32_t inner);   /* tree semantics: a new key; -1 on error */
void stamp_pairs(int32_t *stamp, int32_t *val, const int32_t *pairs, int32_t n, int32_t g);
PyObject *Space_prepare(Space *s, PyObject *arg);
PyObject *Space_key(Space *s, PyObject *arg);

/* Node x's map holds grouped steps: its pairs (first key, graph), then their groups. */
static inline int grouped(const Space *s, int32_t x) { return s->nflags[x] & NF_GROUPED; }
static inline int32_t group_at(const Space *s, int32_t x, int32_t e) { return s->maps[s->map_off[x] + 2 * (int64_t)s->map_n[x] + e]; }
static inline int32_t group_first(const Space *s, int32_t g) { return g < 0 ? -g - 1 : s->groups.first[g]; }
static inline int64_t group_size(const Space *s, int32_t g) { return g < 0 ? 1 : s->groups.size[g]; }

/* ---- states and the search (_space_search.c, _space_states.c) */

/* The steps out of expanded state i, as `out` reads them: its map, or its persistent set (no array moves while they
 * are followed). */
static inline const int32_t *state_steps(Space *s, int32_t i, int32_t *m) {
  if (s->st_out[i] >= 0) { *m = s->reduction.chosen[s->st_out[i]]; return s->reduction.chosen + s->st_out[i] + 1; }
  *m = s->map_n[s->st_root[i]];
  return s->maps + s->map_off[s->st_root[i]];
}

/* How many steps entry e of state i's steps stands for: a group's keys, or one. */
static inline int64_t entry_steps(Space *s, int32_t i, int32_t e) {
  int32_t root = s->st_root[i];
  return s->st_out[i] < 0 && grouped(s, root) ? group_size(s, group_at(s, root, e)) : 1;
}

int check_state(Space *s, int i);   /* 0, or -1 with IndexError */
int check_node(Space *s, long id);   /* 0, or -1 with IndexError */
int32_t node_arg(Space *s, PyObject *arg);   /* the node id a Python int names, checked; -1 with an exception set */
PyObject *Space_start(Space *s, PyObject *args);
PyObject *Space_expand(Space *s, PyObject *args);
PyObject *Space_changes(Space *s, PyObject *noargs);
PyObject *Space_frontier(Space *s, PyObject *noargs);
PyObject *Space_cut_states(Space *s, PyObject *noargs);
PyObject *Space_take(Space *s, PyObject *args);
PyObject *Space_step_key(Space *s, PyObject *arg);
PyObject *Space_out(Space *s, PyObject *args);
PyObject *Space_step_to(Space *s, PyObject *args);
PyObject *Space_n_steps(Space *s, PyObject *args);
PyObject *Space_state_of(Space *s, PyObject *args);

#endif
