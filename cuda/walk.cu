// The host side of the GPU walk: one walk object = W walkers on one device and
// one stream, with two launches in flight so the host verifies and reseeds
// while the GPU walks (docs/gpu-walk.md; fg_cuda.h's walk block says the contract).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "fg_cuda.h"
#include "walk_kernel.cuh"

namespace {

const int kSlots = 2;  // launches in flight

// One launch's results, in pinned host memory.
struct Slot {
    cuda_walk_warp *warp = nullptr;
    int32_t *qcount = nullptr, *qwarp = nullptr, *qrank = nullptr, *qsibling = nullptr;
    uint64_t *qterms = nullptr, *sample = nullptr;
    cuda_walk_move *moves = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr, done = nullptr;
    long launch = -1;
    uint32_t steps = 0;
    int sample_first = 0, sample_count = 0;
};

// Schemes staged for the next launch, in pinned host memory.
struct Stage {
    int32_t *ids = nullptr, *ranks = nullptr;
    uint64_t *terms = nullptr;
    int n = 0;
    cudaEvent_t consumed = nullptr;  // its upload finished
    bool uploading = false;
};

bool fail(char *err, size_t len, const char *what, cudaError_t e)
{
    if (err && len)
        snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
    return false;
}

}  // namespace

struct cuda_walk {
    cuda_walk_config cfg;
    cuda_walk_info info;
    cudaStream_t stream = nullptr;
    walk::Params p{};
    // device staging for loads
    int32_t *d_ids = nullptr, *d_ranks = nullptr;
    uint64_t *d_stage = nullptr;
    Slot slot[kSlots];
    Stage stage[2];
    int cur_stage = 0;
    int *stage_pos = nullptr;  // [warps]: entry of a walker in the current stage, -1
    // the pool walkers restart from: staged in pinned memory, uploaded at a launch
    uint64_t *h_pool = nullptr, *d_pool = nullptr;
    int32_t *h_pool_rank = nullptr, *d_pool_rank = nullptr;
    int pool_cap = 0, pool_staged = -1, pool_n = 0;
    cudaEvent_t pool_uploaded = nullptr;
    bool pool_uploading = false;
    long launched = 0, collected = 0;
    int sample_next = 0;
};

#define WALK_CHECK(call, what)                                  \
    do {                                                        \
        cudaError_t e_ = (call);                                \
        if (e_ != cudaSuccess) {                                \
            fail(err, errlen, what, e_);                        \
            return 3;                                           \
        }                                                       \
    } while (0)

static size_t scheme_words(const cuda_walk *w) { return (size_t)w->p.cap * 3; }

static void walk_free(cuda_walk *w)
{
    if (!w)
        return;
    cudaSetDevice(w->cfg.device);
    if (w->stream)
        cudaStreamSynchronize(w->stream);
    cudaFree(w->p.terms); cudaFree(w->p.best); cudaFree(w->p.state);
    cudaFree(w->p.qterms); cudaFree(w->p.qwarp); cudaFree(w->p.qrank); cudaFree(w->p.qcount);
    cudaFree(w->p.qsibling);
    cudaFree(w->p.moves);
    cudaFree(w->d_ids); cudaFree(w->d_ranks); cudaFree(w->d_stage);
    cudaFree(w->d_pool); cudaFree(w->d_pool_rank);
    cudaFreeHost(w->h_pool); cudaFreeHost(w->h_pool_rank);
    if (w->pool_uploaded) cudaEventDestroy(w->pool_uploaded);
    for (Slot &s : w->slot) {
        cudaFreeHost(s.warp); cudaFreeHost(s.qcount); cudaFreeHost(s.qwarp); cudaFreeHost(s.qrank);
        cudaFreeHost(s.qsibling);
        cudaFreeHost(s.qterms); cudaFreeHost(s.sample); cudaFreeHost(s.moves);
        if (s.start) cudaEventDestroy(s.start);
        if (s.stop) cudaEventDestroy(s.stop);
        if (s.done) cudaEventDestroy(s.done);
    }
    for (Stage &s : w->stage) {
        cudaFreeHost(s.ids); cudaFreeHost(s.ranks); cudaFreeHost(s.terms);
        if (s.consumed) cudaEventDestroy(s.consumed);
    }
    if (w->stream)
        cudaStreamDestroy(w->stream);
    free(w->stage_pos);
    delete w;
}

