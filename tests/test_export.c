/* Tests of the exporters (export/, flipgraph export): every format written and
 * read back (or parsed back), the generated C compiled with cc and run against
 * the plain product, the reported operation counts against the operators in the
 * emitted code, and the command line (exit codes, the store).
 *
 * Randomized tests draw a fresh seed from /dev/urandom and print it on failure;
 * FLIPGRAPH_SEED=N replays one.  Corpus: $FLIPGRAPH_CORPUS
 * (data/corpus, see data/README.md). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "export/export.h"
#include "schemes/scheme.h"
#include "verify/verify.h"
#include "test_common.h"

/* ===================================================================== */
/* helpers                                                                */
/* ===================================================================== */

/* Every scheme file of the corpus, sorted (caller frees). */
static int corpus_files(char ***out)
{
    static const char *const sub[] = {"kauers-moosbauer", "arai", "moosbauer-poole"};
    char **files = NULL;
    int n = 0;
    for (size_t d = 0; d < 3; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", tc_corpus_dir(), sub[d]);
        DIR *dh = opendir(dir);
        cr_assert_not_null(dh, "corpus folder %s: %s (set FLIPGRAPH_CORPUS)", dir, strerror(errno));
        struct dirent *de;
        while ((de = readdir(dh))) {
            const char *dot = strrchr(de->d_name, '.');
            if (!dot || (strcmp(dot, ".exp") && strcmp(dot, ".txt") && strcmp(dot, ".m")))
                continue;
            files = realloc(files, (size_t)(n + 1) * sizeof *files);
            size_t len = strlen(dir) + strlen(de->d_name) + 2;
            files[n] = malloc(len);
            snprintf(files[n], len, "%s/%s", dir, de->d_name);
            n++;
        }
        closedir(dh);
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(files[j - 1], files[j]) > 0; j--) {
            char *t = files[j];
            files[j] = files[j - 1];
            files[j - 1] = t;
        }
    cr_assert_geq(n, 35, "expected the whole corpus, found %d files", n);
    *out = files;
    return n;
}

static void free_files(char **files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
}

/* A writer's output in memory (caller frees). */
static char *write_mem(const scheme *s, export_format f, const export_info *info, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    cr_assert_not_null(m);
    bool ok = export_write(s, f, info, m);
    fclose(m);
    cr_assert(ok, "writing %s failed", export_format_name(f));
    if (len)
        *len = n;
    return buf;
}

static bool only_01(const scheme *s)
{
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < scheme_factor_size(s->fmt, pos); e++) {
                int c = export_coef(s, r, pos, e);
                if (c != 0 && c != 1)
                    return false;
            }
    return true;
}

static bool valid(const scheme *s)
{
    return s->ring == SCHEME_RING_Z ? verify_z(s, NULL) : verify_f2(s, NULL);
}

/* Strassen's scheme over Z (its reduction mod 2 is the GF(2) one). */
static void push_z(scheme *s, const int *a, const int *b, const int *cprod)
{
    scheme_zterm t;
    memset(&t, 0, sizeof t);
    scheme_format f = s->fmt;
    for (int e = 0; e < f.n * f.m; e++) t.z[0][e] = (int8_t)a[e];
    for (int e = 0; e < f.m * f.p; e++) t.z[1][e] = (int8_t)b[e];
    for (int i = 0; i < f.n; i++)
        for (int k = 0; k < f.p; k++)
            t.z[2][k * f.n + i] = (int8_t)cprod[i * f.p + k]; /* product entry (i,k) -> c (k,i) */
    cr_assert(scheme_push_z(s, &t));
}

static scheme *strassen_z(void)
{
    scheme *s = scheme_new((scheme_format){2, 2, 2}, SCHEME_RING_Z, 7);
    /* A = [A11 A12; A21 A22] as entries 0..3, likewise B and C (C = A*B). */
    push_z(s, (int[]){1, 0, 0, 1}, (int[]){1, 0, 0, 1}, (int[]){1, 0, 0, 1});
    push_z(s, (int[]){0, 0, 1, 1}, (int[]){1, 0, 0, 0}, (int[]){0, 0, 1, -1});
    push_z(s, (int[]){1, 0, 0, 0}, (int[]){0, 1, 0, -1}, (int[]){0, 1, 0, 1});
    push_z(s, (int[]){0, 0, 0, 1}, (int[]){-1, 0, 1, 0}, (int[]){1, 0, 1, 0});
    push_z(s, (int[]){1, 1, 0, 0}, (int[]){0, 0, 0, 1}, (int[]){-1, 1, 0, 0});
    push_z(s, (int[]){-1, 0, 1, 0}, (int[]){1, 1, 0, 0}, (int[]){0, 0, 0, 1});
    push_z(s, (int[]){0, 1, 0, -1}, (int[]){0, 0, 1, 1}, (int[]){1, 0, 0, 0});
    cr_assert(verify_z(s, NULL), "Strassen's scheme as typed is invalid");
    return s;
}

/* ---- random schemes: the standard algorithm walked by flips ---- */

static int below(scheme_rng *g, int n) { return (int)scheme_rng_below(g, (uint32_t)n); }

static bool zfactor_zero(const scheme *s, int r, int pos)
{
    for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
        if (s->zterms[r].z[pos][e])
            return false;
    return true;
}

static void remove_pair(scheme *s, int r, bool drop_r, int q, bool drop_q)
{
    /* the larger index first: scheme_remove moves the last term into the hole */
    int hi = r > q ? r : q, lo = r > q ? q : r;
    bool drop_hi = r > q ? drop_r : drop_q, drop_lo = r > q ? drop_q : drop_r;
    if (drop_hi) scheme_remove(s, hi);
    if (drop_lo) scheme_remove(s, lo);
}

/* Flips (docs/search.md, "Moves"): (x,y,z) + (x,y',z') ->
 * (x, y+y', z) + (x, y', z'-z).  Over GF(2) on the words, over Z on the
 * coefficients (a flip that would leave int8 range is skipped), with random
 * sign changes (-x) (x) (-y) over Z so that negative entries appear. */
static void random_flips(scheme *s, scheme_rng *g, int steps)
{
    bool z = s->ring == SCHEME_RING_Z;
    int done = 0;
    for (long tries = 0; done < steps && tries < (long)steps * 400 && s->rank >= 2; tries++) {
        int r = below(g, s->rank), q = below(g, s->rank), x = below(g, 3);
        if (r == q)
            continue;
        int y = (x + 1) % 3, w = (x + 2) % 3;
        if (below(g, 2)) {
            int t = y; y = w; w = t;
        }
        if (!z) {
            if (s->terms[r].f[x] != s->terms[q].f[x])
                continue;
            s->terms[r].f[y] ^= s->terms[q].f[y];
            s->terms[q].f[w] ^= s->terms[r].f[w];
            remove_pair(s, r, !s->terms[r].f[y], q, !s->terms[q].f[w]);
        } else {
            if (memcmp(s->zterms[r].z[x], s->zterms[q].z[x], SCHEME_MAX_ENTRIES))
                continue;
            bool fits = true;
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                int a = s->zterms[r].z[y][e] + s->zterms[q].z[y][e];
                int b = s->zterms[q].z[w][e] - s->zterms[r].z[w][e];
                fits &= a >= -60 && a <= 60 && b >= -60 && b <= 60;
            }
            if (!fits)
                continue;
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                s->zterms[r].z[y][e] = (int8_t)(s->zterms[r].z[y][e] + s->zterms[q].z[y][e]);
                s->zterms[q].z[w][e] = (int8_t)(s->zterms[q].z[w][e] - s->zterms[r].z[w][e]);
            }
            tc_z_words(s, r);
            tc_z_words(s, q);
            if (below(g, 3) == 0) { /* a sign change of two factors of term r */
                for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                    s->zterms[r].z[x][e] = (int8_t)-s->zterms[r].z[x][e];
                    s->zterms[r].z[w][e] = (int8_t)-s->zterms[r].z[w][e];
                }
            }
            remove_pair(s, r, zfactor_zero(s, r, y), q, zfactor_zero(s, q, w));
        }
        done++;
    }
}

