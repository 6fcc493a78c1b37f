/* Tests of the scheme store (db/) and `flipgraph db`.
 *
 * Schemes are made fresh for every run: random flips from the standard
 * algorithm (docs/search.md, "Moves") over GF(2), and the signed flip over
 * Z, so every stored scheme is valid and distinct ones are plentiful.  The
 * seed comes from /dev/urandom (or FLIPGRAPH_SEED to replay) and every
 * assertion that depends on it prints it.  The faults of docs/db.md each have a
 * test: two writers at once, SIGKILL mid-insert, read-only, full, not ours,
 * corrupt.  Under FLIPGRAPH_SANITIZED=1 the loops are scaled down. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "schemes/scheme.h"
#include "verify/verify.h"
#include "test_common.h"

/* ---- seeds, scale, temporary folders (test_common.h) ---- */

static unsigned long long g_seed;

#define CHECK(cond, ...) \
    cr_assert(cond, "%s [seed %llu: FLIPGRAPH_SEED=%llu replays]", tc_fmt(__VA_ARGS__), g_seed, g_seed)

static int scaled(int n) { return tc_sanitized() ? (n / 4 > 4 ? n / 4 : 4) : n; }

static void make_dir(void)
{
    g_seed = tc_seed();
    tc_suite_dir_make("fg-test-db");
}

TestSuite(db, .init = make_dir, .fini = tc_suite_dir_remove);

/* ---- schemes for the tests ---- */

static void flips_f2(scheme *s, scheme_rng *rng, int flips)
{
    for (int k = 0; k < flips && s->rank > 1; k++) {
        int pos = (int)scheme_rng_below(rng, 3);
        int r1 = (int)scheme_rng_below(rng, (uint32_t)s->rank), r2 = -1;
        int start = (int)scheme_rng_below(rng, (uint32_t)s->rank);
        for (int i = 0; i < s->rank && r2 < 0; i++) {
            int c = (start + i) % s->rank;
            if (c != r1 && s->terms[c].f[pos] == s->terms[r1].f[pos])
                r2 = c;
        }
        if (r2 < 0)
            continue;
        int p1 = (pos + 1) % 3, p2 = (pos + 2) % 3;
        s->terms[r1].f[p1] ^= s->terms[r2].f[p1];
        s->terms[r2].f[p2] ^= s->terms[r1].f[p2];
        bool d1 = !s->terms[r1].f[p1], d2 = !s->terms[r2].f[p2];
        int hi = r1 > r2 ? r1 : r2, lo = r1 + r2 - hi;
        bool dhi = hi == r1 ? d1 : d2, dlo = lo == r1 ? d1 : d2;
        if (dhi)
            scheme_remove(s, hi);
        if (dlo)
            scheme_remove(s, lo);
    }
}

static scheme *rand_f2(scheme_format f, scheme_rng *rng, int flips)
{
    scheme *s = scheme_standard(f);
    cr_assert_not_null(s);
    flips_f2(s, rng, flips);
    return s;
}

/* Over Z: (x, y, z) + (x, y', z') = (x, y + y', z) + (x, y', z' - z). */
static scheme *rand_z(scheme_format f, scheme_rng *rng, int flips)
{
    scheme *std = scheme_standard(f);
    int rank = std->rank;
    scheme_zterm *t = calloc((size_t)rank, sizeof *t);
    for (int r = 0; r < rank; r++)
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < 64; e++)
                t[r].z[pos][e] = (int8_t)((std->terms[r].f[pos] >> e) & 1);
    scheme_free(std);
    for (int k = 0; k < flips && rank > 1; k++) {
        int pos = (int)scheme_rng_below(rng, 3);
        int r1 = (int)scheme_rng_below(rng, (uint32_t)rank), r2 = -1;
        int start = (int)scheme_rng_below(rng, (uint32_t)rank);
        for (int i = 0; i < rank && r2 < 0; i++) {
            int c = (start + i) % rank;
            if (c != r1 && !memcmp(t[c].z[pos], t[r1].z[pos], 64))
                r2 = c;
        }
        if (r2 < 0)
            continue;
        int p1 = (pos + 1) % 3, p2 = (pos + 2) % 3;
        bool ok = true;
        for (int e = 0; e < 64; e++)
            ok &= abs(t[r1].z[p1][e] + t[r2].z[p1][e]) <= 60 &&
                  abs(t[r2].z[p2][e] - t[r1].z[p2][e]) <= 60;
        if (!ok)
            continue;
        for (int e = 0; e < 64; e++) {
            t[r1].z[p1][e] = (int8_t)(t[r1].z[p1][e] + t[r2].z[p1][e]);
            t[r2].z[p2][e] = (int8_t)(t[r2].z[p2][e] - t[r1].z[p2][e]);
        }
        for (int idx = 0; idx < 2; idx++) { /* drop terms whose factor vanished */
            int r = idx == 0 ? (r1 > r2 ? r1 : r2) : (r1 > r2 ? r2 : r1);
            int p = r == r1 ? p1 : p2;
            bool zero = true;
            for (int e = 0; e < 64; e++)
                zero &= t[r].z[p][e] == 0;
            if (zero)
                t[r] = t[--rank];
        }
    }
    scheme *s = scheme_new(f, SCHEME_RING_Z, rank);
    for (int r = 0; r < rank; r++)
        cr_assert(scheme_push_z(s, &t[r]));
    free(t);
    return s;
}

static char g_err[2048];
#define ERR g_err, sizeof g_err

static db *open_new(const char *name)
{
    db_status st;
    db *d = db_open(tc_path_in(name), true, &st, ERR);
    cr_assert_not_null(d, "open %s: %s", name, g_err);
    cr_assert_eq(st, DB_OK);
    return d;
}

static int64_t count_rows(db *d, int ring)
{
    db_stats_info s;
    cr_assert_eq(db_stats(d, &s, ERR), DB_OK, "%s", g_err);
    return ring < 0 ? s.schemes[0] + s.schemes[1] : s.schemes[ring];
}

/* ---- opening, identity, versions ---- */