extern "C" int cuda_walk_create(const cuda_walk_config *cfg, cuda_walk **out, char *err, size_t errlen)
{
    *out = nullptr;
    if (!cfg || cfg->cap < 2 || cfg->cap > CUDA_WALK_MAX_CAP || cfg->warps < 0 || cfg->rounds < 1 ||
        cfg->rounds > 64 || cfg->plus_max < 0 || cfg->target_rank < 0 || cfg->mix_every < 0 ||
        cfg->queue_cap < 0 || cfg->sample < 0 || cfg->store < 0 || cfg->store > 2 || cfg->pool_cap < 0 ||
        (cfg->gen_max != 0 && (cfg->gen_max < 2 || cfg->gen_max > 5))) {
        snprintf(err, errlen, "bad walk configuration (cap 2..%d, rounds 1..64, no negative values)",
                 CUDA_WALK_MAX_CAP);
        return 2;
    }
    int ndev = cuda_device_count();
    if (ndev <= 0) {
        snprintf(err, errlen, "no GPU visible");
        return 3;
    }
    if (cfg->device < 0 || cfg->device >= ndev) {
        snprintf(err, errlen, "no GPU %d (%d visible)", cfg->device, ndev);
        return 2;
    }
    WALK_CHECK(cudaSetDevice(cfg->device), "cudaSetDevice");
    cuda_walk *w = new cuda_walk();
    w->cfg = *cfg;
    const int cap = (cfg->cap + 31) / 32 * 32;
    int store = cfg->store;
    if (store == CUDA_WALK_STORE_AUTO)
        store = walk::regs_fit(cap) ? CUDA_WALK_STORE_REGS : CUDA_WALK_STORE_SMEM;
    if (store == CUDA_WALK_STORE_REGS && !walk::regs_fit(cap)) {
        snprintf(err, errlen, "cap %d does not fit the register store (at most %d)", cap,
                 32 * walk::kMaxRegSlots);
        delete w;
        return 2;
    }
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, cfg->device);
    if (e != cudaSuccess) {
        fail(err, errlen, "cudaGetDeviceProperties", e);
        delete w;
        return 3;
    }
    const size_t smem = walk::walk_smem_bytes(store, cap);
    const bool trace = cfg->trace != 0;
    const void *fn = walk::walk_kernel_fn(store, cap, trace, cfg->eager_gen != 0);
    if (smem > 48 * 1024) {
        e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) {
            fail(err, errlen, "cudaFuncSetAttribute", e);
            delete w;
            return 3;
        }
    }
    int per_sm = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, walk::kWarpsPerBlock * 32, smem);
    if (e != cudaSuccess || per_sm < 1) {
        fail(err, errlen, "occupancy", e != cudaSuccess ? e : cudaErrorInvalidConfiguration);
        delete w;
        return 3;
    }
    int warps = cfg->warps ? cfg->warps : per_sm * prop.multiProcessorCount * walk::kWarpsPerBlock;
    w->cfg.warps = warps;
    w->cfg.cap = cap;
    w->cfg.queue_cap = cfg->queue_cap ? cfg->queue_cap : 256;
    if (w->cfg.queue_cap > warps)
        w->cfg.queue_cap = warps;
    if (w->cfg.sample > warps)
        w->cfg.sample = warps;
    w->info.warps = warps;
    w->info.cap = cap;
    w->info.store = store;
    w->info.warps_per_block = walk::kWarpsPerBlock;
    w->info.blocks = (warps + walk::kWarpsPerBlock - 1) / walk::kWarpsPerBlock;
    snprintf(w->info.device, sizeof w->info.device, "%.60s, sm_%d%d, %d SMs, %d walkers/SM", prop.name,
             prop.major, prop.minor, prop.multiProcessorCount, per_sm * walk::kWarpsPerBlock);

    walk::Params &p = w->p;
    p.warps = warps;
    p.cap = cap;
    p.qcap = w->cfg.queue_cap;
    p.plateau = cfg->plateau;
    p.plateau_min = cfg->plateau_min;
    p.plateau_max = cfg->plateau_max;
    p.seed = cfg->seed;
    p.rounds = cfg->rounds;
    p.plus_max = cfg->plus_max;
    p.target = cfg->target_rank;
    p.mix_every = cfg->mix_every;
    p.gen_max = cfg->gen_max ? cfg->gen_max : 5;
    p.walk_len = cfg->walk_len;
    p.walk_max = cfg->walk_max;
    p.check_pairs = cfg->check_pairs;
    p.eager_gen = cfg->eager_gen;
    p.isolated_restart = cfg->isolated_restart;
    p.idle_plus = cfg->idle_plus;
    p.degree_bias = cfg->degree_bias;
    p.weight_bias = cfg->weight_bias;
    p.weight_bias_max = cfg->weight_bias_max;
    p.plus_hold = cfg->plus_hold;
    p.budget_ns = (uint64_t)cfg->launch_us * 1000u;
    w->pool_cap = cfg->pool_cap ? cfg->pool_cap : 256;
    w->cfg.pool_cap = w->pool_cap;
    const size_t words = (size_t)warps * cap * 3;
    const size_t qwords = (size_t)p.qcap * cap * 3;
    const size_t swords = (size_t)w->cfg.sample * cap * 3;
