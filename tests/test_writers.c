/* Where -o writes (scheme_write_file_atomic; docs/formats.md, "Where -o
 * writes"): a regular or absent file whole or not at all, keeping an existing
 * file's mode and owner; the file a symlink finally names, leaving the link;
 * a device or a FIFO in place; a directory or a socket refused.  Once through
 * the function itself, then through every command that takes -o.
 *
 * Every test writes only inside its own temporary folder: the devices it
 * writes to are copies of /dev/null (1,3) and /dev/full (1,7) made there with
 * mknod, which needs root; without root those tests are skipped, saying so.
 * /dev/full is the witness that a device is written into, not replaced: a
 * write must fail with ENOSPC, and the node must still be there. */
#include "test_common.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

static void wr_init(void) { tc_suite_dir_make("fg-writers"); }

TestSuite(writers, .init = wr_init, .fini = tc_suite_dir_remove, .timeout = 120);

/* ---- helpers ---- */

/* Skips the test unless root.  Criterion runs no .fini after a skip: the
 * folder .init made goes first. */
static void wr_need_root(const char *what)
{
    if (geteuid() == 0)
        return;
    tc_suite_dir_remove();
    cr_skip_test("not root: %s", what);
}

/* A copy of the memory device major,minor (1,3 /dev/null; 1,7 /dev/full). */
static void wr_mknod(const char *path, unsigned minor)
{
    cr_assert_eq(mknod(path, S_IFCHR | 0666, makedev(1, minor)), 0, "mknod %s: %s", path, strerror(errno));
}

static void wr_assert_char_device(const char *path, unsigned minor)
{
    struct stat sb;
    cr_assert_eq(lstat(path, &sb), 0, "%s is gone: %s", path, strerror(errno));
    cr_assert(S_ISCHR(sb.st_mode), "%s is no longer a character device (mode %o)", path, (unsigned)sb.st_mode);
    cr_assert_eq(sb.st_rdev, makedev(1, minor), "%s is another device now", path);
}

static void wr_put_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    cr_assert_eq(fchmod(fd, mode), 0);
    close(fd);
}

static mode_t wr_mode(const char *path)
{
    struct stat sb;
    cr_assert_eq(lstat(path, &sb), 0, "%s: %s", path, strerror(errno));
    return sb.st_mode;
}

/* No temporary of a write left in dir (any name with ".tmp" in it). */
static void wr_no_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));)
        cr_assert_null(strstr(e->d_name, ".tmp"), "%s/%s: a temporary was left behind", dir, e->d_name);
    closedir(d);
}

static int wr_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void wr_assert_link(const char *link, const char *target)
{
    struct stat sb;
    cr_assert_eq(lstat(link, &sb), 0, "%s is gone: %s", link, strerror(errno));
    cr_assert(S_ISLNK(sb.st_mode), "%s is no longer a symlink (mode %o)", link, (unsigned)sb.st_mode);
    char buf[512];
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    cr_assert_gt(n, 0);
    buf[n] = 0;
    cr_assert_str_eq(buf, target, "%s points elsewhere now", link);
}

static void wr_assert_content(const char *path, const char *want)
{
    char *got = tc_slurp(path, 1 << 24, NULL);
    cr_assert_str_eq(got, want, "%s", path);
    free(got);
}

/* A FIFO's reader in a child (the writer blocks in open until one comes),
 * copying what arrives into sink, a file outside the folder under test. */
typedef struct wr_reader {
    pid_t pid;
    char fifo[512], sink[512];
} wr_reader;

static void wr_reader_start(wr_reader *r, const char *fifo, const char *sink)
{
    snprintf(r->fifo, sizeof r->fifo, "%s", fifo);
    snprintf(r->sink, sizeof r->sink, "%s", sink);
    fflush(NULL);
    r->pid = fork();
    cr_assert_geq(r->pid, 0, "fork: %s", strerror(errno));
    if (r->pid == 0) {
        alarm(100); /* never outlive the test */
        int in = open(fifo, O_RDONLY);
        int out = open(sink, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0)
            _exit(2);
        char buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(3);
        _exit(n == 0 ? 0 : 4);
    }
}

/* What the reader received (caller frees).  A writer that failed before
 * opening the FIFO leaves the reader waiting in open: a writer of our own,
 * opened and closed at once, lets it see the end. */