Test(db, create_sets_wal_application_id_and_version)
{
    db *d = open_new("a.db");
    db_close(d);
    const char *p = tc_path_in("a.db");
    cr_assert_eq(tc_sql_int(p, "PRAGMA application_id"), DB_APPLICATION_ID);
    cr_assert_eq(tc_sql_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    cr_assert_eq(tc_sql_int(p, "SELECT count(*) FROM sqlite_master WHERE name IN ('schemes', "
                            "'runs', 'improvements', 'schemes_by_format')"), 4);
    sqlite3 *h;
    sqlite3_open(p, &h);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(h);
    /* Reopening an existing database without create works; a missing one does not. */
    db_status s;
    d = db_open(p, false, &s, ERR);
    cr_assert_not_null(d, "%s", g_err);
    db_close(d);
    cr_assert_null(db_open(tc_path_in("missing.db"), false, &s, ERR));
    cr_assert_eq(s, DB_NOT_FOUND);
    cr_assert(strstr(g_err, "missing.db"), "%s", g_err);
    cr_assert(access(tc_path_in("missing.db"), F_OK) != 0, "opening without create made a file");
}

Test(db, default_path_option_then_env_then_cwd)
{
    unsetenv("FLIPGRAPH_DB");
    cr_assert_str_eq(db_default_path(NULL), "flipgraph.db");
    cr_assert_str_eq(db_default_path(""), "flipgraph.db");
    setenv("FLIPGRAPH_DB", "/x/env.db", 1);
    cr_assert_str_eq(db_default_path(NULL), "/x/env.db");
    cr_assert_str_eq(db_default_path("opt.db"), "opt.db");
    unsetenv("FLIPGRAPH_DB");
}

Test(db, newer_schema_refused)
{
    db_close(open_new("n.db"));
    tc_sql_exec(tc_path_in("n.db"), "PRAGMA user_version = 99");
    db_status st;
    cr_assert_null(db_open(tc_path_in("n.db"), true, &st, ERR));
    cr_assert_eq(st, DB_NEWER);
    cr_assert(strstr(g_err, "newer") && strstr(g_err, "99"), "%s", g_err);
    cr_assert_eq(tc_sql_int(tc_path_in("n.db"), "PRAGMA user_version"), 99, "the file was changed");
}

Test(db, other_sqlite_database_refused_and_untouched)
{
    const char *p = tc_path_in("other.db");
    tc_sql_exec(p, "CREATE TABLE t (x); INSERT INTO t VALUES (42)");
    db_status st;
    cr_assert_null(db_open(p, true, &st, ERR));
    cr_assert_eq(st, DB_NOT_FLIPGRAPH);
    cr_assert(strstr(g_err, "another program"), "%s", g_err);
    cr_assert_eq(tc_sql_int(p, "SELECT x FROM t"), 42);
    cr_assert_eq(tc_sql_int(p, "SELECT count(*) FROM sqlite_master"), 1);
    cr_assert_eq(tc_sql_int(p, "PRAGMA user_version"), 0);
    /* Another application's id, even without tables. */
    const char *q = tc_path_in("app.db");
    tc_sql_exec(q, "PRAGMA application_id = 1234");
    cr_assert_null(db_open(q, true, &st, ERR));
    cr_assert_eq(st, DB_NOT_FLIPGRAPH);
    cr_assert(strstr(g_err, "0x000004d2"), "%s", g_err);
}

Test(db, not_sqlite_refused)
{
    const char *p = tc_path_in("text.db");
    FILE *f = fopen(p, "w");
    for (int i = 0; i < 200; i++)
        fprintf(f, "(a11+a22)*(b11+b22)*(c11+c22) line %d\n", i);
    fclose(f);
    struct stat before, after;
    stat(p, &before);
    db_status st;
    cr_assert_null(db_open(p, true, &st, ERR));
    cr_assert_eq(st, DB_NOT_FLIPGRAPH, "status %d: %s", st, g_err);
    cr_assert(strstr(g_err, "not a flipgraph database"), "%s", g_err);
    stat(p, &after);
    cr_assert_eq(before.st_size, after.st_size);
    /* A folder is not a database either. */
    cr_assert_null(db_open(tc_dir, true, &st, ERR));
    cr_assert_eq(st, DB_NOT_FLIPGRAPH);
}

Test(db, empty_file_initialized_only_with_create)
{
    const char *p = tc_path_in("empty.db");
    close(open(p, O_CREAT | O_WRONLY, 0644));
    db_status st;
    cr_assert_null(db_open(p, false, &st, ERR));
    cr_assert_eq(st, DB_NOT_FLIPGRAPH);
    cr_assert(strstr(g_err, "db init"), "%s", g_err);
    db *d = db_open(p, true, &st, ERR);
    cr_assert_not_null(d, "%s", g_err);
    db_close(d);
    cr_assert_eq(tc_sql_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
}

/* ---- inserting, verifying, loading ---- */

Test(db, insert_stores_verified_and_finds_it_again_in_any_order)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("i.db");
    scheme_format f = {3, 3, 3};
    scheme *s = rand_f2(f, &rng, 300);
    db_provenance prov = {0, 0, "test", 0, 0};
    int64_t id, id2;
    bool ex;
    CHECK(db_insert_scheme(d, s, &prov, &id, &ex, ERR) == DB_OK, "%s", g_err);
    CHECK(!ex && id > 0, "first insert: existed %d id %lld", ex, (long long)id);
    /* The same terms shuffled are the same scheme. */
    scheme *t = scheme_clone(s);
    for (int r = t->rank - 1; r > 0; r--) {
        int j = (int)scheme_rng_below(&rng, (uint32_t)r + 1);
        scheme_term tmp = t->terms[r];
        t->terms[r] = t->terms[j];
        t->terms[j] = tmp;
    }
    CHECK(db_insert_scheme(d, t, &prov, &id2, &ex, ERR) == DB_OK, "%s", g_err);
    CHECK(ex && id2 == id, "shuffled: existed %d id %lld vs %lld", ex, (long long)id2,
          (long long)id);
    CHECK(db_find_scheme(d, t, &id2, ERR) == DB_OK && id2 == id, "find: %s", g_err);
    cr_assert_eq(count_rows(d, -1), 1);
    db_status st;
    scheme *back = db_load_scheme(d, id, &st, ERR);
    CHECK(back && st == DB_OK, "load: %s", g_err);
    CHECK(scheme_equal(back, s), "the loaded scheme differs from the stored one");
    db_scheme_row row;
    cr_assert_eq(db_scheme_info(d, id, &row, ERR), DB_OK);
    char h[17];
    scheme_hash_hex(scheme_hash(s), h);
    cr_assert_str_eq(row.hash, h);
    cr_assert_str_eq(row.source, "test");
    cr_assert_eq(row.rank, s->rank);
    cr_assert_eq(row.ring, SCHEME_RING_F2);
    cr_assert(strlen(row.found_at) >= 19 && row.found_at[10] == 'T', "%s", row.found_at);
    cr_assert_null(db_load_scheme(d, id + 100, &st, ERR));
    cr_assert_eq(st, DB_NOT_FOUND);
    scheme_free(back);
    scheme_free(t);
    scheme_free(s);
    db_close(d);
}

Test(db, insert_refuses_invalid_with_the_verifiers_message)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("inv.db");
    for (int trial = 0; trial < scaled(20); trial++) {
        scheme_format f = {2 + (int)scheme_rng_below(&rng, 3), 2 + (int)scheme_rng_below(&rng, 3),
                           2 + (int)scheme_rng_below(&rng, 3)};
        scheme *s = rand_f2(f, &rng, 100);
        /* Flip one entry of one factor: the Brent equations break. */
        int r = (int)scheme_rng_below(&rng, (uint32_t)s->rank);
        int pos = (int)scheme_rng_below(&rng, 3);
        int e = (int)scheme_rng_below(&rng, (uint32_t)scheme_factor_size(f, pos));
        s->terms[r].f[pos] ^= 1ull << e;
        if (!s->terms[r].f[pos]) /* the term vanished: another refusal reason */
            s->terms[r].f[pos] ^= 1ull << ((e + 1) % scheme_factor_size(f, pos)) | 1ull << e;
        verify_result vr;
        bool valid = verify_f2(s, &vr);
        int64_t id = -1;
        bool ex = true;
        g_err[0] = 0;
        db_status st = db_insert_scheme(d, s, NULL, &id, &ex, ERR);
        if (!valid) {
            CHECK(st == DB_INVALID, "trial %d: status %d", trial, st);
            CHECK(strstr(g_err, "does not verify over GF(2)") && strstr(g_err, vr.msg),
                  "trial %d: message '%s' lacks the verifier's '%s'", trial, g_err, vr.msg);
            CHECK(id == 0 && !ex, "trial %d: refused but id %lld", trial, (long long)id);
        }
        scheme_free(s);
    }
    cr_assert_eq(count_rows(d, -1), 0, "an invalid scheme was stored");
    /* Shapes verification does not see: a zero factor, bits outside a factor. */
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    scheme_push(s, 1, 0, 1);
    cr_assert_eq(db_insert_scheme(d, s, NULL, NULL, NULL, ERR), DB_INVALID);
    cr_assert(strstr(g_err, "zero"), "%s", g_err);
    scheme_remove(s, s->rank - 1);
    s->terms[0].f[0] |= 1ull << 40;
    cr_assert_eq(db_insert_scheme(d, s, NULL, NULL, NULL, ERR), DB_INVALID);
    cr_assert(strstr(g_err, "outside"), "%s", g_err);
    scheme_free(s);
    cr_assert_eq(count_rows(d, -1), 0);
    db_close(d);
}