#define WALK_ALLOC(call, what)                   \
    do {                                         \
        cudaError_t e2 = (call);                 \
        if (e2 != cudaSuccess) {                 \
            fail(err, errlen, what, e2);         \
            walk_free(w);                        \
            return 3;                            \
        }                                        \
    } while (0)
    WALK_ALLOC(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    WALK_ALLOC(cudaMalloc(&p.terms, words * 8), "cudaMalloc terms");
    WALK_ALLOC(cudaMalloc(&p.best, words * 8), "cudaMalloc best");
    WALK_ALLOC(cudaMalloc(&p.state, (size_t)warps * sizeof(cuda_walk_warp)), "cudaMalloc state");
    WALK_ALLOC(cudaMemset(p.state, 0, (size_t)warps * sizeof(cuda_walk_warp)), "cudaMemset state");
    WALK_ALLOC(cudaMalloc(&p.qterms, qwords * 8), "cudaMalloc queue");
    WALK_ALLOC(cudaMalloc(&p.qwarp, (size_t)p.qcap * 4), "cudaMalloc queue");
    WALK_ALLOC(cudaMalloc(&p.qrank, (size_t)p.qcap * 4), "cudaMalloc queue");
    WALK_ALLOC(cudaMalloc(&p.qsibling, (size_t)p.qcap * 4), "cudaMalloc queue");
    WALK_ALLOC(cudaMalloc(&p.qcount, 4), "cudaMalloc queue");
    if (trace)
        WALK_ALLOC(cudaMalloc(&p.moves, (size_t)warps * sizeof(cuda_walk_move)), "cudaMalloc moves");
    WALK_ALLOC(cudaMalloc(&w->d_ids, (size_t)warps * 4), "cudaMalloc stage");
    WALK_ALLOC(cudaMalloc(&w->d_ranks, (size_t)warps * 4), "cudaMalloc stage");
    WALK_ALLOC(cudaMalloc(&w->d_stage, words * 8), "cudaMalloc stage");
    WALK_ALLOC(cudaMalloc(&w->d_pool, (size_t)w->pool_cap * cap * 3 * 8), "cudaMalloc pool");
    WALK_ALLOC(cudaMalloc(&w->d_pool_rank, (size_t)w->pool_cap * 4), "cudaMalloc pool");
    WALK_ALLOC(cudaMallocHost(&w->h_pool, (size_t)w->pool_cap * cap * 3 * 8), "cudaMallocHost pool");
    WALK_ALLOC(cudaMallocHost(&w->h_pool_rank, (size_t)w->pool_cap * 4), "cudaMallocHost pool");
    WALK_ALLOC(cudaEventCreateWithFlags(&w->pool_uploaded, cudaEventDisableTiming), "cudaEventCreate");
    for (Slot &s : w->slot) {
        WALK_ALLOC(cudaMallocHost(&s.warp, (size_t)warps * sizeof(cuda_walk_warp)), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.qcount, 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.qwarp, (size_t)p.qcap * 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.qrank, (size_t)p.qcap * 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.qsibling, (size_t)p.qcap * 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.qterms, qwords * 8), "cudaMallocHost");
        if (swords)
            WALK_ALLOC(cudaMallocHost(&s.sample, swords * 8), "cudaMallocHost");
        if (trace)
            WALK_ALLOC(cudaMallocHost(&s.moves, (size_t)warps * sizeof(cuda_walk_move)), "cudaMallocHost");
        WALK_ALLOC(cudaEventCreate(&s.start), "cudaEventCreate");
        WALK_ALLOC(cudaEventCreate(&s.stop), "cudaEventCreate");
        WALK_ALLOC(cudaEventCreateWithFlags(&s.done, cudaEventBlockingSync), "cudaEventCreate");
    }
    for (Stage &s : w->stage) {
        WALK_ALLOC(cudaMallocHost(&s.ids, (size_t)warps * 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.ranks, (size_t)warps * 4), "cudaMallocHost");
        WALK_ALLOC(cudaMallocHost(&s.terms, words * 8), "cudaMallocHost");
        WALK_ALLOC(cudaEventCreateWithFlags(&s.consumed, cudaEventDisableTiming), "cudaEventCreate");
    }