static char *wr_reader_finish(wr_reader *r)
{
    int st = 0;
    for (int i = 0; i < 6000; i++) {
        pid_t w = waitpid(r->pid, &st, WNOHANG);
        if (w == r->pid)
            break;
        struct stat sb;
        if (lstat(r->fifo, &sb) != 0 || !S_ISFIFO(sb.st_mode)) {
            /* renamed over or removed: nothing can reach the reader now */
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
            cr_assert_fail("%s is no longer a FIFO: the writer replaced it", r->fifo);
        }
        int fd = open(r->fifo, O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            close(fd);
        usleep(10000);
    }
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the FIFO's reader failed (status %d)", st);
    return tc_slurp(r->sink, 1 << 24, NULL);
}

/* ---- the function itself ---- */

typedef struct wr_text {
    const char *text;
    bool fail; /* write it, then report failure (errno EIO) */
} wr_text;

static bool wr_put(void *ctx, FILE *f)
{
    const wr_text *t = ctx;
    size_t n = strlen(t->text);
    if (fwrite(t->text, 1, n, f) != n)
        return false;
    if (t->fail) {
        errno = EIO;
        return false;
    }
    return true;
}

static bool wr_write(const char *path, const char *text, char *err, size_t errlen)
{
    wr_text t = {text, false};
    err[0] = 0;
    errno = 0;
    return scheme_write_file_atomic(path, wr_put, &t, err, errlen);
}

Test(writers, new_file_gets_0666_less_the_umask)
{
    char err[1024];
    static const mode_t masks[] = {022, 027, 077, 0};
    for (int i = 0; i < 4; i++) {
        const char *p = tc_path_in(tc_fmt("new%d", i));
        umask(masks[i]);
        bool ok = wr_write(p, "fresh\n", err, sizeof err);
        umask(022);
        cr_assert(ok, "%s", err);
        cr_assert_eq(wr_mode(p) & 07777, 0666 & ~masks[i], "umask %03o gave %03o", (unsigned)masks[i],
                     (unsigned)(wr_mode(p) & 07777));
        cr_assert(S_ISREG(wr_mode(p)));
        wr_assert_content(p, "fresh\n");
    }
    wr_no_temporaries(tc_dir);
}

Test(writers, existing_file_keeps_its_mode)
{
    char err[1024];
    static const mode_t modes[] = {0600, 0640, 0444, 04710, 0};
    for (int i = 0; i < 5; i++) {
        const char *p = tc_path_in(tc_fmt("old%d", i));
        wr_put_file(p, "old content, longer than the new\n", modes[i]);
        cr_assert(wr_write(p, "new\n", err, sizeof err), "mode %o: %s", (unsigned)modes[i], err);
        cr_assert_eq(wr_mode(p) & 07777, modes[i], "mode %04o became %04o", (unsigned)modes[i],
                     (unsigned)(wr_mode(p) & 07777));
        chmod(p, 0600);
        wr_assert_content(p, "new\n");
    }
    wr_no_temporaries(tc_dir);
}

Test(writers, existing_file_keeps_its_owner_and_group)
{
    wr_need_root("only root can give a file to another owner, so this is not checked");
    char err[1024];
    const char *p = tc_path_in("owned");
    wr_put_file(p, "old\n", 0640);
    cr_assert_eq(chown(p, 1234, 5678), 0, "%s", strerror(errno));
    cr_assert(wr_write(p, "new\n", err, sizeof err), "%s", err);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_uid, 1234, "owner %u", (unsigned)sb.st_uid);
    cr_assert_eq(sb.st_gid, 5678, "group %u", (unsigned)sb.st_gid);
    cr_assert_eq(sb.st_mode & 07777, 0640);
    wr_assert_content(p, "new\n");
}