Test(db, random_schemes_round_trip_over_both_rings)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("rt.db");
    int n = scaled(60);
    for (int i = 0; i < n; i++) {
        scheme_format f = {1 + (int)scheme_rng_below(&rng, 5), 1 + (int)scheme_rng_below(&rng, 5),
                           1 + (int)scheme_rng_below(&rng, 5)};
        bool z = i % 2;
        scheme *s = z ? rand_z(f, &rng, 60) : rand_f2(f, &rng, 60);
        verify_result vr;
        CHECK(z ? verify_z(s, &vr) : verify_f2(s, &vr), "generator made an invalid scheme: %s",
              vr.msg);
        int64_t id;
        bool ex;
        CHECK(db_insert_scheme(d, s, NULL, &id, &ex, ERR) == DB_OK, "%d: %s", i, g_err);
        db_status st;
        scheme *b = db_load_scheme(d, id, &st, ERR);
        CHECK(b && scheme_equal(b, s), "%d: %dx%dx%d %s round trip differs (%s)", i, f.n, f.m,
              f.p, z ? "Z" : "F2", g_err);
        scheme_free(b);
        scheme_free(s);
    }
    db_check_report rep;
    cr_assert_eq(db_check(d, NULL, NULL, &rep, ERR), DB_OK);
    CHECK(rep.problems == 0 && rep.integrity_ok && rep.verified == rep.schemes,
          "check: %lld problems", (long long)rep.problems);
    db_close(d);
}

Test(db, import_z_stores_the_reduction_mod_2_with_its_parent)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("z.db");
    scheme *s = rand_z((scheme_format){3, 3, 3}, &rng, 200);
    db_provenance prov = {0, 0, "import:x.exp", 0, 0};
    int64_t id, f2;
    bool ex, f2ex;
    CHECK(db_import_scheme(d, s, &prov, &id, &ex, &f2, &f2ex, ERR) == DB_OK, "%s", g_err);
    cr_assert(!ex && !f2ex && id > 0 && f2 > 0 && f2 != id);
    db_scheme_row r;
    cr_assert_eq(db_scheme_info(d, f2, &r, ERR), DB_OK);
    cr_assert_eq(r.ring, SCHEME_RING_F2);
    cr_assert_eq(r.parent_id, id);
    cr_assert_str_eq(r.source, "import:x.exp mod 2");
    scheme *red = scheme_to_f2(s);
    db_status st;
    scheme *b = db_load_scheme(d, f2, &st, ERR);
    cr_assert(b && scheme_equal(b, red));
    CHECK(db_import_scheme(d, s, &prov, &id, &ex, &f2, &f2ex, ERR) == DB_OK, "%s", g_err);
    cr_assert(ex && f2ex);
    cr_assert_eq(count_rows(d, SCHEME_RING_Z), 1);
    cr_assert_eq(count_rows(d, SCHEME_RING_F2), 1);
    scheme_free(b);
    scheme_free(red);
    scheme_free(s);
    db_close(d);
}

Test(db, best_is_the_lowest_rank_of_the_format_and_ring)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("best.db");
    scheme_format f = {3, 3, 3}, g = {2, 3, 3};
    int best = 1 << 30;
    int64_t best_id = 0;
    for (int i = 0; i < scaled(40); i++) {
        scheme *s = rand_f2(f, &rng, (int)scheme_rng_below(&rng, 400));
        int64_t id;
        bool ex;
        CHECK(db_insert_scheme(d, s, NULL, &id, &ex, ERR) == DB_OK, "%s", g_err);
        if (s->rank < best || (s->rank == best && id < best_id)) {
            best = s->rank;
            best_id = id;
        }
        scheme_free(s);
        s = rand_f2(g, &rng, 50); /* another format must not interfere */
        db_insert_scheme(d, s, NULL, NULL, NULL, ERR);
        scheme_free(s);
    }
    int64_t id;
    int rank;
    CHECK(db_best(d, f, SCHEME_RING_F2, &id, &rank, ERR) == DB_OK, "%s", g_err);
    CHECK(rank == best && id == best_id, "best %d (#%lld), expected %d (#%lld)", rank,
          (long long)id, best, (long long)best_id);
    cr_assert_eq(db_best(d, f, SCHEME_RING_Z, &id, &rank, ERR), DB_NOT_FOUND);
    cr_assert_eq(db_best(d, (scheme_format){4, 4, 4}, SCHEME_RING_F2, &id, &rank, ERR),
                 DB_NOT_FOUND);
    db_close(d);
}