#undef WALK_ALLOC
    w->stage_pos = (int *)malloc((size_t)warps * sizeof(int));
    if (!w->stage_pos) {
        snprintf(err, errlen, "out of memory");
        walk_free(w);
        return 3;
    }
    for (int i = 0; i < warps; i++)
        w->stage_pos[i] = -1;
    *out = w;
    return 0;
}

extern "C" void cuda_walk_get_info(const cuda_walk *w, cuda_walk_info *info) { *info = w->info; }

extern "C" void cuda_walk_set_collect(cuda_walk *w, int rank) { w->p.collect_rank = rank > 0 ? rank : 0; }

extern "C" int cuda_walk_in_flight(const cuda_walk *w) { return (int)(w->launched - w->collected); }

extern "C" int cuda_walk_load(cuda_walk *w, int warp, const uint64_t *terms, int rank, char *err,
                              size_t errlen)
{
    if (warp < 0 || warp >= w->p.warps || rank < 1 || rank > w->p.cap || !terms) {
        snprintf(err, errlen, "load: walker %d of %d, rank %d of at most %d", warp, w->p.warps, rank,
                 w->p.cap);
        return 2;
    }
    for (int i = 0; i < 3 * rank; i++)
        if (!terms[i]) {
            snprintf(err, errlen, "load: term %d has a zero factor", i / 3);
            return 2;
        }
    Stage &s = w->stage[w->cur_stage];
    if (s.uploading) {  // its previous upload must be done before we write
        WALK_CHECK(cudaSetDevice(w->cfg.device), "cudaSetDevice");
        WALK_CHECK(cudaEventSynchronize(s.consumed), "load: waiting for an upload");
        s.uploading = false;
    }
    int e = w->stage_pos[warp];
    if (e < 0) {
        e = s.n++;
        w->stage_pos[warp] = e;
    }
    s.ids[e] = warp;
    s.ranks[e] = rank;
    memcpy(s.terms + (size_t)e * scheme_words(w), terms, (size_t)rank * 3 * 8);
    return 0;
}

extern "C" int cuda_walk_set_pool(cuda_walk *w, const uint64_t *terms, const int32_t *ranks, int n, char *err,
                                  size_t errlen)
{
    if (n < 0 || n > w->pool_cap || (n && (!terms || !ranks))) {
        snprintf(err, errlen, "set_pool: %d schemes, at most %d", n, w->pool_cap);
        return 2;
    }
    const size_t cw = scheme_words(w);
    for (int k = 0; k < n; k++) {
        if (ranks[k] < 1 || ranks[k] > w->p.cap) {
            snprintf(err, errlen, "set_pool: scheme %d has rank %d (cap %d)", k, ranks[k], w->p.cap);
            return 2;
        }
        for (int i = 0; i < 3 * ranks[k]; i++)
            if (!terms[k * cw + i]) {
                snprintf(err, errlen, "set_pool: scheme %d, term %d has a zero factor", k, i / 3);
                return 2;
            }
    }
    if (w->pool_uploading) {
        WALK_CHECK(cudaSetDevice(w->cfg.device), "cudaSetDevice");
        WALK_CHECK(cudaEventSynchronize(w->pool_uploaded), "set_pool: waiting for an upload");
        w->pool_uploading = false;
    }
    memcpy(w->h_pool, terms, (size_t)n * cw * 8);
    memcpy(w->h_pool_rank, ranks, (size_t)n * 4);
    w->pool_staged = n;
    return 0;
}