static scheme *random_scheme(scheme_rng *g, scheme_ring ring, int max_dim, int steps)
{
    scheme_format f = {2 + below(g, max_dim - 1), 2 + below(g, max_dim - 1), 2 + below(g, max_dim - 1)};
    scheme *std = scheme_standard(f);
    cr_assert_not_null(std);
    scheme *s = std;
    if (ring == SCHEME_RING_Z) {
        s = scheme_new(f, SCHEME_RING_Z, std->rank);
        for (int r = 0; r < std->rank; r++)
            scheme_push(s, std->terms[r].f[0], std->terms[r].f[1], std->terms[r].f[2]);
        scheme_free(std);
    }
    random_flips(s, g, steps);
    return s;
}

/* ===================================================================== */
/* formats                                                                */
/* ===================================================================== */

Test(export, format_names_round_trip)
{
    for (int f = 0; f < EXPORT_FORMAT_COUNT; f++) {
        export_format got;
        cr_assert(export_format_parse(export_format_name((export_format)f), &got));
        cr_assert_eq(got, f);
    }
    export_format got;
    cr_assert_not(export_format_parse("xlsx", &got));
    cr_assert_not(export_format_parse("", &got));
    cr_assert(export_name_valid("fg_2x2x2_r7"));
    cr_assert_not(export_name_valid("2x"));
    cr_assert_not(export_name_valid("for"));
    cr_assert_not(export_name_valid("a-b"));
    cr_assert_not(export_name_valid(""));
}

/* The scheme that reading the written text must give back. */
static scheme *expected_after(const scheme *s, export_format f)
{
    /* The published formats carry no ring: a file without a minus sign or a
     * coefficient other than 1 reads as GF(2) (scheme.h). */
    if (f != EXPORT_NATIVE && s->ring == SCHEME_RING_Z && only_01(s))
        return scheme_to_f2(s);
    return scheme_clone(s);
}

static void check_round_trip(const scheme *s, const char *what)
{
    static const export_format readable[] = {EXPORT_EXP, EXPORT_TXT, EXPORT_M, EXPORT_NATIVE};
    for (size_t i = 0; i < sizeof readable / sizeof *readable; i++) {
        size_t len;
        char *text = write_mem(s, readable[i], NULL, &len);
        scheme_diag d;
        memset(&d, 0, sizeof d);
        scheme *back = scheme_read_buffer(text, len, "written", NULL, &d);
        cr_assert_not_null(back, "%s as %s does not read back: %d:%d: %s\n%.400s", what,
                           export_format_name(readable[i]), d.line, d.col, d.msg, text);
        scheme *want = expected_after(s, readable[i]);
        cr_assert(scheme_equal(back, want), "%s as %s reads back as another scheme (rank %d, ring %d; want %d, %d)",
                  what, export_format_name(readable[i]), back->rank, back->ring, want->rank, want->ring);
        scheme_free(want);
        scheme_free(back);
        free(text);
    }
}

Test(export, corpus_round_trip_exp_txt_m_native)
{
    char **files;
    int n = corpus_files(&files);
    for (int i = 0; i < n; i++) {
        scheme *s = tc_read_or_die(files[i]);
        check_round_trip(s, files[i]);
        if (s->ring == SCHEME_RING_Z) { /* and its reduction mod 2 */
            scheme *f2 = scheme_to_f2(s);
            check_round_trip(f2, files[i]);
            scheme_free(f2);
        }
        scheme_free(s);
    }
    free_files(files, n);
}

Test(export, random_flipped_schemes_round_trip)
{
    uint64_t seed = tc_seed();
    scheme_rng g;
    scheme_rng_seed(&g, seed);
    int count = tc_sanitized() ? 12 : 60;
    for (int t = 0; t < count; t++) {
        scheme_ring ring = t % 2 ? SCHEME_RING_Z : SCHEME_RING_F2;
        scheme *s = random_scheme(&g, ring, 5, 300);
        cr_assert(valid(s), "seed %" PRIu64 ": the test's own flips broke scheme %d", seed, t);
        char what[96];
        snprintf(what, sizeof what, "seed %" PRIu64 " scheme %d", seed, t);
        check_round_trip(s, what);
        scheme_free(s);
    }
}

/* The terms of s in a random order (the integer terms with their reductions). */
static void shuffle_terms(scheme *s, scheme_rng *g)
{
    for (int r = s->rank - 1; r > 0; r--) {
        int j = (int)scheme_rng_below(g, (uint32_t)r + 1);
        scheme_term t = s->terms[r];
        s->terms[r] = s->terms[j];
        s->terms[j] = t;
        if (s->ring == SCHEME_RING_Z) {
            scheme_zterm z = s->zterms[r];
            s->zterms[r] = s->zterms[j];
            s->zterms[j] = z;
        }
    }
}

/* s written as .txt and read back. */
static scheme *txt_round_trip(const scheme *s)
{
    size_t len;
    char *text = write_mem(s, EXPORT_TXT, NULL, &len);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *back = scheme_read_buffer(text, len, "written", NULL, &d);
    cr_assert_not_null(back, "%d:%d: %s", d.line, d.col, d.msg);
    free(text);
    return back;
}

/* A symmetric scheme goes out in Moosbauer and Poole's order (issue: exports
 * keep the orbits visible): whatever the order of its terms, the .txt has
 * each orbit of the shift on three consecutive lines and the cubes last; a
 * scheme without symmetry keeps its order. */
Test(export, txt_keeps_the_orbits_of_a_symmetric_scheme_together)
{
    uint64_t seed = tc_seed();
    scheme_rng g;
    scheme_rng_seed(&g, seed);
    scheme *z = tc_read_corpus("moosbauer-poole/555m93.txt");
    scheme *s = scheme_to_f2(z);
    shuffle_terms(s, &g);
    scheme *back = txt_round_trip(s);
    cr_assert_eq(back->rank, 93);
    for (int k = 0; k < 30; k++) {
        scheme_term t = back->terms[3 * k];
        for (int e = 1; e < 3; e++) {
            scheme_term u = scheme_symmetry_image(SCHEME_SYM_C3, 5, t, e);
            bool found = false;
            for (int i = 1; i < 3; i++)
                found |= !memcmp(&u, &back->terms[3 * k + i], sizeof u);
            cr_assert(found, "seed %" PRIu64 ": lines %d..%d are not one orbit", seed, 3 * k + 1, 3 * k + 3);
        }
    }
    for (int r = 90; r < 93; r++)
        cr_assert(back->terms[r].f[0] == back->terms[r].f[1] && back->terms[r].f[1] == back->terms[r].f[2],
                  "seed %" PRIu64 ": line %d is not a cube", seed, r + 1);
    scheme_free(back);
    scheme_free(s);
    scheme_free(z);
    /* no symmetry: the order as given */
    scheme *r = random_scheme(&g, SCHEME_RING_F2, 4, 200);
    back = txt_round_trip(r);
    int term, elem;
    char err[256];
    if (r->fmt.n != r->fmt.m || r->fmt.m != r->fmt.p ||
        !scheme_symmetry_check(r, SCHEME_SYM_C3, &term, &elem, err, sizeof err))
        for (int i = 0; i < r->rank; i++)
            cr_assert(!memcmp(&back->terms[i], &r->terms[i], sizeof r->terms[i]), "seed %" PRIu64 ": term %d moved",
                      seed, i);
    scheme_free(back);
    scheme_free(r);
}