Test(db, batch_stores_the_valid_and_refuses_the_invalid)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("batch.db");
    enum { N = 12 };
    scheme *s[N];
    db_provenance prov[N];
    for (int i = 0; i < N; i++) {
        s[i] = rand_f2((scheme_format){3, 3, 4}, &rng, 150 + i);
        prov[i] = (db_provenance){0, 0, "burst", (uint64_t)(1000 + i), 0.5 + i};
    }
    s[4]->terms[0].f[1] ^= s[4]->terms[1].f[1] ? s[4]->terms[1].f[1] : 1; /* break one */
    verify_result vr;
    bool four_valid = verify_f2(s[4], &vr);
    int64_t ids[N];
    bool ex[N];
    db_status st = db_insert_schemes_each(d, (const scheme *const *)s, N, prov, ids, ex, ERR);
    if (!four_valid) {
        CHECK(st == DB_INVALID && strstr(g_err, "scheme 5 of 12"), "status %d: %s", st, g_err);
        cr_assert_eq(ids[4], 0);
    }
    for (int i = 0; i < N; i++) {
        if (i == 4 && !four_valid)
            continue;
        CHECK(ids[i] > 0, "scheme %d not stored", i);
        db_scheme_row r;
        cr_assert_eq(db_scheme_info(d, ids[i], &r, ERR), DB_OK);
        cr_assert_eq(r.flips, 1000u + (unsigned)i);
        cr_assert_float_eq(r.seconds, 0.5 + i, 1e-9);
    }
    /* Again in one provenance: everything already there. */
    db_provenance one = {0, 0, "again", 0, 0};
    db_insert_schemes(d, (const scheme *const *)s, N, &one, ids, ex, ERR);
    for (int i = 0; i < N; i++)
        if (i != 4 || four_valid)
            cr_assert(ex[i], "scheme %d stored twice", i);
    for (int i = 0; i < N; i++)
        scheme_free(s[i]);
    db_close(d);
}

Test(db, runs_record_parameters_progress_and_improvements)
{
    db *d = open_new("runs.db");
    db_set_program_version("9.9.9-test");
    db_run_info info = {{4, 4, 4}, "dims=4x4x4\nthreads=2\nplateau=1000\n", 0xfedcba9876543210ull,
                        "cpu", "2 threads", NULL};
    int64_t run;
    cr_assert_eq(db_run_begin(d, &info, &run, ERR), DB_OK, "%s", g_err);
    cr_assert_eq(db_run_improvement(d, run, 1.5, 60, ERR), DB_OK, "%s", g_err);
    cr_assert_eq(db_run_improvement(d, run, 3.25, 52, ERR), DB_OK, "%s", g_err);
    cr_assert_eq(db_run_progress(d, run, 123456, 0, ERR), DB_OK, "%s", g_err);
    db_run_row r;
    cr_assert_eq(db_run_get(d, run, &r, ERR), DB_OK);
    cr_assert_str_eq(r.status, "running");
    cr_assert_eq(r.best_rank, 52);
    cr_assert_eq(r.flips, 123456u);
    cr_assert_eq(r.seed, 0xfedcba9876543210ull);
    cr_assert_str_eq(r.version, "9.9.9-test");
    cr_assert_str_eq(r.ended, "");
    cr_assert_eq(strlen(r.uid), 32u);
    /* A scheme found by the run names it. */
    scheme *s = scheme_standard((scheme_format){4, 4, 4});
    db_provenance prov = {run, 0, "search", 99, 2.0};
    int64_t id;
    cr_assert_eq(db_insert_scheme(d, s, &prov, &id, NULL, ERR), DB_OK, "%s", g_err);
    prov.run_id = run + 17;
    cr_assert_eq(db_insert_scheme(d, s, &prov, &id, NULL, ERR), DB_OK, "known scheme: no check");
    scheme *t = scheme_standard((scheme_format){2, 4, 4});
    cr_assert_eq(db_insert_scheme(d, t, &prov, &id, NULL, ERR), DB_NOT_FOUND);
    cr_assert(strstr(g_err, "run"), "%s", g_err);
    prov.run_id = 0;
    prov.parent_id = 12345;
    cr_assert_eq(db_insert_scheme(d, t, &prov, &id, NULL, ERR), DB_NOT_FOUND);
    cr_assert_eq(db_run_end(d, run, "finished", 200000, 49, ERR), DB_OK, "%s", g_err);
    cr_assert_eq(db_run_end(d, run, "exploded", 1, 1, ERR), DB_IO);
    cr_assert_eq(db_run_end(d, run + 5, "failed", 1, 1, ERR), DB_NOT_FOUND);
    cr_assert_eq(db_run_get(d, run, &r, ERR), DB_OK);
    cr_assert_str_eq(r.status, "finished");
    cr_assert_eq(r.best_rank, 49);
    cr_assert_eq(r.flips, 200000u);
    cr_assert_eq(r.schemes, 1);
    cr_assert_eq(r.improvements, 2);
    cr_assert_neq(r.ended[0], 0);
    db_status st;
    char *params = db_run_params(d, run, &st, ERR);
    cr_assert_not_null(params);
    cr_assert_str_eq(params, info.params);
    free(params);
    cr_assert_null(db_run_params(d, run + 1, &st, ERR));
    cr_assert_eq(st, DB_NOT_FOUND);
    db_improvement *imp;
    int64_t n;
    cr_assert_eq(db_run_improvements(d, run, &imp, &n, ERR), DB_OK);
    cr_assert_eq(n, 2);
    cr_assert_eq(imp[0].rank, 60);
    cr_assert_eq(imp[1].rank, 52);
    free(imp);
    scheme_free(s);
    scheme_free(t);
    db_close(d);
}

