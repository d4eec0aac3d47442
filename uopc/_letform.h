/* The let form's walk in C, for any caller's nodes: uopc/term.py's let_form (and _Memo's _let and _plain), the same texts.

   Two callers compile uopc/_letform.c in: uopc/_term.c, over uopc's hash-consed UOps (PyObject pointers), and the
   explorer's native core (uopc/relational/native/_space_text.h), over its node ids. A caller tells the walk how to read
   its nodes through a LetNodes (a context and five callbacks): a node's index in this walk, its pieces (term.node_parts:
   a leaf's text, or a list of strings and source references), the node a source reference names, and the tree text of a
   subterm that names nothing, looked up and kept (the callers' memos: a dict by UOp, an array by node id).

   A call: letform_reset, letform_walk (the distinct nodes, sources first, left to right, and how often each is used),
   then letform_text (names for the inner nodes used more than once, in that order, and the text), or letform_prefix for
   a label cut at a number of characters. */
#ifndef UOPC_LETFORM_H
#define UOPC_LETFORM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef intptr_t LetNode;   /* a node as its caller knows it: a PyObject * (uopc/_term.c) or a node id (the explorer's core) */

typedef struct LetNodes {
  void *ctx;
  /* x's index in this walk: the one it was given, else `fresh` (which x then has); -1 on error */
  int32_t (*local)(void *ctx, LetNode x, int32_t fresh);
  /* x's pieces, borrowed (held by the caller while the call runs): a str, or a list of str and source references; NULL on error */
  PyObject *(*pieces)(void *ctx, LetNode x);
  /* the node the source reference `piece` of x's pieces names */
  LetNode (*source)(void *ctx, LetNode x, PyObject *piece);
  /* x's kept tree text, borrowed, or NULL (an error set, or none) */
  PyObject *(*plain)(void *ctx, LetNode x);
  /* keep `text`, x's tree text just made (is_root: the walk's root); -1 on error */
  int (*keep)(void *ctx, LetNode x, PyObject *text, int is_root);
} LetNodes;

/* a piece to write: a str (s), or a node (s NULL): its index in the walk (letform_prefix: the node itself) */
typedef struct { PyObject *s; LetNode node; } LetItem;

typedef struct LetWalk {
  /* by index in this walk (the root's is 0) */
  LetNode *node;
  PyObject **pieces;   /* borrowed; NULL until the node is walked */
  PyObject **text;     /* new references: the node's tree text, where the text without names needed it */
  int32_t *uses, *name, *order;   /* how often parents use it; its let name's number (-1: none); the walk's order */
  uint8_t *naming, *needed;       /* a named node is in it; the root's tree text needs its text */
  int64_t *kid_off;               /* where a walked node's sources' indices start in kid (in the order of its pieces) */
  int32_t *kid_n;                 /* and how many it has */
  int32_t n, cap, n_order;
  int32_t *kid; int64_t n_kid, cap_kid;   /* the walked nodes' sources' indices: read once from the caller, in the walk */
  LetItem *stack; uint8_t *flag; int64_t n_stack, cap_stack;
} LetWalk;

enum { LETFORM_DONE = 0, LETFORM_TOO_MANY = 1 };

/* Drops the last call's texts and indices (the arrays stay, for the next call). */
void letform_reset(LetWalk *w);
/* Frees the arrays (after letform_reset). */
void letform_free(LetWalk *w);
/* The walk from root: LETFORM_DONE, LETFORM_TOO_MANY past max_nodes distinct nodes (max_nodes < 0: no bound), -1 on error. */
int letform_walk(LetWalk *w, const LetNodes *g, LetNode root, int64_t max_nodes);
/* After a walk that was done: the root's let form, a new reference (names: the let names in order, a list of str). */
PyObject *letform_text(LetWalk *w, const LetNodes *g, PyObject *names);
/* The first `limit` characters of root's tree form and `ellipsis` (term.py's _inline with a limit), or the whole tree
   form where it is no longer; needs no walk. */
PyObject *letform_prefix(LetWalk *w, const LetNodes *g, LetNode root, Py_ssize_t limit, PyObject *ellipsis);

#endif