Test(writers, a_chain_of_relative_links_writes_the_last_target)
{
    char err[1024];
    cr_assert_eq(mkdir(tc_path_in("sub"), 0700), 0);
    wr_put_file(tc_path_in("t"), "old\n", 0640);
    /* a -> sub/b -> ../t: each relative to the folder of its own link */
    cr_assert_eq(symlink("../t", tc_path_in("sub/b")), 0);
    cr_assert_eq(symlink("sub/b", tc_path_in("a")), 0);
    cr_assert(wr_write(tc_path_in("a"), "through two links\n", err, sizeof err), "%s", err);
    wr_assert_link(tc_path_in("a"), "sub/b");
    wr_assert_link(tc_path_in("sub/b"), "../t");
    wr_assert_content(tc_path_in("t"), "through two links\n");
    cr_assert_eq(wr_mode(tc_path_in("t")) & 07777, 0640);
    wr_no_temporaries(tc_dir);
    wr_no_temporaries(tc_path_in("sub"));
}

Test(writers, a_dangling_link_creates_its_target)
{
    char err[1024];
    cr_assert_eq(symlink("made", tc_path_in("d")), 0);
    umask(022);
    cr_assert(wr_write(tc_path_in("d"), "made through a link\n", err, sizeof err), "%s", err);
    wr_assert_link(tc_path_in("d"), "made");
    cr_assert(S_ISREG(wr_mode(tc_path_in("made"))));
    cr_assert_eq(wr_mode(tc_path_in("made")) & 07777, 0644);
    wr_assert_content(tc_path_in("made"), "made through a link\n");
    wr_no_temporaries(tc_dir);
}

Test(writers, a_link_loop_is_refused)
{
    char err[1024];
    cr_assert_eq(symlink("y", tc_path_in("x")), 0);
    cr_assert_eq(symlink("x", tc_path_in("y")), 0);
    cr_assert_not(wr_write(tc_path_in("x"), "never\n", err, sizeof err));
    cr_assert_eq(errno, ELOOP);
    cr_assert(strstr(err, tc_path_in("x")) && strstr(err, strerror(ELOOP)), "%s", err);
    wr_assert_link(tc_path_in("x"), "y");
    wr_assert_link(tc_path_in("y"), "x");
    cr_assert_eq(wr_count_entries(tc_dir), 2);
}

Test(writers, a_directory_is_refused)
{
    char err[1024];
    const char *d = tc_path_in("folder");
    cr_assert_eq(mkdir(d, 0700), 0);
    wr_put_file(tc_path_in("folder/keep"), "keep\n", 0600);
    cr_assert_not(wr_write(d, "never\n", err, sizeof err));
    cr_assert_eq(errno, EISDIR);
    cr_assert_str_eq(err, tc_fmt("%s: is a directory", d));
    cr_assert(S_ISDIR(wr_mode(d)));
    cr_assert_eq(wr_count_entries(d), 1);
    wr_assert_content(tc_path_in("folder/keep"), "keep\n");
    wr_no_temporaries(tc_dir);
    /* and through a link, which stays */
    cr_assert_eq(symlink("folder", tc_path_in("to-folder")), 0);
    cr_assert_not(wr_write(tc_path_in("to-folder"), "never\n", err, sizeof err));
    cr_assert(strstr(err, "is a directory"), "%s", err);
    wr_assert_link(tc_path_in("to-folder"), "folder");
}

Test(writers, a_socket_is_refused)
{
    char err[1024];
    const char *p = tc_path_in("sock");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    cr_assert_lt(strlen(p), sizeof a.sun_path);
    strcpy(a.sun_path, p);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "bind %s: %s", p, strerror(errno));
    cr_assert_not(wr_write(p, "never\n", err, sizeof err));
    cr_assert_str_eq(err, tc_fmt("%s: is a socket", p));
    cr_assert(S_ISSOCK(wr_mode(p)));
    close(fd);
    wr_no_temporaries(tc_dir);
}

Test(writers, a_char_device_is_written_in_place)
{
    wr_need_root("mknod of a device copy needs root, so devices are not checked");
    char err[1024];
    const char *nul = tc_path_in("null"), *full = tc_path_in("full");
    wr_mknod(nul, 3);
    wr_mknod(full, 7);
    cr_assert(wr_write(nul, "into the device\n", err, sizeof err), "%s", err);
    wr_assert_char_device(nul, 3);
    /* /dev/full refuses every write: a failure proves the bytes went into it */
    cr_assert_not(wr_write(full, "into the device\n", err, sizeof err));
    cr_assert_eq(errno, ENOSPC, "%s", err);
    cr_assert(strstr(err, full) && strstr(err, strerror(ENOSPC)), "%s", err);
    wr_assert_char_device(full, 7);
    /* through a link to it */
    cr_assert_eq(symlink("full", tc_path_in("to-full")), 0);
    cr_assert_not(wr_write(tc_path_in("to-full"), "x\n", err, sizeof err));
    cr_assert_eq(errno, ENOSPC, "%s", err);
    wr_assert_link(tc_path_in("to-full"), "full");
    wr_assert_char_device(full, 7);
    wr_no_temporaries(tc_dir);
}

