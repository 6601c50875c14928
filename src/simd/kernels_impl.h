/*
 * kernels_impl.h - the vector byte-class kernels written once and compiled
 * per instruction set (included by newline_sse2.c and newline_avx2.c, which
 * define the vector primitives below before including it).
 *
 * Required definitions:
 *   V            vector type of W bytes          V_W        W (16 or 32)
 *   v_load(p)    unaligned load of W bytes       v_set1(c)  broadcast a byte
 *   v_eq(a, b)   bytewise ==, 0xFF/0x00 lanes    v_or(a, b) bitwise or
 *   v_and(a, b)  bitwise and
 *   v_mask(a)    uint32_t, bit i = top bit of lane i
 *   v_zero()     all-zero vector                 v_sub(a,b) bytewise a - b
 *   v_hsum(a)    uint64_t sum of the W unsigned bytes of a
 *   KERNEL(name) the ISA-suffixed function name
 *
 * x86 only: the short-range paths use SSE2 intrinsics directly.
 *
 * No kernel reads outside p[0 .. n). Tails shorter than W bytes are handled
 * by re-loading the LAST W bytes of the range (an overlapping load) and
 * shifting away the lanes already examined; find_newline and count_newlines
 * fall back to a byte loop below W bytes; find_any and find_substr, which
 * run on short URL fields, load two overlapping halves instead.
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

/* ===== find_any ===== */

/* Bitmask of the lanes of v that are in the set. */
static inline __attribute__((always_inline)) uint32_t set_mask_v(V v, const V *members, unsigned count)
{
    V hit = v_eq(v, members[0]);
    for (unsigned k = 1; k < count; k++) hit = v_or(hit, v_eq(v, members[k]));
    return v_mask(hit);
}

/* The same on a 16-byte vector, members broadcast to 16 bytes. */
static inline __attribute__((always_inline)) uint32_t set_mask_128(__m128i v, const __m128i *members,
                                                                   unsigned count)
{
    __m128i hit = _mm_cmpeq_epi8(v, members[0]);
    for (unsigned k = 1; k < count; k++) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, members[k]));
    return (uint32_t)_mm_movemask_epi8(hit);
}

static inline __m128i v_load128(const char *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }

static inline __m128i load_lo64(const char *p) { return _mm_loadl_epi64((const __m128i *)(const void *)p); }

static inline __m128i load_lo32(const char *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    return _mm_cvtsi32_si128(x);
}

/*
 * Short ranges, h <= n < 2h, as ONE vector of two halves: lanes [0, h) hold
 * p[0, h) and lanes [h, 2h) hold p[n - h, n) (the halves overlap when n < 2h).
 * The lowest hit lane is the answer: a hit at a position < h shows in the
 * low half first, so a high-half lane is only the lowest hit when its
 * position n - h + (lane - h) is >= h.
 */
static inline size_t halves_pos(uint32_t m, size_t n, size_t h)
{
    const size_t lane = (size_t)__builtin_ctz(m);
    return lane < h ? lane : lane + n - 2 * h;
}

/*
 * find_any(p, n, set):
 *   empty set: n;  n < 4: the scalar loop
 *   4 <= n < 32: 16-byte vectors only (no 32-byte broadcasts for short
 *       fields; cheaper on CPUs that split 256-bit operations):
 *       4..7:   one vector p[0,4) | p[n-4,n) (two 4-byte loads)
 *       8..15:  one vector p[0,8) | p[n-8,n) (two 8-byte loads)
 *       16..31: two vectors p[0,16) and p[n-16,n), masks joined
 *       hit = halves_pos of the lowest lane (see above)
 *   n >= 32: broadcast each member once; for each W-byte vector: OR of the
 *       member compares; first hit = ctz of the mask; tail as in find_newline
 * The bodies are inlined with count = 1..4 as a constant, so the broadcast
 * members stay in registers and the compare loops unroll; larger sets take
 * the generic copy.
 */
