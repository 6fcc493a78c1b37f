/* Whole-or-nothing file writes and bounded whole-file reads. */
#define _POSIX_C_SOURCE 200809L
#include "scheme.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The temporaries of concurrent writers (threads of one process included)
 * get distinct names from this counter; O_EXCL settles any clash left. */
static _Atomic unsigned scheme_tmp_counter;

/* "PATH" or "PATH (link to TARGET)", for messages that must name both. */
static void scheme_name_target(char *buf, size_t len, const char *path, const char *target)
{
    if (strcmp(path, target) == 0)
        snprintf(buf, len, "%s", path);
    else
        snprintf(buf, len, "%s (link to %s)", path, target);
}

/* The file PATH finally names, following a chain of symlinks one hop at a
 * time: realpath refuses a dangling link, whose target we must create.  A
 * relative target is relative to the folder of the link that holds it.
 * Returns a malloc'd path; *exists says whether it is there (then sb is its
 * lstat).  NULL with errno and a message on failure. */
static char *scheme_resolve_target(const char *path, struct stat *sb, bool *exists, char *err,
                                   size_t errlen)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        if (lstat(cur, sb) != 0) {
            int e = errno;
            if (e == ENOENT) {
                *exists = false;
                return cur;
            }
            scheme_fail(err, errlen, "%s: %s", path, strerror(e));
            free(cur);
            errno = e;
            return NULL;
        }
        if (!S_ISLNK(sb->st_mode)) {
            *exists = true;
            return cur;
        }
        if (hops == 40) { /* the kernel's own limit (MAXSYMLINKS) */
            scheme_fail(err, errlen, "%s: %s", path, strerror(ELOOP));
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target);
        if (n < 0 || (size_t)n >= sizeof target) {
            int e = n < 0 ? errno : ENAMETOOLONG;
            scheme_fail(err, errlen, "%s: reading link %s: %s", path, cur, strerror(e));
            free(cur);
            errno = e;
            return NULL;
        }
        const char *slash = strrchr(cur, '/');
        size_t keep = target[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        char *next = malloc(keep + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, keep);
            memcpy(next + keep, target, (size_t)n);
            next[keep + (size_t)n] = 0;
        }
        free(cur);
        cur = next;
    }
    scheme_fail(err, errlen, "%s: out of memory", path);
    errno = ENOMEM;
    return NULL;
}

/* A device or FIFO is written in place, as a shell redirect would: renaming
 * over it would replace the node itself (as root, /dev/null with a file). */
static bool scheme_write_special(const char *path, const char *target,
                                 bool (*write_fn)(void *ctx, FILE *f), void *ctx, char *err,
                                 size_t errlen)
{
    char name[PATH_MAX * 2 + 32];
    scheme_name_target(name, sizeof name, path, target);
    int fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        scheme_fail(err, errlen, "%s: cannot open: %s", name, strerror(e));
        errno = e;
        return false;
    }
    /* Replaced by a regular file since lstat: without O_TRUNC we would
     * write over its start, so refuse instead. */
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !(S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
        close(fd);
        scheme_fail(err, errlen, "%s: changed while being opened", name);
        errno = EAGAIN;
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        scheme_fail(err, errlen, "%s: %s", name, strerror(e));
        errno = e;
        return false;
    }
    errno = 0;
    bool ok = write_fn(ctx, f);
    int e = errno;
    if (ok && fflush(f) != 0) { ok = false; e = errno; }
    if (fclose(f) != 0 && ok) { ok = false; e = errno; }
    if (!ok) {
        scheme_fail(err, errlen, "%s: write failed: %s", name, strerror(e ? e : EIO));
        errno = e ? e : EIO;
    }
    return ok;
}

/* Whole or nothing: a temporary beside target, fsync, rename over it.  old
 * is target's stat when it exists (its mode and owner carry over), else
 * NULL (the file gets 0666 & ~umask, as fopen would give it). */
