/* flipgraph bench store: stored schemes per second when a search reports
 * improvements in bursts, one transaction per burst against one transaction
 * per insert (synchronous=FULL: each commit waits for the disk).  Every
 * insert re-verifies its scheme, so a "verify only" row shows how much of the
 * time is verification and how much is the store.  The schemes are distinct
 * valid GF(2) schemes made by random flips from the standard algorithm
 * (docs/search.md, "Moves"), generated before the clock starts. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "../db/db.h"
#include "../verify/verify.h"
#include "cli.h"

#define CMD "bench store"

/* A flip on position pos between terms r1, r2 sharing that factor:
 * (x, y, z) + (x, y', z') -> (x, y + y', z) + (x, y', z' + z); a term whose
 * factor became zero is dropped. */
static void random_flips(scheme *s, scheme_rng *rng, int flips)
{
    for (int k = 0; k < flips && s->rank > 1; k++) {
        int pos = (int)scheme_rng_below(rng, 3);
        int r1 = (int)scheme_rng_below(rng, (uint32_t)s->rank);
        int start = (int)scheme_rng_below(rng, (uint32_t)s->rank), r2 = -1;
        for (int i = 0; i < s->rank; i++) {
            int c = (start + i) % s->rank;
            if (c != r1 && s->terms[c].f[pos] == s->terms[r1].f[pos]) {
                r2 = c;
                break;
            }
        }
        if (r2 < 0)
            continue;
        int p1 = (pos + 1) % 3, p2 = (pos + 2) % 3;
        s->terms[r1].f[p1] ^= s->terms[r2].f[p1];
        s->terms[r2].f[p2] ^= s->terms[r1].f[p2];
        bool drop1 = !s->terms[r1].f[p1], drop2 = !s->terms[r2].f[p2];
        int hi = r1 > r2 ? r1 : r2, lo = r1 > r2 ? r2 : r1;
        if ((r1 == hi && drop1) || (r2 == hi && drop2))
            scheme_remove(s, hi);
        if ((r1 == lo && drop1) || (r2 == lo && drop2))
            scheme_remove(s, lo);
    }
}

static const char *fs_note(const char *dir)
{
    struct statfs sf;
    if (statfs(dir, &sf) != 0)
        return "";
    switch ((unsigned long)sf.f_type) {
    case 0x01021994UL:
        return " (tmpfs: fsync costs nothing here, figures are optimistic)";
    case 0xEF53UL:
        return " (ext4)";
    case 0x58465342UL:
        return " (xfs)";
    case 0x9123683EUL:
        return " (btrfs)";
    default:
        return "";
    }
}

typedef struct row {
    const char *mode;
    double seconds;
    long stored;
} row;

static int run_mode(const char *dir, int idx, scheme **all, int bursts, int size, bool batched,
                    row *out, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-%d.db", dir, idx);
    db_status st;
    db *d = db_open(path, true, &st, err, errlen);
    if (!d)
        return st;
    int64_t *ids = malloc((size_t)size * sizeof *ids);
    bool *ex = malloc((size_t)size * sizeof *ex);
    long stored = 0;
    double t0 = cli_now();
    db_provenance prov = {0, 0, "bench", 0, 0};
    for (int b = 0; ids && ex && b < bursts && st == DB_OK; b++) {
        scheme *const *burst = all + (size_t)b * (size_t)size;
        if (batched) {
            st = db_insert_schemes(d, (const scheme *const *)burst, size, &prov, ids, ex, err,
                                   errlen);
            for (int i = 0; st == DB_OK && i < size; i++)
                stored += !ex[i];
        } else {
            for (int i = 0; i < size && st == DB_OK; i++) {
                st = db_insert_scheme(d, burst[i], &prov, &ids[i], &ex[i], err, errlen);
                stored += st == DB_OK && !ex[i];
            }
        }
    }
    out->seconds = cli_now() - t0;
    out->stored = stored;
    free(ids);
    free(ex);
    db_close(d);
    unlink(path);
    char side[4200];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return st;
}