static inline __attribute__((always_inline)) size_t
find_any_short(const char *p, size_t n, const rs_byteset *set, const unsigned count)
{
    __m128i members[RS_BYTESET_MAX];
    for (unsigned k = 0; k < count; k++) members[k] = _mm_set1_epi8((char)set->bytes[k]);
    uint32_t m;
    size_t h;
    if (n < 8) {
        m = set_mask_128(_mm_unpacklo_epi32(load_lo32(p), load_lo32(p + n - 4)), members, count)
            & 0xFF;                                 /* lanes 8.. are zeros, not data */
        h = 4;
    } else if (n < 16) {
        m = set_mask_128(_mm_unpacklo_epi64(load_lo64(p), load_lo64(p + n - 8)), members, count);
        h = 8;
    } else {
        m = set_mask_128(v_load128(p), members, count)
            | set_mask_128(v_load128(p + n - 16), members, count) << 16;
        h = 16;
    }
    return m ? halves_pos(m, n, h) : n;
}

static inline __attribute__((always_inline)) size_t
find_any_long(const char *p, size_t n, const rs_byteset *set, const unsigned count)
{
    V members[RS_BYTESET_MAX];
    for (unsigned k = 0; k < count; k++) members[k] = v_set1((char)set->bytes[k]);
    size_t i = 0;
    for (; i + V_W <= n; i += V_W) {
        const uint32_t m = set_mask_v(v_load(p + i), members, count);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    if (i < n) {
        const size_t back = n - V_W;
        const uint32_t m = set_mask_v(v_load(p + back), members, count) >> (i - back);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return n;
}

static inline __attribute__((always_inline)) size_t
find_any_body(const char *p, size_t n, const rs_byteset *set, const unsigned count)
{
    return n < 32 ? find_any_short(p, n, set, count) : find_any_long(p, n, set, count);
}

size_t KERNEL(rs_find_any)(const char *p, size_t n, const rs_byteset *set)
{
    if (n < 4) return rs_find_any_scalar(p, n, set);
    switch (set->count) {
    case 0: return n;
    case 1: return find_any_body(p, n, set, 1);
    case 2: return find_any_body(p, n, set, 2);
    case 3: return find_any_body(p, n, set, 3);
    case 4: return find_any_body(p, n, set, 4);
    default: return find_any_body(p, n, set, set->count);
    }
}

/* ===== mask_any ===== */

/*
 * mask_any(p, n, set, bits):
 *   n < W or an empty set: the scalar loop
 *   for each 64-byte chunk: bits[k] = the set masks of its 64/W vectors, joined
 *   last chunk (< 64 bytes): its full vectors, then the last W bytes of the
 *       range (an overlapping load, n >= W) shifted past the lanes already done
 *   return the popcount of all words
 * Members broadcast once, count 1..4 inlined as constants (as find_any).
 */
static inline __attribute__((always_inline)) size_t
mask_any_body(const char *p, size_t n, const rs_byteset *set, uint64_t *bits, const unsigned count)
{
    V members[RS_BYTESET_MAX];
    for (unsigned k = 0; k < count; k++) members[k] = v_set1((char)set->bytes[k]);
    size_t i = 0, total = 0;
    for (; i + RS_CHUNK <= n; i += RS_CHUNK) {
        uint64_t m = 0;
        for (int j = 0; j < RS_VPC; j++)
            m |= (uint64_t)set_mask_v(v_load(p + i + (size_t)j * V_W), members, count) << (j * V_W);
        bits[i / RS_CHUNK] = m;
        total += (size_t)__builtin_popcountll(m);
    }
    if (i < n) {
        uint64_t m = 0;
        size_t k = i;
        for (; k + V_W <= n; k += V_W) m |= (uint64_t)set_mask_v(v_load(p + k), members, count) << (k - i);
        if (k < n) {
            const size_t back = n - V_W;           /* n >= W: the caller checked */
            const uint32_t t = set_mask_v(v_load(p + back), members, count) >> (k - back);
            m |= (uint64_t)t << (k - i);
        }
        bits[i / RS_CHUNK] = m;
        total += (size_t)__builtin_popcountll(m);
    }
    return total;
}

size_t KERNEL(rs_mask_any)(const char *p, size_t n, const rs_byteset *set, uint64_t *bits)
{
    if (n < V_W || set->count == 0) return rs_mask_any_scalar(p, n, set, bits);
    switch (set->count) {
    case 1: return mask_any_body(p, n, set, bits, 1);
    case 2: return mask_any_body(p, n, set, bits, 2);
    case 3: return mask_any_body(p, n, set, bits, 3);
    case 4: return mask_any_body(p, n, set, bits, 4);
    default: return mask_any_body(p, n, set, bits, set->count);
    }
}

/* ===== mask_url ===== */

/* The three lane masks of one vector: '\n'; '/', '?', ';', '#'; '#', NUL.
 * '/' (0x2F) and '?' (0x3F) differ in bit 4 only: one compare of x | 0x10. */
static inline __attribute__((always_inline)) void url_masks(V x, uint32_t *nl, uint32_t *delim, uint32_t *end)
{
    const V hash = v_eq(x, v_set1('#'));
    *nl = v_mask(v_eq(x, v_set1('\n')));
    *delim = v_mask(v_or(v_or(v_eq(v_or(x, v_set1(0x10)), v_set1(0x3F)), v_eq(x, v_set1(';'))), hash));
    *end = v_mask(v_or(hash, v_eq(x, v_zero())));
}

/*
 * mask_url(p, n, nl, delim, end): the three bitmaps of the scanner's pass 1
 * from the same loads (definition: newline_scalar.c):
 *   n < W: the scalar loop
 *   for each 64-byte chunk: per vector url_masks, stored as the W bits of
 *       the chunk's word of each bitmap
 *   last chunk (< 64 bytes): its full vectors, then the last W bytes of the
 *       range (an overlapping load) shifted past the lanes already done
 */
void KERNEL(rs_mask_url)(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end)
{
    if (n < V_W) {
        rs_mask_url_scalar(p, n, nl, delim, end);
        return;
    }
    size_t i = 0;
    /* x86 is little-endian: lanes [j W, (j + 1) W) of a chunk are bytes
     * [j W / 8, (j + 1) W / 8) of its word, stored without shifting */
    for (; i + RS_CHUNK <= n; i += RS_CHUNK) {
#pragma GCC unroll 4
        for (int j = 0; j < RS_VPC; j++) {
            uint32_t x, y, z;
            url_masks(v_load(p + i + (size_t)j * V_W), &x, &y, &z);
            const size_t at = i / 8 + (size_t)j * (V_W / 8);
            memcpy((char *)nl + at, &x, V_W / 8);
            memcpy((char *)delim + at, &y, V_W / 8);
            memcpy((char *)end + at, &z, V_W / 8);
        }
    }
    if (i < n) {
        uint64_t a = 0, b = 0, c = 0;
        uint32_t x, y, z;
        size_t k = i;
        for (; k + V_W <= n; k += V_W) {
            url_masks(v_load(p + k), &x, &y, &z);
            a |= (uint64_t)x << (k - i);
            b |= (uint64_t)y << (k - i);
            c |= (uint64_t)z << (k - i);
        }
        if (k < n) {
            const size_t back = n - V_W;           /* n >= W */
            url_masks(v_load(p + back), &x, &y, &z);
            a |= (uint64_t)(x >> (k - back)) << (k - i);
            b |= (uint64_t)(y >> (k - back)) << (k - i);
            c |= (uint64_t)(z >> (k - back)) << (k - i);
        }
        nl[i / RS_CHUNK] = a;
        delim[i / RS_CHUNK] = b;
        end[i / RS_CHUNK] = c;
    }
}

/* ===== find_substr ===== */

/* s[0, k) == t[0, k); k is a needle's middle, usually a few bytes. */
static inline int same_bytes(const char *s, const char *t, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (s[i] != t[i]) return 0;
    return 1;
}

/*
 * The first start in @bits (bit j = start base + j, its first and last byte
 * already equal to the needle's) whose middle bytes match too, or SIZE_MAX.
 */
static inline size_t verify_starts(uint32_t bits, size_t base, const char *h, const char *s, size_t m)
{
    const size_t mid = m > 2 ? m - 2 : 0;
    for (; bits; bits &= bits - 1) {
        const size_t i = base + (size_t)__builtin_ctz(bits);
        if (same_bytes(h + i + 1, s + 1, mid)) return i;
    }
    return SIZE_MAX;
}

/*
 * Short candidate ranges as one vector of two halves (see find_any): @f are
 * the first-byte hits, lanes [0, hw) = starts [0, hw), lanes [hw, 2hw) =
 * starts [c - hw, c). The low half is verified first; of the high half only
 * starts >= hw are new.
 */
static inline size_t verify_halves(uint32_t bits, size_t c, size_t hw, const char *h, const char *s,
                                   size_t m)
{
    const size_t i = verify_starts(bits & ((1u << hw) - 1), 0, h, s, m);
    if (i != SIZE_MAX) return i;
    return verify_starts((bits >> hw) >> (2 * hw - c), hw, h, s, m);
}

/*
 * find_substr(h, n, s, m): leftmost start of s[0, m) in h[0, n), or n.
 * Wojciech Muła's "SIMD-friendly generic" method:
 *   F = broadcast(s[0]), L = broadcast(s[m-1]); c = n - m + 1 candidate starts
 *   for each W starts i: mask = (load(h+i) == F) & (load(h+i+m-1) == L);
 *       for each set bit j, ascending: if h[i+j+1, i+j+m-1) == s[1, m-1):
 *       return i+j
 *   last partial group: the last W starts (overlapping), shifted past the
 *       starts already examined
 *   4 <= c < 32: the same on 16-byte vectors of two halves (as find_any):
 *       4-, 8- and 16-start halves; c < 4: the scalar loop
 * Costs O(n) vector steps plus one verification per first+last byte hit:
 * O(n * m) at worst (as the scalar twin), no backtracking.
 */
/* find_substr for 4 <= c < 32 candidate starts: 16-byte vectors only, as find_any_short. */
static size_t find_substr_short(const char *h, size_t n, const char *s, size_t m, size_t c)
{
    const __m128i first = _mm_set1_epi8(s[0]), last = _mm_set1_epi8(s[m - 1]);
    const char *const hl = h + m - 1;          /* the last byte of each start */
    uint32_t bits;
    size_t hw;
    if (c < 8) {
        const __m128i a = _mm_unpacklo_epi32(load_lo32(h), load_lo32(h + c - 4));
        const __m128i b = _mm_unpacklo_epi32(load_lo32(hl), load_lo32(hl + c - 4));
        bits = (uint32_t)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)))
               & 0xFF;                          /* lanes 8.. are zeros, not data */
        hw = 4;
    } else if (c < 16) {
        const __m128i a = _mm_unpacklo_epi64(load_lo64(h), load_lo64(h + c - 8));
        const __m128i b = _mm_unpacklo_epi64(load_lo64(hl), load_lo64(hl + c - 8));
        bits = (uint32_t)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
        hw = 8;
    } else {
        const uint32_t lo = (uint32_t)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(v_load128(h), first), _mm_cmpeq_epi8(v_load128(hl), last)));
        const uint32_t hi = (uint32_t)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(v_load128(h + c - 16), first),
                          _mm_cmpeq_epi8(v_load128(hl + c - 16), last)));
        bits = lo | hi << 16;
        hw = 16;
    }
    const size_t r = verify_halves(bits, c, hw, h, s, m);
    return r == SIZE_MAX ? n : r;
}

size_t KERNEL(rs_find_substr)(const char *h, size_t n, const char *s, size_t m)
{
    if (m == 0) return 0;
    if (m > n) return n;
    const size_t c = n - m + 1;
    if (c < 4) return rs_find_substr_scalar(h, n, s, m);
    if (c < 32) return find_substr_short(h, n, s, m, c);
    const V first = v_set1(s[0]), last = v_set1(s[m - 1]);
    const char *const hl = h + m - 1;          /* the last byte of each start */
    size_t r;
    size_t i = 0;
    for (; i + V_W <= c; i += V_W) {
        const uint32_t bits = v_mask(v_and(v_eq(v_load(h + i), first), v_eq(v_load(hl + i), last)));
        if (bits && (r = verify_starts(bits, i, h, s, m)) != SIZE_MAX) return r;
    }
    if (i < c) {
        const size_t back = c - V_W;
        const uint32_t bits = v_mask(v_and(v_eq(v_load(h + back), first), v_eq(v_load(hl + back), last)))
                              >> (i - back);
        if (bits && (r = verify_starts(bits, i, h, s, m)) != SIZE_MAX) return r;
    }
    return n;
}
