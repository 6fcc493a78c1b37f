/* flipgraph multiply: C = A B for bit matrices with a chain of schemes (Karppa, Kaski
 * 2019; docs/references.md, docs/runtime.md). */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../db/db.h"
#include "../export/export.h"
#include "../runtime/runtime.h"
#include "../verify/verify.h"
#include "cli.h"

static const char *usage_text =
    "usage: flipgraph multiply [--scheme ID|FILE|NAME[,...]] [--levels L] [--boolean]\n"
    "                          --a A --b B -o C [--backend cpu|gpu] [--threads N]\n"
    "                          [--plan-only [--dims RxKxC] [-v]] [--db PATH] [--format bin|text]\n"
    "                          [--max-memory MIB] [--devices LIST] [--max-device-memory MIB] [-q]\n"
    "       flipgraph multiply --type f64|f32 --scheme S[,S...] [--levels L] --a A.npy --b B.npy\n"
    "                          -o C.npy [--backend cpu|gpu [--tf32]] [--threads N]\n"
    "                          [--sums plain|fused] [--parallel rows|blas] [--streams N] [-v] [-q]\n"
    "\n"
    "Multiplies the bit matrices A (R x K) and B (K x C) into C with a plan: one scheme per\n"
    "level, applied with Yates's algorithm, and a word-level kernel for the blocks inside\n"
    "(Karppa, Kaski 2019; docs/runtime.md).  Sizes that are not multiples of the plan's are padded\n"
    "with zeros and the product cropped.\n"
    "\n"
    "  --scheme S[,S...]  one scheme per level, outermost first.  Each S is a file (any\n"
    "                     format flipgraph reads), a database id (a number; --db), or a\n"
    "                     built-in: strassen, std:NxMxP (the standard algorithm), or cubic\n"
    "                     (no levels; the default).  Every scheme is verified before use.\n"
    "  --levels L         with one scheme: use it on L levels (default 1; 0 = cubic)\n"
    "  --boolean          the Boolean (AND/OR) product instead of GF(2).  It applies to\n"
    "                     the cubic method, and to schemes valid over Z only (strassen,\n"
    "                     std:NxMxP, lifted or mod0 files): integers through the levels,\n"
    "                     then \"not zero\".  A scheme valid over GF(2) only (such as the\n"
    "                     <4,4,4> rank-47 scheme) is refused for it (exit 2).\n"
    "                     GF(2) products work with every verified scheme.\n"
    "  --backend cpu|gpu  where to run (default cpu); gpu: GPU 0 through the CUDA executor\n"
    "                     (a build with nvcc and a visible GPU, else exit 2; Boolean only cubic)\n"
    "  --threads N        CPU threads (default: all processors)\n"
    "  --plan-only        print the plan (levels, programs, padding, predicted bit\n"
    "                     operations, memory) and, when sized, the host layer's split under\n"
    "                     the limits; then stop; sizes from --a/--b headers or --dims\n"
    "  -v                 with --plan-only: the coefficient matrices and programs too\n"
    "  --max-memory MIB   host memory for buffers beyond A, B and C (default 80% of RAM): a\n"
    "                     product that needs more is split into subproblems by the host\n"
    "                     layer (the outermost levels on the host, then tiles), same bits\n"
    "  --devices LIST     executors that share the subproblems, one host thread each: GPU\n"
    "                     indices and/or cpu (the CPU executor), e.g. 0,1,2,3 or cpu,cpu;\n"
    "                     --threads is shared among the cpu ones (docs/host-layer.md)\n"
    "  --max-device-memory MIB  GPU memory per device (default: its free memory)\n"
    "  --format bin|text  the output's format (default bin)\n"
    "  -q                 no progress bar and no timing line on standard error\n"
    "\n"
    "With --type, A and B are float matrices in NumPy .npy files (docs/float.md) of that\n"
    "type, any shapes: each level splits the operands into the scheme's blocks (rows and\n"
    "columns that do not divide are peeled off and done by the BLAS), forms the operand\n"
    "sums with the scheme's integer coefficients, and the base case is the BLAS's GEMM\n"
    "(OpenBLAS).  Every level must verify over Z (strassen, winograd, std:NxMxP, a lifted\n"
    "or mod0 scheme); one that does not is refused with exit 2, naming the level.\n"
    "--backend gpu:\n"
    "GPU 0, cuBLAS's DGEMM/SGEMM as the base case and addition kernels for the levels;\n"
    "SGEMM without TF32 unless --tf32 (faster, about 10 bits of precision).  --sums fused\n"
    "forms all operand sums of a level in one pass a side and adds the products into C in\n"
    "one pass (more workspace; the GPU's default), plain one pass per sum (the CPU's\n"
    "default); --parallel (CPU) rows cuts C into a panel of rows per thread, each with its\n"
    "own sums and a one-thread BLAS, blas gives the threads to the BLAS and does the sums\n"
    "on one (default: rows where there are levels and 2048 rows a thread); --streams N\n"
    "(GPU) spreads the last level's GEMMs over N streams.  -v prints the largest error on\n"
    "256 sampled entries against a compensated long double reference and the first-order\n"
    "bound of docs/float.md.\n"
    "\n"
    "exit codes: 0 success, 2 bad usage, unreadable or mismatched input, invalid or unusable\n"
    "scheme, unavailable backend; 3 out of memory, an I/O or device failure.  The output file is\n"
    "written whole or not at all.\n";

