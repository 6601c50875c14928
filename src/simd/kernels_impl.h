/*
 * kernels_impl.h - the vector byte-class kernels written once and compiled
 * per instruction set (included by newline_sse2.c and newline_avx2.c, which
 * define the vector primitives below before including it).
 *
 * Required definitions:
 *   V            vector type of W bytes          V_W        W (16 or 32)
 *   v_load(p)    unaligned load of W bytes       v_set1(c)  broadcast a byte
 *   v_eq(a, b)   bytewise ==, 0xFF/0x00 lanes    v_or(a, b) bitwise or
 *   v_mask(a)    uint32_t, bit i = top bit of lane i
 *   v_zero()     all-zero vector                 v_sub(a,b) bytewise a - b
 *   v_hsum(a)    uint64_t sum of the W unsigned bytes of a
 *   KERNEL(name) the ISA-suffixed function name
 *
 * No kernel reads outside p[0 .. n). Tails shorter than W bytes are handled
 * by re-loading the LAST W bytes of the range (an overlapping load) and
 * shifting away the lanes already examined; ranges shorter than W bytes
 * fall back to a byte loop.
 */

#define RS_CHUNK 64                      /* bytes examined per main-loop step */
#define RS_VPC   (RS_CHUNK / V_W)        /* vectors per chunk */

/* Bitmask of the lanes of the W bytes at p that equal c (bit i = p[i]). */
static inline uint32_t eq_mask(const char *p, V c) { return v_mask(v_eq(v_load(p), c)); }

/*
 * find_newline(p, n):
 *   for each 64-byte chunk: OR the lane compares; if any lane hit, build the
 *       64-bit mask of the chunk and return chunk start + ctz(mask)
 *   for each remaining full vector: the same on one vector
 *   tail (< W bytes left, n >= W): mask of the last W bytes of the range,
 *       shifted right past the lanes already examined
 */
size_t KERNEL(rs_find_newline)(const char *p, size_t n)
{
    if (n < V_W) return rs_find_newline_scalar(p, n);
    const V nl = v_set1('\n');
    size_t i = 0;
    for (; i + RS_CHUNK <= n; i += RS_CHUNK) {
        V eq[RS_VPC];
        V any = v_zero();
        for (int j = 0; j < RS_VPC; j++) {
            eq[j] = v_eq(v_load(p + i + (size_t)j * V_W), nl);
            any = v_or(any, eq[j]);
        }
        if (RS_LIKELY(v_mask(any) == 0)) continue;
        uint64_t m = 0;
        for (int j = 0; j < RS_VPC; j++) m |= (uint64_t)v_mask(eq[j]) << (j * V_W);
        return i + (size_t)__builtin_ctzll(m);
    }
    for (; i + V_W <= n; i += V_W) {
        const uint32_t m = eq_mask(p + i, nl);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    if (i < n) {
        const size_t back = n - V_W;               /* overlapping last vector */
        const uint32_t m = eq_mask(p + back, nl) >> (i - back);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return n;
}

/*
 * count_newlines(p, n):
 *   acc = 0 (W byte counters); for up to 255 vectors: acc -= (v == '\n')
 *       (a hit lane is 0xFF = -1, so each counter counts its lane's hits);
 *       then total += horizontal byte sum of acc, reset acc
 *   tail (< W bytes left): popcount of the shifted overlapping-vector mask
 */
size_t KERNEL(rs_count_newlines)(const char *p, size_t n)
{
    if (n < V_W) return rs_count_newlines_scalar(p, n);
    const V nl = v_set1('\n');
    size_t i = 0;
    uint64_t total = 0;
    while (i + V_W <= n) {
        V acc = v_zero();
        size_t steps = (n - i) / V_W;
        if (steps > 255) steps = 255;
        for (size_t s = 0; s < steps; s++, i += V_W)
            acc = v_sub(acc, v_eq(v_load(p + i), nl));
        total += v_hsum(acc);
    }
    if (i < n) {
        const size_t back = n - V_W;
        total += (uint64_t)__builtin_popcount(eq_mask(p + back, nl) >> (i - back));
    }
    return (size_t)total;
}

/* Bitmask of the lanes of the W bytes at p that are in the set. */
static inline uint32_t set_mask(const char *p, const V *members, unsigned count)
{
    const V v = v_load(p);
    V hit = v_eq(v, members[0]);
    for (unsigned k = 1; k < count; k++) hit = v_or(hit, v_eq(v, members[k]));
    return v_mask(hit);
}

/*
 * find_any(p, n, set):
 *   broadcast each member once; for each vector: OR of the member compares;
 *   first hit = ctz of the mask; tail as in find_newline
 */
size_t KERNEL(rs_find_any)(const char *p, size_t n, const rs_byteset *set)
{
    if (n < V_W || set->count == 0) return rs_find_any_scalar(p, n, set);
    V members[RS_BYTESET_MAX];
    const unsigned count = set->count;
    for (unsigned k = 0; k < count; k++) members[k] = v_set1((char)set->bytes[k]);
    size_t i = 0;
    for (; i + V_W <= n; i += V_W) {
        const uint32_t m = set_mask(p + i, members, count);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    if (i < n) {
        const size_t back = n - V_W;
        const uint32_t m = set_mask(p + back, members, count) >> (i - back);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return n;
}
