/* flipgraph bench lift: Hensel lifting time (verify_lift, verify/lift.c) for
 * <3,3,3> rank 23 (the standard algorithm walked down by random flips with a
 * fixed seed), <4,4,4> rank 49 (kauers-moosbauer/444-49-mod0.exp reduced mod 2),
 * <5,5,5> rank 93 (moosbauer-poole/555m93.txt), and the refusal of the
 * GF(2)-only <4,4,4> rank 47 (kauers-moosbauer/444-47-mod2.exp). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"
#include "cli.h"

#define CMD "bench lift"

/* One random flip (docs/search.md, "Moves") over GF(2): two terms sharing
 * the factor x, (x, y, z) + (x, y', z') -> (x, y + y', z) + (x, y', z' + z);
 * a term whose factor became 0 is dropped (a reduction). */
static void flip_once(scheme *s, scheme_rng *rng)
{
    if (s->rank < 2)
        return;
    int P = (int)scheme_rng_below(rng, 3);
    int r = (int)scheme_rng_below(rng, (uint32_t)s->rank);
    int start = (int)scheme_rng_below(rng, (uint32_t)s->rank), q = -1;
    for (int i = 0; i < s->rank; i++) {
        int c = (start + i) % s->rank;
        if (c != r && s->terms[c].f[P] == s->terms[r].f[P]) {
            q = c;
            break;
        }
    }
    if (q < 0)
        return;
    int Q = (P + 1 + (int)scheme_rng_below(rng, 2)) % 3, S = 3 - P - Q;
    s->terms[r].f[Q] ^= s->terms[q].f[Q];
    s->terms[q].f[S] ^= s->terms[r].f[S];
    if (!s->terms[q].f[S])
        scheme_remove(s, q);
    else if (!s->terms[r].f[Q])
        scheme_remove(s, r);
}

/* <3,3,3> down to rank 23 by flips from the standard algorithm; seeds are
 * tried in order until one gets there within the budget (deterministic). */
static scheme *walk_333(long *flips_out, uint64_t *seed_out)
{
    for (uint64_t seed = 1; seed <= 50; seed++) {
        scheme_rng rng;
        scheme_rng_seed(&rng, seed);
        scheme *s = scheme_standard((scheme_format){3, 3, 3});
        if (!s)
            return NULL;
        long i = 0;
        for (; i < 2000000 && s->rank > 23; i++)
            flip_once(s, &rng);
        if (s->rank <= 23 && verify_f2(s, NULL)) {
            *flips_out = i;
            *seed_out = seed;
            return s;
        }
        scheme_free(s);
    }
    return NULL;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph bench lift [--corpus DIR] [--repeat N]\n"
            "\n"
            "Hensel lifting time (GF(2) -> Z, verified over Z) for <3,3,3> rank 23 (the\n"
            "standard algorithm walked down by random flips, fixed seed), <4,4,4> rank 49\n"
            "(kauers-moosbauer/444-49-mod0.exp reduced mod 2), <5,5,5> rank 93\n"
            "(moosbauer-poole/555m93.txt), and the time to refuse the GF(2)-only <4,4,4>\n"
            "rank 47 (kauers-moosbauer/444-47-mod2.exp).  Best and median of N runs.\n"
            "\n"
            "  --corpus DIR  the corpus (default $FLIPGRAPH_CORPUS, else data/corpus)\n"
            "  --repeat N    runs per scheme (default 5)\n"
            "  -h, --help    this text\n");
}

int bench_lift_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"corpus", required_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *corpus_opt = NULL;
    long repeat = 5;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'c':
            corpus_opt = optarg;
            break;
        case 'r':
            if (!cli_parse_long(optarg, 1, 1000, &repeat))
                return cli_error(CLI_USAGE, CMD, "--repeat '%s': expected 1..1000", optarg);
            break;
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            usage(stderr);
            return cli_error(CLI_USAGE, CMD, "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc) {
        usage(stderr);
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s'", argv[optind]);
    }
    char dir[PATH_MAX];
    if (!cli_find_corpus(CMD, corpus_opt, dir, sizeof dir))
        return CLI_USAGE;

    enum { NCASES = 4 };
    scheme *cases[NCASES] = {NULL};
    char what[NCASES][160];
    bool expect[NCASES] = {true, true, true, false};
    long flips = 0;
    uint64_t seed = 0;
    cases[0] = walk_333(&flips, &seed);
    if (!cases[0])
        return cli_error(CLI_INTERNAL, CMD, "no <3,3,3> rank-23 scheme reached by the walks");
    snprintf(what[0], sizeof what[0], "standard walked down (seed %llu, %ld flips)", (unsigned long long)seed, flips);
    static const char *files[] = {"kauers-moosbauer/444-49-mod0.exp", "moosbauer-poole/555m93.txt",
                                  "kauers-moosbauer/444-47-mod2.exp"};
    for (int i = 0; i < 3; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        scheme *s = cli_read_scheme(CMD, path, NULL);
        if (!s) {
            for (int k = 0; k < NCASES; k++)
                scheme_free(cases[k]);
            return CLI_USAGE;
        }
        cases[i + 1] = scheme_to_f2(s);
        snprintf(what[i + 1], sizeof what[i + 1], "%s%s", files[i], s->ring == SCHEME_RING_Z ? " mod 2" : "");
        scheme_free(s);
    }
    printf("flipgraph bench lift: %ld runs per scheme, corpus %s\n\n", repeat, dir);
    printf("| scheme | source | unknowns | equations | Jacobian rank | attempts | result | best s | median s |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
    int rc = CLI_OK;
    double *t = malloc((size_t)repeat * sizeof *t);
    for (int c = 0; c < NCASES && t; c++) {
        verify_lift_result lr;
        char result[64] = "";
        for (long k = 0; k < repeat; k++) {
            double t0 = cli_now();
            scheme *z = verify_lift(cases[c], &lr);
            t[k] = cli_now() - t0;
            if ((z != NULL) != expect[c] || (z && !verify_z(z, NULL))) {
                rc = cli_error(CLI_INTERNAL, CMD, "%s: unexpected outcome: %s", what[c], lr.msg);
                scheme_free(z);
                goto out;
            }
            scheme_free(z);
        }
        if (lr.lifted)
            snprintf(result, sizeof result, "lifted at 2^%d, coefficients in -%d..%d", lr.precision, lr.max_coeff,
                     lr.max_coeff);
        else
            snprintf(result, sizeof result, "refused (no lift mod 4)");
        qsort(t, (size_t)repeat, sizeof *t, cli_cmp_double);
        char fb[32];
        printf("| %s rank %d | %s | %d | %d | %d | %d | %s | %.4f | %.4f |\n", scheme_format_str(cases[c]->fmt, fb),
               cases[c]->rank, what[c], lr.unknowns, lr.equations, lr.jacobian_rank, lr.attempts, result, t[0],
               t[repeat / 2]);
    }
    if (!t)
        rc = cli_error(CLI_INTERNAL, CMD, "out of memory");
out:
    free(t);
    for (int k = 0; k < NCASES; k++)
        scheme_free(cases[k]);
    return rc;
}