Test(db, check_finds_rows_that_were_tampered_with)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("tamper.db");
    int64_t ids[3];
    for (int i = 0; i < 3; i++) {
        scheme *s = rand_f2((scheme_format){3, 3, 3}, &rng, 200);
        cr_assert_eq(db_insert_scheme(d, s, NULL, &ids[i], NULL, ERR), DB_OK, "%s", g_err);
        scheme_free(s);
    }
    /* Row 1: its terms changed, the hash left alone.  Row 2: terms changed
     * and the hash made to match, so only re-verification can tell. */
    db_status st;
    scheme *s2 = db_load_scheme(d, ids[2], &st, ERR);
    db_close(d);
    s2->terms[0].f[0] ^= 1; /* a different, invalid scheme */
    if (!s2->terms[0].f[0])
        s2->terms[0].f[0] = 2;
    size_t len;
    uint8_t *b = scheme_canonical_bytes(s2, &len);
    char h[17];
    scheme_hash_hex(scheme_hash(s2), h);
    sqlite3 *hd;
    sqlite3_open(tc_path_in("tamper.db"), &hd);
    sqlite3_stmt *up;
    sqlite3_prepare_v2(hd, "UPDATE schemes SET terms = ?1, hash = ?2 WHERE id = ?3", -1, &up, NULL);
    sqlite3_bind_blob(up, 1, b, (int)len, SQLITE_STATIC);
    sqlite3_bind_text(up, 2, h, -1, SQLITE_STATIC);
    sqlite3_bind_int64(up, 3, ids[2]);
    cr_assert_eq(sqlite3_step(up), SQLITE_DONE);
    sqlite3_finalize(up);
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE schemes SET terms = substr(terms, 1, 20) || x'ff' || "
             "substr(terms, 22) WHERE id = %lld", (long long)ids[1]);
    cr_assert_eq(sqlite3_exec(hd, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(hd);
    free(b);
    scheme_free(s2);
    d = db_open(tc_path_in("tamper.db"), false, &st, ERR);
    db_check_report rep;
    cr_assert_eq(db_check(d, NULL, NULL, &rep, ERR), DB_OK);
    CHECK(rep.integrity_ok && rep.schemes == 3 && rep.verified == 1 && rep.problems == 2,
          "integrity %d schemes %lld verified %lld problems %lld", rep.integrity_ok,
          (long long)rep.schemes, (long long)rep.verified, (long long)rep.problems);
    cr_assert_null(db_load_scheme(d, ids[1], &st, ERR));
    cr_assert_eq(st, DB_CORRUPT, "%s", g_err);
    db_close(d);
}

Test(db, merge_takes_runs_and_schemes_once)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *a = open_new("a.db"), *b = open_new("b.db");
    db_run_info info = {{3, 3, 3}, "k=v\n", 7, "cpu", "1 thread", "t"};
    int64_t run;
    cr_assert_eq(db_run_begin(b, &info, &run, ERR), DB_OK);
    cr_assert_eq(db_run_improvement(b, run, 1.0, 25, ERR), DB_OK);
    int shared = 0;
    for (int i = 0; i < scaled(30); i++) {
        scheme *s = rand_f2((scheme_format){3, 3, 3}, &rng, 300);
        db_provenance p = {run, 0, "search", 10, 1};
        int64_t id;
        bool ex;
        cr_assert_eq(db_insert_scheme(b, s, &p, &id, &ex, ERR), DB_OK, "%s", g_err);
        if (i % 3 == 0) {
            db_insert_scheme(a, s, NULL, NULL, &ex, ERR);
            shared += !ex;
        }
        scheme_free(s);
    }
    scheme *z = rand_z((scheme_format){2, 2, 3}, &rng, 50);
    db_provenance pz = {0, 0, "import:z", 0, 0};
    int64_t zid, f2id;
    cr_assert_eq(db_import_scheme(b, z, &pz, &zid, NULL, &f2id, NULL, ERR), DB_OK, "%s", g_err);
    int64_t in_b = count_rows(b, -1), in_a = count_rows(a, -1);
    db_close(b);
    db_merge_report rep;
    cr_assert_eq(db_merge(a, tc_path_in("b.db"), NULL, NULL, &rep, ERR), DB_OK, "%s", g_err);
    cr_assert_eq(rep.runs_added, 1);
    cr_assert_eq(rep.schemes_refused, 0);
    cr_assert_eq(rep.schemes_known, shared);
    cr_assert_eq(rep.schemes_added, in_b - shared);
    cr_assert_eq(count_rows(a, -1), in_a + in_b - shared);
    cr_assert_eq(db_merge(a, tc_path_in("b.db"), NULL, NULL, &rep, ERR), DB_OK, "%s", g_err);
    cr_assert(rep.runs_added == 0 && rep.runs_known == 1 && rep.schemes_added == 0);
    /* Run ids and parent ids point at this database's rows. */
    db_run_row r;
    cr_assert_eq(db_run_get(a, 1, &r, ERR), DB_OK);
    cr_assert_eq(r.improvements, 1);
    cr_assert_eq(r.schemes, in_b - 2 - shared, "schemes of the merged run: %lld",
                 (long long)r.schemes);
    scheme *red = scheme_to_f2(z);
    int64_t az, af;
    cr_assert_eq(db_find_scheme(a, z, &az, ERR), DB_OK);
    cr_assert_eq(db_find_scheme(a, red, &af, ERR), DB_OK);
    db_scheme_row row;
    cr_assert_eq(db_scheme_info(a, af, &row, ERR), DB_OK);
    cr_assert_eq(row.parent_id, az, "the merged reduction mod 2 lost its parent");
    scheme_free(red);
    scheme_free(z);
    db_check_report cr;
    cr_assert_eq(db_check(a, NULL, NULL, &cr, ERR), DB_OK);
    cr_assert_eq(cr.problems, 0);
    cr_assert(db_merge(a, tc_path_in("a.db"), NULL, NULL, &rep, ERR) != DB_OK, "merged into itself");
    db_close(a);
}

/* ---- faults ---- */

Test(db, read_only_open_refuses_changes_and_keeps_data)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("ro.db");
    scheme *s = rand_f2((scheme_format){3, 3, 3}, &rng, 200);
    int64_t id;
    cr_assert_eq(db_insert_scheme(d, s, NULL, &id, NULL, ERR), DB_OK);
    db_close(d);
    db_status st;
    /* SQLITE_OPEN_READONLY: works for root too, whom permissions do not stop. */
    d = db_open_ex(tc_path_in("ro.db"), DB_OPEN_READONLY, &st, ERR);
    cr_assert_not_null(d, "%s", g_err);
    cr_assert(db_is_readonly(d));
    scheme *t = rand_f2((scheme_format){3, 3, 3}, &rng, 201);
    cr_assert_eq(db_insert_scheme(d, t, NULL, NULL, NULL, ERR), DB_READONLY);
    cr_assert(strstr(g_err, "read-only"), "%s", g_err);
    db_run_info info = {{3, 3, 3}, "", 1, "cpu", "", NULL};
    cr_assert_eq(db_run_begin(d, &info, &id, ERR), DB_READONLY);
    int64_t bid;
    int rank;
    cr_assert_eq(db_best(d, (scheme_format){3, 3, 3}, SCHEME_RING_F2, &bid, &rank, ERR), DB_OK);
    cr_assert_eq(rank, s->rank);
    db_close(d);
    d = db_open(tc_path_in("ro.db"), false, &st, ERR);
    cr_assert_eq(count_rows(d, -1), 1);
    db_close(d);
    scheme_free(s);
    scheme_free(t);
}

/* In a child without privileges (root drops to uid 65534, whom permissions
 * do stop): the file and its folder are not writable.  Returns the child's
 * exit code: 0 all as expected, 77 could not drop privileges. */
