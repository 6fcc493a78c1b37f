/* The plan as a person reads it (flipgraph multiply --plan-only). */
#include <inttypes.h>
#include <stdio.h>

#include "export.h"

static const char *side_name[3] = {"xi   (A side)", "eta  (B side)", "zeta (C side)"};

static void print_matrix(FILE *out, const uint8_t *m, const int8_t *mz, int rows, int cols)
{
    for (int i = 0; i < rows; i++) {
        fputs("        ", out);
        for (int j = 0; j < cols; j++) {
            if (mz)
                fprintf(out, "%3d", mz[(size_t)i * cols + j]);
            else
                fputc(m[(size_t)i * cols + j] ? '1' : '.', out);
        }
        fputc('\n', out);
    }
}

static void print_slp(FILE *out, const export_plan_slp *slp)
{
    for (int k = 0; k < slp->n_ops; k++)
        fprintf(out, "        r%d = r%u ^ r%u\n", slp->n_in + k, slp->src[2 * k], slp->src[2 * k + 1]);
    fputs("        out:", out);
    for (int o = 0; o < slp->n_out; o++) {
        if (slp->out[o] < 0)
            fputs(" 0", out);
        else
            fprintf(out, " r%d", slp->out[o]);
    }
    fputc('\n', out);
}

static void print_ops(FILE *out, const char *what, double ops, double total)
{
    fprintf(out, "  %-22s %14.4e  %5.1f%%\n", what, ops, total > 0 ? 100.0 * ops / total : 0.0);
}

bool export_plan_print(const export_plan *p, FILE *out, bool verbose)
{
    bool zpath = p->boolean && p->levels > 0;
    fprintf(out, "plan: %s product, %d level%s of schemes%s\n",
            p->boolean ? "Boolean (AND/OR)" : "GF(2)", p->levels, p->levels == 1 ? "" : "s",
            p->levels == 0 ? " (the cubic method: the inner layer only)" : "");
    if (zpath)
        fprintf(out, "  Boolean with schemes: integer arithmetic mod 2^32 through the levels "
                     "(exact: the inner dimension is below 2^32), then \"not zero\"\n");
    for (int l = 0; l < p->levels; l++) {
        const export_plan_level *L = &p->level[l];
        char hx[17];
        fprintf(out, "level %d: <%d,%d,%d> rank %d, %s, hash %s, valid over Z: %s\n", l + 1, L->s,
                L->t, L->u, L->r, L->name, scheme_hash_hex(L->hash, hx), L->z_valid ? "yes" : "no");
        for (int k = 0; k < 3; k++) {
            const export_plan_slp *slp = &L->slp[k];
            fprintf(out, "  %s %3d x %-3d  %4d additions with sharing (%d without)\n",
                    side_name[k], slp->n_out, slp->n_in, slp->n_ops, slp->naive_ops);
            if (verbose) {
                const uint8_t *m = k == 0 ? L->xi : k == 1 ? L->eta : L->zeta;
                const int8_t *mz = zpath ? (k == 0 ? L->xi_z : k == 1 ? L->eta_z : L->zeta_z) : NULL;
                print_matrix(out, m, mz, slp->n_out, slp->n_in);
                if (!zpath)
                    print_slp(out, slp);
            }
        }
    }
    fprintf(out, "chain: S x T x U = %" PRIu64 " x %" PRIu64 " x %" PRIu64 ", %" PRIu64
                 " products in the inner layer\n",
            p->S, p->T, p->U, p->R);
    fprintf(out, "padding: each dimension up to a multiple of 64 x (S, T or U) with zero bits; "
                 "the product is cropped\n");
    if (!p->sized) {
        fprintf(out, "sizes: not given (--a/--b or --dims ROWSxINNERxCOLS)\n");
        return !ferror(out);
    }
    fprintf(out, "sizes: A %" PRIu64 " x %" PRIu64 ", B %" PRIu64 " x %" PRIu64
                 " -> padded %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64 "\n",
            p->rows, p->inner, p->inner, p->cols, p->prows, p->pinner, p->pinner, p->pcols);
    fprintf(out, "inner layer: %" PRIu64 " products of %" PRIu64 " x %" PRIu64 " by %" PRIu64
                 " x %" PRIu64 " blocks (%s)\n",
            p->R, p->bs, p->bt, p->bt, p->bu,
            zpath ? "integer products" : p->boolean ? "AND/OR of 64x64 bit blocks"
                                                    : "AND/XOR of 64x64 bit blocks");
    fprintf(out, "predicted %s operations:\n", zpath ? "element" : "bit");
    print_ops(out, "expanding levels, A", p->ops_expand_a, p->ops_total);
    print_ops(out, "expanding levels, B", p->ops_expand_b, p->ops_total);
    print_ops(out, "inner layer", p->ops_inner, p->ops_total);
    print_ops(out, "compressing levels", p->ops_compress, p->ops_total);
    fprintf(out, "  %-22s %14.4e\n", "total", p->ops_total);
    fprintf(out, "  %-22s %14.4e  (2*r*i*c - r*c; ratio %.3f)\n", "cubic, unpadded", p->ops_effective,
            p->ops_total > 0 ? p->ops_effective / p->ops_total : 0.0);
    fprintf(out, "working memory of the CPU executor: %.1f MiB (peak of its buffers)\n",
            p->peak_bytes / 1048576.0);
    return !ferror(out);
}