/* The same for an integer scheme invariant over Z (an invariant lift of the
 * published 93 mod 2, docs/verify.md "Invariant lifts"): its orbits on three
 * consecutive lines, whatever the order of its terms. */
Test(export, txt_keeps_the_orbits_of_an_invariant_integer_scheme_together)
{
    uint64_t seed = tc_seed();
    scheme_rng g;
    scheme_rng_seed(&g, seed);
    scheme *z0 = tc_read_corpus("moosbauer-poole/555m93.txt");
    scheme *f2 = scheme_to_f2(z0);
    verify_lift_options o = {0};
    o.symmetry = SCHEME_SYM_C3;
    verify_lift_result lr;
    scheme *z = verify_lift_ex(f2, &o, &lr);
    cr_assert_not_null(z, "%s", lr.msg);
    shuffle_terms(z, &g);
    scheme *back = txt_round_trip(z);
    cr_assert_eq(back->ring, SCHEME_RING_Z);
    cr_assert_eq(back->rank, 93);
    for (int k = 0; k < 30; k++)
        for (int e = 1; e < 3; e++) {
            scheme_zterm u;
            scheme_symmetry_image_z(SCHEME_SYM_C3, 5, &back->zterms[3 * k], e, &u);
            bool found = false;
            for (int i = 1; i < 3; i++)
                found |= !memcmp(&u, &back->zterms[3 * k + i], sizeof u);
            cr_assert(found, "seed %" PRIu64 ": lines %d..%d are not one orbit over Z", seed, 3 * k + 1, 3 * k + 3);
        }
    scheme_free(back);
    scheme_free(z);
    scheme_free(f2);
    scheme_free(z0);
}

Test(export, wide_formats_are_refused_by_one_digit_formats)
{
    scheme *s = scheme_standard((scheme_format){1, 12, 2});
    cr_assert_not_null(s);
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    errno = 0;
    cr_assert_not(export_write(s, EXPORT_TXT, NULL, m));
    cr_assert_eq(errno, EINVAL);
    cr_assert_not(export_write(s, EXPORT_EXP, NULL, m));
    cr_assert(export_write(s, EXPORT_M, NULL, m)); /* m has no index digits */
    fclose(m);
    free(buf);
    char f[256];
    cr_assert(export_factor_str(s, 0, SCHEME_A, 0, true, f, sizeof f));
    cr_assert_str_eq(f, "a1,1");
    scheme_free(s);
}

/* ===================================================================== */
/* JSON, parsed back by a small strict parser                            */
/* ===================================================================== */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jval {
    jtype t;
    double num;
    char *str;
    int n;
    struct jval *items;
    char **keys;
} jval;

typedef struct jparser {
    const char *p;
    int depth;
} jparser;

static void jskip(jparser *j)
{
    while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
        j->p++;
}

static bool jvalue(jparser *j, jval *v);

static bool jstring(jparser *j, char **out)
{
    if (*j->p != '"')
        return false;
    j->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (*j->p != '"') {
        if (!*j->p || (unsigned char)*j->p < 0x20) {
            free(s);
            return false;
        }
        char c = *j->p++;
        if (c == '\\') {
            c = *j->p++;
            if (c == 'u') {
                unsigned code;
                if (sscanf(j->p, "%4x", &code) != 1 || code > 0x7f) {
                    free(s);
                    return false;
                }
                j->p += 4;
                c = (char)code;
            } else if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c != '"' && c != '\\' && c != '/') {
                free(s);
                return false;
            }
        }
        if (n + 2 > cap)
            s = realloc(s, cap *= 2);
        s[n++] = c;
    }
    j->p++;
    s[n] = 0;
    *out = s;
    return true;
}

static bool jvalue(jparser *j, jval *v)
{
    memset(v, 0, sizeof *v);
    jskip(j);
    if (++j->depth > 32)
        return false;
    bool ok = true;
    if (*j->p == '{' || *j->p == '[') {
        bool obj = *j->p == '{';
        v->t = obj ? J_OBJ : J_ARR;
        j->p++;
        jskip(j);
        if (*j->p == (obj ? '}' : ']')) {
            j->p++;
        } else {
            for (;;) {
                v->items = realloc(v->items, (size_t)(v->n + 1) * sizeof *v->items);
                if (obj) {
                    v->keys = realloc(v->keys, (size_t)(v->n + 1) * sizeof *v->keys);
                    jskip(j);
                    if (!jstring(j, &v->keys[v->n]))
                        return false;
                    jskip(j);
                    if (*j->p++ != ':')
                        return false;
                }
                if (!jvalue(j, &v->items[v->n]))
                    return false;
                v->n++;
                jskip(j);
                if (*j->p == ',') {
                    j->p++;
                    continue;
                }
                if (*j->p++ != (obj ? '}' : ']'))
                    return false;
                break;
            }
        }
    } else if (*j->p == '"') {
        v->t = J_STR;
        ok = jstring(j, &v->str);
    } else if (!strncmp(j->p, "null", 4)) {
        v->t = J_NULL;
        j->p += 4;
    } else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
        v->t = J_BOOL;
        v->num = *j->p == 't';
        j->p += *j->p == 't' ? 4 : 5;
    } else {
        char *end;
        v->t = J_NUM;
        v->num = strtod(j->p, &end);
        ok = end != j->p;
        j->p = end;
    }
    j->depth--;
    return ok;
}

