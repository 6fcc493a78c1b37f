/* flipgraph bench verify: verifications per second of the bit-parallel GF(2)
 * verifier against the plain per-equation triple loop (verify_f2_reference),
 * and of the Z verifier, on the corpus's <4,4,4> rank 47 and <5,5,5> rank 93
 * (kauers-moosbauer/444-47-mod2.exp, moosbauer-poole/555m93.txt), all in one run. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"
#include "cli.h"

#define CMD "bench verify"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph bench verify [--corpus DIR] [--seconds S]\n"
            "\n"
            "Verifications per second for <4,4,4> rank 47 (kauers-moosbauer/444-47-mod2.exp)\n"
            "and <5,5,5> rank 93 (moosbauer-poole/555m93.txt): verify_f2 (bit-parallel on the\n"
            "packed words) against verify_f2_reference (the per-equation triple loop) and\n"
            "verify_z, in the same run.\n"
            "\n"
            "  --corpus DIR  the corpus (default $FLIPGRAPH_CORPUS, else data/corpus)\n"
            "  --seconds S   time per measurement (default 1)\n"
            "  -h, --help    this text\n");
}

typedef bool (*verifier)(const scheme *, verify_result *);

/* Runs v on s for about `seconds`; returns verifications per second, or -1
 * when a verification disagrees with `expect`. */
static double measure(verifier v, const scheme *s, bool expect, double seconds)
{
    long done = 0, batch = 1;
    double t0 = cli_now(), t = t0;
    while (t - t0 < seconds) {
        for (long i = 0; i < batch; i++)
            if (v(s, NULL) != expect)
                return -1;
        done += batch;
        t = cli_now();
        if (t - t0 < seconds / 20)
            batch *= 2;
    }
    return (double)done / (t - t0);
}

int bench_verify_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"corpus", required_argument, NULL, 'c'},
        {"seconds", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *corpus_opt = NULL;
    double seconds = 1;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'c':
            corpus_opt = optarg;
            break;
        case 's':
            if (!cli_parse_duration(optarg, &seconds) || seconds <= 0 || seconds > 3600)
                return cli_error(CLI_USAGE, CMD, "--seconds '%s': expected a duration up to 1h", optarg);
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

    static const char *files[] = {"kauers-moosbauer/444-47-mod2.exp", "moosbauer-poole/555m93.txt"};
    static const struct {
        const char *name;
        verifier fn;
        bool expect; /* both schemes are GF(2)-only: invalid over Z, found at the first equations */
    } vs[] = {{"verify_f2 (bit-parallel)", verify_f2, true},
              {"verify_f2_reference (triple loop)", verify_f2_reference, true},
              {"verify_z (0/1 coefficients)", verify_z, false}};
    printf("flipgraph bench verify: %.1f s per measurement, corpus %s\n\n", seconds, dir);
    printf("| scheme | verifier | verifications/s | us/verification | vs reference |\n");
    printf("| --- | --- | ---: | ---: | ---: |\n");
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        scheme *s = cli_read_scheme(CMD, path, NULL);
        if (!s)
            return CLI_USAGE;
        char fb[32];
        double rate[3];
        for (size_t i = 0; i < 3; i++) {
            rate[i] = measure(vs[i].fn, s, vs[i].expect, seconds);
            if (rate[i] < 0) {
                scheme_free(s);
                return cli_error(CLI_INTERNAL, CMD, "%s: %s gave an unexpected answer", files[f], vs[i].name);
            }
        }
        for (size_t i = 0; i < 3; i++)
            printf("| %s rank %d | %s | %.4g | %.3f | %.1fx |\n", scheme_format_str(s->fmt, fb), s->rank, vs[i].name,
                   rate[i], 1e6 / rate[i], rate[i] / rate[1]);
        scheme_free(s);
    }
    printf("\nverify_z on these GF(2)-only schemes stops at the first equation it finds\n"
           "failing, after summing every term (the sums are built before any check).\n");
    return CLI_OK;
}