#define MAX_SPECS EXPORT_PLAN_MAX_LEVELS
#define MAX_EXECUTORS 64

/* One scheme of the chain: file, db id or built-in.  NULL after a message. */
static scheme *resolve(const char *spec, const char *db_opt, char *name, size_t namelen)
{
    struct stat st;
    snprintf(name, namelen, "%s", spec);
    if (stat(spec, &st) == 0)
        return cli_read_scheme("multiply", spec, NULL);
    const char *id_s = !strncmp(spec, "db:", 3) ? spec + 3 : spec;
    if (cli_is_scheme_id(id_s)) {
        long id;
        if (!cli_parse_long(id_s, 1, LONG_MAX, &id)) {
            cli_error(CLI_USAGE, "multiply", "--scheme %s: not a valid database id", spec);
            return NULL;
        }
        char err[512];
        db_status dst;
        bool opened;
        const char *path = db_default_path(db_opt);
        scheme *s = cli_load_stored(path, id, NULL, &dst, &opened, err, sizeof err);
        if (!opened) {
            cli_error(CLI_USAGE, "multiply", "--scheme %s: cannot open the database %s: %s", spec, path, err);
            return NULL;
        }
        if (!s)
            cli_error(CLI_USAGE, "multiply", "--scheme %s: %s (database %s)", spec,
                      dst == DB_NOT_FOUND ? "no scheme with this id" : err, path);
        else
            snprintf(name, namelen, "db:%ld", id);
        return s;
    }
    char err[512];
    scheme *s = rt_scheme_builtin(spec, err, sizeof err);
    if (!s) {
        if (!strncmp(spec, "std:", 4) || !strncmp(spec, "standard:", 9))
            cli_error(CLI_USAGE, "multiply", "--scheme %s: %s", spec, err);
        else
            cli_error(CLI_USAGE, "multiply",
                      "--scheme %s: no such file, not a database id and not a built-in scheme "
                      "(strassen, std:NxMxP; or --scheme cubic alone for no levels)", spec);
    }
    return s;
}

/* --scheme LIST [--levels L] as specs (pointers into *list, which the caller
 * frees) and a number of levels; false after a message. */
static bool split_chain(const char *cmd, const char *scheme_list, long levels, char **specs, int *nspecs_out, int *nlevels_out,
                        char **list_out)
{
    int nspecs = 0;
    char *list = scheme_list ? strdup(scheme_list) : NULL;
    *list_out = list;
    if (list && strcmp(list, "cubic") != 0) {
        /* strsep, not strtok: "strassen,,strassen" has an empty level 2, which
         * strtok would drop silently and so multiply with one level less */
        char *rest = list;
        for (int level = 1; rest; level++) {
            char *tok = strsep(&rest, ",");
            if (!*tok) {
                cli_error(CLI_USAGE, cmd,
                          "--scheme %s: level %d is empty; give one scheme per level, "
                          "separated by single commas", scheme_list, level);
                return false;
            }
            if (strcmp(tok, "cubic") == 0) {
                cli_error(CLI_USAGE, cmd,
                          "--scheme %s: level %d is 'cubic', which means no levels at all and "
                          "stands alone (--scheme cubic); a level is a scheme: strassen, "
                          "std:NxMxP, a file or a database id", scheme_list, level);
                return false;
            }
            if (nspecs == MAX_SPECS) {
                cli_error(CLI_USAGE, cmd, "--scheme: at most %d levels", MAX_SPECS);
                return false;
            }
            specs[nspecs++] = tok;
        }
    }
    int nlevels;
    if (nspecs == 0) {
        nlevels = 0;
        if (levels > 0) {
            cli_error(CLI_USAGE, cmd, "--levels %ld needs --scheme", levels);
            return false;
        }
    } else if (nspecs == 1) {
        nlevels = levels < 0 ? 1 : (int)levels;
    } else {
        if (levels >= 0 && levels != nspecs) {
            cli_error(CLI_USAGE, cmd, "--scheme names %d levels but --levels says %ld", nspecs, levels);
            return false;
        }
        nlevels = nspecs;
    }
    *nspecs_out = nspecs;
    *nlevels_out = nlevels;
    return true;
}