static void jfree(jval *v)
{
    for (int i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static const jval *jget(const jval *o, const char *key)
{
    if (o->t != J_OBJ)
        return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

static jval parse_json_or_die(const char *text)
{
    jparser j = {text, 0};
    jval v;
    cr_assert(jvalue(&j, &v), "JSON does not parse near: %.60s", j.p);
    jskip(&j);
    cr_assert_eq(*j.p, 0, "trailing text after the JSON value: %.60s", j.p);
    return v;
}

static void check_json(const scheme *s, const export_info *info, const char *what)
{
    char *text = write_mem(s, EXPORT_JSON, info, NULL);
    jval v = parse_json_or_die(text);
    cr_assert_eq(v.t, J_OBJ, "%s", what);
    const jval *x = jget(&v, "schema");
    cr_assert(x && x->t == J_STR && !strcmp(x->str, "flipgraph-scheme/1"), "%s: schema", what);
    x = jget(&v, "format");
    cr_assert(x && x->t == J_ARR && x->n == 3, "%s: format", what);
    cr_assert(x->items[0].num == s->fmt.n && x->items[1].num == s->fmt.m && x->items[2].num == s->fmt.p);
    x = jget(&v, "ring");
    cr_assert(x && x->t == J_STR);
    cr_assert_str_eq(x->str, s->ring == SCHEME_RING_Z ? "z" : "gf2");
    x = jget(&v, "rank");
    cr_assert(x && x->t == J_NUM && x->num == s->rank);
    x = jget(&v, "hash");
    scheme *c = scheme_clone(s);
    char hex[17];
    scheme_hash_hex(scheme_hash(c), hex);
    scheme_free(c);
    cr_assert(x && x->t == J_STR);
    cr_assert_str_eq(x->str, hex, "%s: hash", what);
    /* The matrices: R x nm, R x mp, R x pn, entries in the bit order of scheme.h. */
    for (int pos = 0; pos < 3; pos++) {
        char key[2] = {"abc"[pos], 0};
        x = jget(&v, key);
        cr_assert(x && x->t == J_ARR && x->n == s->rank, "%s: matrix %s", what, key);
        int size = scheme_factor_size(s->fmt, pos);
        for (int r = 0; r < s->rank; r++) {
            cr_assert(x->items[r].t == J_ARR && x->items[r].n == size, "%s: row %d of %s", what, r, key);
            for (int e = 0; e < size; e++)
                cr_assert(x->items[r].items[e].num == export_coef(s, r, pos, e),
                          "%s: %s[%d][%d]", what, key, r, e);
        }
    }
    x = jget(&v, "provenance");
    cr_assert_not_null(x);
    if (!info || !info->db_path) {
        cr_assert_eq(x->t, J_NULL);
    } else {
        cr_assert_eq(x->t, J_OBJ);
        const jval *id = jget(x, "id"), *src = jget(x, "source"), *db = jget(x, "db");
        cr_assert(id && id->num == info->db_id);
        cr_assert(db && db->t == J_STR && !strcmp(db->str, info->db_path));
        if (info->source)
            cr_assert(src && src->t == J_STR && !strcmp(src->str, info->source));
        const jval *parent = jget(x, "parent_id");
        cr_assert(parent && (info->parent_id ? parent->num == info->parent_id : parent->t == J_NULL));
    }
    jfree(&v);
    /* flipgraph reads its own export back (docs/formats.md, "JSON"), ring and all */
    scheme_diag d;
    scheme *back = scheme_read_buffer(text, strlen(text), what, NULL, &d);
    cr_assert_not_null(back, "%s: %d:%d: %s", what, d.line, d.col, d.msg);
    cr_assert(scheme_equal(back, s), "%s: the export read back differs", what);
    scheme_free(back);
    free(text);
}

Test(export, json_parses_back_to_the_scheme)
{
    char **files;
    int n = corpus_files(&files);
    for (int i = 0; i < n; i += 3) {
        scheme *s = tc_read_or_die(files[i]);
        check_json(s, NULL, files[i]);
        scheme_free(s);
    }
    free_files(files, n);
    scheme *s = strassen_z();
    export_info info = {.name = "strassen", .db_path = "/tmp/x \"quoted\".db", .db_id = 42,
                        .source = "import:a\\b", .parent_id = 7, .flips = 1000, .seconds = 1.5};
    check_json(s, &info, "strassen with provenance");
    scheme_free(s);
}

/* ===================================================================== */
/* bb: Benson-Ballard's U, V, W                                           */
/* ===================================================================== */

/* Reads the file as their read_coeffs does: '#' lines separate groups, empty
 * groups are skipped, every other line is a row of numbers. */
static int read_bb(const char *text, int *groups_rows, int **vals, int *cols)
{
    int g = -1, rows = 0;
    bool in_group = false;
    *cols = -1;
    int cap = 1024, nv = 0;
    *vals = malloc((size_t)cap * sizeof **vals);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        if (*line == '#') {
            if (in_group) {
                groups_rows[g] = rows;
                in_group = false;
            }
        } else {
            if (!in_group) {
                g++;
                cr_assert_lt(g, 3, "more than three groups");
                rows = 0;
                in_group = true;
            }
            int c = 0;
            for (const char *p = line; p < end;) {
                char *q;
                long v = strtol(p, &q, 10);
                if (q == p)
                    break;
                if (nv == cap)
                    *vals = realloc(*vals, (size_t)(cap *= 2) * sizeof **vals);
                (*vals)[nv++] = (int)v;
                c++;
                p = q;
            }
            cr_assert_gt(c, 0, "an empty row: their reader would take it as a row of nothing");
            if (*cols < 0)
                *cols = c;
            cr_assert_eq(c, *cols, "rows of different lengths");
            rows++;
        }
        line = *end ? end + 1 : end;
    }
    if (in_group)
        groups_rows[g] = rows;
    return g + 1;
}

static void check_bb(const scheme *s, const char *what)
{
    char *text = write_mem(s, EXPORT_BB, NULL, NULL);
    int rows[3] = {0, 0, 0}, *v, cols;
    int groups = read_bb(text, rows, &v, &cols);
    scheme_format f = s->fmt;
    cr_assert_eq(groups, 3, "%s", what);
    cr_assert_eq(rows[0], f.n * f.m);
    cr_assert_eq(rows[1], f.m * f.p);
    cr_assert_eq(rows[2], f.n * f.p);
    cr_assert_eq(cols, s->rank);
    const int *U = v, *V = v + rows[0] * cols, *W = V + rows[1] * cols;
    /* Their codegen/verify.py, for an <m,n,k> = our <n,m,p> algorithm with
     * row-major U (A), V (B) and W (the product C itself). */
    bool z = s->ring == SCHEME_RING_Z;
    for (int a = 0; a < f.n; a++)
        for (int b = 0; b < f.m; b++)
            for (int c = 0; c < f.m; c++)
                for (int d = 0; d < f.p; d++)
                    for (int e = 0; e < f.n; e++)
                        for (int ff = 0; ff < f.p; ff++) {
                            long sum = 0;
                            for (int r = 0; r < cols; r++)
                                sum += (long)U[(a * f.m + b) * cols + r] * V[(c * f.p + d) * cols + r] *
                                       W[(e * f.p + ff) * cols + r];
                            long want = a == e && b == c && d == ff;
                            if (!z)
                                sum &= 1;
                            cr_assert_eq(sum, want, "%s: U row %d, V row %d, W row %d sum to %ld", what,
                                         a * f.m + b, c * f.p + d, e * f.p + ff, sum);
                        }
    free(v);
    free(text);
}

Test(export, bb_files_satisfy_their_verifier)
{
    char **files;
    int n = corpus_files(&files);
    for (int i = 0; i < n; i++) {
        if (tc_sanitized() && i % 3)
            continue;
        scheme *s = tc_read_or_die(files[i]);
        check_bb(s, files[i]);
        scheme_free(s);
    }
    free_files(files, n);
    scheme *s = strassen_z();
    check_bb(s, "strassen");
    /* Strassen's terms typed above are those of Huang 2018, Figure 4.1 (M0..M6 in
     * the same order), so the file must hold exactly its equation (4.3). */
    char *text = write_mem(s, EXPORT_BB, NULL, NULL);
    const char *body = strchr(text, '\n');
    cr_assert(text[0] == '#' && body);
    cr_assert_str_eq(body + 1,
                     "1 0 1 0 1 -1 0\n0 0 0 0 1 0 1\n0 1 0 0 0 1 0\n1 1 0 1 0 0 -1\n#\n"
                     "1 1 0 -1 0 1 0\n0 0 1 0 0 1 0\n0 0 0 1 0 0 1\n1 0 -1 0 1 0 1\n#\n"
                     "1 0 0 1 -1 0 1\n0 0 1 0 1 0 0\n0 1 0 1 0 0 0\n1 -1 1 0 0 1 0\n");
    free(text);
    char name[128];
    export_bb_filename(s, NULL, name, sizeof name);
    cr_assert_str_eq(name, "flipgraph222-7-36"); /* 12 + 12 + 12 nonzeros */
    scheme_free(s);
}

/* ===================================================================== */
/* tex and md tables, parsed back                                         */
/* ===================================================================== */

/* Parses "-a11 + 2*a23", "2a_{13} - a_{21}" into coefficients of entries of
 * the named letter (product indices for c).  false on anything else. */
static bool parse_factor(const char *s, const char *end, char letter, scheme_format f, int pos,
                         int *coef)
{
    int rows = pos == SCHEME_C ? f.n : scheme_factor_rows(f, pos);
    int cols = pos == SCHEME_C ? f.p : scheme_factor_cols(f, pos);
    memset(coef, 0, sizeof(int) * (size_t)(rows * cols));
    while (s < end && *s == ' ') s++;
    if (end - s == 1 && *s == '0')
        return true;
    int sign = 1;
    while (s < end) {
        while (s < end && *s == ' ') s++;
        if (*s == '-' || *s == '+') {
            sign = *s == '-' ? -1 : 1;
            s++;
            while (s < end && *s == ' ') s++;
        }
        int mag = 1;
        if (*s >= '0' && *s <= '9') {
            mag = (int)strtol(s, (char **)&s, 10);
            if (*s == '*') s++;
        }
        if (*s++ != letter)
            return false;
        if (*s == '_') s++;
        if (*s == '{') s++;
        int i = *s++ - '0', j = *s++ - '0';
        if (*s == '}') s++;
        if (i < 1 || i > rows || j < 1 || j > cols)
            return false;
        coef[(i - 1) * cols + (j - 1)] += sign * mag;
        sign = 1;
        while (s < end && *s == ' ') s++;
    }
    return true;
}

static void check_table(const scheme *s, export_format fmt)
{
    char *text = write_mem(s, fmt, NULL, NULL);
    scheme_format f = s->fmt;
    int rowsfound = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl) nl = line + strlen(line);
        int r;
        char sep = fmt == EXPORT_MD ? '`' : '$';
        if ((fmt == EXPORT_MD && sscanf(line, "| %d |", &r) == 1) ||
            (fmt == EXPORT_TEX && sscanf(line, "%d &", &r) == 1)) {
            cr_assert_eq(r, rowsfound + 1);
            const char *p = line;
            for (int pos = 0; pos < 3; pos++) {
                const char *a = memchr(p, sep, (size_t)(nl - p));
                cr_assert_not_null(a, "row %d: %.*s", r, (int)(nl - line), line);
                const char *b = memchr(a + 1, sep, (size_t)(nl - a - 1));
                cr_assert_not_null(b);
                int coef[SCHEME_MAX_ENTRIES];
                cr_assert(parse_factor(a + 1, b, "abc"[pos], f, pos, coef), "row %d factor %d: %.*s", r,
                          pos, (int)(b - a - 1), a + 1);
                for (int e = 0; e < scheme_factor_size(f, pos); e++) {
                    /* c in the table: product entry (i,k) = our (k,i) */
                    int ours = pos == SCHEME_C ? (e % f.p) * f.n + e / f.p : e;
                    cr_assert_eq(coef[e], export_coef(s, r - 1, pos, ours), "%s row %d pos %d entry %d",
                                 export_format_name(fmt), r, pos, e);
                }
                p = b + 1;
            }
            rowsfound++;
        }
        line = *nl ? nl + 1 : nl;
    }
    cr_assert_eq(rowsfound, s->rank, "%s: %d table rows for rank %d", export_format_name(fmt), rowsfound,
                 s->rank);
    if (fmt == EXPORT_TEX) {
        cr_assert_not_null(strstr(text, "\\begin{longtable}"));
        cr_assert_not_null(strstr(text, "\\end{longtable}"));
    }
    free(text);
}

