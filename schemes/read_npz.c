/* AlphaTensor's .npz scheme files (docs/formats.md, "AlphaTensor .npz").
 *
 * np.savez writes a zip of .npy members.  AlphaTensor's member "N,M,P.npy"
 * holds the factors u (N*M x R), v (M*P x R), w (P*N x R) of a scheme of
 * <N,M,P>, in the convention of the notebook that comes with them (Fawzi et
 * al., "Discovering faster matrix multiplication algorithms with reinforcement
 * learning", 2022): T[i*M+j][j*P+k][k*N+i] = 1, which is ours (a: i*m+j,
 * b: j*p+k, c: k*n+i, the third factor transposed).  Where the three sizes
 * agree the member is one (3, E, R) array; elsewhere NumPy could not stack
 * them and pickled an object array of three (E, R) arrays.  Those pickles are
 * read by a small interpreter of the opcodes NumPy's pickles use, which knows
 * only NumPy's array and dtype reconstructors and builds data, never objects of
 * the program: nothing in a file is run. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#if FLIPGRAPH_HAVE_ZIP
#include <zip.h>
#endif

#include "scheme.h"

#define NPZ_MAX_MEMBER_BYTES ((uint64_t)SCHEME_MAX_FILE_BYTES)
#define NPZ_MAX_TOTAL_BYTES (1ull << 30) /* uncompressed, all members: zip bombs stop here */
#define NPZ_MAX_MEMBERS 4096
#define PK_MAX_OBJECTS (1 << 20)
#define PK_MAX_MEMO (1 << 16)

static bool zfail(scheme_diag *d, const char *name, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool zfail(scheme_diag *d, const char *name, const char *member, const char *fmt, ...)
{
    if (!d)
        return false;
    char m[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    if (member)
        scheme_diag_set(d, name, "member '%s': %s", member, m);
    else
        scheme_diag_set(d, name, "%s", m);
    return false;
}

bool scheme_is_npz(const void *buf, size_t len)
{
    const unsigned char *b = buf;
    return len >= 4 && b[0] == 'P' && b[1] == 'K' &&
           ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6));
}

#if FLIPGRAPH_HAVE_ZIP
/* ---- arrays ------------------------------------------------------------ */

/* A typed view of an array's entries (never a copy). */
typedef struct npz_arr {
    char kind;  /* 'i', 'u', 'b', 'f' */
    int size;   /* bytes per entry */
    bool fortran;
    int ndim;
    uint64_t shape[SCHEME_NPY_MAX_DIMS];
    const unsigned char *data;
    uint64_t nbytes;
} npz_arr;

/* "<i8", "|u1", "<f8", "i4", "|b1", "=i8" (little-endian hosts only); false for
 * anything else, with the reason in why. */
static bool dtype_parse(const char *descr, npz_arr *a, char *why, size_t wl)
{
    const char *p = descr;
    char order = 0;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        order = *p++;
    char kind = *p++;
    if (kind != 'i' && kind != 'u' && kind != 'b' && kind != 'f') {
        snprintf(why, wl, "dtype '%s', expected integers ('<i8', '<i4', '|i1', ...) or floats with "
                 "integral values ('<f8', '<f4')%s", descr,
                 kind == 'O' ? " (an object array holds only the three factors, one level deep)" : "");
        return false;
    }
    int size = 0;
    while (*p >= '0' && *p <= '9' && size < 100)
        size = size * 10 + (*p++ - '0');
    if (*p || !(size == 1 || size == 2 || size == 4 || size == 8) || (kind == 'b' && size != 1) ||
        (kind == 'f' && size != 4 && size != 8)) {
        snprintf(why, wl, "dtype '%s', expected integers ('<i8', '<i4', '|i1', ...) or floats with "
                 "integral values ('<f8', '<f4')", descr);
        return false;
    }
    if (order == '>' && size > 1) {
        snprintf(why, wl, "dtype '%s' is big-endian, expected little-endian ('<')", descr);
        return false;
    }
    a->kind = kind;
    a->size = size;
    return true;
}

/* Entry number flat (in storage order) as an integer; false when a float is
 * not an integer or is out of range. */
static bool arr_get(const npz_arr *a, uint64_t flat, int64_t *v, double *bad)
{
    const unsigned char *q = a->data + flat * (uint64_t)a->size;
    switch (a->kind) {
    case 'b':
        *v = q[0] != 0;
        return true;
    case 'i':
        if (a->size == 1) { int8_t x; memcpy(&x, q, 1); *v = x; }
        else if (a->size == 2) { int16_t x; memcpy(&x, q, 2); *v = x; }
        else if (a->size == 4) { int32_t x; memcpy(&x, q, 4); *v = x; }
        else { int64_t x; memcpy(&x, q, 8); *v = x; }
        return true;
    case 'u':
        if (a->size == 1) { uint8_t x; memcpy(&x, q, 1); *v = x; }
        else if (a->size == 2) { uint16_t x; memcpy(&x, q, 2); *v = x; }
        else if (a->size == 4) { uint32_t x; memcpy(&x, q, 4); *v = x; }
        else { uint64_t x; memcpy(&x, q, 8); *v = x > INT64_MAX ? INT64_MAX : (int64_t)x; }
        return true;
    default: {
        double x;
        if (a->size == 4) { float f; memcpy(&f, q, 4); x = f; }
        else memcpy(&x, q, 8);
        if (!(x >= -1e15 && x <= 1e15) || x != (double)(int64_t)x) {
            *bad = x;
            return false;
        }
        *v = (int64_t)x;
        return true;
    }
    }
}

