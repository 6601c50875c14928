/*
 * lines.c - the line iterator over one block: finds each '\n' in the
 * reader's newline bitmap of the block (its one pass over the bytes, which
 * counted the lines) or, for a block without one, with the newline kernel
 * chosen at init; strips a '\r' before it, numbers the lines and flags those
 * longer than the block's max_line (text withheld, length reported), then
 * yields the pending record of an oversized block.
 *
 * Does not: allocate, copy, look at line content beyond the final '\r'.
 */
#include "common/common.h"

void rs_lines_init(rs_lines *it, const rs_block *b)
{
    it->p = b->ptr;
    it->end = b->ptr + b->len;
    it->next = b->first_line;
    it->oversized = b->oversized;
    it->max_line = b->max_line ? b->max_line : RS_READER_DEFAULT_MAX_LINE;
    it->find = rs_simd_active()->find_newline;
    it->bits = b->len ? b->nl_bits : NULL;
    it->base = b->ptr;
}

/* Offset of the first '\n' at or after @from in the bitmap of a block of
 * @n bytes, or n. Bits past n are 0, so the last word needs no mask. */
static size_t bits_next(const uint64_t *bits, size_t from, size_t n)
{
    size_t w = from >> 6;
    const size_t last = (n - 1) >> 6;
    uint64_t m = bits[w] & (~(uint64_t)0 << (from & 63));
    while (m == 0) {
        if (++w > last) return n;
        m = bits[w];
    }
    return (w << 6) + (size_t)__builtin_ctzll(m);
}

int rs_line_next(rs_lines *it, rs_line *out)
{
    if (it->p < it->end) {
        const char *s = it->p;
        const size_t n = (size_t)(it->end - s);
        size_t len;
        if (it->bits != NULL) {
            const size_t at = (size_t)(s - it->base);
            len = bits_next(it->bits, at, (size_t)(it->end - it->base)) - at;
        } else {
            len = it->find(s, n);
        }
        it->p = len < n ? s + len + 1 : it->end;
        out->number = it->next++;
        if (RS_UNLIKELY(len > it->max_line)) {
            out->text.ptr = s;
            out->text.len = 0;
            out->oversized = len;
            return 1;
        }
        if (len > 0 && s[len - 1] == '\r') len--;
        out->text.ptr = s;
        out->text.len = len;
        out->oversized = 0;
        return 1;
    }
    if (it->oversized) {
        out->text.ptr = it->p;
        out->text.len = 0;
        out->number = it->next++;
        out->oversized = it->oversized;
        it->oversized = 0;
        return 1;
    }
    return 0;
}