static int unprivileged_checks(const char *dir, const char *file, int rank)
{
    pid_t kid = fork();
    if (kid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(77);
        char err[1024], newp[600];
        db_status st;
        db *d = db_open(file, false, &st, err, sizeof err);
        if (d || st != DB_READONLY || !strstr(err, "read-only"))
            _exit(10); /* opening for writing must say read-only */
        d = db_open_ex(file, DB_OPEN_READONLY, &st, err, sizeof err);
        if (!d)
            _exit(11); /* but reading works (immutable: no -shm can be made here) */
        int64_t id;
        int r;
        if (db_best(d, (scheme_format){3, 3, 3}, SCHEME_RING_F2, &id, &r, err, sizeof err) ||
            r != rank)
            _exit(12);
        scheme *s = scheme_standard((scheme_format){2, 2, 2});
        if (db_insert_scheme(d, s, NULL, NULL, NULL, err, sizeof err) != DB_READONLY)
            _exit(13);
        db_close(d);
        snprintf(newp, sizeof newp, "%s/new.db", dir);
        if (db_open(newp, true, &st, err, sizeof err) || st != DB_READONLY)
            _exit(14); /* nor can a database be created in that folder */
        scheme_free(s);
        _exit(0);
    }
    int status;
    waitpid(kid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

Test(db, read_only_file_and_folder_for_an_unprivileged_user)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("perm.db");
    scheme *s = rand_f2((scheme_format){3, 3, 3}, &rng, 200);
    cr_assert_eq(db_insert_scheme(d, s, NULL, NULL, NULL, ERR), DB_OK);
    db_close(d); /* the last close removes -wal and -shm */
    cr_assert(access(tc_path_in("perm.db-shm"), F_OK) != 0);
    chmod(tc_path_in("perm.db"), 0444);
    chmod(tc_dir, 0555);
    int rc = unprivileged_checks(tc_dir, tc_path_in("perm.db"), s->rank);
    chmod(tc_dir, 0700);
    chmod(tc_path_in("perm.db"), 0644);
    scheme_free(s);
    if (rc == 77) {
        tc_suite_dir_remove(); /* Criterion runs no .fini after a skip */
        cr_skip_test("cannot drop privileges to uid 65534 here");
    }
    cr_assert_eq(rc, 0, "unprivileged check %d failed (10 open rw, 11 open ro, 12 read, "
                 "13 insert, 14 create)", rc);
    d = db_open(tc_path_in("perm.db"), false, NULL, ERR);
    cr_assert_not_null(d, "%s", g_err);
    cr_assert_eq(count_rows(d, -1), 1);
    db_close(d);
}

Test(db, full_database_refuses_the_change_and_keeps_what_it_had)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("full.db");
    cr_assert_eq(db_set_max_bytes(d, 96 * 1024, ERR), DB_OK, "%s", g_err);
    int64_t ids[400];
    int stored = 0;
    db_status st = DB_OK;
    for (int i = 0; i < 400 && st == DB_OK; i++) {
        scheme *s = rand_f2((scheme_format){4, 4, 4}, &rng, 400);
        bool ex;
        st = db_insert_scheme(d, s, NULL, &ids[stored], &ex, ERR);
        if (st == DB_OK && !ex)
            stored++;
        scheme_free(s);
    }
    CHECK(st == DB_FULL, "status %d after %d schemes: %s", st, stored, g_err);
    cr_assert(strstr(g_err, "full"), "%s", g_err);
    cr_assert_gt(stored, 5);
    /* A whole burst that does not fit: none of it is stored. */
    scheme *burst[8];
    for (int i = 0; i < 8; i++)
        burst[i] = rand_f2((scheme_format){4, 4, 4}, &rng, 400);
    int64_t bids[8];
    bool bex[8];
    cr_assert_eq(db_insert_schemes(d, (const scheme *const *)burst, 8, NULL, bids, bex, ERR),
                 DB_FULL);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(bids[i], 0);
    cr_assert_eq(count_rows(d, -1), stored);
    db_close(d);
    d = db_open(tc_path_in("full.db"), false, &st, ERR);
    cr_assert_not_null(d, "%s", g_err);
    cr_assert_eq(count_rows(d, -1), stored);
    for (int i = 0; i < stored; i++) {
        scheme *s = db_load_scheme(d, ids[i], &st, ERR);
        CHECK(s != NULL, "scheme %lld lost after the disk filled: %s", (long long)ids[i], g_err);
        scheme_free(s);
    }
    db_check_report rep;
    cr_assert_eq(db_check(d, NULL, NULL, &rep, ERR), DB_OK);
    cr_assert_eq(rep.problems, 0);
    /* Without the limit, the burst goes in. */
    cr_assert_eq(db_insert_schemes(d, (const scheme *const *)burst, 8, NULL, bids, bex, ERR),
                 DB_OK, "%s", g_err);
    for (int i = 0; i < 8; i++)
        scheme_free(burst[i]);
    db_close(d);
}

Test(db, corrupted_file_gives_a_clear_error_not_a_crash)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("bad.db");
    int n = scaled(200);
    for (int i = 0; i < n; i++) {
        scheme *s = rand_f2((scheme_format){4, 4, 4}, &rng, 300);
        db_insert_scheme(d, s, NULL, NULL, NULL, ERR);
        scheme_free(s);
    }
    db_close(d); /* checkpoints: every page is in the main file now */
    const char *p = tc_path_in("bad.db");
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_gt(sb.st_size, 16 * 4096);
    int fd = open(p, O_WRONLY);
    char junk[3 * 4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)scheme_rng_next(&rng);
    off_t at = (sb.st_size / 2) / 4096 * 4096;
    cr_assert_eq(pwrite(fd, junk, sizeof junk, at), (ssize_t)sizeof junk);
    close(fd);
    db_status st;
    d = db_open(p, false, &st, ERR);
    if (!d) {
        CHECK(st == DB_CORRUPT || st == DB_NOT_FLIPGRAPH, "open: status %d: %s", st, g_err);
        return;
    }
    db_check_report rep;
    cr_assert_eq(db_check(d, NULL, NULL, &rep, ERR), DB_OK);
    CHECK(rep.problems > 0 && !rep.integrity_ok, "bytes overwritten at %lld, check found nothing",
          (long long)at);
    /* Every read says what went wrong or succeeds; none crashes. */
    for (int64_t id = 1; id <= n; id++) {
        scheme *s = db_load_scheme(d, id, &st, ERR);
        CHECK(s || st == DB_CORRUPT || st == DB_NOT_FOUND, "load %lld: status %d", (long long)id,
              st);
        if (st == DB_CORRUPT)
            CHECK(strstr(g_err, "corrupt") || strstr(g_err, "malformed") ||
                  strstr(g_err, "stored terms") || strstr(g_err, "hash"), "%s", g_err);
        scheme_free(s);
    }
    db_close(d);
}

