/* A state's text from the native core's own nodes: uopc.term.show(uop, limit) of the node's UOp, with no UOp made.

   Included by _space.c (it reads the Space's node table). The walk is uopc/_term.c's let_text and term.py's show over
   node ids instead of UOps: the distinct nodes sources first, left to right; each inner node used more than once named
   (let names in order, from Python's let_names); a subterm with no named node in it written as its tree text, each
   kept once by node id (context-free, so any state reuses it); past `limit` distinct nodes, or a text past `limit`
   characters, the first `limit` characters of the tree form and an ellipsis. A node's pieces (term.node_parts: a
   leaf's text, or strings and source indices) come from Python once per label (an inner node's op, dtype and arg) and
   per leaf: far fewer than nodes. */

#define TEXT_MAX_CHARS 50000000LL   /* kept tree texts past this many characters: dropped, made again (term.py's _Memo.MAX_CHARS) */

typedef struct { PyObject *s; int32_t node; } TextItem;   /* a piece to write: a str (s), or a node (s NULL) */

struct SpaceText {
  PyObject *cb;        /* pieces(node) -> str | list of str and source indices */
  PyObject *names;     /* the let names in order (a list of str) */
  PyObject *ellipsis;
  PyObject **lab_tpl; int32_t *lab_n; int64_t cap_lab;   /* an inner node's pieces by its label, for nodes of lab_n sources */
  PyObject **leaf_tpl; int64_t cap_leaf;                  /* a leaf's pieces by its leaf number (-2 - label) */
  PyObject **plain; int64_t cap_plain; long long chars;   /* a node's tree text (a subterm that names nothing), once made */
  int32_t *stamp, *loc; int64_t cap_node; int32_t gen;    /* per node: the call that last gave it a local index, and which */
  /* per call, by local index */
  int32_t *node, *uses, *name, *order; uint8_t *walked, *naming, *needed; PyObject **tpl, **txt; int64_t cap_loc, n_loc;
  TextItem *stack; uint8_t *sflag; int64_t cap_stack, n_stack;
  int busy;
};

static void text_free(struct SpaceText *t) {
  if (!t) return;
  Py_CLEAR(t->cb); Py_CLEAR(t->names); Py_CLEAR(t->ellipsis);
  for (int64_t i = 0; i < t->cap_lab; i++) Py_XDECREF(t->lab_tpl[i]);
  for (int64_t i = 0; i < t->cap_leaf; i++) Py_XDECREF(t->leaf_tpl[i]);
  for (int64_t i = 0; i < t->cap_plain; i++) Py_XDECREF(t->plain[i]);
  void *arrays[] = {t->lab_tpl, t->lab_n, t->leaf_tpl, t->plain, t->stamp, t->loc, t->node, t->uses, t->name, t->order,
                    t->walked, t->naming, t->needed, t->tpl, t->txt, t->stack, t->sflag};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  PyMem_Free(t);
}

/* grow an array of PyObject * (or any element) to hold `need`, the new part zeroed */
static int text_grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  int64_t old = *cap;
  if (grow(p, cap, need, elem) < 0) return -1;
  if (*cap > old) memset((char *)*p + old * elem, 0, (size_t)(*cap - old) * elem);
  return 0;
}

/* text_setup(pieces, names): what text() asks Python for a node's pieces, and the let names (as many as a text may name). */
static PyObject *Space_text_setup(Space *s, PyObject *args) {
  PyObject *cb, *names;
  if (!PyArg_ParseTuple(args, "OO!", &cb, &PyList_Type, &names)) return NULL;
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(names); k++)
    if (!PyUnicode_Check(PyList_GET_ITEM(names, k))) { PyErr_SetString(PyExc_TypeError, "text_setup: a name is a str"); return NULL; }
  if (s->text && s->text->busy) { PyErr_SetString(PyExc_RuntimeError, "text_setup: text() is running"); return NULL; }
  text_free(s->text);
  if (!(s->text = PyMem_Calloc(1, sizeof(struct SpaceText)))) return PyErr_NoMemory();
  if (!(s->text->ellipsis = PyUnicode_FromString("\xe2\x80\xa6"))) { text_free(s->text); s->text = NULL; return NULL; }
  s->text->cb = Py_NewRef(cb);
  s->text->names = Py_NewRef(names);
  Py_RETURN_NONE;
}

