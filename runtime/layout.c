/* The interleaved block order of Karppa, Kaski 2019 (section 3.5, (51)-(52)): an operand
 * split into S x T blocks by the levels is stored block by block in the order of
 * the digits (i_0 j_0 i_1 j_1 ... i_{d-1} j_{d-1}), so that level l acts on
 * contiguous runs of words: the s_l t_l inputs of one application of its matrix
 * are equal-sized runs that follow each other. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "layout.h"

static void dims_of(const export_plan_level *L, int which, uint64_t *x, uint64_t *y)
{
    *x = (uint64_t)(which == 1 ? L->t : L->s);
    *y = (uint64_t)(which == 0 ? L->t : L->u);
}

bool rt_layout_init(rt_layout *lay, const export_plan *p, int which)
{
    memset(lay, 0, sizeof *lay);
    lay->nrow = which == 1 ? p->T : p->S;
    lay->ncol = which == 0 ? p->T : p->U;
    lay->off_row = malloc(lay->nrow * sizeof *lay->off_row);
    lay->off_col = malloc(lay->ncol * sizeof *lay->off_col);
    if (!lay->off_row || !lay->off_col) {
        rt_layout_free(lay);
        return false;
    }
    for (uint64_t I = 0; I < lay->nrow; I++) {
        /* Digits of I, least significant (innermost level) first. */
        uint64_t rest = I, off = 0, weight = 1;
        for (int l = p->levels - 1; l >= 0; l--) {
            uint64_t x, y;
            dims_of(&p->level[l], which, &x, &y);
            off += (rest % x) * y * weight;
            rest /= x;
            weight *= x * y;
        }
        lay->off_row[I] = off;
    }
    for (uint64_t J = 0; J < lay->ncol; J++) {
        uint64_t rest = J, off = 0, weight = 1;
        for (int l = p->levels - 1; l >= 0; l--) {
            uint64_t x, y;
            dims_of(&p->level[l], which, &x, &y);
            off += (rest % y) * weight;
            rest /= y;
            weight *= x * y;
        }
        lay->off_col[J] = off;
    }
    return true;
}

uint64_t rt_level_left(const export_plan *p, int l)
{
    uint64_t left = 1;
    for (int k = 0; k < l; k++)
        left *= (uint64_t)p->level[k].r;
    return left;
}

uint64_t rt_level_right(const export_plan *p, int l, int side)
{
    uint64_t right = 1;
    for (int k = l + 1; k < p->levels; k++) {
        const export_plan_level *L = &p->level[k];
        right *= side == EXPORT_PLAN_XI ? (uint64_t)L->s * L->t
                 : side == EXPORT_PLAN_ETA ? (uint64_t)L->t * L->u
                                           : (uint64_t)L->s * L->u;
    }
    return right;
}

void rt_layout_free(rt_layout *lay)
{
    free(lay->off_row);
    free(lay->off_col);
    lay->off_row = lay->off_col = NULL;
}

/* Buffers of several MiB are aligned to 2 MiB and asked for huge pages: the
 * executor writes each buffer once per level, and with 4 KiB pages the page
 * faults of fresh buffers cost as much as the additions of a level. */
#define HUGE_BYTES (2u << 20)

uint64_t *rt_buf_alloc(uint64_t words, bool zero)
{
    if (words == 0)
        words = 1;
    if (words > (UINT64_MAX >> 4))
        return NULL;
    size_t bytes = (size_t)((words * 8 + 63) / 64 * 64);
    uint64_t *b;
    if (bytes >= (size_t)HUGE_BYTES) {
        bytes = (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
        b = aligned_alloc(HUGE_BYTES, bytes);
#ifdef MADV_HUGEPAGE
        if (b)
            madvise(b, bytes, MADV_HUGEPAGE);
#endif
    } else {
        b = aligned_alloc(64, bytes);
    }
    if (b && zero)
        memset(b, 0, bytes);
    return b;
}

double rt_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