/* Distinct schemes number k of a family: the same for every process. */
static scheme *family(uint64_t base, int k)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, base * 1000003u + (uint64_t)k);
    return rand_f2((scheme_format){3, 3, 4}, &rng, 250);
}

Test(db, two_processes_insert_at_once_nothing_lost_no_busy)
{
    const char *p = tc_path_in("two.db");
    int n = scaled(150);
    pid_t kid[2];
    for (int c = 0; c < 2; c++) {
        kid[c] = fork();
        cr_assert_neq(kid[c], -1);
        if (kid[c] == 0) {
            /* Both open (and create) the file at the same moment. */
            char err[1024];
            db_status st;
            db *d = db_open(p, true, &st, err, sizeof err);
            if (!d) {
                fprintf(stderr, "child %d: open: %s\n", c, err);
                _exit(20 + st);
            }
            /* Child 0 one by one over [0, n), child 1 in bursts of 5 over [n/2, 3n/2). */
            int lo = c == 0 ? 0 : n / 2;
            for (int k = lo; k < lo + n; k += c == 0 ? 1 : 5) {
                scheme *s[5];
                int m = c == 0 ? 1 : (lo + n - k < 5 ? lo + n - k : 5);
                for (int j = 0; j < m; j++)
                    s[j] = family(g_seed, k + j);
                int64_t ids[5];
                bool ex[5];
                st = db_insert_schemes(d, (const scheme *const *)s, m, NULL, ids, ex, err,
                                       sizeof err);
                for (int j = 0; j < m; j++)
                    scheme_free(s[j]);
                if (st != DB_OK) {
                    fprintf(stderr, "child %d: insert %d: %s\n", c, k, err);
                    _exit(40 + st);
                }
            }
            db_close(d);
            _exit(0);
        }
    }
    for (int c = 0; c < 2; c++) {
        int status;
        cr_assert_eq(waitpid(kid[c], &status, 0), kid[c]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "writer %d failed with %d (20+: open, 40+: insert; 40+%d is busy)", c,
              WEXITSTATUS(status), DB_BUSY);
    }
    db_status st;
    db *d = db_open(p, false, &st, ERR);
    cr_assert_not_null(d, "%s", g_err);
    /* Every scheme of [0, 3n/2) is there, each once. */
    int distinct = 0;
    char (*hashes)[17] = calloc((size_t)(3 * n / 2), sizeof *hashes);
    for (int k = 0; k < n / 2 + n; k++) {
        scheme *s = family(g_seed, k);
        int64_t id;
        CHECK(db_find_scheme(d, s, &id, ERR) == DB_OK, "scheme %d lost: %s", k, g_err);
        scheme_hash_hex(scheme_hash(s), hashes[k]);
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = !strcmp(hashes[j], hashes[k]);
        distinct += !seen;
        scheme_free(s);
    }
    CHECK(count_rows(d, -1) == distinct, "%lld rows for %d distinct schemes",
          (long long)count_rows(d, -1), distinct);
    free(hashes);
    db_close(d);
}

typedef struct reported {
    int64_t id;
    char hash[17];
} reported;

Test(db, sigkill_mid_insert_keeps_every_reported_scheme)
{
    const char *p = tc_path_in("kill.db");
    db_close(open_new("kill.db"));
    int rounds = tc_sanitized() ? 2 : 4;
    int64_t total_reported = 0;
    for (int round = 0; round < rounds; round++) {
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        pid_t kid = fork();
        cr_assert_neq(kid, -1);
        if (kid == 0) {
            close(fds[0]);
            char err[1024];
            db_status st;
            db *d = db_open(p, false, &st, err, sizeof err);
            if (!d)
                _exit(2);
            for (int k = 0;; k += 3) {
                /* Alternate single inserts and bursts of 3. */
                scheme *s[3];
                int m = (k / 3) % 2 ? 3 : 1;
                for (int j = 0; j < m; j++)
                    s[j] = family(g_seed + (uint64_t)round + 1, k + j);
                int64_t ids[3];
                bool ex[3];
                st = db_insert_schemes(d, (const scheme *const *)s, m, NULL, ids, ex, err,
                                       sizeof err);
                if (st != DB_OK)
                    _exit(3);
                /* Reported only after the commit returned: these must survive. */
                for (int j = 0; j < m; j++) {
                    reported r = {ids[j], ""};
                    scheme_hash_hex(scheme_hash(s[j]), r.hash);
                    if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
                        _exit(4);
                    scheme_free(s[j]);
                }
            }
        }
        close(fds[1]);
        scheme_rng rng;
        scheme_rng_seed(&rng, g_seed ^ (uint64_t)round);
        reported buf[4096];
        int got = 0, want = 10 + (int)scheme_rng_below(&rng, 30);
        while (got < want && read(fds[0], &buf[got], sizeof *buf) == (ssize_t)sizeof *buf)
            got++;
        usleep(scheme_rng_below(&rng, 3000)); /* land somewhere inside a transaction */
        kill(kid, SIGKILL);
        int status;
        waitpid(kid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
              "round %d: the writer ended before the kill (status %d)", round, status);
        while (got < 4096 && read(fds[0], &buf[got], sizeof *buf) == (ssize_t)sizeof *buf)
            got++;
        close(fds[0]);
        db_status st;
        db *d = db_open(p, false, &st, ERR);
        cr_assert_not_null(d, "round %d: reopen after SIGKILL: %s", round, g_err);
        db_check_report rep;
        cr_assert_eq(db_check(d, NULL, NULL, &rep, ERR), DB_OK);
        CHECK(rep.integrity_ok && rep.problems == 0, "round %d: %lld problems after SIGKILL",
              round, (long long)rep.problems);
        for (int i = 0; i < got; i++) {
            db_scheme_row row;
            CHECK(db_scheme_info(d, buf[i].id, &row, ERR) == DB_OK &&
                  !strcmp(row.hash, buf[i].hash),
                  "round %d: reported scheme %lld (%s) is gone: %s", round,
                  (long long)buf[i].id, buf[i].hash, g_err);
        }
        total_reported += got;
        db_close(d);
    }
    cr_assert_gt(total_reported, 0);
}

/* ---- the command line ---- */

