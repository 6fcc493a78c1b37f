/* flipgraph resize: take a GF(2) scheme (or with --ring z an integer one) to a
 * neighbouring format by projections and extensions (docs/resize.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../search/search.h"
#include "../verify/verify.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph resize FILE --dims NxMxP [-o OUT] [--to native|exp|txt|m|json] [--ring f2|z]\n"
            "       flipgraph resize FILE --product FILE2 [--dims NxMxP] [-o OUT] [--to KIND]\n"
            "       flipgraph resize FILE --sum FILE2 [--along n|m|p] [--dims NxMxP] [-o OUT] [--to KIND]\n"
            "       flipgraph resize FILE --merge-cubes X,Y [-o OUT] [--to KIND]\n"
            "       flipgraph resize FILE --survey [--reach K] [--lift] [--ring f2|z]\n"
            "\n"
            "Takes the scheme in FILE to the format NxMxP: an ordering of FILE's own format by\n"
            "rotating and transposing its factors (the rank kept); otherwise a dimension too\n"
            "large is projected (one index deleted from every factor, the index chosen that\n"
            "leaves the lowest rank after the reductions, or the last index after a change of\n"
            "basis where that leaves less; where FILE's format holds NxMxP in some ordering,\n"
            "from each ordering of FILE's factors that holds it, the lowest rank kept), a\n"
            "dimension too small is extended (a new index with the standard terms of its\n"
            "slice; a square FILE to a larger square format gets its new indices in the\n"
            "middle, so that a c3xc2 or c3xc2sK scheme stays symmetric); then every\n"
            "reduction is taken and the result is checked over GF(2).  FILE: any format\n"
            "flipgraph reads ('-': standard input); an integer file is reduced mod 2, and\n"
            "the scheme must be valid over GF(2).\n"
            "One line on standard error says what was done, and names the largest symmetry\n"
            "group a square result is invariant under (search --symmetry G --from OUT):\n"
            "  resize: <5,5,5> rank 93 -> <4,5,5> rank 78 (verified over GF(2))\n"
            "  resize: <6,6,6> rank 153 -> <7,7,7> rank 280 (verified over GF(2), invariant under c3xc2)\n"
            "See docs/resize.md.\n"
            "\n"
            "  --dims NxMxP      the format to go to (required without --product or --sum)\n"
            "  --product FILE2   first the product of FILE and FILE2 (<n1*n2,m1*m2,p1*p2>, rank\n"
            "                    r1*r2: the Kronecker product of every pair of terms), then its\n"
            "                    reductions, then --dims (default: the product's format)\n"
            "  --sum FILE2       first the sum of FILE and FILE2 along the one dimension where\n"
            "                    their formats differ (<n,m1,p> + <n,m2,p> = <n,m1+m2,p>, rank\n"
            "                    r1+r2: the block decomposition; FILE2 in the first ordering of\n"
            "                    its format that fits), then its reductions, then --dims\n"
            "                    (default: the sum's format)\n"
            "  --along n|m|p     the dimension of --sum (needed where the formats are equal)\n"
            "  --merge-cubes X,Y the cube move on <n,n,n> over GF(2), the format kept: the\n"
            "                    terms D*D*D of the diagonal matrices of the disjoint cubes X\n"
            "                    and Y (n digits each, as search --cubes) become the one of\n"
            "                    their union plus the six terms mixing them (rank + 5), or\n"
            "                    that one is split back where FILE holds it (rank + 7), equal\n"
            "                    terms cancelling; no reductions after it.  The line names\n"
            "                    the symmetries the result keeps (a c3xc2 walk's fixed terms\n"
            "                    change parity only by this move: docs/search.md)\n"
            "  --survey          no file written: a table on standard output of FILE projected\n"
            "                    to every smaller format <a,b,c> (2 <= a <= b <= c) its format\n"
            "                    holds, each from the best ordering of its factors, with the\n"
            "                    best known rank (records.tsv) and the gap; flipgraph resize\n"
            "                    FILE --dims D writes the one of D\n"
            "  --reach K         with --survey: the formats at most K steps below (the\n"
            "                    dimensions' differences summed; default: all)\n"
            "  --lift            with --survey over GF(2): each projection Hensel-lifted too,\n"
            "                    the table says whether it lifts and the gap to the Z record\n"
            "  -o, --output OUT  write the scheme to OUT (whole or not at all); default:\n"
            "                    standard output\n"
            "  --to KIND         native (default), exp, txt, m or json\n"
            "  --ring R          f2 (default: an integer FILE is reduced mod 2) or z: the\n"
            "                    coefficients stay integers (FILE must be valid over Z; a GF(2)\n"
            "                    FILE counts with coefficients 1), the changes of basis\n"
            "                    unimodular, every move and reduction within FILE's largest\n"
            "                    coefficient (at least 1), the result checked over Z\n"
            "  -h, --help        this text\n"
            "\n"
            "exit: 0 written (--survey: the table printed); 2 bad usage, unreadable or\n"
            "malformed input (FILE:LINE:COL: what was expected), a scheme that is not valid\n"
            "over GF(2), --dims not a format (every dimension >= 1, n*m, m*p, p*n <= 64), a\n"
            "format KIND cannot hold, or OUT not writable; 3 out of memory, or an internal\n"
            "check that failed (a bug).\n");
}

/* flipgraph resize --survey: the table of search_survey, each row's record
 * from records.tsv (search_record_rank) and with `lift` whether its
 * projection lifts to Z (verify_lift_ex, the defaults). */
