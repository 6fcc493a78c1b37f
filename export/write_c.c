/* C11 code for a scheme: one recursion level as a straight-line program.
 *
 * Two functions per scheme (docs/export.md, "c"), both with the blocks of A, B
 * and C as arguments (row major: A[i*m+j], B[j*p+k], C[i*p+k], C = A*B):
 *   NAME(len, A, B, C)         every block is len elements and the product of
 *                              two blocks is elementwise (AND over GF(2), * over
 *                              Z): len independent products; over GF(2) with
 *                              bit-sliced words, 64*len of them;
 *   NAME_blocks(la, lb, lc, A, B, C, mul, ctx, work)
 *                              the block products are the caller's mul (the
 *                              next level: a GEMM, a bit-matrix product...).
 * Additions are shared between forms by the greedy pair elimination of slp.c.
 * The straight-line part of each function lies between the markers
 * "BEGIN SLP" and "END SLP": in it every addition is one " ^ ", " + " or " - ",
 * every product and scaling one " & " or " * ", so the counts stated in the
 * header comment can be checked by counting operators (tests/test_export.c). */
#include <errno.h>

#include "export.h"

typedef struct emitter {
    FILE *out;
    bool f2;
    const char *T;  /* element type */
    const char *add, *sub, *mul; /* " ^ " / " + ", " - ", " & " / " * " */
} emitter;

/* The name of variable v of side `side`; block: a pointer, else a scalar. */
static void var_name(char *buf, size_t len, const export_slp *p, int side, int v, bool block)
{
    static const char in_scalar[3] = {'a', 'b', 'm'};
    static const char tmp[3] = {'x', 'y', 'z'};
    if (v < p->nin) {
        if (block && side < 2)
            snprintf(buf, len, "%c[%d]", side == 0 ? 'A' : 'B', v);
        else
            snprintf(buf, len, "%c%d", in_scalar[side], v);
    } else {
        snprintf(buf, len, "%c%d", tmp[side], v - p->nin);
    }
}

/* The operand text: the name, with [e] in block code. */
static void operand(FILE *out, const export_slp *p, int side, int v, bool block)
{
    char nm[32];
    var_name(nm, sizeof nm, p, side, v, block);
    fprintf(out, block ? "%s[e]" : "%s", nm);
}

static void emit_term(const emitter *em, const export_slp *p, int side, int x, bool first, bool block)
{
    int c = p->coef[x];
    int mag = c < 0 ? -c : c;
    if (em->f2) {
        if (!first)
            fputs(em->add, em->out);
    } else if (first) {
        if (c == -1)
            fputc('-', em->out); /* a negation: every coefficient of the form is -1 */
        else if (mag != 1)
            fprintf(em->out, "%d.0%s", c, em->mul);
    } else {
        fputs(c < 0 ? em->sub : em->add, em->out);
        if (mag != 1)
            fprintf(em->out, "%d.0%s", mag, em->mul);
    }
    operand(em->out, p, side, p->var[x], block);
}

/* The expression of output o: the first term (export_slp_first_term), then the rest. */
static void emit_form(const emitter *em, const export_slp *p, int side, int o, bool block)
{
    int a = p->start[o], b = p->start[o + 1];
    if (a == b) {
        fputs("0", em->out);
        return;
    }
    int first = export_slp_first_term(p, o);
    emit_term(em, p, side, first, true, block);
    for (int x = a; x < b; x++)
        if (x != first)
            emit_term(em, p, side, x, false, block);
}

/* A form that is one variable with coefficient 1 needs no code. */
static bool form_is_var(const export_slp *p, int o)
{
    return p->start[o + 1] - p->start[o] == 1 && p->coef[p->start[o]] == 1;
}

static void emit_op(const emitter *em, const export_slp *p, int side, int k, bool block,
                    const char *len)
{
    const export_slp_op *op = &p->ops[k];
    char dst[32];
    var_name(dst, sizeof dst, p, side, p->nin + k, block);
    if (block)
        fprintf(em->out, "    for (size_t e = 0; e < %s; e++) %s[e] = ", len, dst);
    else
        fprintf(em->out, "        const %s %s = ", em->T, dst);
    operand(em->out, p, side, op->x, block);
    fputs(em->f2 || op->sign > 0 ? em->add : em->sub, em->out);
    operand(em->out, p, side, op->y, block);
    fputs(";\n", em->out);
}

/* Inputs of one side that any op or form reads (the others are not loaded). */
static void mark_used(const export_slp *p, bool *used)
{
    for (int v = 0; v < p->nin; v++)
        used[v] = false;
    for (int k = 0; k < p->nops; k++) {
        if (p->ops[k].x < p->nin) used[p->ops[k].x] = true;
        if (p->ops[k].y < p->nin) used[p->ops[k].y] = true;
    }
    for (int x = 0; x < p->start[p->nout]; x++)
        if (p->var[x] < p->nin)
            used[p->var[x]] = true;
}

