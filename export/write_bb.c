/* The U, V, W coefficient file of Benson-Ballard's fast-matmul code generator
 * (github arbenson/fast-matmul, codegen/algorithms/) and of Huang's fmm-gen
 * (github flame/fmm-gen, meta/algorithms/, the same files), Huang 2018 chapter 4
 * (docs/references.md):
 *
 *     M_r = (sum_i u_ir A_i) x (sum_j v_jr B_j),   C_p += w_pr M_r,
 *
 * A_i, B_j, C_p the blocks in row-major order.  One file, three groups of rows
 * separated by lines that start with '#': U (n*m rows), V (m*p rows), W (n*p
 * rows), each row one block and each column one product.  Their readers
 * (read_coeffs in codegen/gen.py, meta/common_util.py) take any '#' line as a
 * separator, skip empty groups, and read every other line as a row, so the file
 * has one leading '#' comment and no blank line.
 *
 * W is indexed by the product C itself, not by our transposed third factor:
 * W row i*p+k = the entry (k,i) of our c (bit k*n+i).  Their codegen/verify.py
 * checks sum_r U[a*n+b][r] V[c*k+d][r] W[e*k+f][r] = [a=e][b=c][d=f] with the
 * same row-major reading. */
#include "export.h"

static void write_rows(const scheme *s, int pos, int rows, int cols, bool product, FILE *out)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            /* product: row i*cols+j is C[i,j], our c entry (j, i) = bit j*n+i */
            int e = product ? j * s->fmt.n + i : i * cols + j;
            for (int r = 0; r < s->rank; r++)
                fprintf(out, r ? " %d" : "%d", export_coef(s, r, pos, e));
            fputc('\n', out);
        }
}

bool export_write_bb(const scheme *s, const export_info *info, FILE *out)
{
    char defname[64], fmt[32];
    const char *name = info && info->name ? info->name : export_default_name(s, defname);
    scheme_format f = s->fmt;
    fprintf(out, "# %s: %s rank %d over %s, written by flipgraph; U (A), V (B), W (C = A*B) "
                 "row-major, one column per product\n",
            name, scheme_format_str(f, fmt), s->rank, scheme_ring_name(s->ring));
    write_rows(s, SCHEME_A, f.n, f.m, false, out);
    fputs("#\n", out);
    write_rows(s, SCHEME_B, f.m, f.p, false, out);
    fputs("#\n", out);
    write_rows(s, SCHEME_C, f.n, f.p, true, out);
    return !ferror(out);
}