/* ---- the pickle interpreter --------------------------------------------- */

enum { PK_NONE, PK_BOOL, PK_INT, PK_STR, PK_BYTES, PK_TUPLE, PK_LIST, PK_GLOBAL, PK_REDUCED, PK_MARK };
enum { G_RECONSTRUCT = 1, G_NDARRAY, G_DTYPE };

typedef struct pk_obj {
    int t;
    int64_t i;                /* int, bool; global: G_* */
    const unsigned char *p;   /* str, bytes */
    size_t n;
    struct pk_obj **items;    /* tuple, list */
    int nitems, cap;
    struct pk_obj *fn, *args; /* reduced: fn(*args) */
    struct pk_obj *state;     /* reduced: BUILD's state */
} pk_obj;

typedef struct pk_vm {
    const unsigned char *b;
    size_t len, pos;
    size_t base; /* the pickle's offset in its member, for messages */
    pk_obj **all;
    int nall, capall;
    pk_obj **stack;
    int sp, capstack;
    pk_obj **memo;
    int nmemo;
    long nitems; /* items in all tuples and lists: 2-byte memo gets could
                    otherwise make a 64 MiB member hold gigabytes of them */
    char err[300];
} pk_vm;

static pk_obj pk_mark_obj = {.t = PK_MARK};
#define PK_NOWHERE ((size_t)-1) /* a finding about the built objects, not one opcode */