Test(export, tex_and_md_tables_hold_every_term)
{
    scheme *s = strassen_z();
    check_table(s, EXPORT_MD);
    check_table(s, EXPORT_TEX);
    scheme_free(s);
    char path[1024];
    snprintf(path, sizeof path, "%s/kauers-moosbauer/334-29-mod0.exp", tc_corpus_dir());
    s = tc_read_or_die(path);
    check_table(s, EXPORT_MD);
    check_table(s, EXPORT_TEX);
    scheme_free(s);
    snprintf(path, sizeof path, "%s/kauers-moosbauer/444-47-mod2.exp", tc_corpus_dir());
    s = tc_read_or_die(path);
    check_table(s, EXPORT_MD);
    check_table(s, EXPORT_TEX);
    scheme_free(s);
}

/* ===================================================================== */
/* straight-line programs                                                 */
/* ===================================================================== */

Test(export, slp_computes_its_forms_with_fewer_additions)
{
    uint64_t seed = tc_seed();
    scheme_rng g;
    scheme_rng_seed(&g, seed);
    for (int t = 0; t < 200; t++) {
        bool f2 = t % 2;
        int nin = 1 + below(&g, 30), nout = 1 + below(&g, 60);
        int *coefs = calloc((size_t)nin * nout, sizeof *coefs);
        long plain = 0;
        int density = 2 + below(&g, 5);
        for (int o = 0; o < nout; o++) {
            int nnz = 0;
            for (int v = 0; v < nin; v++)
                if (below(&g, density) == 0) {
                    int c = f2 ? 1 : (below(&g, 4) == 0 ? (below(&g, 2) ? 2 : -2) : (below(&g, 2) ? 1 : -1));
                    coefs[o * nin + v] = c;
                    nnz++;
                }
            plain += nnz > 1 ? nnz - 1 : 0;
        }
        export_slp with, without;
        cr_assert(export_slp_build(&with, nin, nout, coefs, f2, true));
        cr_assert(export_slp_build(&without, nin, nout, coefs, f2, false));
        export_slp_cost cw = export_slp_cost_of(&with), co = export_slp_cost_of(&without);
        cr_assert_eq(co.adds, plain, "seed %" PRIu64 ": plain additions %ld, counted %ld", seed, co.adds, plain);
        cr_assert_leq(cw.adds, co.adds, "seed %" PRIu64 ": sharing made it worse", seed);
        long long in[64], out[64], out2[64];
        for (int rep = 0; rep < 4; rep++) {
            for (int v = 0; v < nin; v++)
                in[v] = f2 ? (long long)scheme_rng_next(&g) : (long long)below(&g, 2001) - 1000;
            export_slp_eval(&with, f2, in, out);
            export_slp_eval(&without, f2, in, out2);
            for (int o = 0; o < nout; o++) {
                long long want = 0;
                for (int v = 0; v < nin; v++)
                    if (coefs[o * nin + v])
                        want = f2 ? want ^ in[v] : want + coefs[o * nin + v] * in[v];
                cr_assert_eq(out[o], want, "seed %" PRIu64 " case %d output %d", seed, t, o);
                cr_assert_eq(out2[o], want, "seed %" PRIu64 " case %d output %d (plain)", seed, t, o);
            }
        }
        export_slp_free(&with);
        export_slp_free(&without);
        free(coefs);
    }
}

Test(export, strassen_program_counts)
{
    /* Strassen over GF(2): 18 additions written term by term; no pair of its
     * forms repeats, so sharing cannot lower it (Winograd's 15 is another scheme). */
    scheme *z = strassen_z();
    scheme *s = scheme_to_f2(z);
    export_c_program with, without;
    cr_assert(export_c_program_build(s, false, &without));
    cr_assert(export_c_program_build(s, true, &with));
    cr_assert_eq(without.mults, 7);
    cr_assert_eq(without.adds, 18);
    cr_assert_eq(with.adds, 18);
    cr_assert_eq(with.scalings, 0);
    export_c_program_free(&with);
    export_c_program_free(&without);
    cr_assert(export_c_program_build(z, false, &without));
    cr_assert_eq(without.adds, 18);
    cr_assert_eq(without.negations, 0);
    export_c_program_free(&without);
    scheme_free(s);
    scheme_free(z);
}

/* ===================================================================== */
/* generated C: compiled with cc and run against the plain product        */
/* ===================================================================== */

typedef struct cstats {
    long mults, adds, scalings, negations;
} cstats;

static long count_str(const char *a, const char *b, const char *pat)
{
    long n = 0;
    size_t pl = strlen(pat);
    for (const char *p = a; p + pl <= b; p++)
        if (!memcmp(p, pat, pl))
            n++;
    return n;
}