extern "C" int cuda_walk_launch(cuda_walk *w, uint32_t steps, char *err, size_t errlen)
{
    if (cuda_walk_in_flight(w) >= kSlots) {
        snprintf(err, errlen, "launch: %d launches in flight; collect one first", kSlots);
        return 2;
    }
    WALK_CHECK(cudaSetDevice(w->cfg.device), "cudaSetDevice");
    cudaStream_t st = w->stream;
    walk::Params p = w->p;
    p.steps = steps;
    Stage &sg = w->stage[w->cur_stage];
    if (sg.n > 0) {  // cuda_walk_load waited for this stage's previous upload
        const size_t n = (size_t)sg.n;
        WALK_CHECK(cudaMemcpyAsync(w->d_ids, sg.ids, n * 4, cudaMemcpyHostToDevice, st), "upload");
        WALK_CHECK(cudaMemcpyAsync(w->d_ranks, sg.ranks, n * 4, cudaMemcpyHostToDevice, st), "upload");
        WALK_CHECK(cudaMemcpyAsync(w->d_stage, sg.terms, n * scheme_words(w) * 8, cudaMemcpyHostToDevice, st),
                   "upload");
        WALK_CHECK(cudaEventRecord(sg.consumed, st), "cudaEventRecord");
        WALK_CHECK(walk::walk_launch_load(p, w->d_ids, w->d_ranks, w->d_stage, sg.n, st), "load kernel");
        sg.uploading = true;
        for (int i = 0; i < sg.n; i++)
            w->stage_pos[sg.ids[i]] = -1;
        sg.n = 0;
        w->cur_stage ^= 1;
    }
    if (w->pool_staged >= 0) {
        const size_t n = (size_t)w->pool_staged;
        if (n) {
            WALK_CHECK(cudaMemcpyAsync(w->d_pool, w->h_pool, n * scheme_words(w) * 8, cudaMemcpyHostToDevice, st),
                       "pool upload");
            WALK_CHECK(cudaMemcpyAsync(w->d_pool_rank, w->h_pool_rank, n * 4, cudaMemcpyHostToDevice, st),
                       "pool upload");
            WALK_CHECK(cudaEventRecord(w->pool_uploaded, st), "cudaEventRecord");
            w->pool_uploading = true;
        }
        w->pool_n = w->pool_staged;
        w->pool_staged = -1;
    }
    p.pool = w->d_pool;
    p.pool_rank = w->d_pool_rank;
    p.pool_n = w->pool_n;
    Slot &s = w->slot[w->launched % kSlots];
    WALK_CHECK(cudaMemsetAsync(p.qcount, 0, 4, st), "cudaMemsetAsync");
    WALK_CHECK(cudaEventRecord(s.start, st), "cudaEventRecord");
    WALK_CHECK(walk::walk_launch_kernel(p, w->info.store, w->info.blocks, st), "walk kernel launch");
    WALK_CHECK(cudaEventRecord(s.stop, st), "cudaEventRecord");
    const size_t W = (size_t)p.warps, cw = scheme_words(w);
    WALK_CHECK(cudaMemcpyAsync(s.warp, p.state, W * sizeof(cuda_walk_warp), cudaMemcpyDeviceToHost, st),
               "download");
    WALK_CHECK(cudaMemcpyAsync(s.qcount, p.qcount, 4, cudaMemcpyDeviceToHost, st), "download");
    WALK_CHECK(cudaMemcpyAsync(s.qwarp, p.qwarp, (size_t)p.qcap * 4, cudaMemcpyDeviceToHost, st), "download");
    WALK_CHECK(cudaMemcpyAsync(s.qrank, p.qrank, (size_t)p.qcap * 4, cudaMemcpyDeviceToHost, st), "download");
    WALK_CHECK(cudaMemcpyAsync(s.qsibling, p.qsibling, (size_t)p.qcap * 4, cudaMemcpyDeviceToHost, st), "download");
    WALK_CHECK(cudaMemcpyAsync(s.qterms, p.qterms, (size_t)p.qcap * cw * 8, cudaMemcpyDeviceToHost, st),
               "download");
    s.sample_count = w->cfg.sample;
    s.sample_first = w->sample_next;
    if (s.sample_count) {
        // a window of walkers that moves on every launch, wrapping around
        const int first = w->sample_next, n1 = s.sample_count < p.warps - first ? s.sample_count : p.warps - first;
        WALK_CHECK(cudaMemcpyAsync(s.sample, p.terms + (size_t)first * cw, (size_t)n1 * cw * 8,
                                   cudaMemcpyDeviceToHost, st), "download");
        if (n1 < s.sample_count)
            WALK_CHECK(cudaMemcpyAsync(s.sample + (size_t)n1 * cw, p.terms, (size_t)(s.sample_count - n1) * cw * 8,
                                       cudaMemcpyDeviceToHost, st), "download");
        w->sample_next = (first + s.sample_count) % p.warps;
    }
    if (p.moves)
        WALK_CHECK(cudaMemcpyAsync(s.moves, p.moves, W * sizeof(cuda_walk_move), cudaMemcpyDeviceToHost, st),
                   "download");
    WALK_CHECK(cudaEventRecord(s.done, st), "cudaEventRecord");
    s.launch = w->launched++;
    s.steps = steps;
    return 0;
}