/* node x's pieces (borrowed: kept by the cache, or by `held` for a node of a label's other source count); NULL on error */
static PyObject *text_pieces(Space *s, struct SpaceText *t, int32_t x, PyObject **held) {
  int32_t label = s->label[x], n = s->src_n[x];
  if (label >= 0 && label < t->cap_lab && t->lab_tpl[label] && t->lab_n[label] == n) return t->lab_tpl[label];
  int64_t leaf = -2 - (int64_t)label;
  if (label <= -2 && leaf < t->cap_leaf && t->leaf_tpl[leaf]) return t->leaf_tpl[leaf];
  PyObject *p = PyObject_CallFunction(t->cb, "i", x);
  if (!p) return NULL;
  if (PyList_Check(p)) {
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(p); k++) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (PyUnicode_Check(c)) continue;
      long j = PyLong_Check(c) ? PyLong_AsLong(c) : -1;
      if (j < 0 || j >= n) {
        Py_DECREF(p);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "text: a piece is a str or a source index");
        return NULL;
      }
    }
  } else if (!PyUnicode_Check(p)) { Py_DECREF(p); PyErr_SetString(PyExc_TypeError, "text: pieces are a str or a list"); return NULL; }
  if (label >= 0 && (label >= t->cap_lab || !t->lab_tpl[label])) {
    if (text_grow((void **)&t->lab_tpl, &t->cap_lab, (int64_t)label + 1, sizeof(PyObject *)) < 0) { Py_DECREF(p); return NULL; }
    int32_t *ln = PyMem_Realloc(   /* lab_n follows lab_tpl's capacity */
      t->lab_n, (size_t)t->cap_lab * sizeof(int32_t));
    if (!ln) { Py_DECREF(p); PyErr_NoMemory(); return NULL; }
    t->lab_n = ln;
    t->lab_tpl[label] = p;
    t->lab_n[label] = n;
    return p;
  }
  if (label <= -2) {   /* a leaf (-1 is no label: kept for this call only, below) */
    if (text_grow((void **)&t->leaf_tpl, &t->cap_leaf, leaf + 1, sizeof(PyObject *)) < 0) { Py_DECREF(p); return NULL; }
    t->leaf_tpl[leaf] = p;
    return p;
  }
  if (!*held && !(*held = PyList_New(0))) { Py_DECREF(p); return NULL; }   /* another source count of a label: this call's */
  int bad = PyList_Append(*held, p);
  Py_DECREF(p);
  return bad < 0 ? NULL : p;
}

/* node x's source at piece c (a source index) */
static inline int32_t text_src(Space *s, int32_t x, PyObject *c) { return s->srcs[s->src_off[x] + PyLong_AsLong(c)]; }

/* the local index of node x in this call, made if new; -1 on memory failure */
static int32_t text_loc(struct SpaceText *t, int32_t x) {
  if (t->stamp[x] == t->gen) return t->loc[x];
  if (t->n_loc == t->cap_loc) {
    int64_t cap = t->cap_loc ? 2 * t->cap_loc : 256;
    void **arrays[] = {(void **)&t->node, (void **)&t->uses, (void **)&t->name, (void **)&t->order};
    for (size_t k = 0; k < 4; k++) { void *q = PyMem_Realloc(*arrays[k], (size_t)cap * sizeof(int32_t)); if (!q) { PyErr_NoMemory(); return -1; } *arrays[k] = q; }
    void **bytes[] = {(void **)&t->walked, (void **)&t->naming, (void **)&t->needed};
    for (size_t k = 0; k < 3; k++) { void *q = PyMem_Realloc(*bytes[k], (size_t)cap); if (!q) { PyErr_NoMemory(); return -1; } *bytes[k] = q; }
    void **objs[] = {(void **)&t->tpl, (void **)&t->txt};
    for (size_t k = 0; k < 2; k++) { void *q = PyMem_Realloc(*objs[k], (size_t)cap * sizeof(PyObject *)); if (!q) { PyErr_NoMemory(); return -1; } *objs[k] = q; }
    t->cap_loc = cap;
  }
  int32_t i = (int32_t)t->n_loc++;
  t->node[i] = x; t->uses[i] = 0; t->name[i] = -1; t->walked[i] = t->naming[i] = t->needed[i] = 0; t->tpl[i] = t->txt[i] = NULL;
  t->stamp[x] = t->gen; t->loc[x] = i;
  return i;
}

