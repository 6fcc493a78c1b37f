/* A parallel for over a range with pthreads: each phase of the executor is one
 * call.  Threads are started per call; a phase does milliseconds to seconds of
 * work, so the start-up (tens of microseconds) does not show. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

typedef struct {
    rt_range_fn fn;
    void *ctx;
    uint64_t n, grain;
    atomic_uint_fast64_t next;
} par_job;

typedef struct {
    par_job *job;
    int thread;
} par_arg;

static void run_items(par_job *job, int thread)
{
    for (;;) {
        uint64_t b = atomic_fetch_add(&job->next, job->grain);
        if (b >= job->n)
            break;
        uint64_t e = b + job->grain < job->n ? b + job->grain : job->n;
        job->fn(job->ctx, b, e, thread);
    }
}

static void *par_main(void *p)
{
    par_arg *a = p;
    run_items(a->job, a->thread);
    return NULL;
}

int rt_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

void rt_parallel(int threads, uint64_t n, uint64_t grain, rt_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (grain < 1)
        grain = 1;
    if (threads < 1)
        threads = rt_default_threads();
    uint64_t chunks = (n + grain - 1) / grain;
    if ((uint64_t)threads > chunks)
        threads = (int)chunks;
    par_job job = {fn, ctx, n, grain, 0};
    if (threads <= 1) {
        run_items(&job, 0);
        return;
    }
    pthread_t *tid = malloc((size_t)threads * sizeof *tid);
    par_arg *args = malloc((size_t)threads * sizeof *args);
    int started = 0;
    if (tid && args)
        for (int t = 1; t < threads; t++) {
            args[t] = (par_arg){&job, t};
            if (pthread_create(&tid[t], NULL, par_main, &args[t]) != 0)
                break; /* fewer threads: the shared counter still covers every item */
            started = t;
        }
    run_items(&job, 0);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(args);
}