Test(writers, a_fifo_is_written_in_place)
{
    char err[1024];
    cr_assert_eq(mkdir(tc_path_in("w"), 0700), 0);
    const char *fifo = tc_path_in("w/fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink("fifo", tc_path_in("w/to-fifo")), 0);
    for (int via_link = 0; via_link < 2; via_link++) {
        wr_reader r;
        wr_reader_start(&r, fifo, tc_path_in("sink"));
        bool ok = wr_write(via_link ? tc_path_in("w/to-fifo") : fifo, "through the pipe\n", err, sizeof err);
        char *got = wr_reader_finish(&r);
        cr_assert(ok, "%s", err);
        cr_assert_str_eq(got, "through the pipe\n");
        free(got);
        cr_assert(S_ISFIFO(wr_mode(fifo)), "the FIFO was replaced");
    }
    wr_assert_link(tc_path_in("w/to-fifo"), "fifo");
    cr_assert_eq(wr_count_entries(tc_path_in("w")), 2);
}

Test(writers, a_failed_write_leaves_the_old_file_or_nothing)
{
    char err[1024];
    const char *old = tc_path_in("old"), *absent = tc_path_in("absent");
    wr_put_file(old, "old\n", 0640);
    wr_text t = {"half of the new", true};
    cr_assert_not(scheme_write_file_atomic(old, wr_put, &t, err, sizeof err));
    cr_assert(strstr(err, old) && strstr(err, strerror(EIO)), "%s", err);
    wr_assert_content(old, "old\n");
    cr_assert_eq(wr_mode(old) & 07777, 0640);
    cr_assert_not(scheme_write_file_atomic(absent, wr_put, &t, err, sizeof err));
    cr_assert_not(tc_exists(absent), "a failed write created %s", absent);
    cr_assert_eq(wr_count_entries(tc_dir), 1);
}

Test(writers, errors_name_the_path_and_the_reason)
{
    char err[1024];
    const char *p = tc_path_in("no-such-folder/x");
    cr_assert_not(wr_write(p, "never\n", err, sizeof err));
    cr_assert_eq(errno, ENOENT);
    cr_assert(strstr(err, p) && strstr(err, strerror(ENOENT)), "%s", err);
    cr_assert_not(wr_write("", "never\n", err, sizeof err));
    cr_assert(err[0], "no message for an empty path");
    cr_assert_eq(wr_count_entries(tc_dir), 0);
}

Test(writers, dash_is_standard_output)
{
    char err[1024];
    const char *p = tc_path_in("stdout");
    fflush(stdout);
    int saved = dup(1);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    bool ok = wr_write("-", "to standard output\n", err, sizeof err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    cr_assert(ok, "%s", err);
    wr_assert_content(p, "to standard output\n");
    cr_assert_not(tc_exists(tc_path_in("-")));
}

/* Threads of one process writing one path at once: each write is whole, none
 * collides with another's temporary. */
typedef struct wr_thread {
    const char *path;
    char text[4096];
    int failures;
    char err[1024];
} wr_thread;

static void *wr_thread_main(void *p)
{
    wr_thread *t = p;
    for (int i = 0; i < 25; i++)
        if (!wr_write(t->path, t->text, t->err, sizeof t->err))
            t->failures++;
    return NULL;
}

Test(writers, threads_writing_one_path_never_collide)
{
    enum { N = 4 };
    wr_thread th[N];
    pthread_t id[N];
    const char *p = tc_path_in("shared");
    for (int i = 0; i < N; i++) {
        th[i].path = p;
        th[i].failures = 0;
        th[i].err[0] = 0;
        memset(th[i].text, 'a' + i, sizeof th[i].text - 2);
        th[i].text[sizeof th[i].text - 2] = '\n';
        th[i].text[sizeof th[i].text - 1] = 0;
    }
    for (int i = 0; i < N; i++)
        cr_assert_eq(pthread_create(&id[i], NULL, wr_thread_main, &th[i]), 0);
    for (int i = 0; i < N; i++)
        pthread_join(id[i], NULL);
    for (int i = 0; i < N; i++)
        cr_assert_eq(th[i].failures, 0, "thread %d: %s", i, th[i].err);
    char *got = tc_slurp(p, 1 << 20, NULL);
    bool whole = false;
    for (int i = 0; i < N; i++)
        whole |= strcmp(got, th[i].text) == 0;
    cr_assert(whole, "the file is not one thread's whole write (%zu bytes)", strlen(got));
    free(got);
    cr_assert_eq(wr_count_entries(tc_dir), 1);
}

/* ---- through the command line: every command that takes -o ---- */

enum { WR_MATRICES = 1, WR_DB = 2 };

typedef struct wr_cmd {
    /* @C the corpus, @D the test's folder (inputs), @W the output's folder,
     * @O the output (@W/out, or @W/report.md for report) */
    const char *args;
    const char *outname;
    unsigned needs;
    const char *drop_prefix; /* a line of the output that differs run to run */
} wr_cmd;

static const wr_cmd WR_convert = {"convert --to native '@C/kauers-moosbauer/223-11-mod0.exp' -o '@O'", "out", 0, NULL};
static const wr_cmd WR_export = {"export '@C/kauers-moosbauer/223-11-mod0.exp' --to json -o '@O'", "out", 0, NULL};
static const wr_cmd WR_lift = {"lift '@C/kauers-moosbauer/226-21-mod2.exp' --seed 1 -o '@O'", "out", 0, NULL};
static const wr_cmd WR_matrix_random = {"matrix random --rows 16 --cols 16 --seed 7 -o '@O'", "out", 0, NULL};
static const wr_cmd WR_matrix_mul = {"matrix mul --naive '@D/a.fgm' '@D/b.fgm' -o '@O' --format text", "out",
                                     WR_MATRICES, NULL};
static const wr_cmd WR_multiply = {"multiply -q --scheme strassen --a '@D/a.fgm' --b '@D/b.fgm' -o '@O'", "out",
                                   WR_MATRICES, NULL};
static const wr_cmd WR_db_export = {"db export 1 --to exp --db '@D/s.db' -o '@O'", "out", WR_DB, NULL};
static const wr_cmd WR_report = {"report --db '@D/s.db' --no-plots -o '@W'", "report.md", WR_DB, "Database `"};

static const char *wr_expand(const char *tmpl, const char *w, const char *o)
{
    static char buf[8192];
    size_t at = 0;
    for (const char *p = tmpl; *p; p++) {
        const char *sub = NULL;
        if (p[0] == '@')
            sub = p[1] == 'C' ? tc_corpus_dir() : p[1] == 'D' ? tc_dir : p[1] == 'W' ? w : p[1] == 'O' ? o : NULL;
        if (sub) {
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s", sub);
            p++;
        } else if (at < sizeof buf - 1) {
            buf[at++] = *p;
        }
        cr_assert_lt(at, sizeof buf - 1, "command too long");
    }
    buf[at] = 0;
    return buf;
}

/* The inputs a command reads, made in the test's folder. */
static void wr_prepare(const wr_cmd *c)
{
    static char out[1 << 14];
    if (c->needs & WR_MATRICES) {
        int rc = tc_run_cli("", out, sizeof out,
                            "matrix random --rows 32 --cols 24 --seed 11 -o '%s' && '%s' matrix random "
                            "--rows 24 --cols 40 --seed 12 -o '%s'",
                            tc_path_in("a.fgm"), tc_bin(), tc_path_in("b.fgm"));
        cr_assert_eq(rc, 0, "%s", out);
    }
    if (c->needs & WR_DB) {
        int rc = tc_run_cli("", out, sizeof out, "db --db '%s' init && '%s' db --db '%s' import '%s'",
                            tc_path_in("s.db"), tc_bin(), tc_path_in("s.db"),
                            tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
        cr_assert_eq(rc, 0, "%s", out);
    }
}

typedef struct wr_run {
    char w[512], o[600];
    char log[1 << 14];
    int rc;
} wr_run;

/* The folder @W (made) and the output's path @O, for a run named name. */
static void wr_paths(wr_run *r, const wr_cmd *c, const char *name)
{
    snprintf(r->w, sizeof r->w, "%s", tc_path_in(name));
    snprintf(r->o, sizeof r->o, "%s/%s", r->w, c->outname);
    cr_assert_eq(mkdir(r->w, 0700), 0, "%s: %s", r->w, strerror(errno));
}

static void wr_exec(wr_run *r, const wr_cmd *c)
{
    r->rc = tc_run_cli("", r->log, sizeof r->log, "%s", wr_expand(c->args, r->w, r->o));
}

/* Text without the lines that start with c->drop_prefix (malloc'd). */
static char *wr_normal(const wr_cmd *c, const char *text)
{
    char *s = strdup(text), *at = s;
    cr_assert_not_null(s);
    if (!c->drop_prefix)
        return s;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, c->drop_prefix, strlen(c->drop_prefix)) != 0) {
            memcpy(at, p, n);
            at += n;
        }
        p += n;
    }
    *at = 0;
    return s;
}