static void emit_elementwise(const emitter *em, const export_c_program *pg, const char *name,
                             scheme_format f)
{
    FILE *out = em->out;
    int na = f.n * f.m, nb = f.m * f.p, nc = f.n * f.p;
    bool used[SCHEME_MAX_ENTRIES];
    fprintf(out, "void %s(size_t len, const %s *const A[%d], const %s *const B[%d], %s *const C[%d])\n{\n",
            name, em->T, na, em->T, nb, em->T, nc);
    fputs("    for (size_t e = 0; e < len; e++) {\n", out);
    fprintf(out, "        /* BEGIN SLP %s */\n", name);
    for (int side = 0; side < 2; side++) {
        const export_slp *p = &pg->side[side];
        mark_used(p, used);
        for (int v = 0; v < p->nin; v++)
            if (used[v])
                fprintf(out, "        const %s %c%d = %c[%d][e];\n", em->T, side ? 'b' : 'a', v,
                        side ? 'B' : 'A', v);
        for (int k = 0; k < p->nops; k++)
            emit_op(em, p, side, k, false, NULL);
    }
    for (int q = 0; q < pg->mults; q++) {
        fprintf(out, "        const %s m%d = ", em->T, q);
        for (int side = 0; side < 2; side++) {
            const export_slp *p = &pg->side[side];
            bool bare = form_is_var(p, q);
            fputs(bare ? "" : "(", out);
            emit_form(em, p, side, q, false);
            fputs(bare ? "" : ")", out);
            if (side == 0)
                fputs(em->mul, out);
        }
        fputs(";\n", out);
    }
    const export_slp *pc = &pg->side[2];
    for (int k = 0; k < pc->nops; k++)
        emit_op(em, pc, 2, k, false, NULL);
    for (int o = 0; o < nc; o++) {
        fprintf(out, "        C[%d][e] = ", o);
        emit_form(em, pc, 2, o, false);
        fputs(";\n", out);
    }
    fprintf(out, "        /* END SLP %s */\n    }\n}\n", name);
}

/* Workspace of NAME_blocks in blocks of each side: A temporaries and one
 * scratch form, B the same, then the products and the C temporaries. */
static void work_blocks(const export_c_program *pg, long w[3])
{
    w[0] = pg->side[0].nops + 1;
    w[1] = pg->side[1].nops + 1;
    w[2] = pg->mults + pg->side[2].nops;
}

static void emit_blocks(const emitter *em, const export_c_program *pg, const char *name,
                        scheme_format f)
{
    FILE *out = em->out;
    int na = f.n * f.m, nb = f.m * f.p, nc = f.n * f.p;
    static const char *const lens[3] = {"la", "lb", "lc"};
    long w[3];
    work_blocks(pg, w);
    fprintf(out, "void %s_blocks(size_t la, size_t lb, size_t lc,\n"
                 "        const %s *const A[%d], const %s *const B[%d], %s *const C[%d],\n"
                 "        %s_mul_fn *mul, void *ctx, %s *work)\n{\n",
            name, em->T, na, em->T, nb, em->T, nc, name, em->T);
    fputs("    (void)mul; (void)ctx; (void)work; (void)la; (void)lb; (void)lc;\n", out);
    /* Slot pointers: outside the counted region (their offsets use + and *). */
    long base = 0;
    const char tmpc[3] = {'x', 'y', 'z'};
    for (int side = 0; side < 2; side++) {
        const export_slp *p = &pg->side[side];
        for (int k = 0; k < p->nops; k++)
            fprintf(out, "    %s *const %c%d = work + %ldu * la + %ldu * lb;\n", em->T, tmpc[side], k,
                    side == 0 ? base + k : w[0], side == 0 ? 0L : (long)k);
        bool scratch = false;
        for (int q = 0; q < pg->mults; q++)
            scratch |= !form_is_var(p, q);
        if (scratch)
            fprintf(out, "    %s *const s%c = work + %ldu * la + %ldu * lb;\n", em->T, "ab"[side],
                    side == 0 ? (long)p->nops : w[0], side == 0 ? 0L : (long)p->nops);
    }
    for (int q = 0; q < pg->mults; q++)
        fprintf(out, "    %s *const m%d = work + %ldu * la + %ldu * lb + %ldu * lc;\n", em->T, q,
                w[0], w[1], (long)q);
    for (int k = 0; k < pg->side[2].nops; k++)
        fprintf(out, "    %s *const z%d = work + %ldu * la + %ldu * lb + %ldu * lc;\n", em->T, k,
                w[0], w[1], (long)(pg->mults + k));
    fprintf(out, "    /* BEGIN SLP %s_blocks */\n", name);
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < pg->side[side].nops; k++)
            emit_op(em, &pg->side[side], side, k, true, lens[side]);
    for (int q = 0; q < pg->mults; q++) {
        char arg[2][32];
        for (int side = 0; side < 2; side++) {
            const export_slp *p = &pg->side[side];
            if (form_is_var(p, q)) {
                var_name(arg[side], sizeof arg[side], p, side, p->var[p->start[q]], true);
                continue;
            }
            snprintf(arg[side], sizeof arg[side], "s%c", "ab"[side]);
            fprintf(out, "    for (size_t e = 0; e < %s; e++) %s[e] = ", lens[side], arg[side]);
            emit_form(em, p, side, q, true);
            fputs(";\n", out);
        }
        fprintf(out, "    mul(%s, %s, m%d, ctx);\n", arg[0], arg[1], q);
    }
    const export_slp *pc = &pg->side[2];
    for (int k = 0; k < pc->nops; k++)
        emit_op(em, pc, 2, k, true, "lc");
    for (int o = 0; o < nc; o++) {
        fprintf(out, "    for (size_t e = 0; e < lc; e++) C[%d][e] = ", o);
        emit_form(em, pc, 2, o, true);
        fputs(";\n", out);
    }
    fprintf(out, "    /* END SLP %s_blocks */\n}\n", name);
}

