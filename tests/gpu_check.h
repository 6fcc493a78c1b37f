/* The plain counting checks of the GPU test programs that run without
 * Criterion (the GPU machine has none), each built for the GPU and the sym,
 * Z and walk checks for its CPU emulator too.  CHECK counts and prints the
 * failures (gpu_sym.c, gpu_z.c; gpu_walk.c, gpu_runtime.c and gpu_float.c
 * count into the same passed and failed through checks of their own that
 * name the seed); gpu_check_begin makes the output line-buffered;
 * gpu_check_summary prints "N passed, N failed" (what the device scripts
 * grep) and gives the exit status. */
#ifndef FLIPGRAPH_TESTS_GPU_CHECK_H
#define FLIPGRAPH_TESTS_GPU_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (cond) {                                                                                            \
            passed++;                                                                                          \
        } else {                                                                                               \
            failed++;                                                                                          \
            printf("FAILED %s:%d: ", __FILE__, __LINE__);                                                      \
            printf(__VA_ARGS__);                                                                               \
            printf("\n");                                                                                      \
        }                                                                                                      \
    } while (0)

/* A failure of a check that prints its own message (seed and case in it):
 * printed as given and counted, for the programs that count without CHECK. */
static inline void gpu_check_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void gpu_check_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    failed++;
}

/* First thing in main: stdout line by line, so that a run cut by a timeout
 * keeps what it printed (a pipe or a file would otherwise hold it all in the
 * buffer that the kill drops). */
static inline void gpu_check_begin(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

static inline int gpu_check_summary(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