/* Unary minus: a '-' directly before a letter (variables are letters, constants digits). */
static long count_negations(const char *a, const char *b)
{
    long n = 0;
    for (const char *p = a; p + 1 < b; p++)
        if (*p == '-' && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z')))
            n++;
    return n;
}

static void region(const char *text, const char *marker_name, const char **a, const char **b)
{
    char begin[160], end[160];
    snprintf(begin, sizeof begin, "/* BEGIN SLP %s */", marker_name);
    snprintf(end, sizeof end, "/* END SLP %s */", marker_name);
    *a = strstr(text, begin);
    cr_assert_not_null(*a, "no %s", begin);
    *a += strlen(begin);
    *b = strstr(*a, end);
    cr_assert_not_null(*b, "no %s", end);
}

/* The counts the header comment states, and the operators in the code. */
static void check_counts(const scheme *s, const char *text, const char *name)
{
    cstats st = {0, 0, 0, 0};
    const char *p = strstr(text, "multiplications: ");
    cr_assert(p && sscanf(p, "multiplications: %ld", &st.mults) == 1);
    p = strstr(text, "additions: ");
    cr_assert(p && sscanf(p, "additions: %ld", &st.adds) == 1);
    bool f2 = s->ring == SCHEME_RING_F2;
    if (!f2) {
        p = strstr(text, "other than +-1: ");
        cr_assert(p && sscanf(p, "other than +-1: %ld; negations: %ld", &st.scalings, &st.negations) == 2);
    }
    /* the same figures as the library's */
    export_c_program pg;
    cr_assert(export_c_program_build(s, true, &pg));
    cr_assert_eq(st.mults, pg.mults);
    cr_assert_eq(st.adds, pg.adds);
    export_c_program_free(&pg);
    /* Products actually formed: the terms with three nonzero factors. */
    long nonzero_terms = 0;
    for (int r = 0; r < s->rank; r++) {
        bool nz[3] = {false, false, false};
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < scheme_factor_size(s->fmt, pos); e++)
                nz[pos] |= export_coef(s, r, pos, e) != 0;
        nonzero_terms += nz[0] && nz[1] && nz[2];
    }
    cr_assert_eq(st.mults, nonzero_terms);

    char blocks[96];
    snprintf(blocks, sizeof blocks, "%s_blocks", name);
    const char *a, *b;
    region(text, name, &a, &b);
    if (f2) {
        cr_assert_eq(count_str(a, b, " ^ "), st.adds, "%s: %ld XORs in the code, %ld reported", name,
                     count_str(a, b, " ^ "), st.adds);
        cr_assert_eq(count_str(a, b, " & "), st.mults);
        cr_assert_eq(count_str(a, b, " + ") + count_str(a, b, " - ") + count_str(a, b, " * "), 0);
    } else {
        long adds = count_str(a, b, " + ") + count_str(a, b, " - ");
        cr_assert_eq(adds, st.adds, "%s: %ld additions in the code, %ld reported", name, adds, st.adds);
        cr_assert_eq(count_str(a, b, " * "), st.mults + st.scalings);
        cr_assert_eq(count_negations(a, b), st.negations);
    }
    region(text, blocks, &a, &b);
    cr_assert_eq(count_str(a, b, "mul("), st.mults);
    if (f2) {
        cr_assert_eq(count_str(a, b, " ^ "), st.adds, "%s_blocks: XORs", name);
    } else {
        cr_assert_eq(count_str(a, b, " + ") + count_str(a, b, " - "), st.adds, "%s_blocks: additions", name);
        cr_assert_eq(count_str(a, b, " * "), st.scalings);
        cr_assert_eq(count_negations(a, b), st.negations);
    }
}

/* The checking harness for one generated function (the plain products are the
 * harness's own, independent of the scheme). */
static void harness_for(FILE *h, const scheme *s, const char *name)
{
    scheme_format f = s->fmt;
    bool f2 = s->ring == SCHEME_RING_F2;
    fprintf(h, "static int check_%s(uint64_t seed)\n{\n", name);
    fprintf(h, "    enum { N_ = %d, M_ = %d, P_ = %d, LEN = 19 };\n", f.n, f.m, f.p);
    fputs("    uint64_t st = seed;\n    int bad = 0;\n", h);
    if (f2) {
        fputs("    {\n"
              "        static uint64_t a[N_ * M_][LEN], b[M_ * P_][LEN], c[N_ * P_][LEN];\n"
              "        const uint64_t *A[N_ * M_]; const uint64_t *B[M_ * P_]; uint64_t *C[N_ * P_];\n"
              "        for (int x = 0; x < N_ * M_; x++) { A[x] = a[x]; for (int e = 0; e < LEN; e++) a[x][e] = next(&st); }\n"
              "        for (int x = 0; x < M_ * P_; x++) { B[x] = b[x]; for (int e = 0; e < LEN; e++) b[x][e] = next(&st); }\n"
              "        for (int x = 0; x < N_ * P_; x++) C[x] = c[x];\n", h);
        fprintf(h, "        %s(LEN, A, B, C);\n", name);
        fputs("        for (int i = 0; i < N_; i++) for (int k = 0; k < P_; k++) for (int e = 0; e < LEN; e++) {\n"
              "            uint64_t want = 0;\n"
              "            for (int j = 0; j < M_; j++) want ^= a[i * M_ + j][e] & b[j * P_ + k][e];\n"
              "            if (c[i * P_ + k][e] != want) bad++;\n"
              "        }\n    }\n", h);
        fputs("    {\n"
              "        static uint64_t a[N_ * M_][64], b[M_ * P_][64], c[N_ * P_][64], ref[64], t[64];\n"
              "        const uint64_t *A[N_ * M_]; const uint64_t *B[M_ * P_]; uint64_t *C[N_ * P_];\n"
              "        for (int x = 0; x < N_ * M_; x++) { A[x] = a[x]; for (int e = 0; e < 64; e++) a[x][e] = next(&st); }\n"
              "        for (int x = 0; x < M_ * P_; x++) { B[x] = b[x]; for (int e = 0; e < 64; e++) b[x][e] = next(&st); }\n"
              "        for (int x = 0; x < N_ * P_; x++) C[x] = c[x];\n", h);
        fprintf(h, "        uint64_t *work = malloc(%s_WORK(64, 64, 64) * sizeof *work);\n", name);
        fputs("        long calls = 0;\n", h);
        fprintf(h, "        %s_blocks(64, 64, 64, A, B, C, mul_f2, &calls, work);\n", name);
        fprintf(h, "        if (calls != %s_MULTIPLICATIONS) bad++;\n", name);
        fputs("        for (int i = 0; i < N_; i++) for (int k = 0; k < P_; k++) {\n"
              "            memset(ref, 0, sizeof ref);\n"
              "            for (int j = 0; j < M_; j++) { plain_f2(a[i * M_ + j], b[j * P_ + k], t); for (int r = 0; r < 64; r++) ref[r] ^= t[r]; }\n"
              "            if (memcmp(ref, c[i * P_ + k], sizeof ref)) bad++;\n"
              "        }\n        free(work);\n    }\n", h);
    } else {
        fputs("    {\n"
              "        static double a[N_ * M_][LEN], b[M_ * P_][LEN], c[N_ * P_][LEN];\n"
              "        const double *A[N_ * M_]; const double *B[M_ * P_]; double *C[N_ * P_];\n"
              "        for (int x = 0; x < N_ * M_; x++) { A[x] = a[x]; for (int e = 0; e < LEN; e++) a[x][e] = small(&st); }\n"
              "        for (int x = 0; x < M_ * P_; x++) { B[x] = b[x]; for (int e = 0; e < LEN; e++) b[x][e] = small(&st); }\n"
              "        for (int x = 0; x < N_ * P_; x++) C[x] = c[x];\n", h);
        fprintf(h, "        %s(LEN, A, B, C);\n", name);
        fputs("        for (int i = 0; i < N_; i++) for (int k = 0; k < P_; k++) for (int e = 0; e < LEN; e++) {\n"
              "            double want = 0;\n"
              "            for (int j = 0; j < M_; j++) want += a[i * M_ + j][e] * b[j * P_ + k][e];\n"
              "            if (c[i * P_ + k][e] != want) bad++;\n"
              "        }\n    }\n", h);
        /* blocks: A blocks 2 x 3, B blocks 3 x 4, C blocks 2 x 4 (la, lb, lc differ) */
        fputs("    {\n"
              "        static double a[N_ * M_][6], b[M_ * P_][12], c[N_ * P_][8], ref[8], t[8];\n"
              "        const double *A[N_ * M_]; const double *B[M_ * P_]; double *C[N_ * P_];\n"
              "        for (int x = 0; x < N_ * M_; x++) { A[x] = a[x]; for (int e = 0; e < 6; e++) a[x][e] = small(&st); }\n"
              "        for (int x = 0; x < M_ * P_; x++) { B[x] = b[x]; for (int e = 0; e < 12; e++) b[x][e] = small(&st); }\n"
              "        for (int x = 0; x < N_ * P_; x++) C[x] = c[x];\n", h);
        fprintf(h, "        double *work = malloc(%s_WORK(6, 12, 8) * sizeof *work);\n", name);
        fputs("        long calls = 0;\n", h);
        fprintf(h, "        %s_blocks(6, 12, 8, A, B, C, mul_d, &calls, work);\n", name);
        fprintf(h, "        if (calls != %s_MULTIPLICATIONS) bad++;\n", name);
        fputs("        for (int i = 0; i < N_; i++) for (int k = 0; k < P_; k++) {\n"
              "            for (int r = 0; r < 8; r++) ref[r] = 0;\n"
              "            for (int j = 0; j < M_; j++) { plain_d(a[i * M_ + j], b[j * P_ + k], t); for (int r = 0; r < 8; r++) ref[r] += t[r]; }\n"
              "            for (int r = 0; r < 8; r++) if (ref[r] != c[i * P_ + k][r]) bad++;\n"
              "        }\n        free(work);\n    }\n", h);
    }
    fprintf(h, "    printf(\"%%s %%s\\n\", \"%s\", bad ? \"MISMATCH\" : \"ok\");\n    return bad != 0;\n}\n\n",
            name);
}