/* The bit-matrix plan of the chain: every scheme resolved and verified over
 * GF(2), over Z too for a Boolean product with levels.  false after a message. */
static bool bit_plan(const char *cmd, char **specs, int nspecs, int nlevels, bool boolean, const char *db_opt, export_plan *plan)
{
    scheme *owned[MAX_SPECS] = {0};
    char names[MAX_SPECS][128];
    const scheme *chain[EXPORT_PLAN_MAX_LEVELS] = {0};
    const char *chain_names[EXPORT_PLAN_MAX_LEVELS] = {0};
    char err[1024];
    bool ok = false;
    for (int i = 0; i < nspecs; i++) {
        owned[i] = resolve(specs[i], db_opt, names[i], sizeof names[i]);
        if (!owned[i])
            goto out;
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (!verify_f2(owned[i], &vr)) {
            cli_error(CLI_USAGE, cmd, "--scheme %s is not a valid scheme over GF(2): %s", specs[i], vr.msg);
            goto out;
        }
        if (boolean && nlevels > 0 && !verify_z(owned[i], &vr)) {
            cli_error(CLI_USAGE, cmd,
                      "--scheme %s is valid over GF(2) only, not over Z: the Boolean product needs a "
                      "scheme valid over Z (strassen, std:NxMxP, a lifted or mod0 scheme) or the "
                      "cubic method (no --scheme)", specs[i]);
            goto out;
        }
    }
    for (int l = 0; l < nlevels; l++) {
        int i = nspecs == 1 ? 0 : l;
        chain[l] = owned[i];
        chain_names[l] = names[i];
    }
    if (!export_plan_init(plan, chain, chain_names, nlevels, boolean, err, sizeof err)) {
        cli_error(CLI_USAGE, cmd, "%s", err);
        goto out;
    }
    ok = true;
out:
    for (int i = 0; i < nspecs; i++)
        scheme_free(owned[i]);
    return ok;
}

bool cli_bit_plan(const char *cmd, const char *scheme_list, long levels, bool boolean, const char *db_opt,
                  export_plan *plan)
{
    char *specs[MAX_SPECS], *list = NULL;
    int nspecs = 0, nlevels = 0;
    bool ok = split_chain(cmd, scheme_list, levels, specs, &nspecs, &nlevels, &list) &&
              bit_plan(cmd, specs, nspecs, nlevels, boolean, db_opt, plan);
    free(list);
    return ok;
}

bool cli_parse_devices(const char *cmd, const char *list, rt_executor *ex, int *n, int max)
{
    *n = 0;
    const char *q = list;
    for (;;) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        char tok[32];
        long dev = -1;
        if (len == 0 || len >= sizeof tok) {
            cli_error(CLI_USAGE, cmd, "--devices %s: expected a comma-separated list of GPU indices or 'cpu' "
                      "(e.g. 0,1 or cpu,cpu), with no empty entries", list);
            return false;
        }
        memcpy(tok, q, len);
        tok[len] = 0;
        if (strcmp(tok, "cpu") != 0 && !cli_parse_long(tok, 0, 1023, &dev)) {
            cli_error(CLI_USAGE, cmd, "--devices %s: '%s' is neither a GPU index (0 .. 1023) nor 'cpu'", list, tok);
            return false;
        }
        if (*n == max) {
            cli_error(CLI_USAGE, cmd, "--devices %s: at most %d executors", list, max);
            return false;
        }
        ex[(*n)++] = (rt_executor){(int)dev, 0};
        if (!e)
            return true;
        q = e + 1;
    }
}

void cli_progress_init(cli_progress_state *ps)
{
    ps->tty = isatty(STDERR_FILENO);
    ps->shown = false;
    ps->last = 0;
}

void cli_progress_cb(void *ctx, uint64_t done, uint64_t total, double seconds)
{
    cli_progress_state *ps = ctx;
    bool end = done >= total;
    /* short products stay quiet; a log gets a line every 10 s, not every redraw */
    if (!ps->shown && (end || seconds < 1.0))
        return;
    if (!end && !ps->tty && ps->shown && seconds - ps->last < 10.0)
        return;
    char buf[256];
    cli_progress_bar(buf, sizeof buf, done, total, seconds);
    fprintf(stderr, ps->tty ? "\r%s%s" : "%s%s", buf, end || !ps->tty ? "\n" : "");
    fflush(stderr);
    ps->shown = true;
    ps->last = seconds;
}

