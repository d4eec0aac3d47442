/* Rules as data, the rest (_space_folds.c): constant folds, bounds and guards (uopc/rule_data.py's forms, compiled by
 * native/folds.py) evaluated on the core's nodes, so that a rule declared as data needs no Python call per redex:
 *
 * - FOLD_ALU (Fold): the node's op over its sources, all constants, as alu.py's exec_alu computes it: ints and bools
 *   (i32 wraps, // and % floor, no value where C traps), and f32's +, *, max, comparisons, where and casts, whose double
 *   arithmetic is C's bit for bit (a NaN result, f32 // and %, and the unary ops are left to Python);
 * - FOLD_PINNED (Pinned): a scalar int or bool node whose bounds (uopc/bounds.py, computed here per node, exactly) pin it
 *   to one value, as that constant;
 * - FOLD_GUARDED (Guarded): a guard, a small postfix program over the match's constants, bounds, dtypes and literals,
 *   choosing the rule's `then` template or its `orelse` (a template, or no rewrite), with constants computed by
 *   programs made first (templates' extra arguments);
 * - FOLD_REBUILD (Guarded with a Rebuild): a guard, then the bound node `slot` over the bound nodes of the table's
 *   template slots (its label, other sources: u.replace(src=...)).
 *
 * Each answers a node, "no rewrite", or "Python" (a value the program cannot compute exactly here: a float, an
 * overflow past int64, a division by zero in a guard, a constant out of its dtype): then Python finds the node's
 * redexes, all of them, as before. */
#ifndef UOPC_SPACE_FOLDS_H
#define UOPC_SPACE_FOLDS_H
#include "_space_tables.h"


typedef struct Space Space;

enum { FOLD_NONE = 0, FOLD_ALU = 1, FOLD_PINNED = 2, FOLD_GUARDED = 3, FOLD_REBUILD = 4 };
enum { DT_BOOL = 0, DT_I32 = 1, DT_F32 = 2, DT_OTHER = 3 };   /* folds.py's dtype codes */
#define FOLD_NO_RESULT (-2)   /* fold_result / guard choice: no rewrite */
#define FOLD_PYTHON (-3)      /* Python finds the node's redexes */
#define FOLD_MAX_CONSTS 4

/* The op codes the folds read (folds.py's CODES order). */
enum { OC_CONST, OC_RANGE, OC_ADD, OC_MUL, OC_MAX, OC_CMPLT, OC_CMPNE, OC_FLOORDIV, OC_FLOORMOD, OC_WHERE, OC_CAST, OC_N };

typedef struct SpaceFolds {
  int on;
  int32_t code_of[OC_N];   /* the core's op code of each */
  uint8_t alu[256];        /* per op code: an ALU op */
  int8_t *kind; int32_t *slot;   /* per table: its form, and Fold's and Pinned's node slot */
  int32_t *guard_at, *guard_n;   /* per table: its guard's program (pairs in `prog`) */
  int32_t *n_consts, *const_like, *const_at, *const_n;   /* per table FOLD_MAX_CONSTS each: like (a slot, or -1 - dtype code) */
  int64_t *prog; int64_t n_prog, cap_prog;   /* programs: (opcode, operand) pairs */
  /* per node: bounds (lo, hi) and their state (B_*); a constant's value is its bounds */
  int64_t *lo, *hi; uint8_t *bst; int64_t cap_nodes;
  int8_t *tdt, *tscalar; int64_t cap_types;   /* per type id + 1: its dtype code and whether it is a scalar; 0 unknown */
  U64Map consts;   /* (dtype code, value) -> the constant's node */
  U64Map fconsts;  /* an f32 constant's double's bits + 1 -> its node */
  int32_t *stack; int64_t cap_stack;   /* bounds' walk */
} SpaceFolds;

/* The result of table k's Fold or Pinned form for the match `slots`: a node, FOLD_NO_RESULT or FOLD_PYTHON; -1 on error. */
int32_t fold_result(Space *s, int32_t k, const int32_t *slots);
/* Table k's guard on `slots`: 1 (then), 0 (orelse), FOLD_PYTHON; -1 on error. Where it chose a template, its constants
 * are made into slots[n_slots ..] (FOLD_PYTHON where one cannot be made exactly). */
int guard_choose(Space *s, int32_t k, int32_t *slots, int32_t n_slots);
/* Read folds.py's form of table k (None, or (kind, slot, guard, consts)): 0, or -1 with an exception set. */
int folds_read(Space *s, int32_t k, int32_t n_tables, PyObject *form);
int folds_codes(Space *s, PyObject *codes);   /* the op codes (OC_* order): 0, or -1 */
void folds_free(SpaceFolds *f);

#endif
