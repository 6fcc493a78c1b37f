// A CPU emulator of the GPU walk, for development where no GPU is: the same
// walk_core.cuh code runs with 32 lanes as user-level contexts (ucontext) that
// switch at every warp intrinsic, lockstep like a warp.  It implements the
// cuda_walk_* API of fg_cuda.h (synchronously), so tests/gpu_walk.c and
// bench/gpu_walk.c link against it unchanged.  Not part of the CMake build (it
// would clash with the real launcher); scripts/device_walk.sh --emulate builds
// it with g++ and runs the GPU test against it.  Slow (~1e4 steps/s): for
// correctness only.
#include <ucontext.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "walk_core.cuh"

namespace {

const int kStack = 256 * 1024;

struct Emu;

// One warp's 32 lane contexts and the values they exchange.
struct Lanes {
    ucontext_t main_ctx, ctx[32];
    std::vector<char> stack[32];
    uint64_t vals[2][32];
    // the work of the current warp
    const walk::Params *p = nullptr;
    int w = 0, store = 0, cap = 0;
    std::vector<uint64_t> smem;
};

// per host thread: the driver walks several walker sets at once, one thread each
thread_local Lanes *g_lanes;

struct EmuWarp {
    int ln;
    int phase = 0;
    int lane() const { return ln; }
    // Every lane deposits v, then control passes to the next lane; the last
    // lane hands back to lane 0, so on return every lane's value is in.
    const uint64_t *exchange(uint64_t v)
    {
        uint64_t *buf = g_lanes->vals[phase];
        phase ^= 1;
        buf[ln] = v;
        swapcontext(&g_lanes->ctx[ln], &g_lanes->ctx[(ln + 1) & 31]);
        return buf;
    }
    uint32_t match(uint64_t v)
    {
        const uint64_t *b = exchange(v);
        uint32_t m = 0;
        for (int i = 0; i < 32; i++)
            if (b[i] == v) m |= 1u << i;
        return m;
    }
    uint32_t ballot(bool x)
    {
        const uint64_t *b = exchange(x);
        uint32_t m = 0;
        for (int i = 0; i < 32; i++)
            if (b[i]) m |= 1u << i;
        return m;
    }
    uint64_t shfl(uint64_t v, int src) { return exchange(v)[src & 31]; }
    uint32_t shfl32(uint32_t v, int src) { return (uint32_t)exchange(v)[src & 31]; }
    uint32_t max(uint32_t v)
    {
        const uint64_t *b = exchange(v);
        uint64_t m = 0;
        for (int i = 0; i < 32; i++)
            if (b[i] > m) m = b[i];
        return (uint32_t)m;
    }
    uint32_t sum(uint32_t v)
    {
        const uint64_t *b = exchange(v);
        uint32_t m = 0;
        for (int i = 0; i < 32; i++)
            m += (uint32_t)b[i];
        return m;
    }
    uint64_t now_ns() const
    {
        return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    int32_t atomic_add(int32_t *p, int32_t v)
    {
        int32_t old = *p;
        *p += v;
        return old;
    }
};

template <int K, bool kTrace>
void run_regs(Lanes &L, EmuWarp &wp)
{
    {
        walk::RegStore<K, uint32_t> st;
        walk::walk_warp<kTrace, true>(*L.p, st, wp, L.w);
    }
    walk::RegStore<K, uint64_t> st;
    walk::walk_warp<kTrace, true>(*L.p, st, wp, L.w, true);
}

template <bool kTrace>
void run_lane_t(int ln)
{
    Lanes &L = *g_lanes;
    EmuWarp wp{ln};
    const int K = L.cap >> 5;
    if (L.store == CUDA_WALK_STORE_REGS) {
        // as walk_kernel.cu: the narrow kernel, then the wide one (each walks
        // the warps of its width)
        switch (K) {
        case 1: run_regs<1, kTrace>(L, wp); break;
        case 2: run_regs<2, kTrace>(L, wp); break;
        case 3: run_regs<3, kTrace>(L, wp); break;
        case 4: run_regs<4, kTrace>(L, wp); break;
        }
    } else {
        walk::SmemStore st = {L.smem.data(), K, ln};
        walk::walk_warp<kTrace, true>(*L.p, st, wp, L.w);
    }
}

void lane_entry(int ln)
{
    if (g_lanes->p->moves)
        run_lane_t<true>(ln);
    else
        run_lane_t<false>(ln);
    // uniform control flow: every lane finishes here, in order
    swapcontext(&g_lanes->ctx[ln], ln == 31 ? &g_lanes->main_ctx : &g_lanes->ctx[ln + 1]);
}

void run_warp(Lanes &L, const walk::Params &p, int store, int w)
{
    L.p = &p;
    L.w = w;
    L.store = store;
    L.cap = p.cap;
    if (store == CUDA_WALK_STORE_SMEM)
        L.smem.assign((size_t)p.cap * 3, 0);
    for (int i = 0; i < 32; i++) {
        if (L.stack[i].empty())
            L.stack[i].resize(kStack);
        getcontext(&L.ctx[i]);
        L.ctx[i].uc_stack.ss_sp = L.stack[i].data();
        L.ctx[i].uc_stack.ss_size = kStack;
        L.ctx[i].uc_link = nullptr;
        makecontext(&L.ctx[i], (void (*)())lane_entry, 1, i);
    }
    g_lanes = &L;
    swapcontext(&L.main_ctx, &L.ctx[0]);
}

struct Result {
    std::vector<cuda_walk_warp> warp;
    std::vector<int32_t> qwarp, qrank, qsibling;
    std::vector<uint64_t> qterms, sample;
    std::vector<cuda_walk_move> moves;
    int qcount = 0;
    long launch = 0;
    uint32_t steps = 0;
    int sample_first = 0, sample_count = 0;
    double ms = 0;
};

}  // namespace

struct cuda_walk {
    cuda_walk_config cfg;
    cuda_walk_info info;
    walk::Params p{};
    std::vector<uint64_t> terms, best, qterms;
    std::vector<cuda_walk_warp> state;
    std::vector<int32_t> qwarp, qrank, qsibling;
    std::vector<cuda_walk_move> moves;
    int32_t qcount = 0;
    std::vector<std::pair<int, std::vector<uint64_t>>> pending;
    std::vector<uint64_t> pool, pool_staged;
    std::vector<int32_t> pool_rank, pool_rank_staged;
    int pool_cap = 0;
    bool pool_pending = false;
    Result res[2];
    long launched = 0, collected = 0;
    int sample_next = 0;
    Lanes lanes;
};

extern "C" bool cuda_compiled_in(void) { return true; }
extern "C" int cuda_device_count(void) { return 1; }
extern "C" int cuda_device_describe(char *buf, size_t len)
{
    snprintf(buf, len, "CPU emulator of the walk kernel (walk_emu.cpp)");
    return 1;
}

extern "C" int cuda_walk_create(const cuda_walk_config *cfg, cuda_walk **out, char *err, size_t errlen)
{
    *out = nullptr;
    if (!cfg || cfg->cap < 2 || cfg->cap > CUDA_WALK_MAX_CAP || cfg->warps < 0 || cfg->rounds < 1 ||
        cfg->rounds > 64 || cfg->plus_max < 0 || cfg->target_rank < 0 || cfg->mix_every < 0 ||
        cfg->queue_cap < 0 || cfg->sample < 0 || cfg->store < 0 || cfg->store > 2 || cfg->pool_cap < 0 ||
        (cfg->gen_max != 0 && (cfg->gen_max < 2 || cfg->gen_max > 5))) {
        snprintf(err, errlen, "bad walk configuration");
        return 2;
    }
    cuda_walk *w = new cuda_walk();
    w->cfg = *cfg;
    const int cap = (cfg->cap + 31) / 32 * 32;
    int store = cfg->store ? cfg->store : (cap <= 128 ? CUDA_WALK_STORE_REGS : CUDA_WALK_STORE_SMEM);
    if (store == CUDA_WALK_STORE_REGS && cap > 128) {
        snprintf(err, errlen, "cap %d does not fit the register store", cap);
        delete w;
        return 2;
    }
    const int warps = cfg->warps ? cfg->warps : 8;
    w->cfg.warps = warps;
    w->cfg.cap = cap;
    w->cfg.queue_cap = cfg->queue_cap ? cfg->queue_cap : 256;
    if (w->cfg.queue_cap > warps) w->cfg.queue_cap = warps;
    if (w->cfg.sample > warps) w->cfg.sample = warps;
    w->info.warps = warps;
    w->info.cap = cap;
    w->info.store = store;
    w->info.warps_per_block = 1;
    w->info.blocks = warps;
    snprintf(w->info.device, sizeof w->info.device, "CPU emulator");
    const size_t words = (size_t)warps * cap * 3;
    w->terms.assign(words, 0);
    w->best.assign(words, 0);
    w->state.assign(warps, cuda_walk_warp{});
    w->qterms.assign((size_t)w->cfg.queue_cap * cap * 3, 0);
    w->qwarp.assign(w->cfg.queue_cap, 0);
    w->qrank.assign(w->cfg.queue_cap, 0);
    w->qsibling.assign(w->cfg.queue_cap, 0);
    if (cfg->trace) w->moves.assign(warps, cuda_walk_move{});
    walk::Params &p = w->p;
    p.terms = w->terms.data();
    p.best = w->best.data();
    p.state = w->state.data();
    p.qterms = w->qterms.data();
    p.qwarp = w->qwarp.data();
    p.qrank = w->qrank.data();
    p.qsibling = w->qsibling.data();
    p.qcount = &w->qcount;
    p.moves = cfg->trace ? w->moves.data() : nullptr;
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
    *out = w;
    return 0;
}

extern "C" void cuda_walk_get_info(const cuda_walk *w, cuda_walk_info *info) { *info = w->info; }
extern "C" void cuda_walk_set_collect(cuda_walk *w, int rank) { w->p.collect_rank = rank > 0 ? rank : 0; }
extern "C" int cuda_walk_in_flight(const cuda_walk *w) { return (int)(w->launched - w->collected); }

extern "C" int cuda_walk_load(cuda_walk *w, int warp, const uint64_t *terms, int rank, char *err, size_t errlen)
{
    if (warp < 0 || warp >= w->p.warps || rank < 1 || rank > w->p.cap || !terms) {
        snprintf(err, errlen, "load: walker %d, rank %d", warp, rank);
        return 2;
    }
    for (int i = 0; i < 3 * rank; i++)
        if (!terms[i]) {
            snprintf(err, errlen, "load: term %d has a zero factor", i / 3);
            return 2;
        }
    w->pending.emplace_back(warp, std::vector<uint64_t>(terms, terms + 3 * rank));
    return 0;
}

extern "C" int cuda_walk_set_pool(cuda_walk *w, const uint64_t *terms, const int32_t *ranks, int n, char *err,
                                  size_t errlen)
{
    if (n < 0 || n > w->pool_cap) {
        snprintf(err, errlen, "set_pool: %d schemes, at most %d", n, w->pool_cap);
        return 2;
    }
    const size_t cw = (size_t)w->p.cap * 3;
    for (int k = 0; k < n; k++)
        if (ranks[k] < 1 || ranks[k] > w->p.cap) {
            snprintf(err, errlen, "set_pool: scheme %d has rank %d", k, ranks[k]);
            return 2;
        }
    w->pool_staged.assign(terms, terms + (size_t)n * cw);
    w->pool_rank_staged.assign(ranks, ranks + n);
    w->pool_pending = true;
    return 0;
}

extern "C" int cuda_walk_launch(cuda_walk *w, uint32_t steps, char *err, size_t errlen)
{
    if (cuda_walk_in_flight(w) >= 2) {
        snprintf(err, errlen, "launch: 2 launches in flight");
        return 2;
    }
    const size_t cw = (size_t)w->p.cap * 3;
    for (auto &e : w->pending) {
        cuda_walk_warp &s = w->state[e.first];
        const int r = (int)(e.second.size() / 3);
        std::copy(e.second.begin(), e.second.end(), w->terms.begin() + (long)(e.first * cw));
        s.rank = s.best_rank = s.reported_rank = r;
        s.since_drop = 0;
        s.since_best = 0;
        s.degree = 0;
        s.hold_left = 0;
    }
    w->pending.clear();
    if (w->pool_pending) {
        w->pool = w->pool_staged;
        w->pool_rank = w->pool_rank_staged;
        w->pool_pending = false;
    }
    walk::Params p = w->p;
    p.steps = steps;
    p.flips_per_step = walk::kFlipsPerStep;
    p.pool = w->pool.data();
    p.pool_rank = w->pool_rank.data();
    p.pool_n = (int)w->pool_rank.size();
    w->qcount = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < p.warps; i++)
        run_warp(w->lanes, p, w->info.store, i);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    Result &r = w->res[w->launched % 2];
    r.warp = w->state;
    r.qcount = w->qcount;
    r.qwarp = w->qwarp;
    r.qrank = w->qrank;
    r.qsibling = w->qsibling;
    r.qterms = w->qterms;
    r.moves = w->moves;
    r.sample_count = w->cfg.sample;
    r.sample_first = w->sample_next;
    r.sample.assign((size_t)r.sample_count * cw, 0);
    for (int k = 0; k < r.sample_count; k++) {
        const int wi = (r.sample_first + k) % p.warps;
        std::copy(w->terms.begin() + (long)(wi * cw), w->terms.begin() + (long)((wi + 1) * cw),
                  r.sample.begin() + (long)(k * cw));
    }
    if (r.sample_count)
        w->sample_next = (r.sample_first + r.sample_count) % p.warps;
    r.launch = w->launched++;
    r.steps = steps;
    r.ms = ms;
    return 0;
}