bool export_write_c(const scheme *s, const export_info *info, FILE *out)
{
    char defname[64], fmt[32], hex[17];
    const char *name = info && info->name ? info->name : export_default_name(s, defname);
    if (!export_name_valid(name)) {
        errno = EINVAL;
        return false;
    }
    export_c_program pg, plain;
    if (!export_c_program_build(s, true, &pg)) {
        errno = ENOMEM;
        return false;
    }
    if (!export_c_program_build(s, false, &plain)) {
        export_c_program_free(&pg);
        errno = ENOMEM;
        return false;
    }
    if (!export_hash_hex(s, hex)) {
        export_c_program_free(&pg);
        export_c_program_free(&plain);
        errno = ENOMEM;
        return false;
    }

    scheme_format f = s->fmt;
    bool f2 = s->ring == SCHEME_RING_F2;
    emitter em = {out, f2, f2 ? "uint64_t" : "double", f2 ? " ^ " : " + ", " - ", f2 ? " & " : " * "};
    long w[3];
    work_blocks(&pg, w);

    fprintf(out, "/* %s: the %s scheme of rank %d over %s (hash %s) as a straight-line\n"
                 " * program, one recursion level; written by flipgraph export --to c.\n",
            name, scheme_format_str(f, fmt), s->rank, scheme_ring_name(s->ring), hex);
    fprintf(out, " *\n * multiplications: %d (block products)\n", pg.mults);
    fprintf(out, " * additions: %ld per element (A side %ld, B side %ld, C side %ld), with shared\n"
                 " *   subexpressions; %ld without sharing\n",
            pg.adds, pg.cost[0].adds, pg.cost[1].adds, pg.cost[2].adds, plain.adds);
    if (!f2)
        fprintf(out, " * scalings by a constant other than +-1: %ld; negations: %ld\n", pg.scalings,
                pg.negations);
    fprintf(out, " *\n * Blocks in row-major order: A[i*%d+j] (A is %d x %d blocks), B[j*%d+k] (%d x %d),\n"
                 " * C[i*%d+k] (%d x %d), and C = A*B is written (not accumulated); C must not\n"
                 " * overlap A or B.\n",
            f.m, f.n, f.m, f.p, f.m, f.p, f.p, f.n, f.p);
    if (f2)
        fprintf(out, " * %s(len, A, B, C): every block is len words and the product of two\n"
                     " *   blocks is their AND, the sum XOR: bit t of word e of every block is one\n"
                     " *   of 64*len independent products of %d x %d by %d x %d bit matrices over GF(2)\n"
                     " *   (bit-sliced).\n",
                name, f.n, f.m, f.m, f.p);
    else
        fprintf(out, " * %s(len, A, B, C): every block is len doubles and the product of two\n"
                     " *   blocks is elementwise: len independent products of %d x %d by %d x %d\n"
                     " *   matrices.\n",
                name, f.n, f.m, f.m, f.p);
    fprintf(out, " * %s_blocks(la, lb, lc, A, B, C, mul, ctx, work): one recursion level; the\n"
                 " *   blocks of A have la elements, of B lb, of C lc; mul(x, y, z, ctx) writes the\n"
                 " *   product of an A-sized block x and a B-sized block y to the C-sized block z\n"
                 " *   (it may recurse).  work holds %s_WORK(la, lb, lc) elements.\n */\n",
            name, name);
    fputs("#include <stddef.h>\n#include <stdint.h>\n\n", out);
    fprintf(out, "#define %s_WORK(la, lb, lc) ((size_t)%ld * (la) + (size_t)%ld * (lb) + (size_t)%ld * (lc))\n",
            name, w[0], w[1], w[2]);
    fprintf(out, "#define %s_MULTIPLICATIONS %d\n#define %s_ADDITIONS %ld\n\n", name, pg.mults, name,
            pg.adds);
    fprintf(out, "typedef void %s_mul_fn(const %s *x, const %s *y, %s *z, void *ctx);\n\n", name,
            em.T, em.T, em.T);
    emit_elementwise(&em, &pg, name, f);
    fputc('\n', out);
    emit_blocks(&em, &pg, name, f);
    export_c_program_free(&pg);
    export_c_program_free(&plain);
    return !ferror(out);
}