static int text_push(struct SpaceText *t, PyObject *str, int32_t node, uint8_t flag) {
  if (t->n_stack == t->cap_stack) {
    int64_t cap = t->cap_stack ? 2 * t->cap_stack : 256;
    TextItem *st = PyMem_Realloc(t->stack, (size_t)cap * sizeof(TextItem));
    if (!st) { PyErr_NoMemory(); return -1; }
    t->stack = st;
    uint8_t *fl = PyMem_Realloc(t->sflag, (size_t)cap);
    if (!fl) { PyErr_NoMemory(); return -1; }
    t->sflag = fl;
    t->cap_stack = cap;
  }
  t->stack[t->n_stack].s = str; t->stack[t->n_stack].node = node; t->sflag[t->n_stack] = flag; t->n_stack++;
  return 0;
}

static PyObject *text_join(PyObject *parts) {
  static PyObject *empty = NULL;
  if (!empty && !(empty = PyUnicode_FromString(""))) return NULL;
  return PyUnicode_Join(empty, parts);
}

/* the first `limit` characters of root's tree form and an ellipsis (term.py's _inline with a limit, no names) */
static PyObject *text_prefix(Space *s, struct SpaceText *t, int32_t root, Py_ssize_t limit, PyObject **held) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  Py_ssize_t size = 0;
  t->n_stack = 0;
  if (text_push(t, NULL, root, 0) < 0) goto fail;
  while (t->n_stack) {
    TextItem it = t->stack[--t->n_stack];
    PyObject *piece = it.s;
    if (!piece) {
      piece = it.node < t->cap_plain ? t->plain[it.node] : NULL;   /* a subterm's tree text, where one was made */
      if (!piece) {
        PyObject *p = text_pieces(s, t, it.node, held);
        if (!p) goto fail;
        if (PyList_Check(p)) {
          for (Py_ssize_t k = PyList_GET_SIZE(p) - 1; k >= 0; k--) {
            PyObject *c = PyList_GET_ITEM(p, k);
            if (PyUnicode_Check(c) ? text_push(t, c, 0, 0) : text_push(t, NULL, text_src(s, it.node, c), 0)) goto fail;
          }
          continue;
        }
        piece = p;
      }
    }
    if (PyList_Append(out, piece) < 0) goto fail;
    size += PyUnicode_GET_LENGTH(piece);
    if (size > limit) {
      PyObject *all = text_join(out);
      Py_DECREF(out);
      if (!all) return NULL;
      PyObject *cut = PyUnicode_Substring(all, 0, limit);
      Py_DECREF(all);
      if (!cut) return NULL;
      PyObject *r = PyUnicode_Concat(cut, t->ellipsis);
      Py_DECREF(cut);
      return r;
    }
  }
  PyObject *all = text_join(out);   /* (not reached for a text cut at the limit: the caller knows it is longer) */
  Py_DECREF(out);
  return all;
fail:
  Py_DECREF(out);
  return NULL;
}

/* x (local index xi) written into out: a named node as its name (x itself too unless top), a subterm that names nothing
   as its tree text where there is one, else piece by piece (_term.c's inline_text) */
static int text_inline(Space *s, struct SpaceText *t, int32_t xi, int top, PyObject *out) {
  t->n_stack = 0;
  if (text_push(t, NULL, t->node[xi], 0) < 0) return -1;
  while (t->n_stack) {
    TextItem it = t->stack[--t->n_stack];
    if (it.s) { if (PyList_Append(out, it.s) < 0) return -1; continue; }
    int32_t i = t->loc[it.node];   /* walked: every node under the root has its local index */
    if (t->name[i] >= 0 && !(top && i == xi)) { if (PyList_Append(out, PyList_GET_ITEM(t->names, t->name[i])) < 0) return -1; continue; }
    if (!t->naming[i] && it.node < t->cap_plain && t->plain[it.node]) { if (PyList_Append(out, t->plain[it.node]) < 0) return -1; continue; }
    PyObject *p = t->tpl[i];
    if (PyUnicode_Check(p)) { if (PyList_Append(out, p) < 0) return -1; continue; }
    for (Py_ssize_t k = PyList_GET_SIZE(p) - 1; k >= 0; k--) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (PyUnicode_Check(c) ? text_push(t, c, 0, 0) : text_push(t, NULL, text_src(s, it.node, c), 0)) return -1;
    }
  }
  return 0;
}