static int print_survey(const char *in, const scheme *s, scheme_ring ring, int reach, bool lift)
{
    char err[600], fa[32], fb[32];
    search_survey_row *rows;
    const int n = search_survey(s, reach, &rows, err, sizeof err);
    if (n < 0)
        return cli_error(CLI_INTERNAL, "resize", "%s: %s", in, err);
    const bool z = ring == SCHEME_RING_Z;
    printf("survey: %s rank %d over %s, projected to %d smaller format%s%s (each from the best ordering of its "
           "factors)\n",
           scheme_format_str(s->fmt, fa), s->rank, scheme_ring_name(ring), n, n == 1 ? "" : "s",
           reach > 0 ? " within the reach" : "");
    printf("  %-9s %5s %5s %7s %5s%s\n", "format", "steps", "rank", z ? "z rec." : "record", "gap",
           lift ? "  lift (z record, gap)" : "");
    int at = 0, below = 0, lifted = 0;
    for (int i = 0; i < n; i++) {
        const search_survey_row *w = &rows[i];
        const int rec = z ? search_record_rank_z(w->fmt) : search_record_rank(w->fmt);
        char recs[16] = "?", gaps[16] = "";
        if (rec > 0) {
            snprintf(recs, sizeof recs, "%d%s", rec, search_record_uncertain(w->fmt, ring) ? "?" : "");
            snprintf(gaps, sizeof gaps, "%+d", w->s->rank - rec);
            at += w->s->rank == rec;
            below += w->s->rank < rec;
        }
        printf("  %-9s %5d %5d %7s %5s", scheme_format_str(w->fmt, fb), w->steps, w->s->rank, recs, gaps);
        if (lift) {
            verify_lift_result lr;
            scheme *zs = verify_lift_ex(w->s, NULL, &lr);
            const int zrec = search_record_rank_z(w->fmt);
            if (zs) {
                lifted++;
                printf("  yes, |c| <= %d", lr.max_coeff);
                if (zrec > 0)
                    printf(" (%d, %+d)", zrec, w->s->rank - zrec);
            } else
                printf("  %s", lr.status == VERIFY_LIFT_NONE || lr.status == VERIFY_LIFT_NOT_FOUND ? "no" : lr.msg);
            scheme_free(zs);
        }
        putchar('\n');
    }
    printf("%d format%s: %d at the %s record, %d below it", n, n == 1 ? "" : "s", at, z ? "Z" : "GF(2)", below);
    if (lift)
        printf(", %d lift%s to Z", lifted, lifted == 1 ? "s" : "");
    printf("%s\n", below ? " (a rank below a record: flipgraph resize FILE --dims D -o OUT writes it; "
                            "flipgraph verify checks it)" : "");
    search_survey_free(rows, n);
    return CLI_OK;
}