static void print_diag(const char *path, const scheme_diag *d)
{
    if (d->line > 0)
        fprintf(stderr, "%s:%d:%d: %s\n", d->file[0] ? d->file : path, d->line, d->col, d->msg);
    else
        fprintf(stderr, "%s: %s\n", d->file[0] ? d->file : path, d->msg);
}

bool cli_parse_dims3(const char *s, const char *seps, bool square_ok, uint64_t v[3])
{
    char *end;
    const char *q = s;
    for (int i = 0; i < 3; i++) {
        if (*q < '0' || *q > '9')
            return false;
        v[i] = strtoull(q, &end, 10);
        if (v[i] < 1 || v[i] > RT_MAX_DIM)
            return false;
        q = end;
        if (square_ok && i == 0 && *q == 0) {
            v[1] = v[2] = v[0];
            return true;
        }
        if (i < 2) {
            if (!*q || !strchr(seps, *q))
                return false;
            q++;
        }
    }
    return *q == 0;
}

bool cli_executors(const char *cmd, const char *devices, bool gpu, long threads, rt_executor *ex, int *nex, int max)
{
    *nex = 1;
    ex[0] = (rt_executor){gpu ? 0 : -1, 0};
    if (devices && !cli_parse_devices(cmd, devices, ex, nex, max))
        return false;
    const int all = threads > 0 ? (int)threads : rt_default_threads();
    int ncpu = 0;
    for (int i = 0; i < *nex; i++)
        ncpu += ex[i].device < 0;
    for (int i = 0; i < *nex; i++)
        if (ex[i].device < 0)
            ex[i].threads = all / ncpu > 0 ? all / ncpu : 1;
    return true;
}

static void print_fdiag(const char *path, const scheme_diag *d)
{
    fprintf(stderr, "%s: %s\n", d->file[0] ? d->file : path, d->msg);
}