static const char *harness_prelude =
    "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
    "static uint64_t next(uint64_t *s)\n{\n"
    "    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);\n"
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
    "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
    "    return z ^ (z >> 31);\n}\n"
    "static double small(uint64_t *s) { return (double)(int)(next(s) % 9) - 4.0; }\n"
    "/* 64 x 64 bit matrices, word r = row r: z = x * y over GF(2) */\n"
    "static void plain_f2(const uint64_t *x, const uint64_t *y, uint64_t *z)\n{\n"
    "    for (int r = 0; r < 64; r++) {\n"
    "        uint64_t acc = 0;\n"
    "        for (int t = 0; t < 64; t++) if ((x[r] >> t) & 1) acc ^= y[t];\n"
    "        z[r] = acc;\n    }\n}\n"
    "static void mul_f2(const uint64_t *x, const uint64_t *y, uint64_t *z, void *ctx)\n"
    "{\n    ++*(long *)ctx;\n    plain_f2(x, y, z);\n}\n"
    "/* 2 x 3 times 3 x 4, row major */\n"
    "static void plain_d(const double *x, const double *y, double *z)\n{\n"
    "    for (int i = 0; i < 2; i++) for (int k = 0; k < 4; k++) {\n"
    "        double acc = 0;\n"
    "        for (int j = 0; j < 3; j++) acc += x[i * 3 + j] * y[j * 4 + k];\n"
    "        z[i * 4 + k] = acc;\n    }\n}\n"
    "static void mul_d(const double *x, const double *y, double *z, void *ctx)\n"
    "{\n    ++*(long *)ctx;\n    plain_d(x, y, z);\n}\n\n";

static char *slurp_or_die(const char *path) { return tc_slurp(path, 64u << 20, NULL); }

/* Writes each scheme as C, checks its counts, compiles all of them with one
 * harness, and runs it on random inputs. */
static void compile_and_run(scheme **list, const char **labels, int count, uint64_t seed)
{
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_export_c");
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/harness.c", dir);
    FILE *h = fopen(path, "w");
    cr_assert_not_null(h);
    fputs(harness_prelude, h);
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "s%d", i);
        export_info info = {.name = name};
        char file[512];
        snprintf(file, sizeof file, "%s/%s.c", dir, name);
        FILE *f = fopen(file, "w");
        cr_assert_not_null(f);
        cr_assert(export_write_c(list[i], &info, f), "%s: writing C failed", labels[i]);
        fclose(f);
        char *text = slurp_or_die(file);
        check_counts(list[i], text, name);
        free(text);
        fprintf(h, "#include \"%s.c\"\n", name);
        harness_for(h, list[i], name);
    }
    fputs("int main(int argc, char **argv)\n{\n    uint64_t seed = strtoull(argv[1], NULL, 0);\n    int bad = 0;\n", h);
    for (int i = 0; i < count; i++)
        fprintf(h, "    bad += check_s%d(seed + %d);\n", i, i);
    fputs("    (void)argc; (void)mul_f2; (void)mul_d; (void)small; (void)plain_f2; (void)plain_d;\n"
          "    return bad ? 1 : 0;\n}\n", h);
    fclose(h);
    const char *cc = getenv("FLIPGRAPH_CC");
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s -std=c11 -O0 -Wall -Wextra -Wpedantic -Werror -o harness harness.c > cc.log 2>&1",
             dir, cc && *cc ? cc : "cc");
    int rc = tc_system(cmd);
    if (rc) {
        snprintf(path, sizeof path, "%s/cc.log", dir);
        char *log = slurp_or_die(path);
        cr_assert_fail("the generated C does not compile (kept in %s):\n%.3000s", dir, log);
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && ./harness %" PRIu64 " > run.log 2>&1", dir, seed);
    rc = tc_system(cmd);
    snprintf(path, sizeof path, "%s/run.log", dir);
    char *log = slurp_or_die(path);
    if (rc) {
        /* name the failing schemes */
        for (int i = 0; i < count; i++) {
            char tag[48];
            snprintf(tag, sizeof tag, "s%d MISMATCH", i);
            if (strstr(log, tag))
                cr_log_error("seed %" PRIu64 ": %s (s%d) differs from the plain product", seed, labels[i], i);
        }
        cr_assert_fail("seed %" PRIu64 ": the generated code gives wrong products (exit %d; kept in %s)\n%.2000s",
                       seed, rc, dir, log);
    }
    cr_assert_eq(count_str(log, log + strlen(log), " ok\n"), count, "%s", log);
    free(log);
    tc_remove_tree(dir);
}

static void c_corpus(scheme_ring ring)
{
    char **files;
    int n = corpus_files(&files);
    scheme **list = calloc((size_t)n * 2, sizeof *list);
    const char **labels = calloc((size_t)n * 2, sizeof *labels);
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (tc_sanitized() && i % 4)
            continue;
        scheme *s = tc_read_or_die(files[i]);
        if (ring == SCHEME_RING_F2) {
            /* every file over GF(2): the mod2 files, and the integer ones reduced */
            scheme *f2 = s->ring == SCHEME_RING_F2 ? scheme_clone(s) : scheme_to_f2(s);
            list[count] = f2;
            labels[count++] = files[i];
        } else if (s->ring == SCHEME_RING_Z) {
            list[count] = scheme_clone(s);
            labels[count++] = files[i];
        }
        scheme_free(s);
    }
    cr_assert_gt(count, 0);
    compile_and_run(list, labels, count, tc_seed());
    for (int i = 0; i < count; i++)
        scheme_free(list[i]);
    free(list);
    free(labels);
    free_files(files, n);
}