/* What -o into a fresh regular file gets (normalized). */
static char *wr_reference(const wr_cmd *c)
{
    wr_run r;
    wr_paths(&r, c, "ref");
    wr_exec(&r, c);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    char *text = tc_slurp(r.o, 1 << 24, NULL);
    char *n = wr_normal(c, text);
    free(text);
    cr_assert_gt(strlen(n), 0, "the command wrote nothing");
    return n;
}

static void wr_assert_same_output(const wr_cmd *c, const char *got_raw, const char *ref, const char *what)
{
    char *got = wr_normal(c, got_raw);
    cr_assert_str_eq(got, ref, "%s: not what -o into a regular file writes", what);
    free(got);
}

static void wr_cli_char_device(const wr_cmd *c)
{
    wr_need_root("mknod of a device copy needs root, so -o onto a device is not checked");
    wr_prepare(c);
    wr_run r;
    wr_paths(&r, c, "w");
    wr_mknod(r.o, 3);
    wr_exec(&r, c);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    wr_assert_char_device(r.o, 3);
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 1);
    /* a copy of /dev/full: the write must fail inside the device */
    wr_run f;
    wr_paths(&f, c, "full");
    wr_mknod(f.o, 7);
    wr_exec(&f, c);
    cr_assert_neq(f.rc, 0, "writing into /dev/full succeeded: the device was not written\n%s", f.log);
    cr_assert(strstr(f.log, f.o) && strstr(f.log, strerror(ENOSPC)), "%s", f.log);
    wr_assert_char_device(f.o, 7);
    wr_no_temporaries(f.w);
    cr_assert_eq(wr_count_entries(f.w), 1);
}

