/* The terms as a table, for a paper (LaTeX) or a README (Markdown).
 *
 * Each row r reads M_r = (A factor)(B factor), and the last column lists the
 * entries of the product C = A*B that M_r is added to (with their signs): the
 * product's own indices, not the transposed third factor of the published
 * files, so that the table reads without knowing that convention.  The header
 * says so. */
#include "export.h"

#define FACTOR_MAX (SCHEME_MAX_ENTRIES * 20 + 8)

static const char *ring_name(const scheme *s, bool tex)
{
    if (s->ring == SCHEME_RING_Z)
        return tex ? "$\\mathbb{Z}$" : "Z";
    return tex ? "GF(2)" : "GF(2)";
}

/* One row a term: r, its A and B factors, the product entries it is added to. */
static bool write_rows(const scheme *s, bool tex, FILE *out)
{
    char f[3][FACTOR_MAX];
    for (int r = 0; r < s->rank; r++) {
        for (int pos = 0; pos < 3; pos++)
            if (!export_factor_str(s, r, pos, tex ? 1 : 0, false, f[pos], sizeof f[pos]))
                return false;
        fprintf(out, tex ? "%d & $%s$ & $%s$ & $%s$ \\\\\n" : "| %d | `%s` | `%s` | `%s` |\n", r + 1, f[0],
                f[1], f[2]);
    }
    return true;
}

bool export_write_tex(const scheme *s, const export_info *info, FILE *out)
{
    char defname[64], fmt[32], hex[17];
    const char *name = info && info->name ? info->name : export_default_name(s, defname);
    if (!export_hash_hex(s, hex))
        return false;
    scheme_format_str(s->fmt, fmt);
    fprintf(out, "%% %s: %s rank %d over %s, hash %s; written by flipgraph export --to tex\n",
            name, fmt, s->rank, scheme_ring_name(s->ring), hex);
    fputs("% needs \\usepackage{longtable}\n", out);
    fputs("\\begin{longtable}{r l l l}\n", out);
    fprintf(out, "\\caption{A scheme for $\\langle %d,%d,%d\\rangle$ of rank %d over %s%s: "
                 "$M_r$ is the product of the $A$ and $B$ factors of row $r$, and each "
                 "entry $c_{ik}$ of $C = AB$ is the sum of the $M_r$ listing it.}"
                 "\\label{tab:%s}\\\\\n",
            s->fmt.n, s->fmt.m, s->fmt.p, s->rank, ring_name(s, true),
            s->ring == SCHEME_RING_F2 ? " ($+$ is XOR)" : "", name);
    fputs("$r$ & $A$ factor & $B$ factor & $M_r$ is added to \\\\\n\\hline\n\\endhead\n", out);
    if (!write_rows(s, true, out))
        return false;
    fputs("\\end{longtable}\n", out);
    return !ferror(out);
}

bool export_write_md(const scheme *s, const export_info *info, FILE *out)
{
    char defname[64], fmt[32], hex[17];
    const char *name = info && info->name ? info->name : export_default_name(s, defname);
    if (!export_hash_hex(s, hex))
        return false;
    scheme_format_str(s->fmt, fmt);
    fprintf(out, "**%s**: %s rank %d over %s (hash `%s`). M_r is the product of the A and B "
                 "factors of row r; each entry cik of C = AB is the sum of the M_r listing it%s.\n\n",
            name, fmt, s->rank, ring_name(s, false), hex,
            s->ring == SCHEME_RING_F2 ? " (+ is XOR)" : "");
    fputs("| r | A factor | B factor | M_r is added to |\n|---:|---|---|---|\n", out);
    if (!write_rows(s, false, out))
        return false;
    return !ferror(out);
}