static bool scheme_write_replace(const char *path, const char *target, const struct stat *old,
                                 bool (*write_fn)(void *ctx, FILE *f), void *ctx, char *err,
                                 size_t errlen)
{
    char name[PATH_MAX * 2 + 32];
    scheme_name_target(name, sizeof name, path, target);
    size_t n = strlen(target) + 64;
    char *tmp = malloc(n);
    if (!tmp) {
        scheme_fail(err, errlen, "%s: out of memory", name);
        errno = ENOMEM;
        return false;
    }
    /* The kernel applies the umask to the creation mode; an existing file's
     * own bits (at most) keep its content from being more readable in the
     * temporary than in the file, until fchmod below sets them exactly. */
    mode_t create_mode = old ? (old->st_mode & 0777) : 0666;
    int fd = -1, e = 0;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned k = scheme_tmp_counter++;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(tmp, n, "%s.tmp.%ld.%u.%lx", target, (long)getpid(), k,
                 (unsigned long)ts.tv_nsec & 0xfffffful);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, create_mode);
        e = errno;
        if (fd < 0 && e != EEXIST)
            break;
    }
    if (fd < 0) {
        scheme_fail(err, errlen, "%s: cannot create %s: %s", name, tmp, strerror(e));
        free(tmp);
        errno = e;
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        e = errno;
        close(fd);
        unlink(tmp);
        scheme_fail(err, errlen, "%s: %s", name, strerror(e));
        free(tmp);
        errno = e;
        return false;
    }
    errno = 0;
    bool ok = write_fn(ctx, f);
    e = errno;
    const char *step = "write failed";
    if (ok && fflush(f) != 0) { ok = false; e = errno; }
    if (ok && old) {
        /* Owner first: chown clears set-user-ID and set-group-ID bits.  Only
         * root (or a member of the group) may give the file away: otherwise
         * it stays ours, as a file written by fopen would be. */
        if (fchown(fd, old->st_uid, old->st_gid) != 0 && errno != EPERM && errno != EINVAL) {
            ok = false; e = errno; step = "keeping the owner";
        }
        if (ok && fchmod(fd, old->st_mode & 07777) != 0) {
            ok = false; e = errno; step = "keeping the mode";
        }
    }
    if (ok && fsync(fd) != 0) { ok = false; e = errno; step = "fsync"; }
    if (fclose(f) != 0 && ok) { ok = false; e = errno; }
    if (ok && rename(tmp, target) != 0) { ok = false; e = errno; step = "rename"; }
    if (!ok) {
        unlink(tmp);
        scheme_fail(err, errlen, "%s: %s: %s", name, step, strerror(e ? e : EIO));
        errno = e ? e : EIO;
    }
    free(tmp);
    return ok;
}

bool scheme_write_file_atomic(const char *path, bool (*write_fn)(void *ctx, FILE *f),
                              void *ctx, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0) {
        bool ok = write_fn(ctx, stdout) && fflush(stdout) == 0;
        if (!ok)
            scheme_fail(err, errlen, "writing to standard output: %s", strerror(errno));
        return ok;
    }
    if (!path[0]) {
        scheme_fail(err, errlen, "an empty path names no file");
        errno = ENOENT;
        return false;
    }
    struct stat sb;
    bool exists = false;
    char *target = scheme_resolve_target(path, &sb, &exists, err, errlen);
    if (!target)
        return false;
    bool ok;
    if (!exists)
        ok = scheme_write_replace(path, target, NULL, write_fn, ctx, err, errlen);
    else if (S_ISREG(sb.st_mode))
        ok = scheme_write_replace(path, target, &sb, write_fn, ctx, err, errlen);
    else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) || S_ISFIFO(sb.st_mode))
        ok = scheme_write_special(path, target, write_fn, ctx, err, errlen);
    else {
        char name[PATH_MAX * 2 + 32];
        scheme_name_target(name, sizeof name, path, target);
        int e = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
        scheme_fail(err, errlen, "%s: %s", name,
                    S_ISDIR(sb.st_mode) ? "is a directory"
                    : S_ISSOCK(sb.st_mode) ? "is a socket"
                                           : "is not a file, a device or a FIFO");
        errno = e;
        ok = false;
    }
    free(target);
    return ok;
}

char *scheme_slurp(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        scheme_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = max < ((size_t)1 << 16) ? max : (size_t)1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap >= max)
                break;
            cap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool too_big = buf && n == cap && cap >= max && fgetc(f) != EOF;
    bool ioerr = ferror(f);
    int read_errno = errno;
    if (f != stdin)
        fclose(f);
    if (!buf) {
        scheme_fail(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (ioerr || too_big) {
        if (too_big)
            scheme_fail(err, errlen, "%s: larger than %zu bytes", path, max);
        else
            scheme_fail(err, errlen, "%s: read error: %s", path, strerror(read_errno));
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

void scheme_diag_set(scheme_diag *d, const char *file, const char *fmt, ...)
{
    if (!d)
        return;
    snprintf(d->file, sizeof d->file, "%s", file);
    d->line = 0;
    d->col = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
}

char *scheme_slurp_diag(const char *path, size_t max, size_t *len, scheme_diag *diag)
{
    char err[400];
    char *buf = scheme_slurp(path, max, len, err, sizeof err);
    if (!buf) {
        /* scheme_slurp's message starts with the path, which diag->file holds */
        size_t pl = strlen(path);
        const char *m = strncmp(err, path, pl) == 0 && err[pl] == ':' ? err + pl + 1 : err;
        while (*m == ' ')
            m++;
        scheme_diag_set(diag, path, "%s", m);
    }
    return buf;
}