/* the text of root, as show(uop, limit) (limit < 0: none) */
static PyObject *text_of(Space *s, struct SpaceText *t, int32_t root, Py_ssize_t limit, PyObject **held) {
  if (t->chars > TEXT_MAX_CHARS) {   /* bounded: the kept tree texts go (none is borrowed between calls) */
    for (int64_t i = 0; i < t->cap_plain; i++) Py_CLEAR(t->plain[i]);
    t->chars = 0;
  }
  if (text_grow((void **)&t->plain, &t->cap_plain, s->n_nodes, sizeof(PyObject *)) < 0) return NULL;
  int64_t cap = t->cap_node;
  if (text_grow((void **)&t->stamp, &cap, s->n_nodes, sizeof(int32_t)) < 0) return NULL;
  cap = t->cap_node;
  if (text_grow((void **)&t->loc, &cap, s->n_nodes, sizeof(int32_t)) < 0) return NULL;
  t->cap_node = cap;
  if (++t->gen == INT32_MAX) { memset(t->stamp, 0, (size_t)t->cap_node * sizeof(int32_t)); t->gen = 1; }
  t->n_loc = 0;
  /* a subterm that shares nothing, made before: its tree text (term.py's memo answers so too) */
  if (t->plain[root] && (limit < 0 || PyUnicode_GET_LENGTH(t->plain[root]) <= limit)) return Py_NewRef(t->plain[root]);
  /* the walk: distinct nodes, sources first, left to right, and how often each is used */
  int32_t walked = 0, n_order = 0;
  t->n_stack = 0;
  if (text_push(t, NULL, root, 0) < 0) return NULL;
  while (t->n_stack) {
    int32_t x = t->stack[t->n_stack - 1].node;
    uint8_t ready = t->sflag[--t->n_stack];
    int32_t i = text_loc(t, x);
    if (i < 0) return NULL;
    if (ready) { t->order[n_order++] = i; continue; }
    if (t->walked[i]) continue;
    if (limit >= 0 && walked >= limit) return text_prefix(s, t, root, limit, held);   /* more nodes than characters */
    walked++;
    t->walked[i] = 1;
    PyObject *p = text_pieces(s, t, x, held);
    if (!p) return NULL;
    t->tpl[i] = p;
    if (text_push(t, NULL, x, 1) < 0) return NULL;
    if (PyUnicode_Check(p)) continue;
    Py_ssize_t m = PyList_GET_SIZE(p);
    for (Py_ssize_t k = 0; k < m; k++) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (PyUnicode_Check(c)) continue;
      int32_t ci = text_loc(t, text_src(s, x, c));
      if (ci < 0) return NULL;
      t->uses[ci]++;
    }
    for (Py_ssize_t k = m - 1; k >= 0; k--) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (!PyUnicode_Check(c) && text_push(t, NULL, text_src(s, x, c), 0) < 0) return NULL;
    }
  }
  int32_t n_named = 0;
  for (int32_t k = 0; k < n_order; k++) {
    int32_t i = t->order[k];
    if (t->uses[i] > 1 && !PyUnicode_Check(t->tpl[i])) t->name[i] = n_named++;
  }
  if (n_named > PyList_GET_SIZE(t->names)) { PyErr_SetString(PyExc_ValueError, "text: too few let names"); return NULL; }
  int32_t ri = t->loc[root];
  PyObject *text = NULL;
  if (!n_named) {   /* nothing shared: the tree text, each subterm's kept */
    t->needed[ri] = 1;
    for (int32_t k = n_order - 1; k >= 0; k--) {   /* users before sources: what the root's text needs */
      int32_t i = t->order[k];
      if (!t->needed[i] || PyUnicode_Check(t->tpl[i])) continue;
      if ((t->txt[i] = t->plain[t->node[i]])) continue;
      PyObject *p = t->tpl[i];
      for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p); j++) {
        PyObject *c = PyList_GET_ITEM(p, j);
        if (!PyUnicode_Check(c)) t->needed[t->loc[text_src(s, t->node[i], c)]] = 1;
      }
    }
    for (int32_t k = 0; k < n_order; k++) {   /* sources before users: each needed text from its sources' */
      int32_t i = t->order[k];
      if (!t->needed[i] || t->txt[i]) continue;
      PyObject *p = t->tpl[i];
      if (PyUnicode_Check(p)) { t->txt[i] = p; continue; }
      PyObject *bits = PyList_New(PyList_GET_SIZE(p));
      if (!bits) return NULL;
      for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p); j++) {
        PyObject *c = PyList_GET_ITEM(p, j);
        PyObject *b = PyUnicode_Check(c) ? c : t->txt[t->loc[text_src(s, t->node[i], c)]];
        PyList_SET_ITEM(bits, j, Py_NewRef(b));
      }
      PyObject *made = text_join(bits);
      Py_DECREF(bits);
      if (!made) return NULL;
      if (i == ri) { text = made; break; }   /* the root's: not kept (a state's graph is seldom another's subterm) */
      t->plain[t->node[i]] = made;   /* the cache's reference */
      t->txt[i] = made;
      t->chars += PyUnicode_GET_LENGTH(made);
    }
    if (!text) text = Py_NewRef(t->txt[ri]);   /* a leaf, or kept */
  } else {
    for (int32_t k = 0; k < n_order; k++) {   /* the subterms with a named node in them are written piece by piece */
      int32_t i = t->order[k];
      if (t->name[i] >= 0) { t->naming[i] = 1; continue; }
      PyObject *p = t->tpl[i];
      if (PyUnicode_Check(p)) continue;
      for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p) && !t->naming[i]; j++) {
        PyObject *c = PyList_GET_ITEM(p, j);
        if (!PyUnicode_Check(c) && t->naming[t->loc[text_src(s, t->node[i], c)]]) t->naming[i] = 1;
      }
    }
    static PyObject *let_s = NULL, *eq_s = NULL, *comma_s = NULL, *in_s = NULL;
    if (!let_s && !(let_s = PyUnicode_FromString("let "))) return NULL;
    if (!eq_s && !(eq_s = PyUnicode_FromString(" = "))) return NULL;
    if (!comma_s && !(comma_s = PyUnicode_FromString(", "))) return NULL;
    if (!in_s && !(in_s = PyUnicode_FromString(" in "))) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    int ok = PyList_Append(out, let_s) == 0, first = 1;
    for (int32_t k = 0; k < n_order && ok; k++) {
      int32_t i = t->order[k];
      if (t->name[i] < 0) continue;
      if (!first && PyList_Append(out, comma_s) < 0) ok = 0;
      first = 0;
      if (ok && (PyList_Append(out, PyList_GET_ITEM(t->names, t->name[i])) < 0 || PyList_Append(out, eq_s) < 0)) ok = 0;
      if (ok && text_inline(s, t, i, 1, out) < 0) ok = 0;
    }
    if (ok && PyList_Append(out, in_s) < 0) ok = 0;
    if (ok && text_inline(s, t, ri, 0, out) < 0) ok = 0;
    if (ok) text = text_join(out);
    Py_DECREF(out);
    if (!text) return NULL;
  }
  if (limit >= 0 && PyUnicode_GET_LENGTH(text) > limit) {   /* too long: the tree's prefix, as show */
    Py_DECREF(text);
    return text_prefix(s, t, root, limit, held);
  }
  return text;
}

