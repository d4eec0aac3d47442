/* The rules' compiled patterns (patterns.py's tables), matched whole on the core's nodes: does some rule's pattern match
 * a node (UPat.match, as a yes or no)? Then the node goes to Python for its redexes; else it has none (_space_patterns.c).
 * The rules left to Python are asked for by a node's signature (its op and sources' ops: `may`, cached). */
#ifndef UOPC_SPACE_PATTERNS_H
#define UOPC_SPACE_PATTERNS_H
#include "_space_tables.h"


typedef struct Space Space;

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

typedef struct SpacePatterns {
  PyObject *may_cb;     /* may(op, n, src ops or None) -> bool: may a rule left to Python match a node of this signature
                           (None: no rule is left to Python) */
  U64Map sigs;          /* signature key -> 0 / 1, asked only for the rules not compiled to patterns */
  PatNode *pat; int32_t n_pat;
  int32_t *pat_kids;
  int32_t *rule_root, *rule_slots; int32_t n_rules;
  PatPath *paths; int32_t *rule_paths;   /* rule r's quick tests: paths[rule_paths[r] .. rule_paths[r + 1]) */
  int32_t op_first[257], *op_rules;   /* the compiled rules whose root may have op o: op_rules[op_first[o] .. op_first[o + 1]) */
  PyObject *check_cb;   /* check(check, label, node) -> 1 (may pass) / 0 (cannot): a dtype and arg constraint */
  U64Map checked;       /* (check, label) -> 0 / 1: what check_cb said */
  PatGoal *goals; int32_t *bind;   /* the matcher's scratch, sized for the largest rule */
} SpacePatterns;

int asks_python(Space *s, int32_t x);   /* may some rule match node x? 1 or 0, -1 on error */
int may_match(Space *s, int32_t x);     /* may a rule left to Python match node x (by its signature)? 1 or 0, -1 on error */
/* Every match of compiled rule `rule`'s pattern at node x, in UPat.match's order, appended to the templates' scratch
 * (the rule, then its slots' nodes); *unsure set if a check raised in Python. 0, or -1 on error. */
int pattern_each(Space *s, int32_t rule, int32_t x, int *unsure);
void patterns_free(SpacePatterns *p);
PyObject *Space_patterns(Space *s, PyObject *args);
PyObject *Space_asks(Space *s, PyObject *arg);

#endif