extern "C" int cuda_walk_collect(cuda_walk *w, cuda_walk_batch *out, char *err, size_t errlen)
{
    if (cuda_walk_in_flight(w) <= 0) {
        snprintf(err, errlen, "collect: no launch in flight");
        return 2;
    }
    Result &r = w->res[w->collected++ % 2];
    memset(out, 0, sizeof *out);
    out->launch = r.launch;
    out->steps = r.steps;
    out->ms = r.ms;
    out->warps = w->p.warps;
    out->cap = w->p.cap;
    out->warp = r.warp.data();
    out->improved = r.qcount < w->p.qcap ? r.qcount : w->p.qcap;
    out->improved_dropped = r.qcount - out->improved;
    out->improved_warp = r.qwarp.data();
    out->improved_rank = r.qrank.data();
    out->improved_sibling = r.qsibling.data();
    out->improved_terms = r.qterms.data();
    out->sample_first = r.sample_first;
    out->sample_count = r.sample_count;
    out->sample_terms = r.sample.data();
    out->moves = w->p.moves ? r.moves.data() : nullptr;
    return 0;
}

extern "C" int cuda_walk_read(cuda_walk *w, int warp, uint64_t *terms, int *rank, char *err, size_t errlen)
{
    if (warp < 0 || warp >= w->p.warps) {
        snprintf(err, errlen, "read: no walker %d", warp);
        return 2;
    }
    *rank = w->state[warp].rank;
    memcpy(terms, w->terms.data() + (size_t)warp * w->p.cap * 3, (size_t)*rank * 3 * 8);
    return 0;
}

extern "C" void cuda_walk_destroy(cuda_walk *w) { delete w; }