/* text(node, limit=None) -> uopc.term.show of the node's UOp (a label of at most limit characters); node: an id, or a
   UOp bound to one (None if it is not) */
static PyObject *Space_text(Space *s, PyObject *args) {
  PyObject *which, *lim = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &which, &lim)) return NULL;
  struct SpaceText *t = s->text;
  if (!t) { PyErr_SetString(PyExc_RuntimeError, "text: text_setup() first"); return NULL; }
  long root;
  if (PyLong_Check(which)) {
    root = PyLong_AsLong(which);
    if (root == -1 && PyErr_Occurred()) return NULL;
  } else if ((root = map_get(&s->ptrs, (uint64_t)(uintptr_t)which, -1)) < 0) Py_RETURN_NONE;
  if (root < 0 || root >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  Py_ssize_t limit = -1;
  if (lim != Py_None && ((limit = PyLong_AsSsize_t(lim)) < 0)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "text: limit >= 0");
    return NULL;
  }
  if (t->busy) { PyErr_SetString(PyExc_RuntimeError, "text: called from its own pieces()"); return NULL; }
  t->busy = 1;
  PyObject *held = NULL;
  PyObject *r = text_of(s, t, (int32_t)root, limit, &held);
  t->busy = 0;
  Py_XDECREF(held);
  return r;
}