extern "C" int cuda_walk_collect(cuda_walk *w, cuda_walk_batch *out, char *err, size_t errlen)
{
    if (cuda_walk_in_flight(w) <= 0) {
        snprintf(err, errlen, "collect: no launch in flight");
        return 2;
    }
    WALK_CHECK(cudaSetDevice(w->cfg.device), "cudaSetDevice");
    Slot &s = w->slot[w->collected % kSlots];
    WALK_CHECK(cudaEventSynchronize(s.done), "walk");
    w->collected++;
    float ms = 0;
    WALK_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop), "cudaEventElapsedTime");
    memset(out, 0, sizeof *out);
    out->launch = s.launch;
    out->steps = s.steps;
    out->ms = ms;
    out->warps = w->p.warps;
    out->cap = w->p.cap;
    out->warp = s.warp;
    const int q = *s.qcount;
    out->improved = q < w->p.qcap ? q : w->p.qcap;
    out->improved_dropped = q - out->improved;
    out->improved_warp = s.qwarp;
    out->improved_rank = s.qrank;
    out->improved_sibling = s.qsibling;
    out->improved_terms = s.qterms;
    out->sample_first = s.sample_first;
    out->sample_count = s.sample_count;
    out->sample_terms = s.sample;
    out->moves = s.moves;
    return 0;
}

extern "C" int cuda_walk_read(cuda_walk *w, int warp, uint64_t *terms, int *rank, char *err, size_t errlen)
{
    if (warp < 0 || warp >= w->p.warps) {
        snprintf(err, errlen, "read: no walker %d", warp);
        return 2;
    }
    WALK_CHECK(cudaSetDevice(w->cfg.device), "cudaSetDevice");
    WALK_CHECK(cudaStreamSynchronize(w->stream), "walk");
    cuda_walk_warp ws;
    WALK_CHECK(cudaMemcpy(&ws, w->p.state + warp, sizeof ws, cudaMemcpyDeviceToHost), "read");
    *rank = ws.rank;
    if (ws.rank > 0)
        WALK_CHECK(cudaMemcpy(terms, w->p.terms + (size_t)warp * scheme_words(w), (size_t)ws.rank * 3 * 8,
                              cudaMemcpyDeviceToHost), "read");
    return 0;
}

extern "C" void cuda_walk_destroy(cuda_walk *w) { walk_free(w); }