/* ", invariant under G" for the largest symmetry group of a square result
 * (c3xc2 and c3xc2sK hold c3, so they come first), or "": what a symmetric
 * walk could start from (search --symmetry G --from OUT). */
static void symmetry_kept(const scheme *r, char *keeps, size_t size)
{
    keeps[0] = 0;
    if (r->fmt.n != r->fmt.m || r->fmt.m != r->fmt.p)
        return;
    const scheme_symmetry *gs = scheme_symmetry_largest_first;
    int bad_term, bad_elem;
    for (int i = 0; i < SCHEME_SYM_SQUARE_GROUPS && !keeps[0]; i++)
        if (scheme_symmetry_check(r, gs[i], &bad_term, &bad_elem, NULL, 0))
            snprintf(keeps, size, ", invariant under %s", scheme_symmetry_name(gs[i]));
}

int cmd_resize(int argc, char **argv)
{
    static const struct option opts[] = {
        {"dims", required_argument, NULL, 'd'},
        {"product", required_argument, NULL, 'p'},
        {"sum", required_argument, NULL, 's'},
        {"along", required_argument, NULL, 'a'},
        {"merge-cubes", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'},
        {"to", required_argument, NULL, 't'},
        {"ring", required_argument, NULL, 'r'},
        {"survey", no_argument, NULL, 'S'},
        {"reach", required_argument, NULL, 'R'},
        {"lift", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = "-", *product = NULL, *sum = NULL, *merge = NULL;
    int along = -1;
    scheme_format to;
    bool have_dims = false, over_z = false, survey = false, lift = false;
    long reach = 0;
    scheme_file_kind kind = SCHEME_FILE_NATIVE;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': {
            char err[200];
            if (!scheme_format_parse(optarg, &to, err, sizeof err))
                return cli_error(CLI_USAGE, "resize", "--dims: %s", err);
            if (!scheme_format_valid(to))
                return cli_error(CLI_USAGE, "resize", "--dims '%s': not a format (every dimension "
                                 ">= 1, n*m, m*p, p*n <= %d)", optarg, SCHEME_MAX_ENTRIES);
            have_dims = true;
            break;
        }
        case 'o':
            out = optarg;
            break;
        case 'p':
            product = optarg;
            break;
        case 's':
            sum = optarg;
            break;
        case 'c':
            merge = optarg;
            break;
        case 'a':
            if (strlen(optarg) != 1 || !strchr("nmp", optarg[0]))
                return cli_error(CLI_USAGE, "resize", "--along '%s': expected n, m or p", optarg);
            along = (int)(strchr("nmp", optarg[0]) - "nmp");
            break;
        case 't':
            kind = scheme_file_kind_parse(optarg);
            if (kind == SCHEME_FILE_UNKNOWN)
                return cli_error(CLI_USAGE, "resize", "--to '%s': expected native, exp, txt, m or json "
                                 "(other formats: flipgraph export)", optarg);
            break;
        case 'r':
            if (strcmp(optarg, "f2") && strcmp(optarg, "z"))
                return cli_error(CLI_USAGE, "resize", "--ring '%s': expected f2 or z", optarg);
            over_z = !strcmp(optarg, "z");
            break;
        case 'S':
            survey = true;
            break;
        case 'R':
            if (!cli_parse_long(optarg, 1, 64, &reach))
                return cli_error(CLI_USAGE, "resize", "--reach '%s': expected 1..64 (steps below FILE's format)",
                                 optarg);
            break;
        case 'L':
            lift = true;
            break;
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            cli_option_error("resize", argv);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (product && sum)
        return cli_error(CLI_USAGE, "resize", "--product and --sum: one at a time");
    if (survey && (have_dims || product || sum || merge || strcmp(out, "-")))
        return cli_error(CLI_USAGE, "resize", "--survey goes alone (no --dims, --product, --sum, --merge-cubes, -o: "
                         "it writes a table; --dims D then writes one format)");
    if ((reach || lift) && !survey)
        return cli_error(CLI_USAGE, "resize", "--%s goes with --survey", reach ? "reach" : "lift");
    if (lift && over_z)
        return cli_error(CLI_USAGE, "resize", "--lift is for a survey over GF(2) (--ring z projects integer "
                         "schemes as they are)");
    if (along >= 0 && !sum)
        return cli_error(CLI_USAGE, "resize", "--along goes with --sum");
    if (merge && (product || sum || have_dims || over_z))
        return cli_error(CLI_USAGE, "resize", "--merge-cubes goes alone (no --dims, --product, --sum, --ring z)");
    search_cubes pair;
    if (merge && !search_cubes_parse(merge, &pair))
        return cli_error(CLI_USAGE, "resize", "--merge-cubes '%s': expected two cubes of 0/1 digits, such as "
                         "110000,000011", merge);
    if (!have_dims && !product && !sum && !merge && !survey) {
        usage(stderr);
        return cli_error(CLI_USAGE, "resize", "--dims NxMxP is required (or --product FILE2, --sum FILE2, --merge-cubes X,Y)");
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return cli_error(CLI_USAGE, "resize", "expected exactly one FILE, got %d", argc - optind);
    }
    const char *in = argv[optind];
    scheme *s = cli_read_scheme("resize", in, NULL);
    if (!s)
        return CLI_USAGE;
    /* f2: the scheme in the ring the moves work in (named for the default) */
    scheme *f2 = over_z ? search_z_copy(s) : scheme_to_f2(s), *r = NULL;
    const scheme_ring ring = over_z ? SCHEME_RING_Z : SCHEME_RING_F2;
    char err[600], fa[32], fb[32], line[400]; /* line: what was done, printed once r is writable */
    int rc = CLI_OK;
    if (!f2) {
        rc = cli_error(CLI_INTERNAL, "resize", "out of memory");
        goto done;
    }
    verify_result vr;
    if (!verify_scheme(f2, ring, &vr)) {
        rc = cli_error(CLI_USAGE, "resize", "%s: not a valid scheme of %s over %s (resize needs "
                       "one; flipgraph verify%s FILE says more): %s",
                       in, scheme_format_str(f2->fmt, fa), scheme_ring_name(ring), over_z ? " --ring z" : "", vr.msg);
        goto done;
    }
    if (survey) {
        rc = print_survey(in, f2, ring, (int)reach, lift);
        goto done;
    }
    if (merge) {
        r = search_cubes_merge(f2, &pair, err, sizeof err);
        if (!r) {
            rc = cli_error(strstr(err, "out of memory") ? CLI_INTERNAL : CLI_USAGE, "resize", "%s: %s", in, err);
            goto done;
        }
        /* the sum added is zero: a result that does not verify is a bug */
        if (!verify_scheme(r, ring, &vr)) {
            rc = cli_error(CLI_INTERNAL, "resize", "%s: the cube move left an invalid scheme (a bug): %s", in,
                           vr.msg);
            goto done;
        }
        char keeps[64];
        symmetry_kept(r, keeps, sizeof keeps);
        snprintf(line, sizeof line, "resize: %s rank %d -> rank %d by the cube move %s (verified over %s%s)",
                 scheme_format_str(f2->fmt, fa), f2->rank, r->rank, merge, scheme_ring_name(ring), keeps);
        goto write;
    }
    if (product || sum) {
        /* FILE x FILE2 or FILE + FILE2 first: its format must be one (64
         * entries a factor) */
        const char *second = product ? product : sum;
        scheme *s2 = cli_read_scheme("resize", second, NULL);
        scheme *g2 = !s2 ? NULL : over_z ? search_z_copy(s2) : scheme_to_f2(s2);
        const bool read = s2 != NULL;
        scheme_free(s2);
        if (!g2) {
            rc = read ? cli_error(CLI_INTERNAL, "resize", "out of memory") : CLI_USAGE;
            goto done;
        }
        if (!verify_scheme(g2, ring, &vr)) {
            rc = cli_error(CLI_USAGE, "resize", "%s: not a valid scheme of %s over %s: %s", second,
                           scheme_format_str(g2->fmt, fa), scheme_ring_name(ring), vr.msg);
            scheme_free(g2);
            goto done;
        }
        scheme_format cf; /* the sum's or product's format */
        int sum_dim = -1;
        if (sum) {
            /* FILE2 in the first ordering of its format (every one has the
             * same rank) that agrees with FILE's in the other two dimensions */
            scheme_format o2f;
            int dim;
            if (!search_sum_ordering(f2->fmt, g2->fmt, along, &o2f, &dim)) {
                const bool same = f2->fmt.n == g2->fmt.n && f2->fmt.m == g2->fmt.m && f2->fmt.p == g2->fmt.p;
                rc = cli_error(CLI_USAGE, "resize", "--sum: %s and %s %s", scheme_format_str(f2->fmt, fa),
                               scheme_format_str(g2->fmt, fb),
                               along < 0 && same ? "are the same format: --along n|m|p says which dimension to add"
                               : along < 0 ? "differ in more than one dimension in every ordering of FILE2"
                                           : "differ in another dimension than --along in every ordering of FILE2");
                scheme_free(g2);
                goto done;
            }
            scheme *o2 = search_permute(g2, o2f);
            scheme_free(g2);
            g2 = o2;
            if (!g2) {
                rc = cli_error(CLI_INTERNAL, "resize", "out of memory");
                goto done;
            }
            int d[3] = {f2->fmt.n, f2->fmt.m, f2->fmt.p};
            const int add[3] = {o2f.n, o2f.m, o2f.p};
            d[dim] += add[dim];
            sum_dim = dim;
            cf = (scheme_format){d[0], d[1], d[2]};
        } else
            cf = search_product_format(f2->fmt, g2->fmt);
        const char *op = sum ? "plus" : "times";
        if (!scheme_format_valid(cf)) {
            rc = cli_error(CLI_USAGE, "resize", "--%s: %s %s %s is %s, not a format (n*m, m*p, p*n <= %d)",
                           sum ? "sum" : "product", scheme_format_str(f2->fmt, fa), op,
                           scheme_format_str(g2->fmt, fb), scheme_format_str(cf, (char[32]){0}), SCHEME_MAX_ENTRIES);
            scheme_free(g2);
            goto done;
        }
        scheme *c = sum ? search_sum(f2, g2, sum_dim) : search_product(f2, g2);
        fprintf(stderr, "resize: %s rank %d %s %s rank %d is %s rank %d\n", scheme_format_str(f2->fmt, fa), f2->rank,
                op, scheme_format_str(g2->fmt, fb), g2->rank, scheme_format_str(cf, (char[32]){0}),
                sum ? f2->rank + g2->rank : f2->rank * g2->rank);
        scheme_free(g2);
        if (!c) {
            rc = cli_error(CLI_INTERNAL, "resize", "out of memory");
            goto done;
        }
        scheme_free(f2);
        f2 = c;
        if (!have_dims)
            to = cf;
    }
    /* Where FILE's format holds `to` (a projection or a permutation), from
     * the best orientation of its factors (search_project_oriented); else
     * (an extension) as it is ordered. */
    r = search_format_holds(f2->fmt, to) ? search_project_oriented(f2, to, 0, NULL, err, sizeof err)
                                         : search_resize(f2, to, err, sizeof err);
    if (!r) {
        /* The input and the format were checked above: what is left is out of
         * memory or a failed internal check. */
        rc = cli_error(CLI_INTERNAL, "resize", "%s: %s", in, err);
        goto done;
    }
    char keeps[64];
    symmetry_kept(r, keeps, sizeof keeps);
    snprintf(line, sizeof line, "resize: %s rank %d -> %s rank %d (verified over %s%s)", scheme_format_str(f2->fmt, fa),
             f2->rank, scheme_format_str(r->fmt, fb), r->rank, scheme_ring_name(ring), keeps);
write:
    if (!scheme_writable(r, kind, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, "resize", "cannot write %s as %s: %s", scheme_format_str(r->fmt, fb),
                       scheme_file_kind_name(kind), err);
        goto done;
    }
    fprintf(stderr, "%s\n", line);
    scheme_write_ctx w = {r, kind};
    if (!scheme_write_file_atomic(out, scheme_write_cb, &w, err, sizeof err))
        rc = cli_error(CLI_USAGE, "resize", "%s", err);
done:
    scheme_free(r);
    scheme_free(f2);
    scheme_free(s);
    return rc;
}
