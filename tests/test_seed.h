/* The seed of every randomized test program (the Criterion tests through
 * test_common.h, the GPU tests and their emulators directly): FLIPGRAPH_SEED
 * replays a run (FLIPGRAPH_TEST_SEED, the name some of them read before, is
 * still taken); else a fresh seed from /dev/urandom (else the clock and the
 * process id).  Whatever depends on it prints it. */
#ifndef FLIPGRAPH_TEST_SEED_H
#define FLIPGRAPH_TEST_SEED_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t tc_seed(void)
{
    static const char *const names[] = {"FLIPGRAPH_SEED", "FLIPGRAPH_TEST_SEED"};
    for (int i = 0; i < 2; i++) {
        const char *env = getenv(names[i]);
        if (env && *env)
            return strtoull(env, NULL, 0);
    }
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, &s, sizeof s) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (fd >= 0)
        close(fd);
    return s;
}

#endif