static void wr_cli_fifo(const wr_cmd *c)
{
    wr_prepare(c);
    char *ref = wr_reference(c);
    wr_run r;
    wr_paths(&r, c, "w");
    cr_assert_eq(mkfifo(r.o, 0600), 0);
    wr_reader rd;
    wr_reader_start(&rd, r.o, tc_path_in("sink"));
    wr_exec(&r, c);
    char *got = wr_reader_finish(&rd);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    wr_assert_same_output(c, got, ref, "what came through the FIFO");
    cr_assert(S_ISFIFO(wr_mode(r.o)), "the FIFO was replaced");
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 1);
    free(got);
    free(ref);
}

static void wr_cli_symlink(const wr_cmd *c)
{
    wr_prepare(c);
    char *ref = wr_reference(c);
    wr_run r;
    wr_paths(&r, c, "w");
    char target[600];
    snprintf(target, sizeof target, "%s/target", r.w);
    wr_put_file(target, "old\n", 0640);
    cr_assert_eq(symlink("target", r.o), 0);
    wr_exec(&r, c);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    wr_assert_link(r.o, "target");
    char *got = tc_slurp(target, 1 << 24, NULL);
    wr_assert_same_output(c, got, ref, "the link's target");
    cr_assert_eq(wr_mode(target) & 07777, 0640);
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 2);
    free(got);
    free(ref);
}