/* The float product: C = A B for .npy matrices with a plan of schemes valid over Z. */
static int multiply_float(rt_ftype type, char **specs, int nspecs, int nlevels, const char *db_opt,
                          const char *a_path, const char *b_path, const char *out, bool gpu, bool tf32,
                          rt_fsums sums, rt_fpar par, int streams, int threads, double max_bytes, bool verbose,
                          bool quiet)
{
    int rc = CLI_USAGE;
    scheme *owned[MAX_SPECS] = {0};
    char names[MAX_SPECS][128];
    const scheme *chain[EXPORT_PLAN_MAX_LEVELS];
    const char *chain_names[EXPORT_PLAN_MAX_LEVELS];
    rt_fplan plan;
    memset(&plan, 0, sizeof plan);
    rt_fmatrix *A = NULL, *B = NULL, *C = NULL;
    char err[1024];
    if (tf32 && (!gpu || type != RT_F32)) {
        cli_error(CLI_USAGE, "multiply", "--tf32 is for --type f32 --backend gpu (cuBLAS's TF32 tensor cores)");
        goto out;
    }
    for (int i = 0; i < nspecs; i++) {
        owned[i] = resolve(specs[i], db_opt, names[i], sizeof names[i]);
        if (!owned[i])
            goto out;
    }
    for (int l = 0; l < nlevels; l++) {
        int i = nspecs == 1 ? 0 : l;
        chain[l] = owned[i];
        chain_names[l] = names[i];
    }
    int bad_level;
    if (!rt_fplan_init(&plan, chain, chain_names, nlevels, &bad_level, err, sizeof err)) {
        cli_error(CLI_USAGE, "multiply", "--scheme %s", err);
        goto out;
    }
    plan.sums = sums;
    plan.par = par;
    plan.streams = streams;
    uint64_t ar, ac, br, bc;
    rt_ftype at, bt;
    scheme_diag dg;
    memset(&dg, 0, sizeof dg);
    if (!rt_npy_read_dims(a_path, &ar, &ac, &at, NULL, &dg)) {
        print_fdiag(a_path, &dg);
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (!rt_npy_read_dims(b_path, &br, &bc, &bt, NULL, &dg)) {
        print_fdiag(b_path, &dg);
        goto out;
    }
    if (at != type || bt != type) {
        cli_error(CLI_USAGE, "multiply", "--type %s, but %s holds %s entries (expected '%s' in the .npy header)",
                  rt_ftype_name(type), at != type ? a_path : b_path, rt_ftype_name(at != type ? at : bt),
                  type == RT_F64 ? "<f8" : "<f4");
        goto out;
    }
    if (ac != br) {
        cli_error(CLI_USAGE, "multiply",
                  "A (%s) is %" PRIu64 " x %" PRIu64 " and B (%s) is %" PRIu64 " x %" PRIu64
                  ": A's columns must equal B's rows", a_path, ar, ac, b_path, br, bc);
        goto out;
    }
    if (max_bytes < 0)
        max_bytes = 0.8 * rt_physical_memory();
    double need = rt_fplan_workspace(&plan, type, ar, ac, bc, gpu ? 1 : threads) +
                  ((double)ar * ac + (double)br * bc + (double)ar * bc) * (double)rt_ftype_size(type);
    if (max_bytes > 0 && need > max_bytes) {
        cli_error(CLI_USAGE, "multiply",
                  "the product needs %.1f MiB (operands and workspace), more than the limit of %.1f MiB "
                  "(--max-memory)", need / 1048576.0, max_bytes / 1048576.0);
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (!(A = rt_npy_read_file(a_path, &dg))) {
        print_fdiag(a_path, &dg);
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (!(B = rt_npy_read_file(b_path, &dg))) {
        print_fdiag(b_path, &dg);
        goto out;
    }
    if (A->rows != ar || A->cols != ac || B->rows != br || B->cols != bc || A->type != type || B->type != type) {
        cli_error(CLI_USAGE, "multiply", "the input files changed while being read");
        goto out;
    }
    if (!(C = rt_fmatrix_new(ar, bc, type))) {
        rc = cli_error(CLI_INTERNAL, "multiply", "out of memory for the %" PRIu64 " x %" PRIu64 " product", ar, bc);
        goto out;
    }
    rt_fstats st;
    rt_status s = gpu ? rt_fmul_gpu(&plan, A, B, C, 0, tf32, 1, &st, err, sizeof err)
                      : rt_fmul(&plan, A, B, C, threads, &st, err, sizeof err);
    rt_fmul_release();
    if (s != RT_OK) {
        rc = cli_error(s == RT_ENOMEM || s == RT_EDEVICE ? CLI_INTERNAL : CLI_USAGE, "multiply", "%s", err);
        goto out;
    }
    if (!rt_npy_write_file(out, C, false, err, sizeof err)) {
        rc = cli_error(CLI_INTERNAL, "multiply", "%s", err);
        goto out;
    }
    if (!quiet) {
        char chain_str[512] = "";
        size_t used = 0;
        for (int l = 0; l < nlevels && used < sizeof chain_str; l++)
            used += (size_t)snprintf(chain_str + used, sizeof chain_str - used, "%s%s", l ? "," : "",
                                     chain_names[l]);
        double flop = 2.0 * (double)ar * (double)ac * (double)bc;
        if (gpu)
            fprintf(stderr,
                    "flipgraph multiply: %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64
                    " (%s%s, %d level%s%s%s, %d fused) on GPU 0 in %.3f s: device %.4f s (%" PRIu64
                    " cuBLAS calls, %" PRIu64 " addition kernels), transfers %.3f s; %.2f effective GFLOP/s "
                    "on the device (2MKN/device time)\n",
                    ar, ac, br, bc, rt_ftype_name(type), tf32 ? ", TF32" : "", nlevels, nlevels == 1 ? "" : "s",
                    nlevels ? ": " : "", chain_str, st.fused_levels, st.total, st.device, st.gemm_calls,
                    st.add_launches, st.transfer, st.device > 0 ? flop / st.device / 1e9 : 0.0);
        else
            fprintf(stderr,
                    "flipgraph multiply: %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64
                    " (%s, %d level%s%s%s) in %.3f s: BLAS %.3f s in %" PRIu64 " calls, sums %.3f s; "
                    "%.2f effective GFLOP/s (2MKN/time)\n",
                    ar, ac, br, bc, rt_ftype_name(type), nlevels, nlevels == 1 ? "" : "s",
                    nlevels ? ": " : "", chain_str, st.total, st.gemm, st.gemm_calls, st.adds,
                    st.total > 0 ? flop / st.total / 1e9 : 0.0);
    }
    if (verbose) {
        scheme_rng rng;
        scheme_rng_seed(&rng, cli_random_seed());
        double e = rt_fmul_sample_error(A, B, C, 256, &rng);
        double bound = rt_fplan_error_bound(&plan, type, ac, rt_fmatrix_max_abs(A), rt_fmatrix_max_abs(B));
        fprintf(stderr,
                "flipgraph multiply: error on 256 sampled entries against a compensated long double "
                "reference: max |C - AB| = %.3e (first-order bound %.3e; docs/float.md)\n", e, bound);
    }
    rc = CLI_OK;
out:
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
    rt_fplan_free(&plan);
    for (int i = 0; i < nspecs; i++)
        scheme_free(owned[i]);
    return rc;
}

int cmd_multiply(int argc, char **argv)
{
    static const struct option opts[] = {
        {"scheme", required_argument, 0, 's'}, {"levels", required_argument, 0, 'L'},
        {"boolean", no_argument, 0, 'B'}, {"a", required_argument, 0, 'a'},
        {"b", required_argument, 0, 'b'}, {"output", required_argument, 0, 'o'},
        {"backend", required_argument, 0, 'k'}, {"threads", required_argument, 0, 't'},
        {"plan-only", no_argument, 0, 'p'}, {"db", required_argument, 0, 'd'},
        {"format", required_argument, 0, 'f'}, {"max-memory", required_argument, 0, 'm'},
        {"dims", required_argument, 0, 'D'}, {"verbose", no_argument, 0, 'v'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"type", required_argument, 0, 'T'}, {"tf32", no_argument, 0, 'F'},
        {"devices", required_argument, 0, 'V'}, {"max-device-memory", required_argument, 0, 'G'},
        {"sums", required_argument, 0, 'U'}, {"streams", required_argument, 0, 'M'},
        {"parallel", required_argument, 0, 'P'}, {0, 0, 0, 0}};
    rt_fsums sums = RT_FSUMS_AUTO;
    rt_fpar par = RT_FPAR_AUTO;
    long streams = 1;
    bool have_sums = false;
    char *scheme_list = NULL;
    const char *a_path = NULL, *b_path = NULL, *out = NULL, *db_opt = NULL, *devices = NULL;
    double max_dev_bytes = 0;
    bool have_backend = false;
    long levels = -1, threads = 0;
    bool boolean = false, plan_only = false, verbose = false, quiet = false, gpu = false;
    bool have_dims = false, have_type = false, have_format = false, tf32 = false;
    rt_ftype ftype = RT_F64;
    uint64_t dims[3] = {0, 0, 0};
    double max_bytes = -1;
    rt_file_kind kind = RT_FILE_BINARY;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:vqh", opts, NULL)) != -1) {
        switch (c) {
        case 's': scheme_list = optarg; break;
        case 'L':
            if (!cli_parse_long(optarg, 0, EXPORT_PLAN_MAX_LEVELS, &levels))
                return cli_error(CLI_USAGE, "multiply", "--levels: expected 0 .. %d, got '%s'",
                                 EXPORT_PLAN_MAX_LEVELS, optarg);
            break;
        case 'B': boolean = true; break;
        case 'a': a_path = optarg; break;
        case 'b': b_path = optarg; break;
        case 'o': out = optarg; break;
        case 'V': devices = optarg; break;
        case 'G': {
            long mib;
            if (!cli_parse_long(optarg, 1, 1L << 30, &mib))
                return cli_error(CLI_USAGE, "multiply", "--max-device-memory: expected MiB, got '%s'", optarg);
            max_dev_bytes = (double)mib * 1048576.0;
            break;
        }
        case 'k':
            have_backend = true;
            if (!strcmp(optarg, "gpu"))
                gpu = true;
            else if (strcmp(optarg, "cpu"))
                return cli_error(CLI_USAGE, "multiply", "--backend: expected cpu or gpu, got '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, "multiply", "--threads: expected 1 .. 1024, got '%s'", optarg);
            break;
        case 'p': plan_only = true; break;
        case 'd': db_opt = optarg; break;
        case 'f':
            if (!strcmp(optarg, "text") || !strcmp(optarg, "txt"))
                kind = RT_FILE_TEXT;
            else if (!strcmp(optarg, "bin") || !strcmp(optarg, "binary"))
                kind = RT_FILE_BINARY;
            else
                return cli_error(CLI_USAGE, "multiply", "--format: expected bin or text, got '%s'", optarg);
            have_format = true;
            break;
        case 'm': {
            long mib;
            if (!cli_parse_long(optarg, 1, 1L << 40, &mib))
                return cli_error(CLI_USAGE, "multiply", "--max-memory: expected MiB, got '%s'", optarg);
            max_bytes = (double)mib * 1048576.0;
            break;
        }
        case 'D':
            if (!cli_parse_dims3(optarg, "xX,", false, dims))
                return cli_error(CLI_USAGE, "multiply", "--dims: expected ROWSxINNERxCOLS, got '%s'", optarg);
            have_dims = true;
            break;
        case 'v': verbose = true; break;
        case 'q': quiet = true; break;
        case 'F': tf32 = true; break;
        case 'U':
            have_sums = true;
            if (!strcmp(optarg, "plain"))
                sums = RT_FSUMS_PLAIN;
            else if (!strcmp(optarg, "fused"))
                sums = RT_FSUMS_FUSED;
            else
                return cli_error(CLI_USAGE, "multiply", "--sums: expected plain or fused, got '%s'", optarg);
            break;
        case 'M':
            have_sums = true;
            if (!cli_parse_long(optarg, 1, 8, &streams))
                return cli_error(CLI_USAGE, "multiply", "--streams: expected 1 .. 8, got '%s'", optarg);
            break;
        case 'P':
            have_sums = true;
            if (!strcmp(optarg, "rows"))
                par = RT_FPAR_ROWS;
            else if (!strcmp(optarg, "blas"))
                par = RT_FPAR_BLAS;
            else
                return cli_error(CLI_USAGE, "multiply", "--parallel: expected rows or blas, got '%s'", optarg);
            break;
        case 'T':
            if (!rt_ftype_parse(optarg, &ftype))
                return cli_error(CLI_USAGE, "multiply", "--type: expected f64 or f32, got '%s'", optarg);
            have_type = true;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "multiply", "unexpected argument '%s' (flipgraph multiply --help)", argv[optind]);
    if (tf32 && !have_type)
        return cli_error(CLI_USAGE, "multiply", "--tf32 is for --type f32 --backend gpu");
    if (have_sums && !have_type)
        return cli_error(CLI_USAGE, "multiply", "--sums, --parallel and --streams are for float products (--type)");
    if (have_type && (devices || max_dev_bytes > 0))
        return cli_error(CLI_USAGE, "multiply", "--devices and --max-device-memory are for bit matrices; "
                         "--type %s runs on one executor (--backend)", rt_ftype_name(ftype));
    if (devices && have_backend)
        return cli_error(CLI_USAGE, "multiply", "give --devices or --backend, not both (--backend gpu is --devices 0)");
    if (have_type && (boolean || plan_only || have_format || have_dims))
        return cli_error(CLI_USAGE, "multiply", "--boolean, --plan-only, --dims and --format are for bit "
                         "matrices; --type %s multiplies .npy files", rt_ftype_name(ftype));
    if (!plan_only && (!a_path || !b_path || !out))
        return cli_error(CLI_USAGE, "multiply", "--a, --b and -o are required (flipgraph multiply --help)");

    /* The chain: specs split at commas. */
    char *specs[MAX_SPECS];
    int nspecs = 0, nlevels = 0;
    char *list = NULL;
    if (!split_chain("multiply", scheme_list, levels, specs, &nspecs, &nlevels, &list)) {
        free(list);
        return CLI_USAGE;
    }

    if (have_type) {
        int frc = multiply_float(ftype, specs, nspecs, nlevels, db_opt, a_path, b_path, out, gpu, tf32, sums, par,
                                 (int)streams, (int)threads, max_bytes, verbose, quiet);
        free(list);
        return frc;
    }

    /* A float matrix given to the bit-matrix product: say what to add. */
    for (int i = 0; i < 2; i++) {
        const char *p = i ? b_path : a_path;
        if (p && rt_npy_is_npy(p)) {
            free(list);
            return cli_error(CLI_USAGE, "multiply", "%s is a NumPy .npy float matrix: multiply floats with "
                             "--type f64 or --type f32 (docs/float.md)", p);
        }
    }

    int rc = CLI_USAGE;
    export_plan plan;
    memset(&plan, 0, sizeof plan);
    rt_matrix *A = NULL, *B = NULL, *C = NULL;
    char err[1024];
    if (!bit_plan("multiply", specs, nspecs, nlevels, boolean, db_opt, &plan))
        goto out;

    /* Sizes: the headers are enough for the plan. */
    uint64_t ar = 0, ac = 0, br = 0, bc = 0;
    scheme_diag dg;
    memset(&dg, 0, sizeof dg);
    if (a_path && !rt_matrix_read_dims(a_path, &ar, &ac, NULL, &dg)) {
        print_diag(a_path, &dg);
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (b_path && !rt_matrix_read_dims(b_path, &br, &bc, NULL, &dg)) {
        print_diag(b_path, &dg);
        goto out;
    }
    if (a_path && b_path && ac != br) {
        cli_error(CLI_USAGE, "multiply",
                  "A (%s) is %" PRIu64 " x %" PRIu64 " and B (%s) is %" PRIu64 " x %" PRIu64
                  ": A's columns must equal B's rows", a_path, ar, ac, b_path, br, bc);
        goto out;
    }
    if (a_path && b_path) {
        dims[0] = ar;
        dims[1] = ac;
        dims[2] = bc;
        have_dims = true;
    }
    if (have_dims && !export_plan_size(&plan, dims[0], dims[1], dims[2], err, sizeof err)) {
        cli_error(CLI_USAGE, "multiply", "%s", err);
        goto out;
    }
    if (plan_only) {
        rc = export_plan_print(&plan, stdout, verbose) ? CLI_OK : CLI_INTERNAL;
        if (rc != CLI_OK || !plan.sized)
            goto out;
    }

    if (max_bytes < 0)
        max_bytes = 0.8 * rt_physical_memory();
    /* The executors: --devices, else --backend's one. */
    rt_executor ex[MAX_EXECUTORS];
    int nex;
    if (!cli_executors("multiply", devices, gpu, threads, ex, &nex, MAX_EXECUTORS))
        goto out;
    cli_progress_state prog;
    cli_progress_init(&prog);
    rt_host_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec = ex, cfg.n_exec = nex;
    cfg.max_host_bytes = max_bytes, cfg.max_device_bytes = max_dev_bytes;
    cfg.threads = (int)threads;
    if (!quiet)
        cfg.progress = cli_progress_cb, cfg.progress_ctx = &prog;
    rt_host_split split;
    rt_status s = rt_host_choose(&plan, &cfg, &split, err, sizeof err);
    if (s != RT_OK) {
        rc = cli_error(s == RT_ENOMEM || s == RT_EDEVICE ? CLI_INTERNAL : CLI_USAGE, "multiply", "%s", err);
        goto out;
    }
    if (plan_only) {
        /* what the host layer would do under these limits and executors */
        char desc[256];
        printf("host layer (--max-memory %.0f MiB, %d executor%s): %s\n", max_bytes / 1048576.0, nex,
               nex == 1 ? "" : "s", rt_host_describe(&split, desc, sizeof desc));
        rc = CLI_OK;
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (!(A = rt_matrix_read_file(a_path, NULL, &dg))) {
        print_diag(a_path, &dg);
        goto out;
    }
    memset(&dg, 0, sizeof dg);
    if (!(B = rt_matrix_read_file(b_path, NULL, &dg))) {
        print_diag(b_path, &dg);
        goto out;
    }
    if (A->rows != ar || A->cols != ac || B->rows != br || B->cols != bc) {
        cli_error(CLI_USAGE, "multiply", "the input files changed while being read");
        goto out;
    }
    if (!(C = rt_matrix_new(A->rows, B->cols))) {
        rc = cli_error(CLI_INTERNAL, "multiply", "out of memory for the %" PRIu64 " x %" PRIu64 " product",
                       A->rows, B->cols);
        goto out;
    }
    rt_host_stats hs;
    s = rt_host_execute(&plan, &split, &cfg, A, B, C, &hs, err, sizeof err);
    if (s != RT_OK) {
        rc = cli_error(s == RT_ENOMEM || s == RT_EDEVICE ? CLI_INTERNAL : CLI_USAGE, "multiply", "%s", err);
        goto out;
    }
    if (!rt_matrix_write_file(out, C, kind, err, sizeof err)) {
        rc = cli_error(CLI_INTERNAL, "multiply", "%s", err);
        goto out;
    }
    if (!quiet) {
        const rt_stats *st = &hs.in_core;
        if (split.in_core)
            fprintf(stderr,
                    "flipgraph multiply: %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64
                    " (%s, %d level%s) in %.3f s: permute %.3f, expand %.3f, inner %.3f, compress %.3f; "
                    "%.3e effective bit operations/s\n",
                    A->rows, A->cols, B->rows, B->cols, boolean ? "Boolean" : "GF(2)", nlevels,
                    nlevels == 1 ? "" : "s", st->total, st->permute, st->expand, st->inner, st->compress,
                    st->total > 0 ? plan.ops_effective / st->total : 0.0);
        else {
            char desc[256];
            fprintf(stderr,
                    "flipgraph multiply: %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64
                    " (%s, %d level%s) in %.3f s on %d executor%s, %s; thread seconds: operand sums %.3f, "
                    "products %.3f, accumulation %.3f; %.3e effective bit operations/s\n",
                    A->rows, A->cols, B->rows, B->cols, boolean ? "Boolean" : "GF(2)", nlevels,
                    nlevels == 1 ? "" : "s", hs.total, nex, nex == 1 ? "" : "s",
                    rt_host_describe(&split, desc, sizeof desc), hs.sums, hs.exec, hs.accumulate,
                    hs.total > 0 ? plan.ops_effective / hs.total : 0.0);
        }
    }
    rc = CLI_OK;
out:
    rt_matrix_free(A);
    rt_matrix_free(B);
    rt_matrix_free(C);
    export_plan_free(&plan);
    free(list);
    return rc;
}