Test(export, c_code_over_gf2_words_for_every_corpus_scheme, .timeout = 600)
{
    c_corpus(SCHEME_RING_F2);
}

Test(export, c_code_over_double_for_every_integer_corpus_scheme, .timeout = 600)
{
    c_corpus(SCHEME_RING_Z);
}

Test(export, c_code_for_strassen_and_random_flipped_schemes, .timeout = 600)
{
    uint64_t seed = tc_seed();
    scheme_rng g;
    scheme_rng_seed(&g, seed);
    enum { COUNT = 14 };
    scheme *list[COUNT];
    const char *labels[COUNT];
    char text[COUNT][64];
    list[0] = strassen_z();
    list[1] = scheme_to_f2(list[0]);
    labels[0] = "Strassen over Z";
    labels[1] = "Strassen over GF(2)";
    for (int i = 2; i < COUNT; i++) {
        list[i] = random_scheme(&g, i % 2 ? SCHEME_RING_Z : SCHEME_RING_F2, 4, 200);
        cr_assert(valid(list[i]), "seed %" PRIu64 ": the test's flips broke scheme %d", seed, i);
        snprintf(text[i], sizeof text[i], "random flipped scheme %d of seed %" PRIu64, i, seed);
        labels[i] = text[i];
    }
    compile_and_run(list, labels, COUNT, seed);
    for (int i = 0; i < COUNT; i++)
        scheme_free(list[i]);
}

/* ===================================================================== */
/* the command line                                                       */
/* ===================================================================== */

/* The output of flipgraph() goes to a log in the calling test's own folder:
 * a test writes nowhere else. */
static char flipgraph_log[512];

static int flipgraph(const char *args)
{
    cr_assert(flipgraph_log[0], "flipgraph(): the test set no log file");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>&1", tc_bin(), args, flipgraph_log);
    return tc_system(cmd);
}

Test(export, cli_formats_exit_codes_and_the_store, .timeout = 300)
{
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_export_cli");
    snprintf(flipgraph_log, sizeof flipgraph_log, "%s/flipgraph.log", dir);
    char args[4096], out[2048], src[1024];
    snprintf(src, sizeof src, "%s/kauers-moosbauer/223-11-mod0.exp", tc_corpus_dir());

    cr_assert_eq(flipgraph("export --help"), 0);
    /* every format, to a file; --to=FORMAT and --to FORMAT */
    for (int f = 0; f < EXPORT_FORMAT_COUNT; f++) {
        snprintf(out, sizeof out, "%s/out.%s", dir, export_format_name((export_format)f));
        snprintf(args, sizeof args, "export '%s' %s%s -o '%s'", src, f % 2 ? "--to=" : "--to ",
                 export_format_name((export_format)f), out);
        cr_assert_eq(flipgraph(args), 0, "%s", args);
        struct stat sb;
        cr_assert(stat(out, &sb) == 0 && sb.st_size > 0, "%s: no output", args);
    }
    /* what the file holds is what the library writes */
    scheme *s = tc_read_or_die(src);
    snprintf(out, sizeof out, "%s/out.json", dir);
    char *got = slurp_or_die(out);
    char *want = write_mem(s, EXPORT_JSON, NULL, NULL);
    cr_assert_str_eq(got, want);
    free(got);
    free(want);

    /* --mod2: the reduction of the integer scheme */
    snprintf(out, sizeof out, "%s/mod2.json", dir);
    snprintf(args, sizeof args, "export '%s' --mod2 --to json -o '%s'", src, out);
    cr_assert_eq(flipgraph(args), 0);
    got = slurp_or_die(out);
    scheme *red = scheme_to_f2(s);
    want = write_mem(red, EXPORT_JSON, NULL, NULL);
    cr_assert_str_eq(got, want);
    free(got);
    free(want);
    scheme_free(red);

    /* usage errors: 2 */
    snprintf(args, sizeof args, "export '%s' --to xlsx", src);
    cr_assert_eq(flipgraph(args), 2);
    snprintf(args, sizeof args, "export '%s'", src);
    cr_assert_eq(flipgraph(args), 2);
    cr_assert_eq(flipgraph("export /nonexistent/file.exp --to txt"), 2);
    snprintf(args, sizeof args, "export '%s' --to c --name 'not an identifier'", src);
    cr_assert_eq(flipgraph(args), 2);
    snprintf(args, sizeof args, "export '%s' --to txt -o /nonexistent/dir/x.txt", src);
    cr_assert_eq(flipgraph(args), 2);
    snprintf(args, sizeof args, "export '%s' --to txt --bogus", src);
    cr_assert_eq(flipgraph(args), 2);

    /* an invalid scheme (one term dropped) is refused: 1, and nothing written */
    scheme *broken = scheme_clone(s);
    scheme_remove(broken, 0);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/broken.exp", dir);
    FILE *f = fopen(bad, "w");
    cr_assert(scheme_write_exp(broken, f));
    fclose(f);
    snprintf(out, sizeof out, "%s/refused.c", dir);
    snprintf(args, sizeof args, "export '%s' --to c -o '%s'", bad, out);
    cr_assert_eq(flipgraph(args), 1);
    cr_assert_not(tc_exists(out), "a refused export left %s", out);
    scheme_free(broken);

    /* bb of a GF(2)-only scheme: their generators compute over the reals: 1 */
    char f2only[1024];
    snprintf(f2only, sizeof f2only, "%s/kauers-moosbauer/444-47-mod2.exp", tc_corpus_dir());
    snprintf(args, sizeof args, "export '%s' --to bb", f2only);
    cr_assert_eq(flipgraph(args), 1);
    /* bb into a folder: their file name */
    char bbdir[1024];
    snprintf(bbdir, sizeof bbdir, "%s/bb", dir);
    cr_assert_eq(mkdir(bbdir, 0755), 0);
    snprintf(args, sizeof args, "export '%s' --to bb -o '%s'", src, bbdir);
    cr_assert_eq(flipgraph(args), 0);
    char name[256];
    export_bb_filename(s, NULL, name, sizeof name);
    snprintf(out, sizeof out, "%s/%s", bbdir, name);
    cr_assert(tc_exists(out), "no %s", out);

    /* an ID from the store: provenance in the JSON */
    char dbpath[1024];
    snprintf(dbpath, sizeof dbpath, "%s/store.db", dir);
    db_status st;
    char err[512];
    db *d = db_open(dbpath, true, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    db_provenance prov = {.source = "test_export"};
    int64_t id = 0;
    bool existed = false;
    cr_assert_eq(db_insert_scheme(d, s, &prov, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    db_close(d);
    snprintf(out, sizeof out, "%s/from_db.json", dir);
    snprintf(args, sizeof args, "export %" PRId64 " --db '%s' --to json -o '%s'", id, dbpath, out);
    cr_assert_eq(flipgraph(args), 0, "%s", args);
    char *text = slurp_or_die(out);
    jval v = parse_json_or_die(text);
    const jval *p = jget(&v, "provenance");
    cr_assert(p && p->t == J_OBJ, "no provenance for a stored scheme");
    const jval *pid = jget(p, "id"), *psrc = jget(p, "source");
    cr_assert(pid && pid->num == (double)id);
    cr_assert(psrc && psrc->t == J_STR && !strcmp(psrc->str, "test_export"));
    const jval *rank = jget(&v, "rank");
    cr_assert(rank && rank->num == s->rank);
    jfree(&v);
    free(text);
    snprintf(args, sizeof args, "export 999999 --db '%s' --to json", dbpath);
    cr_assert_eq(flipgraph(args), 2);

    scheme_free(s);
    tc_remove_tree(dir);
}
