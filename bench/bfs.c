/* A plain breadth-first search over a term rewriting system's states, in C: the baseline of bench/maude.py's "C BFS" column.
 * Terms are hash consed (a node is op, left, right: op 0 a leaf), a state is its root; every rule at every position
 * (tree semantics) rewrites one occurrence; seen states in an open-addressing set. stdin: the rules, a line each,
 * "lhs => rhs" in prefix form (add(X, c(0)) => X: capitals are variables), then "program", then the program's term.
 * stdout: "states seconds" (CPU time of the search alone). Compiled by the bench with gcc -O2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef struct { int op, a, b; } N;
static N *nd; static int nn, cn, *tab, tcap = 1 << 22;
static unsigned hsh(int op, int a, int b) { unsigned long long h = (op * 0x9E3779B97F4A7C15ULL) ^ (a * 0xC2B2AE3D27D4EB4FULL) ^ (b * 0x165667B19E3779F9ULL); return (unsigned)(h ^ h >> 29); }
static int mk(int op, int a, int b) {
  if (nn * 2 >= tcap) { free(tab); tcap *= 2; tab = malloc(sizeof(int) * tcap); memset(tab, -1, sizeof(int) * tcap);
    for (int i = 0; i < nn; i++) { unsigned j = hsh(nd[i].op, nd[i].a, nd[i].b) & (tcap - 1); while (tab[j] >= 0) j = (j + 1) & (tcap - 1); tab[j] = i; } }
  unsigned j = hsh(op, a, b) & (tcap - 1);
  for (; tab[j] >= 0; j = (j + 1) & (tcap - 1)) { N *x = nd + tab[j]; if (x->op == op && x->a == a && x->b == b) return tab[j]; }
  if (nn == cn) nd = realloc(nd, sizeof(N) * (cn = cn ? 2 * cn : 1 << 16));
  nd[nn] = (N){op, a, b}; return tab[j] = nn++;
}
/* ops: 1 add, 2 mul, 3 p(k) (a = k), 4 c(k); a variable in a rule is op -1, a = its letter */
static const char *cur;
static int parse(void) {
  while (*cur == ' ') cur++;
  if (*cur >= 'A' && *cur <= 'Z') return mk(-1, *cur++, 0);
  int op = !strncmp(cur, "add", 3) ? 1 : !strncmp(cur, "mul", 3) ? 2 : *cur == 'p' ? 3 : 4;
  cur = strchr(cur, '(') + 1;
  if (op >= 3) { int k = (int)strtol(cur, (char **)&cur, 10); cur++; return mk(op, k, 0); }
  int a = parse(); cur++; int b = parse(); cur++; return mk(op, a, b);
}
static int lhs[64], rhs[64], nr, env[128];
static int match(int p, int t) {
  N P = nd[p];
  if (P.op == -1) { if (env[P.a] >= 0) return env[P.a] == t; env[P.a] = t; return 1; }
  return P.op == nd[t].op && (P.op >= 3 ? P.a == nd[t].a : match(P.a, nd[t].a) && match(P.b, nd[t].b));
}
static int build(int p) { N P = nd[p]; return P.op == -1 ? env[P.a] : P.op >= 3 ? p : mk(P.op, build(P.a), build(P.b)); }
static int *out; static int no, co;
static void push(int t) { if (no == co) out = realloc(out, sizeof(int) * (co = co ? 2 * co : 1024)); out[no++] = t; }
static void succ(int t) {   /* every one-step rewrite of t, appended to out */
  for (int r = 0; r < nr; r++) { memset(env, -1, sizeof env); if (match(lhs[r], t)) push(build(rhs[r])); }
  N T = nd[t];
  if (T.op != 1 && T.op != 2) return;
  int from = no; succ(T.a);
  for (int i = from, to = no; i < to; i++) out[i] = mk(T.op, out[i], T.b);
  from = no; succ(T.b);
  for (int i = from, to = no; i < to; i++) out[i] = mk(T.op, T.a, out[i]);
}
int main(void) {
  static char line[1 << 20];
  tab = malloc(sizeof(int) * tcap); memset(tab, -1, sizeof(int) * tcap);
  while (fgets(line, sizeof line, stdin) && strncmp(line, "program", 7)) { cur = line; lhs[nr] = parse(); cur = strstr(cur, "=>") + 2; rhs[nr++] = parse(); }
  if (!fgets(line, sizeof line, stdin)) return 1;
  cur = line; int root = parse();
  clock_t t0 = clock();
  int scap = 1 << 20, *seen = malloc(sizeof(int) * scap), *queue = malloc(sizeof(int) * scap), head = 0, tail = 0;
  memset(seen, -1, sizeof(int) * scap);
  for (queue[tail++] = root, seen[(unsigned)root * 2654435761u & (scap - 1)] = root; head < tail; head++) {
    no = 0; succ(queue[head]);
    for (int i = 0; i < no; i++) {
      unsigned j = (unsigned)out[i] * 2654435761u & (scap - 1);
      while (seen[j] >= 0 && seen[j] != out[i]) j = (j + 1) & (scap - 1);
      if (seen[j] >= 0) continue;
      seen[j] = out[i]; queue[tail++] = out[i];
      if (tail * 2 >= scap) {   /* grow the set (and the queue with it) */
        int c2 = scap * 2, *s2 = malloc(sizeof(int) * c2); memset(s2, -1, sizeof(int) * c2);
        for (int k = 0; k < scap; k++) if (seen[k] >= 0) { unsigned q = (unsigned)seen[k] * 2654435761u & (c2 - 1); while (s2[q] >= 0) q = (q + 1) & (c2 - 1); s2[q] = seen[k]; }
        free(seen); seen = s2; scap = c2; queue = realloc(queue, sizeof(int) * scap);
      }
    }
  }
  printf("%d %.6f\n", tail, (double)(clock() - t0) / CLOCKS_PER_SEC);
  return 0;
}
