/* flipgraph verify: check scheme files against the Brent equations (docs/verify.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"
#include "../verify/verify.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph verify [--ring f2|z] [--dims NxMxP] [--symmetry c3|c3xc2|c3xc2sK|t2] [--stats] FILE...\n"
            "\n"
            "Checks each FILE (.exp, .txt, .m, native or an AlphaTensor .npz; detected from the\n"
            "content, '-' reads standard input) against the Brent equations and prints one line\n"
            "per file (per scheme of an .npz, as FILE[N,M,P]; --dims picks one of them):\n"
            "  FILE: <4,4,4> rank 47 over GF(2): valid\n"
            "  FILE: INVALID: <4,4,4> rank 47 over GF(2): a12*b21 -> c11: the third factors sum to 1, expected 0\n"
            "An invalid line names the first failing equation in the files' own terms\n"
            "(cXY: X = column, Y = row of the product).\n"
            "\n"
            "  --ring f2|z   f2 (default): over GF(2), an integer file reduced mod 2;\n"
            "                z: over the integers (a file without signs or coefficients has\n"
            "                0/1 coefficients, so a GF(2)-only scheme is invalid over Z)\n"
            "  --dims NxMxP  the format, instead of inferring it from the largest indices\n"
            "  --symmetry G  also check that the scheme is invariant under G (c3: the cyclic\n"
            "                shift (a,b,c) -> (b,c,a); c3xc2: also the index reversal\n"
            "                i -> n-1-i of every factor; c3xc2sK: the shift and the swap of i\n"
            "                and n-1-i for i < K only, K < n/2; t2: the transposition\n"
            "                (a,b,c) -> (c^T,b^T,a^T) of <n,m,m>); a scheme that is not is reported\n"
            "                as NOT INVARIANT, naming a term whose image is missing\n"
            "  --stats       also print the scheme's structure over the ring, as a walk sees it:\n"
            "                  structure: flip pairs 2 (a 0, b 1, c 1), reducible pairs 0, terms sharing\n"
            "                  no factor 57; distinct factors a 61, b 60, c 60; nonzero coefficients\n"
            "                  597 (a 193, b 208, c 196), largest 1; invariant under c3 n/a, c3xc2 n/a, t2 n/a\n"
            "                  ...; factor ranks 111:6 222:1\n"
            "                (flip pairs: pairs of terms with the same factor at a position, over Z\n"
            "                up to sign; reducible: the same at two; on <n,n,n> also c3xc2sK for\n"
            "                each K with n >= 2K+2; factor ranks: terms counted by the ranks of\n"
            "                their three factors as matrices, sorted, which no change of basis or\n"
            "                permutation of the format alters; docs/verify.md, \"Structure\")\n"
            "  -h, --help    this text\n"
            "\n"
            "exit: 0 every FILE is valid (and invariant); 1 some FILE is invalid (or not); 2 bad usage, or some FILE\n"
            "unreadable or malformed (FILE:LINE:COL: what was expected, on standard error), or a\n"
            "scheme of an .npz SKIPPED (beyond flipgraph's limits: the line says which).\n");
}

/* Set when a structure could not be computed (out of memory): exit 3. */
static bool structure_failed;

/* The structure line of --stats, over the ring verified (docs/verify.md, "Structure"). */
static void print_structure(const char *label, const scheme *s, scheme_ring ring)
{
    scheme *copy = ring == SCHEME_RING_Z ? search_z_copy(s) : scheme_to_f2(s);
    if (!copy) {
        fflush(stdout);
        cli_error(CLI_INTERNAL, "verify", "%s: out of memory for its structure", label);
        structure_failed = true;
        return;
    }
    search_stats st;
    search_scheme_stats(copy, &st);
    scheme_free(copy);
    char line[2048];
    search_stats_line(&st, line, sizeof line);
    printf("  structure: %s\n", line);
}

/* Verifies one scheme and prints its line (and with stats its structure);
 * true when valid (and invariant). */
