/* Whole-or-nothing file writes and bounded whole-file reads. */
#define _POSIX_C_SOURCE 200809L
#include "scheme.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool scheme_write_file_atomic(const char *path, bool (*write_fn)(void *ctx, FILE *f),
                              void *ctx, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0) {
        bool ok = write_fn(ctx, stdout) && fflush(stdout) == 0;
        if (!ok)
            scheme_fail(err, errlen, "writing to standard output: %s", strerror(errno));
        return ok;
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return scheme_fail(err, errlen, "%s: out of memory", path);
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        scheme_fail(err, errlen, "%s: cannot create: %s", tmp, strerror(e));
        free(tmp);
        errno = e;
        return false;
    }
    bool ok = write_fn(ctx, f);
    int e = errno;
    if (ok && fflush(f) != 0) { ok = false; e = errno; }
    if (ok && fsync(fileno(f)) != 0) { ok = false; e = errno; }
    if (fclose(f) != 0 && ok) { ok = false; e = errno; }
    if (ok && rename(tmp, path) != 0) { ok = false; e = errno; }
    if (!ok) {
        unlink(tmp);
        scheme_fail(err, errlen, "%s: write failed: %s", path, strerror(e ? e : EIO));
        errno = e;
    }
    free(tmp);
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