static bool pk_fail(pk_vm *v, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pk_fail(pk_vm *v, size_t at, const char *fmt, ...)
{
    char m[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    if (at == PK_NOWHERE)
        snprintf(v->err, sizeof v->err, "in its pickle: %s", m);
    else
        snprintf(v->err, sizeof v->err, "byte %zu (in its pickle): %s", v->base + at, m);
    return false;
}

static pk_obj *pk_new(pk_vm *v, int t)
{
    if (v->nall == PK_MAX_OBJECTS)
        return NULL;
    if (v->nall == v->capall) {
        int nc = v->capall ? 2 * v->capall : 64;
        pk_obj **na = realloc(v->all, sizeof *na * (size_t)nc);
        if (!na)
            return NULL;
        v->all = na;
        v->capall = nc;
    }
    pk_obj *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->t = t;
    v->all[v->nall++] = o;
    return o;
}

static bool pk_push(pk_vm *v, pk_obj *o)
{
    if (!o)
        return pk_fail(v, v->pos, "more than %d objects (or out of memory)", PK_MAX_OBJECTS);
    if (v->sp == v->capstack) {
        if (v->capstack >= PK_MAX_OBJECTS)
            return pk_fail(v, v->pos, "the stack grows beyond %d entries", PK_MAX_OBJECTS);
        int nc = v->capstack ? 2 * v->capstack : 64;
        pk_obj **ns = realloc(v->stack, sizeof *ns * (size_t)nc);
        if (!ns)
            return pk_fail(v, v->pos, "out of memory");
        v->stack = ns;
        v->capstack = nc;
    }
    v->stack[v->sp++] = o;
    return true;
}

static pk_obj *pk_pop(pk_vm *v, size_t at)
{
    if (v->sp == 0 || v->stack[v->sp - 1] == &pk_mark_obj) {
        pk_fail(v, at, "the stack is empty where an object was expected");
        return NULL;
    }
    return v->stack[--v->sp];
}

/* Index of the topmost MARK, or -1. */
static int pk_mark(pk_vm *v)
{
    for (int k = v->sp - 1; k >= 0; k--)
        if (v->stack[k] == &pk_mark_obj)
            return k;
    return -1;
}

static bool pk_append(pk_vm *v, pk_obj *l, pk_obj *x)
{
    if (v->nitems >= PK_MAX_OBJECTS)
        return false;
    v->nitems++;
    if (l->nitems == l->cap) {
        int nc = l->cap ? 2 * l->cap : 4;
        pk_obj **ni = realloc(l->items, sizeof *ni * (size_t)nc);
        if (!ni)
            return false;
        l->items = ni;
        l->cap = nc;
    }
    l->items[l->nitems++] = x;
    return true;
}

/* A tuple of the top k objects. */
static bool pk_tuple(pk_vm *v, int from, size_t at)
{
    pk_obj *t = pk_new(v, PK_TUPLE);
    if (!t)
        return pk_fail(v, at, "out of memory");
    for (int k = from; k < v->sp; k++)
        if (!pk_append(v, t, v->stack[k]))
            return pk_fail(v, at, "more than %d items in tuples and lists (or out of memory)", PK_MAX_OBJECTS);
    v->sp = from;
    return pk_push(v, t);
}

static bool pk_need(pk_vm *v, size_t n)
{
    if (v->len - v->pos < n)
        return pk_fail(v, v->pos, "truncated: %zu more bytes expected", n);
    return true;
}

static uint64_t pk_le(const unsigned char *q, int n)
{
    uint64_t x = 0;
    for (int k = n - 1; k >= 0; k--)
        x = x << 8 | q[k];
    return x;
}

/* The only callables a scheme file may name. */
static int pk_global_id(const char *mod, size_t ml, const char *name, size_t nl)
{
#define IS(s, l, lit) ((l) == sizeof(lit) - 1 && !memcmp((s), (lit), (l)))
    if ((IS(mod, ml, "numpy.core.multiarray") || IS(mod, ml, "numpy._core.multiarray")) &&
        IS(name, nl, "_reconstruct"))
        return G_RECONSTRUCT;
    if (IS(mod, ml, "numpy") && IS(name, nl, "ndarray"))
        return G_NDARRAY;
    if (IS(mod, ml, "numpy") && IS(name, nl, "dtype"))
        return G_DTYPE;
    return 0;
#undef IS
}

static bool pk_global(pk_vm *v, const char *mod, size_t ml, const char *name, size_t nl, size_t at)
{
    int g = pk_global_id(mod, ml, name, nl);
    if (!g)
        return pk_fail(v, at, "the pickle names '%.*s.%.*s'; only NumPy's arrays are read "
                       "(numpy.core.multiarray._reconstruct, numpy.ndarray, numpy.dtype)",
                       (int)(ml > 80 ? 80 : ml), mod, (int)(nl > 80 ? 80 : nl), name);
    pk_obj *o = pk_new(v, PK_GLOBAL);
    if (o)
        o->i = g;
    return pk_push(v, o);
}

/* Runs the pickle to its STOP; *out is the object it made. */
static bool pk_run(pk_vm *v, pk_obj **out)
{
    for (;;) {
        size_t at = v->pos;
        if (!pk_need(v, 1))
            return false;
        unsigned op = v->b[v->pos++];
        switch (op) {
        case 0x80: /* PROTO */
            if (!pk_need(v, 1))
                return false;
            if (v->b[v->pos] < 2 || v->b[v->pos] > 5)
                return pk_fail(v, at, "pickle protocol %u, expected 2 .. 5", v->b[v->pos]);
            v->pos++;
            break;
        case 0x95: /* FRAME: a length hint */
            if (!pk_need(v, 8))
                return false;
            v->pos += 8;
            break;
        case 'c': { /* GLOBAL "module\nname\n" */
            const char *s = (const char *)v->b + v->pos;
            const char *nl1 = memchr(s, '\n', v->len - v->pos);
            const char *nl2 = nl1 ? memchr(nl1 + 1, '\n', v->len - v->pos - (size_t)(nl1 + 1 - s)) : NULL;
            if (!nl2)
                return pk_fail(v, at, "GLOBAL without its two lines");
            v->pos += (size_t)(nl2 + 1 - s);
            if (!pk_global(v, s, (size_t)(nl1 - s), nl1 + 1, (size_t)(nl2 - nl1 - 1), at))
                return false;
            break;
        }
        case 0x93: { /* STACK_GLOBAL */
            pk_obj *name = pk_pop(v, at), *mod = name ? pk_pop(v, at) : NULL;
            if (!mod)
                return false;
            if (mod->t != PK_STR || name->t != PK_STR)
                return pk_fail(v, at, "STACK_GLOBAL expects two strings");
            if (!pk_global(v, (const char *)mod->p, mod->n, (const char *)name->p, name->n, at))
                return false;
            break;
        }
        case 'q': case 'r': case 0x94: { /* BINPUT, LONG_BINPUT, MEMOIZE */
            uint64_t id;
            if (op == 0x94)
                id = (uint64_t)v->nmemo;
            else {
                int w = op == 'q' ? 1 : 4;
                if (!pk_need(v, (size_t)w))
                    return false;
                id = pk_le(v->b + v->pos, w);
                v->pos += (size_t)w;
            }
            if (v->sp == 0 || v->stack[v->sp - 1] == &pk_mark_obj)
                return pk_fail(v, at, "memo of an empty stack");
            if (id >= PK_MAX_MEMO)
                return pk_fail(v, at, "memo key %llu, expected below %d", (unsigned long long)id, PK_MAX_MEMO);
            if ((int)id >= v->nmemo) {
                pk_obj **nm = realloc(v->memo, sizeof *nm * (size_t)(id + 1));
                if (!nm)
                    return pk_fail(v, at, "out of memory");
                for (int k = v->nmemo; k <= (int)id; k++)
                    nm[k] = NULL;
                v->memo = nm;
                v->nmemo = (int)id + 1;
            }
            v->memo[id] = v->stack[v->sp - 1];
            break;
        }
        case 'h': case 'j': { /* BINGET, LONG_BINGET */
            int w = op == 'h' ? 1 : 4;
            if (!pk_need(v, (size_t)w))
                return false;
            uint64_t id = pk_le(v->b + v->pos, w);
            v->pos += (size_t)w;
            if (id >= (uint64_t)v->nmemo || !v->memo[id])
                return pk_fail(v, at, "memo key %llu was never stored", (unsigned long long)id);
            if (!pk_push(v, v->memo[id]))
                return false;
            break;
        }
        case 'K': case 'M': case 'J': { /* BININT1, BININT2, BININT */
            int w = op == 'K' ? 1 : op == 'M' ? 2 : 4;
            if (!pk_need(v, (size_t)w))
                return false;
            uint64_t x = pk_le(v->b + v->pos, w);
            v->pos += (size_t)w;
            pk_obj *o = pk_new(v, PK_INT);
            if (o)
                o->i = op == 'J' ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
            if (!pk_push(v, o))
                return false;
            break;
        }
        case 'N': case 0x88: case 0x89: {
            pk_obj *o = pk_new(v, op == 'N' ? PK_NONE : PK_BOOL);
            if (o)
                o->i = op == 0x88;
            if (!pk_push(v, o))
                return false;
            break;
        }
        case 'X': case 0x8c: case 'C': case 'B': case 0x8e: { /* strings and bytes */
            int w = op == 0x8c || op == 'C' ? 1 : op == 0x8e ? 8 : 4;
            if (!pk_need(v, (size_t)w))
                return false;
            uint64_t n = pk_le(v->b + v->pos, w);
            v->pos += (size_t)w;
            if (n > v->len - v->pos)
                return pk_fail(v, at, "a string of %llu bytes where %zu remain", (unsigned long long)n,
                               v->len - v->pos);
            pk_obj *o = pk_new(v, op == 'X' || op == 0x8c ? PK_STR : PK_BYTES);
            if (o) {
                o->p = v->b + v->pos;
                o->n = (size_t)n;
            }
            v->pos += (size_t)n;
            if (!pk_push(v, o))
                return false;
            break;
        }
        case '(':
            if (!pk_push(v, &pk_mark_obj))
                return false;
            break;
        case 't': {
            int m = pk_mark(v);
            if (m < 0)
                return pk_fail(v, at, "TUPLE without a MARK");
            memmove(v->stack + m, v->stack + m + 1, sizeof *v->stack * (size_t)(v->sp - m - 1));
            v->sp--;
            if (!pk_tuple(v, m, at))
                return false;
            break;
        }
        case ')': case 0x85: case 0x86: case 0x87: {
            int k = op == ')' ? 0 : (int)(op - 0x84);
            for (int q = 0; q < k; q++)
                if (v->sp - 1 - q < 0 || v->stack[v->sp - 1 - q] == &pk_mark_obj)
                    return pk_fail(v, at, "TUPLE%d of fewer than %d objects", k, k);
            if (!pk_tuple(v, v->sp - k, at))
                return false;
            break;
        }
        case ']':
            if (!pk_push(v, pk_new(v, PK_LIST)))
                return false;
            break;
        case 'a': case 'e': { /* APPEND, APPENDS */
            int from = v->sp - 1;
            if (op == 'e') {
                from = pk_mark(v);
                if (from < 0)
                    return pk_fail(v, at, "APPENDS without a MARK");
            }
            int li = from - 1;
            if (li < 0 || v->stack[li]->t != PK_LIST)
                return pk_fail(v, at, "APPEND to something that is not a list");
            for (int k = op == 'e' ? from + 1 : from; k < v->sp; k++)
                if (!pk_append(v, v->stack[li], v->stack[k]))
                    return pk_fail(v, at, "more than %d items in tuples and lists (or out of memory)",
                                   PK_MAX_OBJECTS);
            v->sp = li + 1;
            break;
        }
        case 'R': { /* REDUCE: fn(*args), recorded, never called */
            pk_obj *args = pk_pop(v, at), *fn = args ? pk_pop(v, at) : NULL;
            if (!fn)
                return false;
            if (fn->t != PK_GLOBAL || args->t != PK_TUPLE)
                return pk_fail(v, at, "REDUCE of something other than a NumPy reconstructor");
            pk_obj *o = pk_new(v, PK_REDUCED);
            if (o) {
                o->fn = fn;
                o->args = args;
            }
            if (!pk_push(v, o))
                return false;
            break;
        }
        case 'b': { /* BUILD: obj.__setstate__(state), recorded */
            pk_obj *state = pk_pop(v, at);
            if (!state)
                return false;
            if (v->sp == 0 || v->stack[v->sp - 1]->t != PK_REDUCED || v->stack[v->sp - 1]->state)
                return pk_fail(v, at, "BUILD of something other than a new NumPy array or dtype");
            v->stack[v->sp - 1]->state = state;
            break;
        }
        case '.':
            if (v->sp != 1 || v->stack[0] == &pk_mark_obj)
                return pk_fail(v, at, "STOP with %d objects on the stack, expected one", v->sp);
            *out = v->stack[0];
            return true;
        default:
            return pk_fail(v, at, "opcode 0x%02x is not one of those NumPy's array pickles use", op);
        }
    }
}

static void pk_free(pk_vm *v)
{
    for (int k = 0; k < v->nall; k++) {
        free(v->all[k]->items);
        free(v->all[k]);
    }
    free(v->all);
    free(v->stack);
    free(v->memo);
}

/* A reduced numpy.dtype('i8', False, True) with state (3, '<', ...): its
 * descr as a .npy header would write it. */
static bool pk_dtype(pk_vm *v, const pk_obj *o, char *descr, size_t dl)
{
    if (o->t != PK_REDUCED || o->fn->i != G_DTYPE || o->args->nitems < 1 || o->args->items[0]->t != PK_STR ||
        o->args->items[0]->n == 0 || o->args->items[0]->n > 8)
        return pk_fail(v, PK_NOWHERE, "expected a numpy.dtype of a type name such as 'i8'");
    char order = '|';
    if (o->state && o->state->t == PK_TUPLE && o->state->nitems >= 2 && o->state->items[1]->t == PK_STR &&
        o->state->items[1]->n == 1)
        order = (char)o->state->items[1]->p[0];
    snprintf(descr, dl, "%c%.*s", order, (int)o->args->items[0]->n, (const char *)o->args->items[0]->p);
    return true;
}

/* A reduced _reconstruct(ndarray, (0,), b'b') with its BUILD state
 * (version, shape, dtype, fortran, data); data is bytes, or a list for an
 * object array (*list then). */
static bool pk_array(pk_vm *v, const pk_obj *o, npz_arr *a, const pk_obj **list, char *descr, size_t dl)
{
    if (o->t != PK_REDUCED || o->fn->i != G_RECONSTRUCT || o->args->nitems < 1 ||
        o->args->items[0]->t != PK_GLOBAL || o->args->items[0]->i != G_NDARRAY)
        return pk_fail(v, PK_NOWHERE, "expected a pickled numpy.ndarray");
    const pk_obj *st = o->state;
    if (!st || st->t != PK_TUPLE || st->nitems != 5 || st->items[1]->t != PK_TUPLE ||
        st->items[3]->t != PK_BOOL)
        return pk_fail(v, PK_NOWHERE, "a numpy.ndarray without its state (version, shape, dtype, fortran, data)");
    const pk_obj *shape = st->items[1];
    if (shape->nitems > SCHEME_NPY_MAX_DIMS)
        return pk_fail(v, PK_NOWHERE, "an array of %d dimensions", shape->nitems);
    memset(a, 0, sizeof *a);
    a->ndim = shape->nitems;
    for (int k = 0; k < a->ndim; k++) {
        if (shape->items[k]->t != PK_INT || shape->items[k]->i < 0)
            return pk_fail(v, PK_NOWHERE, "a shape that is not a tuple of sizes");
        a->shape[k] = (uint64_t)shape->items[k]->i;
    }
    a->fortran = st->items[3]->i != 0;
    if (!pk_dtype(v, st->items[2], descr, dl))
        return false;
    *list = NULL;
    if (st->items[4]->t == PK_LIST)
        *list = st->items[4];
    else if (st->items[4]->t == PK_BYTES) {
        a->data = st->items[4]->p;
        a->nbytes = st->items[4]->n;
    } else
        return pk_fail(v, PK_NOWHERE, "array data that is neither bytes nor a list");
    return true;
}

/* ---- members ------------------------------------------------------------ */

typedef struct npz_member {
    const char *file, *member;
    scheme_diag *d;
} npz_member;

static uint64_t shape_count(const npz_arr *a)
{
    uint64_t n = 1;
    for (int k = 0; k < a->ndim; k++)
        n = a->shape[k] && n > UINT64_MAX / a->shape[k] ? UINT64_MAX : n * a->shape[k];
    return n;
}

/* Checks dtype and size of a numeric array (header descr, data of nbytes). */
static bool arr_check(const npz_member *m, npz_arr *a, const char *descr, const char *where)
{
    char why[300];
    if (!dtype_parse(descr, a, why, sizeof why))
        return zfail(m->d, m->file, m->member, "%s%s", where, why);
    uint64_t n = shape_count(a);
    /* n * size may wrap to the bytes present (a shape of 3 x 2^38 x 2^23
     * entries of 8 bytes wraps to 0): divide instead of multiplying */
    const bool fits = n != UINT64_MAX && n <= a->nbytes / (uint64_t)a->size;
    if (!fits || n * (uint64_t)a->size != a->nbytes)
        return zfail(m->d, m->file, m->member, "%s%llu bytes of entries, the shape and dtype '%s' need %s%llu",
                     where, (unsigned long long)a->nbytes, descr, fits ? "" : "more than ",
                     (unsigned long long)(fits ? n * (uint64_t)a->size : a->nbytes));
    return true;
}

/* The three factors as views: u[f] is entry (e, r) of factor f. */
typedef struct npz_factors {
    npz_arr a[3];      /* three 2-D arrays (E_f, R) */
    bool stacked;      /* one (3, E, R) array in a[0] */
} npz_factors;

static bool entry_of(const npz_factors *F, int f, uint64_t e, uint64_t r, int64_t *v, double *bad)
{
    const npz_arr *a = F->stacked ? &F->a[0] : &F->a[f];
    uint64_t E = F->stacked ? a->shape[1] : a->shape[0], R = F->stacked ? a->shape[2] : a->shape[1];
    uint64_t flat;
    if (F->stacked)
        flat = a->fortran ? (uint64_t)f + 3 * (e + E * r) : ((uint64_t)f * E + e) * R + r;
    else
        flat = a->fortran ? e + E * r : e * R + r;
    return arr_get(a, flat, v, bad);
}

/* Member name "N,M,P.npy" -> key and format. */
static bool key_parse(const npz_member *m, scheme_npz_entry *e)
{
    const char *nm = m->member;
    size_t l = strlen(nm);
    if (l < 5 || strcmp(nm + l - 4, ".npy") != 0 || l - 4 >= sizeof e->key)
        return zfail(m->d, m->file, m->member, "expected a .npy array named N,M,P.npy (the format "
                     "of its scheme, as AlphaTensor names them)");
    memcpy(e->key, nm, l - 4);
    e->key[l - 4] = 0;
    /* Three positive decimal numbers joined by commas, nothing else. */
    int dim[3] = {0, 0, 0}, k = 0;
    bool ok = true;
    for (const char *q = e->key; ok; q++) {
        if (*q >= '0' && *q <= '9') {
            ok = dim[k] <= 100000;
            dim[k] = dim[k] * 10 + (*q - '0');
        } else if (*q == ',' && k < 2 && q > e->key && q[-1] != ',')
            k++;
        else {
            ok = *q == 0 && k == 2 && q > e->key && q[-1] != ',';
            break;
        }
    }
    int n = dim[0], mm = dim[1], p = dim[2];
    if (!ok || n < 1 || mm < 1 || p < 1)
        return zfail(m->d, m->file, m->member, "expected a .npy array named N,M,P.npy (N, M, P "
                     "positive: the format of its scheme, as AlphaTensor names them)");
    e->fmt = (scheme_format){n, mm, p};
    return true;
}

/* Builds the scheme of one member from its factors (shapes already checked). */
static bool build_scheme(const npz_member *m, const npz_factors *F, scheme_npz_entry *e)
{
    scheme_format f = e->fmt;
    uint64_t E[3] = {(uint64_t)f.n * f.m, (uint64_t)f.m * f.p, (uint64_t)f.p * f.n};
    int64_t lo = 0, hi = 0;
    uint64_t R = (uint64_t)e->rank;
    bool fraction = false;
    double frac_v = 0;
    uint64_t frac_at[3] = {0, 0, 0};
    /* One pass for the range (ring and limits) over every entry, so that a
     * NaN is refused even in a member that is skipped.  AlphaTensor's schemes
     * over R include some with fractions (0.5 in <3,4,11>): valid over the
     * rationals, beyond flipgraph's integer schemes, so skipped, not refused. */
    for (int pos = 0; pos < 3; pos++)
        for (uint64_t x = 0; x < E[pos]; x++)
            for (uint64_t r = 0; r < R; r++) {
                int64_t v;
                double bad;
                if (!entry_of(F, pos, x, r, &v, &bad)) {
                    if (!(bad - bad == 0))
                        return zfail(m->d, m->file, m->member, "factor %c, entry (%llu, %llu) is %g, "
                                     "expected a finite number", "uvw"[pos], (unsigned long long)x,
                                     (unsigned long long)r, bad);
                    if (!fraction) {
                        fraction = true;
                        frac_v = bad;
                        frac_at[0] = (uint64_t)pos;
                        frac_at[1] = x;
                        frac_at[2] = r;
                    }
                    continue;
                }
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
    char fb[32];
    if (fraction) {
        snprintf(e->skipped, sizeof e->skipped, "factor %c, entry (%llu, %llu) is %.17g: a scheme "
                 "with fractions, which flipgraph's integer schemes cannot hold", "uvw"[frac_at[0]],
                 (unsigned long long)frac_at[1], (unsigned long long)frac_at[2], frac_v);
        return true;
    }
    if (!scheme_format_valid(f)) {
        snprintf(e->skipped, sizeof e->skipped, "%s has factors of %llu, %llu and %llu entries; "
                 "flipgraph's schemes hold at most %d", scheme_format_str(f, fb), (unsigned long long)E[0],
                 (unsigned long long)E[1], (unsigned long long)E[2], SCHEME_MAX_ENTRIES);
        return true;
    }
    if (e->rank > SCHEME_MAX_RANK) {
        snprintf(e->skipped, sizeof e->skipped, "rank %d is above flipgraph's limit of %d", e->rank,
                 SCHEME_MAX_RANK);
        return true;
    }
    if (lo < -128 || hi > 127) {
        snprintf(e->skipped, sizeof e->skipped, "coefficient %lld is outside int8 (-128..127), "
                 "flipgraph's integer coefficients", (long long)(lo < -128 ? lo : hi));
        return true;
    }
    scheme_ring ring = lo < 0 || hi > 1 ? SCHEME_RING_Z : SCHEME_RING_F2;
    scheme *s = scheme_new(f, ring, e->rank);
    if (!s)
        return zfail(m->d, m->file, m->member, "out of memory");
    for (uint64_t r = 0; r < R; r++) {
        scheme_zterm z;
        memset(&z, 0, sizeof z);
        for (int pos = 0; pos < 3; pos++) {
            bool any = false;
            for (uint64_t x = 0; x < E[pos]; x++) {
                int64_t v = 0;
                double bad = 0;
                entry_of(F, pos, x, r, &v, &bad);
                z.z[pos][x] = (int8_t)v;
                any |= v != 0;
            }
            if (!any) {
                scheme_free(s);
                return zfail(m->d, m->file, m->member, "column %llu (a term): factor %c is zero (not a rank-one term)",
                             (unsigned long long)r, "uvw"[pos]);
            }
        }
        bool ok;
        if (ring == SCHEME_RING_Z)
            ok = scheme_push_z(s, &z);
        else {
            uint64_t w[3] = {0, 0, 0};
            for (int pos = 0; pos < 3; pos++)
                for (uint64_t x = 0; x < E[pos]; x++)
                    if (z.z[pos][x])
                        w[pos] |= 1ull << x;
            ok = scheme_push(s, w[0], w[1], w[2]);
        }
        if (!ok) {
            scheme_free(s);
            return zfail(m->d, m->file, m->member, "out of memory");
        }
    }
    e->s = s;
    return true;
}

/* One member's bytes -> entry. */
static bool read_member(const npz_member *m, const unsigned char *buf, size_t len, scheme_npz_entry *e)
{
    if (!key_parse(m, e))
        return false;
    scheme_npy_header h;
    scheme_diag hd;
    memset(&hd, 0, sizeof hd);
    if (!scheme_npy_header_parse(buf, len, m->member, &h, &hd))
        return zfail(m->d, m->file, m->member, "%s", hd.msg);
    scheme_format f = e->fmt;
    uint64_t E[3] = {(uint64_t)f.n * f.m, (uint64_t)f.m * f.p, (uint64_t)f.p * f.n};
    npz_factors F;
    memset(&F, 0, sizeof F);
    const unsigned char *data = buf + h.data_offset;
    uint64_t nbytes = len - h.data_offset;
    pk_vm v;
    memset(&v, 0, sizeof v);
    bool ok = false;
    if (strcmp(h.descr, "|O") != 0 && strcmp(h.descr, "O") != 0) {
        npz_arr *a = &F.a[0];
        F.stacked = true;
        a->ndim = h.ndim;
        memcpy(a->shape, h.shape, sizeof a->shape);
        a->fortran = h.fortran;
        a->data = data;
        a->nbytes = nbytes;
        if (!arr_check(m, a, h.descr, ""))
            return false;
        if (h.ndim != 3 || h.shape[0] != 3 || h.shape[1] != E[0] || E[0] != E[1] || E[1] != E[2])
            return zfail(m->d, m->file, m->member, "byte %zu of the .npy header: a shape of %d dimensions "
                         "(%llu, %llu, ...), expected (3, %llu, R) for <%d,%d,%d>%s", h.shape_at, h.ndim,
                         (unsigned long long)(h.ndim > 0 ? h.shape[0] : 0),
                         (unsigned long long)(h.ndim > 1 ? h.shape[1] : 0), (unsigned long long)E[0],
                         f.n, f.m, f.p, E[0] == E[1] && E[1] == E[2] ? "" :
                         " (factors of different sizes come as an object array of three)");
        if (h.shape[2] < 1 || h.shape[2] > INT32_MAX)
            return zfail(m->d, m->file, m->member, "rank %llu, expected at least 1 term",
                         (unsigned long long)h.shape[2]);
        e->rank = (int)h.shape[2];
        return build_scheme(m, &F, e);
    }
    /* An object array of three factors, pickled. */
    if (h.ndim != 1 || h.shape[0] != 3)
        return zfail(m->d, m->file, m->member, "byte %zu of the .npy header: an object array of "
                     "%d dimensions, expected shape (3,): the factors u, v, w", h.shape_at, h.ndim);
    v.b = data;
    v.len = (size_t)nbytes;
    v.base = h.data_offset;
    pk_obj *top = NULL;
    const pk_obj *list = NULL;
    char descr[32];
    npz_arr outer;
    if (!pk_run(&v, &top) || !pk_array(&v, top, &outer, &list, descr, sizeof descr)) {
        zfail(m->d, m->file, m->member, "%s", v.err);
        goto out;
    }
    if (!list || list->nitems != 3 || outer.ndim != 1 || outer.shape[0] != 3) {
        zfail(m->d, m->file, m->member, "the pickle holds no object array of three factors");
        goto out;
    }
    for (int pos = 0; pos < 3; pos++) {
        const pk_obj *sub = NULL;
        char where[64];
        snprintf(where, sizeof where, "factor %c: ", "uvw"[pos]);
        if (!pk_array(&v, list->items[pos], &F.a[pos], &sub, descr, sizeof descr) || sub) {
            zfail(m->d, m->file, m->member, "%s%s", where, sub ? "an object array inside the object array" : v.err);
            goto out;
        }
        if (!arr_check(m, &F.a[pos], descr, where))
            goto out;
        const npz_arr *a = &F.a[pos];
        if (a->ndim != 2 || a->shape[0] != E[pos] || a->shape[1] != F.a[0].shape[1]) {
            zfail(m->d, m->file, m->member, "%sshape (%llu%s%llu%s), expected (%llu, R) for <%d,%d,%d>%s",
                  where, (unsigned long long)(a->ndim > 0 ? a->shape[0] : 0), a->ndim > 1 ? ", " : "",
                  (unsigned long long)(a->ndim > 1 ? a->shape[1] : 0), a->ndim > 2 ? ", ..." : "",
                  (unsigned long long)E[pos], f.n, f.m, f.p,
                  a->ndim == 2 && a->shape[0] == E[pos] ? " with the same R in every factor" : "");
            goto out;
        }
    }
    if (F.a[0].shape[1] < 1 || F.a[0].shape[1] > INT32_MAX) {
        zfail(m->d, m->file, m->member, "rank %llu, expected at least 1 term",
              (unsigned long long)F.a[0].shape[1]);
        goto out;
    }
    e->rank = (int)F.a[0].shape[1];
    ok = build_scheme(m, &F, e);
out:
    pk_free(&v);
    return ok;
}

scheme_npz *scheme_npz_read_buffer(const void *buf, size_t len, const char *name, scheme_diag *diag)
{
    scheme_diag scratch;
    if (!diag)
        diag = &scratch;
    memset(diag, 0, sizeof *diag);
    if (!name)
        name = "<buffer>";
    if (!scheme_is_npz(buf, len)) {
        zfail(diag, name, NULL, "not a zip archive (an .npz file starts with 'PK')");
        return NULL;
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
    if (!za) {
        zfail(diag, name, NULL, "not a readable zip archive: %s", zip_error_strerror(&ze));
        if (src)
            zip_source_free(src);
        zip_error_fini(&ze);
        return NULL;
    }
    zip_error_fini(&ze);
    scheme_npz *z = calloc(1, sizeof *z);
    zip_int64_t n = zip_get_num_entries(za, 0);
    unsigned char *mb = NULL;
    uint64_t total = 0;
    if (!z)
        goto fail_oom;
    if (n < 1) {
        zfail(diag, name, NULL, "an empty zip archive: expected .npy members named N,M,P.npy");
        goto fail;
    }
    if (n > NPZ_MAX_MEMBERS) {
        zfail(diag, name, NULL, "%lld members, more than %d", (long long)n, NPZ_MAX_MEMBERS);
        goto fail;
    }
    z->e = calloc((size_t)n, sizeof *z->e);
    if (!z->e)
        goto fail_oom;
    for (zip_int64_t k = 0; k < n; k++) {
        zip_stat_t st;
        zip_stat_init(&st);
        const char *mname = zip_get_name(za, (zip_uint64_t)k, 0);
        if (!mname || zip_stat_index(za, (zip_uint64_t)k, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
            zfail(diag, name, NULL, "member %lld: unreadable entry: %s", (long long)k,
                  zip_strerror(za));
            goto fail;
        }
        npz_member m = {name, mname, diag};
        if (st.size > NPZ_MAX_MEMBER_BYTES || total + st.size > NPZ_MAX_TOTAL_BYTES) {
            zfail(diag, name, mname, "%llu bytes uncompressed, beyond the limit of %llu per member and "
                  "%llu in all", (unsigned long long)st.size, (unsigned long long)NPZ_MAX_MEMBER_BYTES,
                  (unsigned long long)NPZ_MAX_TOTAL_BYTES);
            goto fail;
        }
        total += st.size;
        unsigned char *nb = realloc(mb, st.size ? (size_t)st.size : 1);
        if (!nb)
            goto fail_oom;
        mb = nb;
        zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)k, 0);
        zip_int64_t got = zf ? zip_fread(zf, mb, st.size) : -1;
        /* A further read at the end makes libzip check the CRC. */
        unsigned char extra;
        zip_int64_t more = zf && got == (zip_int64_t)st.size ? zip_fread(zf, &extra, 1) : -1;
        if (!zf || got != (zip_int64_t)st.size || more != 0) {
            zfail(diag, name, mname, "cannot be read from the archive: %s",
                  zf ? zip_file_strerror(zf) : zip_strerror(za));
            if (zf)
                zip_fclose(zf);
            goto fail;
        }
        zip_fclose(zf);
        if (!read_member(&m, mb, (size_t)st.size, &z->e[z->count]))
            goto fail;
        for (int j = 0; j < z->count; j++) {
            scheme_format a = z->e[j].fmt, b = z->e[z->count].fmt;
            if (a.n == b.n && a.m == b.m && a.p == b.p) {
                zfail(diag, name, mname, "a second member of format <%d,%d,%d> (the first is '%s.npy')",
                      a.n, a.m, a.p, z->e[j].key);
                z->count++;
                goto fail;
            }
        }
        z->count++;
    }
    free(mb);
    zip_discard(za);
    return z;
fail_oom:
    zfail(diag, name, NULL, "out of memory");
fail:
    free(mb);
    zip_discard(za);
    scheme_npz_free(z);
    return NULL;
}

#else
scheme_npz *scheme_npz_read_buffer(const void *buf, size_t len, const char *name, scheme_diag *diag)
{
    (void)buf;
    (void)len;
    if (diag) {
        memset(diag, 0, sizeof *diag);
        zfail(diag, name ? name : "<buffer>", NULL, "this build of flipgraph has no libzip "
              "(configured with -DFLIPGRAPH_ZIP=OFF): .npz files cannot be read");
    }
    return NULL;
}
#endif

void scheme_npz_free(scheme_npz *z)
{
    if (!z)
        return;
    for (int k = 0; k < z->count; k++)
        scheme_free(z->e[k].s);
    free(z->e);
    free(z);
}

scheme_npz *scheme_npz_read_file(const char *path, scheme_diag *diag)
{
    scheme_diag scratch;
    if (!diag)
        diag = &scratch;
    memset(diag, 0, sizeof *diag);
    size_t len = 0;
    char *buf = scheme_slurp_diag(path, SCHEME_MAX_FILE_BYTES, &len, diag);
    if (!buf)
        return NULL;
    scheme_npz *z = scheme_npz_read_buffer(buf, len, path, diag);
    free(buf);
    return z;
}

const scheme_npz_entry *scheme_npz_find(const scheme_npz *z, scheme_format f)
{
    for (int k = 0; k < z->count; k++)
        if (z->e[k].fmt.n == f.n && z->e[k].fmt.m == f.m && z->e[k].fmt.p == f.p)
            return &z->e[k];
    return NULL;
}
