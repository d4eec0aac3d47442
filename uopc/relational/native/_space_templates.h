/* Rules as data (_space_templates.c): a rule whose function is a template (uopc/egraph/template.py: it only combines its
 * arguments with operators) is applied here, on the core's own nodes, with no Python call per redex: its result is built
 * from the match's bindings by the template's steps for the bindings' types (dtype and shape, asked of Python once per
 * rule and types, templates.py). Every redex, made here or by Python, is numbered here (its node, rule and result), so
 * that Python reads one as step.py's Redex only when it asks for it. */
#ifndef UOPC_SPACE_TEMPLATES_H
#define UOPC_SPACE_TEMPLATES_H
#include "_space_tables.h"
#include "_space_folds.h"


typedef struct Space Space;

#define TPL_PYTHON (-3)   /* template_redexes: Python finds this node's redexes */
#define TPL_MAX_PARAMS 4  /* a template's arguments at most, each type id in 12 bits of an entry's key */
#define TPL_MAX_TYPES 4096
#define TPL_MAX_RULES 4096

/* One step of a template: a node made over earlier steps and the arguments (refs: a step's index, or -1 - argument), or
 * a node that exists (`fixed`, a constant). */
typedef struct { int32_t fixed, label, op, type, n_src, refs; } TplStep;

typedef struct SpaceTemplates {
  int on;                 /* templates() was called with at least one template rule */
  PyObject *type_cb;      /* type(node) -> its type id ((dtype, shape) numbered by templates.py) */
  PyObject *fill_cb;      /* templates.py's RuleTemplates: fill(table, type ids) -> (result ref, result type, steps), 0 (the
                             function returned None), None (Python); and the folds' questions (_space_folds.c) */
  int32_t n_tables;       /* the compiled patterns' tables (patterns.py), in their order; table n_tables + k is table k's
                             `orelse` template (a Guarded form's) */
  int32_t *rule_index;    /* per table: its rule's index in the matcher */
  int32_t *n_params;      /* per table: its template's arguments, -1 if the rule is not a template */
  int32_t *param_slot;    /* per table, TPL_MAX_PARAMS each: the slot bound to each argument (the pattern's, then a Guarded
                             form's constants) */
  U64Map entries;         /* (table, argument types) -> entry, or -1 (Python), -2 (no result) */
  int32_t *ent_result, *ent_type, *ent_first, *ent_n; int64_t n_ent, cap_ent;
  TplStep *steps; int64_t n_steps, cap_steps;
  int32_t *refs; int64_t n_refs, cap_refs;
  int32_t *ntype; int64_t cap_ntype;   /* per node: its type id + 1, 0 unknown */
  /* every redex: node, rule index, result node */
  int32_t *red_node, *red_rule, *red_result; int64_t n_red, cap_red;
  /* scratch: the matches of a node (table, then its slots), the redexes found for it, the nodes a template made */
  int32_t *sol; int64_t n_sol, cap_sol;
  int32_t *found; int64_t n_found, cap_found;
  int32_t *made; int64_t cap_made;
  /* scratch: per match, what it makes (table, entry or result node, its slots' offset in xs or -1) */
  int32_t *plan; int64_t cap_plan;
  int32_t *xs; int64_t cap_xs;
  SpaceFolds folds;       /* folds, bounds and guards (_space_folds.h) */
} SpaceTemplates;

/* Node x's own redexes where templates make them all: their ids in s->templates.found[0 .. n), n returned; TPL_PYTHON
 * where Python must find them (a rule left to Python may match, a match's rule is no template, ...); -1 on error. */
int64_t template_redexes(Space *s, int32_t x);
int32_t template_type_of(Space *s, int32_t x);   /* node x's type id (asked of Python where unknown); -1 on error */
int template_set_type(Space *s, int32_t x, int32_t type);   /* node x is of this type: 0, or -1 on error */
/* A new redex id for (node, rule, result); -1 on error. */
int32_t redex_new(Space *s, int32_t node, int32_t rule, int32_t result);
/* Node h is x rebuilt over rewritten sources: the same type (a rule's result has its node's, rule_check.py). */
int template_inherit(Space *s, int32_t h, int32_t x);   /* 0, or -1 on error */
void templates_free(SpaceTemplates *t);
PyObject *Space_templates(Space *s, PyObject *args);
PyObject *Space_redex(Space *s, PyObject *arg);
PyObject *Space_redex_rows(Space *s, PyObject *args);
PyObject *Space_get_n_redexes(Space *s, void *closure);

#endif