int bench_store_cmd(int argc, char **argv)
{
    static const char *help =
        "usage: flipgraph bench store [--dims NxMxP] [--bursts N] [--burst-size K]\n"
        "                             [--flips F] [--seed S] [--dir DIR]\n\n"
        "Stores N bursts of K distinct valid schemes (random flips from the standard\n"
        "algorithm of the format; default 4x4x4, 50 bursts of 20, 200 flips each) into a\n"
        "fresh database in DIR (default: the current folder; a tmpfs folder would make\n"
        "fsync free), once with one transaction per burst and once with one transaction\n"
        "per insert, and prints schemes stored per second.  Every insert re-verifies.\n";
    static const struct option longs[] = {
        {"dims", required_argument, NULL, 'd'},  {"bursts", required_argument, NULL, 'n'},
        {"burst-size", required_argument, NULL, 'k'}, {"flips", required_argument, NULL, 'f'},
        {"seed", required_argument, NULL, 's'},  {"dir", required_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    scheme_format fmt = {4, 4, 4};
    long bursts = 50, size = 20, flips = 200, seed = 0;
    const char *dir = ".";
    char err[1024];
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(help, stdout);
            return CLI_OK;
        case 'd':
            if (!scheme_format_parse(optarg, &fmt, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "--dims: %s", err);
            break;
        case 'n':
            if (!cli_parse_long(optarg, 1, 100000, &bursts))
                return cli_error(CLI_USAGE, CMD, "--bursts: expected 1..100000");
            break;
        case 'k':
            if (!cli_parse_long(optarg, 1, 10000, &size))
                return cli_error(CLI_USAGE, CMD, "--burst-size: expected 1..10000");
            break;
        case 'f':
            if (!cli_parse_long(optarg, 0, 1000000, &flips))
                return cli_error(CLI_USAGE, CMD, "--flips: expected 0..1000000");
            break;
        case 's':
            if (!cli_parse_long(optarg, 0, LONG_MAX, &seed))
                return cli_error(CLI_USAGE, CMD, "--seed: expected a non-negative number");
            break;
        case 'D':
            dir = optarg;
            break;
        case ':':
            return cli_error(CLI_USAGE, CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' (--help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s'", argv[optind]);
    if (bursts * size > 2000000)
        return cli_error(CLI_USAGE, CMD, "--bursts x --burst-size: at most 2000000 schemes");

    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/flipgraph-bench-store-XXXXXX", dir);
    if (!mkdtemp(tmpl))
        return cli_error(CLI_USAGE, CMD, "%s: cannot make a folder there", dir);

    uint64_t s0 = seed ? (uint64_t)seed : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    scheme_rng rng;
    scheme_rng_seed(&rng, s0);
    long total = bursts * size;
    scheme **all = calloc((size_t)total, sizeof *all);
    if (!all) {
        rmdir(tmpl);
        return cli_error(CLI_INTERNAL, CMD, "out of memory");
    }
    long avg_rank = 0;
    for (long i = 0; i < total; i++) {
        all[i] = scheme_standard(fmt);
        if (!all[i]) {
            for (long j = 0; j < i; j++)
                scheme_free(all[j]);
            free(all);
            rmdir(tmpl);
            return cli_error(CLI_INTERNAL, CMD, "out of memory");
        }
        random_flips(all[i], &rng, (int)flips);
        avg_rank += all[i]->rank;
    }

    /* Verification alone: what every insert pays before it touches the file. */
    double t0 = cli_now();
    long valid = 0;
    for (long i = 0; i < total; i++) {
        verify_result res;
        valid += verify_f2(all[i], &res);
    }
    row rows[3] = {{"verify only (no store)", cli_now() - t0, valid}, {0}, {0}};
    int rc = CLI_OK;
    db_status st = run_mode(tmpl, 1, all, (int)bursts, (int)size, false, &rows[1], err, sizeof err);
    rows[1].mode = "one transaction per insert";
    if (st == DB_OK) {
        st = run_mode(tmpl, 2, all, (int)bursts, (int)size, true, &rows[2], err, sizeof err);
        rows[2].mode = "one transaction per burst";
    }
    for (long i = 0; i < total; i++)
        scheme_free(all[i]);
    free(all);
    rmdir(tmpl);
    if (st != DB_OK)
        return cli_error(CLI_INTERNAL, CMD, "%s", err);

    char fb[32];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 1)
        load[0] = -1;
    printf("bench store: %s, %ld bursts of %ld schemes (average rank %.1f), seed %llu\n",
           scheme_format_str(fmt, fb), bursts, size, (double)avg_rank / (double)total,
           (unsigned long long)s0);
    printf("database in %s%s; %ld CPUs, load %.2f\n\n", dir, fs_note(dir), cpus, load[0]);
    printf("%-28s %9s %9s %12s %10s\n", "mode", "schemes", "seconds", "schemes/s", "ms/burst");
    for (int i = 0; i < 3; i++) {
        double per = rows[i].seconds > 0 ? (double)rows[i].stored / rows[i].seconds : 0;
        printf("%-28s %9ld %9.3f %12.0f %10.2f\n", rows[i].mode, rows[i].stored, rows[i].seconds,
               per, 1e3 * rows[i].seconds / (double)bursts);
    }
    if (rows[1].seconds > 0 && rows[2].seconds > 0)
        printf("\nbatched / per insert: %.1fx\n", rows[1].seconds / rows[2].seconds);
    if (valid != total || rows[1].stored != rows[2].stored)
        rc = cli_error(CLI_INTERNAL, CMD, "%ld of %ld schemes verified, %ld and %ld stored: "
                       "the generator or the store is wrong", valid, total, rows[1].stored,
                       rows[2].stored);
    return rc;
}