Test(db, cli_import_best_show_export_check)
{
    char out[65536];
    const char *p = tc_path_in("cli.db");
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db init --db %s", p), 0, "%s", out);
    int rc = tc_run_cli("", out, sizeof out, "db import --db=%s %s %s %s", p,
                     tc_corpus("kauers-moosbauer/223-11-mod0.exp"),
                     tc_corpus("kauers-moosbauer/444-47-mod2.exp"),
                     tc_corpus("kauers-moosbauer/444-49-mod0.exp"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "3 stored, 0 already there"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s %s", p,
                 tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "already"), "%s", out);
    /* --db before the command, and $FLIPGRAPH_DB. */
    rc = tc_run_cli("", out, sizeof out, "db --db %s best --dims 4x4x4", p);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "rank 47"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db best --dims 4x4x4 --ring z --db %s", p);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "rank 49"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db best --dims 5x5x5 --db %s", p);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "none"), "%s", out);
    setenv("FLIPGRAPH_DB", p, 1);
    rc = tc_run_cli("", out, sizeof out, "db list --dims 4x4x4");
    unsetenv("FLIPGRAPH_DB");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "<4,4,4>") && !strstr(out, "<2,2,3>"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db show 1 --db %s", p);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "rank      11") && strstr(out, "(a"), "%s", out);
    /* Export and read back: the same scheme. */
    const char *x = tc_path_in("x.exp");
    rc = tc_run_cli("", out, sizeof out, "db export 1 --to exp -o %s --db %s", x, p);
    cr_assert_eq(rc, 0, "%s", out);
    scheme_diag dg;
    scheme *e = scheme_read_file(x, NULL, &dg);
    cr_assert_not_null(e, "%s", dg.msg);
    db_status st;
    db *d = db_open(p, false, &st, ERR);
    scheme *s = db_load_scheme(d, 1, &st, ERR);
    cr_assert(s && scheme_equal(e, s));
    db_close(d);
    scheme_free(e);
    scheme_free(s);
    rc = tc_run_cli("", out, sizeof out, "db export 999 --to exp --db %s", p);
    cr_assert_eq(rc, 2, "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db export 1 --to docx --db %s", p);
    cr_assert_eq(rc, 2, "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db check --db %s", p);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "integrity ok") && strstr(out, "0 problems"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db stats --db %s", p);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "<4,4,4>"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db runs --db %s", p);
    cr_assert_eq(rc, 0, "%s", out);
}

Test(db, cli_import_reports_refused_and_unreadable_files)
{
    char out[65536];
    const char *p = tc_path_in("imp.db");
    const char *bad = tc_path_in("bad.exp");
    FILE *f = fopen(bad, "w"); /* the standard algorithm of <2,2,2> less one term */
    for (int i = 1; i <= 2; i++)
        for (int j = 1; j <= 2; j++)
            for (int k = 1; k <= 2; k++)
                if (i + j + k != 6)
                    fprintf(f, "a%d%d*b%d%d*c%d%d\n", i, j, j, k, k, i);
    fclose(f);
    int rc = tc_run_cli("", out, sizeof out, "db import --db %s %s", p, bad);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "refused") && strstr(out, "does not verify"), "%s", out);
    const char *junk = tc_path_in("junk.exp");
    f = fopen(junk, "w");
    fputs("(a11+*b22)\n", f);
    fclose(f);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s %s %s", p, junk,
                 tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "unreadable") && strstr(out, "junk.exp:1:"), "%s", out);
    cr_assert(strstr(out, "1 stored"), "the readable file was not stored: %s", out);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s", p);
    cr_assert_eq(rc, 2, "%s", out);
}

Test(db, cli_exit_codes_for_bad_databases)
{
    char out[65536];
    const char *txt = tc_path_in("t.db");
    FILE *f = fopen(txt, "w");
    fputs("hello, I am not a database, just a text file long enough to look like one\n", f);
    fclose(f);
    int rc = tc_run_cli("", out, sizeof out, "db list --db %s", txt);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "not a flipgraph database"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s %s", txt,
                 tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
    cr_assert_eq(rc, 2, "%s", out);
    const char *nw = tc_path_in("new.db");
    db_close(open_new("new.db"));
    tc_sql_exec(nw, "PRAGMA user_version = 7");
    rc = tc_run_cli("", out, sizeof out, "db stats --db %s", nw);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "newer"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db list --db %s", tc_path_in("nothing.db"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "db init"), "%s", out);
    /* A full "disk": the size cap of FLIPGRAPH_DB_MAX_BYTES. */
    const char *full = tc_path_in("full.db");
    rc = tc_run_cli("", out, sizeof out, "db init --db %s", full);
    cr_assert_eq(rc, 0, "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s %s", full,
                 tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
    cr_assert_eq(rc, 0, "%s", out);
    setenv("FLIPGRAPH_DB_MAX_BYTES", "1", 1);
    rc = tc_run_cli("", out, sizeof out, "db import --db %s %s %s", full,
                 tc_corpus("kauers-moosbauer/555-95-mod2.exp"),
                 tc_corpus("kauers-moosbauer/556-116-mod2.exp"));
    unsetenv("FLIPGRAPH_DB_MAX_BYTES");
    cr_assert_eq(rc, 3, "%s", out);
    cr_assert(strstr(out, "full"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db check --db %s", full);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "2 schemes, 2 verified"), "%s", out);
    /* Usage. */
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db"), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db frobnicate"), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db best --db %s", full), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db best --dims 9x9x9 --db %s", full), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db list --ring q --db %s", full), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db show abc --db %s", full), 2);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db list --to exp --db %s", full), 2);
    static const char *subs[] = {"init", "stats", "list", "best", "show", "export",
                                 "import", "check", "runs", "merge"};
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        rc = tc_run_cli("", out, sizeof out, "db %s --help", subs[i]);
        cr_assert_eq(rc, 0, "db %s --help: %s", subs[i], out);
        cr_assert(strstr(out, "usage: flipgraph db"), "db %s --help: %s", subs[i], out);
    }
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db --help"), 0);
}

Test(db, cli_check_reports_a_corrupted_file)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    db *d = open_new("c.db");
    for (int i = 0; i < scaled(200); i++) {
        scheme *s = rand_f2((scheme_format){4, 4, 4}, &rng, 300);
        db_insert_scheme(d, s, NULL, NULL, NULL, ERR);
        scheme_free(s);
    }
    db_close(d);
    const char *p = tc_path_in("c.db");
    struct stat sb;
    stat(p, &sb);
    int fd = open(p, O_WRONLY);
    char junk[2 * 4096];
    memset(junk, 0xa5, sizeof junk);
    cr_assert_eq(pwrite(fd, junk, sizeof junk, (sb.st_size / 2) / 4096 * 4096),
                 (ssize_t)sizeof junk);
    close(fd);
    char out[65536];
    int rc = tc_run_cli("", out, sizeof out, "db check --db %s", p);
    cr_assert(rc == 1 || rc == 2, "exit %d: %s", rc, out);
    cr_assert(strstr(out, "problem") || strstr(out, "corrupt"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "db list --db %s", p);
    cr_assert(rc == 0 || rc == 2, "exit %d (a crash is 128+): %s", rc, out);
}