static bool verify_one(const char *label, const scheme *s, scheme_ring ring, scheme_symmetry sym, bool stats)
{
    bool any_invalid = false;
    const char *ring_name = scheme_ring_name(ring);
    verify_result res;
    bool ok = verify_scheme(s, ring, &res);
    char fb[32];
    if (ok && sym != SCHEME_SYM_NONE) {
        /* over GF(2) the invariance of the words, over Z of the integer terms */
        scheme *r = ring == SCHEME_RING_F2 && s->ring == SCHEME_RING_Z ? scheme_to_f2(s) : NULL;
        int term, elem;
        char err[300];
        if (!scheme_symmetry_check(r ? r : s, sym, &term, &elem, err, sizeof err)) {
            printf("%s: NOT INVARIANT under %s: %s rank %d over %s: %s\n", label, scheme_symmetry_name(sym),
                   scheme_format_str(s->fmt, fb), s->rank, ring_name, err);
            any_invalid = true;
        } else {
            int *orbit = malloc(sizeof(int) * (size_t)(s->rank ? s->rank : 1));
            int norbits = orbit ? scheme_symmetry_orbits(r ? r : s, sym, orbit) : -1;
            printf("%s: %s rank %d over %s: valid, invariant under %s", label, scheme_format_str(s->fmt, fb),
                   s->rank, ring_name, scheme_symmetry_name(sym));
            if (norbits >= 0)
                printf(" (%d orbits)", norbits);
            printf("\n");
            free(orbit);
        }
        scheme_free(r);
    } else if (ok)
        printf("%s: %s rank %d over %s: valid\n", label, scheme_format_str(s->fmt, fb), s->rank, ring_name);
    else {
        printf("%s: INVALID: %s rank %d over %s: %s\n", label, scheme_format_str(s->fmt, fb), s->rank,
               ring_name, res.msg);
        any_invalid = true;
    }
    if (stats)
        print_structure(label, s, ring);
    fflush(stdout);
    return !any_invalid;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ring", required_argument, NULL, 'r'},
        {"dims", required_argument, NULL, 'd'},
        {"symmetry", required_argument, NULL, 's'},
        {"stats", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    scheme_ring ring = SCHEME_RING_F2;
    scheme_format dims;
    bool have_dims = false;
    scheme_symmetry sym = SCHEME_SYM_NONE;
    bool stats = false;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'r':
            if (!strcmp(optarg, "f2") || !strcmp(optarg, "gf2") || !strcmp(optarg, "GF2"))
                ring = SCHEME_RING_F2;
            else if (!strcmp(optarg, "z") || !strcmp(optarg, "Z"))
                ring = SCHEME_RING_Z;
            else
                return cli_error(CLI_USAGE, "verify", "--ring '%s': expected f2 or z", optarg);
            break;
        case 'd': {
            char err[200];
            if (!scheme_format_parse(optarg, &dims, err, sizeof err))
                return cli_error(CLI_USAGE, "verify", "--dims: %s", err);
            have_dims = true;
            break;
        }
        case 's':
            if (!scheme_symmetry_parse(optarg, &sym) || sym == SCHEME_SYM_NONE)
                return cli_error(CLI_USAGE, "verify", "--symmetry '%s': expected c3, c3xc2, c3xc2s1..c3xc2s3 or t2",
                                 optarg);
            break;
        case 'S':
            stats = true;
            break;
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            cli_option_error("verify", argv);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return cli_error(CLI_USAGE, "verify", "expected at least one FILE");
    }
    bool any_invalid = false, any_unreadable = false;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        if (!have_dims && cli_is_npz_path(path)) {
            /* An AlphaTensor .npz: every scheme in it, one line per member. */
            scheme_npz *z = cli_read_npz("verify", path);
            if (!z) {
                any_unreadable = true;
                continue;
            }
            for (int k = 0; k < z->count; k++) {
                char label[4200];
                snprintf(label, sizeof label, "%s[%s]", path, z->e[k].key);
                if (!z->e[k].s) {
                    printf("%s: SKIPPED: %s\n", label, z->e[k].skipped);
                    any_unreadable = true;
                } else if (!verify_one(label, z->e[k].s, ring, sym, stats))
                    any_invalid = true;
            }
            fflush(stdout);
            scheme_npz_free(z);
            continue;
        }
        scheme *s = cli_read_scheme("verify", path, have_dims ? &dims : NULL);
        if (!s) {
            any_unreadable = true;
            continue;
        }
        if (!verify_one(path, s, ring, sym, stats))
            any_invalid = true;
        fflush(stdout);
        scheme_free(s);
    }
    return structure_failed ? CLI_INTERNAL : any_unreadable ? CLI_USAGE : any_invalid ? CLI_NEGATIVE : CLI_OK;
}
