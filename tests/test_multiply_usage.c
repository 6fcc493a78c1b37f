/* `flipgraph multiply --scheme LIST`: every level of the list is a scheme, and
 * a list that is not one is refused with exit 2 naming the level, before any
 * matrix is read or any file written. */
#include "test_common.h"

static void make_dir(void) { tc_suite_dir_make("fg-mulusage"); }
TestSuite(multiply_usage, .init = make_dir, .fini = tc_suite_dir_remove);

/* Random 64 x 64 operands in the suite's folder. */
static void operands(void)
{
    char out[4096];
    for (int i = 0; i < 2; i++) {
        const char *p = tc_path_in(i ? "b.fgm" : "a.fgm");
        int rc = tc_run_cli("", out, sizeof out, "matrix random --rows 64 --cols 64 --seed %d -o '%s'", i + 1, p);
        cr_assert_eq(rc, 0, "matrix random: %d\n%s", rc, out);
    }
}

/* Runs multiply with the given --scheme list; exit code, output in out. */
static int multiply(const char *list, char *out, size_t len)
{
    return tc_run_cli("", out, len, "multiply --scheme '%s' --a '%s' --b '%s' -o '%s'", list,
                      tc_path_in("a.fgm"), tc_path_in("b.fgm"), tc_path_in("c.fgm"));
}

Test(multiply_usage, an_empty_level_is_refused_and_named)
{
    operands();
    static const struct {
        const char *list;
        const char *level;
    } cases[] = {{"strassen,,strassen", "level 2 is empty"},
                 {",strassen", "level 1 is empty"},
                 {"strassen,", "level 2 is empty"},
                 {"strassen,strassen,,", "level 3 is empty"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[4096];
        int rc = multiply(cases[i].list, out, sizeof out);
        cr_expect_eq(rc, 2, "--scheme %s: exit %d\n%s", cases[i].list, rc, out);
        cr_expect(strstr(out, cases[i].level), "--scheme %s: the message names the level (%s):\n%s",
                  cases[i].list, cases[i].level, out);
        cr_expect(!tc_exists(tc_path_in("c.fgm")), "--scheme %s: no product was written", cases[i].list);
    }
}

Test(multiply_usage, cubic_in_a_list_is_refused_with_what_is_allowed)
{
    operands();
    static const char *lists[] = {"strassen,cubic", "cubic,strassen"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        char out[4096];
        int rc = multiply(lists[i], out, sizeof out);
        cr_expect_eq(rc, 2, "--scheme %s: exit %d\n%s", lists[i], rc, out);
        cr_expect(strstr(out, "stands alone"), "--scheme %s: says cubic stands alone:\n%s", lists[i], out);
        /* the old message listed cubic among the built-ins it had just refused */
        cr_expect(!strstr(out, "not a built-in"), "--scheme %s: no contradicting message:\n%s", lists[i], out);
        cr_expect(strstr(out, "strassen") && strstr(out, "std:NxMxP"),
                  "--scheme %s: names the schemes a level may be:\n%s", lists[i], out);
        cr_expect(!tc_exists(tc_path_in("c.fgm")), "--scheme %s: no product was written", lists[i]);
    }
}

Test(multiply_usage, well_formed_lists_still_multiply)
{
    operands();
    char out[4096];
    /* cubic alone, one level, two levels: each a product equal to the naive one */
    static const char *lists[] = {"cubic", "strassen", "strassen,strassen"};
    char naive[600];
    snprintf(naive, sizeof naive, "%s", tc_path_in("n.fgm"));
    int rc = tc_run_cli("", out, sizeof out, "matrix mul --naive '%s' '%s' -o '%s'", tc_path_in("a.fgm"),
                        tc_path_in("b.fgm"), naive);
    cr_assert_eq(rc, 0, "matrix mul --naive: %d\n%s", rc, out);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        unlink(tc_path_in("c.fgm"));
        rc = multiply(lists[i], out, sizeof out);
        cr_expect_eq(rc, 0, "--scheme %s: exit %d\n%s", lists[i], rc, out);
        rc = tc_run_cli("", out, sizeof out, "matrix cmp '%s' '%s'", tc_path_in("c.fgm"), naive);
        cr_expect_eq(rc, 0, "--scheme %s: the product differs from the naive one\n%s", lists[i], out);
    }
}

Test(multiply_usage, an_unknown_level_names_the_built_ins_without_cubic)
{
    operands();
    char out[4096];
    int rc = multiply("strassen,no-such-scheme", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "no-such-scheme"), "names the level:\n%s", out);
    cr_expect(strstr(out, "cubic alone"), "says cubic is not a level:\n%s", out);
}