static void wr_cli_existing_0600(const wr_cmd *c)
{
    wr_prepare(c);
    char *ref = wr_reference(c);
    wr_run r;
    wr_paths(&r, c, "w");
    wr_put_file(r.o, "old\n", 0600);
    umask(022);
    wr_exec(&r, c);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    cr_assert_eq(wr_mode(r.o) & 07777, 0600, "mode 0600 became %04o", (unsigned)(wr_mode(r.o) & 07777));
    cr_assert(S_ISREG(wr_mode(r.o)));
    char *got = tc_slurp(r.o, 1 << 24, NULL);
    wr_assert_same_output(c, got, ref, "the rewritten file");
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 1);
    free(got);
    free(ref);
}

static void wr_cli_directory(const wr_cmd *c)
{
    wr_prepare(c);
    wr_run r;
    wr_paths(&r, c, "w");
    cr_assert_eq(mkdir(r.o, 0700), 0);
    char keep[700];
    snprintf(keep, sizeof keep, "%s/keep", r.o);
    wr_put_file(keep, "keep\n", 0600);
    wr_exec(&r, c);
    cr_assert_neq(r.rc, 0, "-o onto a directory succeeded\n%s", r.log);
    cr_assert(strstr(r.log, tc_fmt("%s: is a directory", r.o)), "%s", r.log);
    cr_assert(S_ISDIR(wr_mode(r.o)));
    cr_assert_eq(wr_count_entries(r.o), 1, "the directory was written into");
    wr_assert_content(keep, "keep\n");
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 1);
}

static void wr_cli_absent(const wr_cmd *c)
{
    wr_prepare(c);
    char *ref = wr_reference(c);
    wr_run r;
    wr_paths(&r, c, "w");
    umask(027); /* the command inherits it */
    wr_exec(&r, c);
    umask(022);
    cr_assert_eq(r.rc, 0, "%s", r.log);
    cr_assert(S_ISREG(wr_mode(r.o)));
    cr_assert_eq(wr_mode(r.o) & 07777, 0640, "umask 027 gave %04o", (unsigned)(wr_mode(r.o) & 07777));
    char *got = tc_slurp(r.o, 1 << 24, NULL);
    wr_assert_same_output(c, got, ref, "the new file");
    wr_no_temporaries(r.w);
    cr_assert_eq(wr_count_entries(r.w), 1);
    free(got);
    free(ref);
}

#define WR_CLI_TESTS(NAME)                                                                         \
    TestSuite(writers_##NAME, .init = wr_init, .fini = tc_suite_dir_remove, .timeout = 120);       \
    Test(writers_##NAME, onto_a_char_device) { wr_cli_char_device(&WR_##NAME); }                   \
    Test(writers_##NAME, onto_a_fifo) { wr_cli_fifo(&WR_##NAME); }                                 \
    Test(writers_##NAME, onto_a_symlink) { wr_cli_symlink(&WR_##NAME); }                           \
    Test(writers_##NAME, onto_an_existing_0600_file) { wr_cli_existing_0600(&WR_##NAME); }         \
    Test(writers_##NAME, onto_a_directory) { wr_cli_directory(&WR_##NAME); }                       \
    Test(writers_##NAME, onto_an_absent_path) { wr_cli_absent(&WR_##NAME); }

WR_CLI_TESTS(convert)
WR_CLI_TESTS(export)
WR_CLI_TESTS(lift)
WR_CLI_TESTS(matrix_random)
WR_CLI_TESTS(matrix_mul)
WR_CLI_TESTS(multiply)
WR_CLI_TESTS(db_export)
WR_CLI_TESTS(report)

/* report's -o names a folder: a device there is refused, not written. */
Test(writers_report, onto_a_char_device_as_the_folder)
{
    wr_need_root("mknod of a device copy needs root, so this is not checked");
    wr_prepare(&WR_report);
    wr_run r;
    snprintf(r.w, sizeof r.w, "%s", tc_path_in("null"));
    snprintf(r.o, sizeof r.o, "%s/report.md", r.w);
    wr_mknod(r.w, 3);
    wr_exec(&r, &WR_report);
    cr_assert_neq(r.rc, 0, "report -o onto a device succeeded\n%s", r.log);
    cr_assert(strstr(r.log, r.w), "%s", r.log);
    wr_assert_char_device(r.w, 3);
    wr_no_temporaries(tc_dir);
}
