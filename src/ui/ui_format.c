/* Formatting for ze_ui_labelf: the conversions labels use most (integers
 * and strings) written directly, everything else left to vsnprintf. A
 * frame of a long list formats thousands of labels, and glibc's
 * vsnprintf spends most of its time setting up a FILE stream around the
 * buffer; the output here is byte for byte what vsnprintf writes
 * (test_ui_format compares them).
 *
 * Taken: flags - 0 + space, a width (digits or *), a precision (digits
 * or *), the lengths hh h l ll z j t, the conversions d i u x X c s %.
 * Not taken (the caller falls back to vsnprintf): floating point (its
 * rounding is glibc's exact decimal expansion), o p n, '#', wide
 * characters and strings, a NULL %s (glibc writes "(null)"), and output
 * that does not fit `cap`. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ui/ui_internal.h"

typedef struct spec {
    bool left, zero, plus, space;
    int width;
    int prec; /* -1: none */
} spec;

/* Pads and writes the pieces of one conversion: prefix (sign), zeros,
 * body. false when out of room. */
static bool put(char *out, size_t cap, size_t *pos, const spec *s, const char *prefix,
                size_t prefix_len, size_t zeros, const char *body, size_t body_len)
{
    size_t n = prefix_len + zeros + body_len;
    size_t pad = s->width > 0 && (size_t)s->width > n ? (size_t)s->width - n : 0;
    if (s->zero && !s->left && s->prec < 0) {
        zeros += pad; /* "%05d": zeros after the sign */
        pad = 0;
    }
    size_t total = prefix_len + zeros + body_len + pad;
    if (total >= cap - *pos)
        return false;
    char *p = out + *pos;
    if (!s->left) {
        memset(p, ' ', pad);
        p += pad;
    }
    memcpy(p, prefix, prefix_len);
    p += prefix_len;
    memset(p, '0', zeros);
    p += zeros;
    memcpy(p, body, body_len);
    p += body_len;
    if (s->left) {
        memset(p, ' ', pad);
        p += pad;
    }
    *pos = (size_t)(p - out);
    return true;
}

static bool put_int(char *out, size_t cap, size_t *pos, const spec *s, bool neg, uintmax_t v,
                    unsigned base, bool upper, bool is_signed) /* base 10 or 16 */
{
    static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
    const char *digits = upper ? up : lo;
    char buf[sizeof(uintmax_t) * 8];
    char *e = buf + sizeof buf, *d = e;
    if (v || s->prec != 0) { /* "%.0d" of 0 writes no digit */
        if (base == 10) {    /* a constant divisor: a multiply, not a divide */
            do {
                *--d = (char)('0' + v % 10);
                v /= 10;
            } while (v);
        } else {
            do {
                *--d = digits[v & 15];
                v >>= 4;
            } while (v);
        }
    }
    size_t n = (size_t)(e - d);
    char sign = 0;
    if (is_signed)
        sign = neg ? '-' : s->plus ? '+' : s->space ? ' ' : 0;
    size_t zeros = s->prec > 0 && (size_t)s->prec > n ? (size_t)s->prec - n : 0;
    if (!s->width && !zeros) { /* the usual "%d": no padding */
        size_t total = n + (sign != 0);
        if (total >= cap - *pos)
            return false;
        char *p = out + *pos;
        if (sign)
            *p++ = sign;
        for (size_t i = 0; i < n; i++)
            p[i] = d[i];
        *pos += total;
        return true;
    }
    return put(out, cap, pos, s, &sign, sign != 0, zeros, d, n);
}

size_t ze__ui_format(char *out, size_t cap, const char *fmt, va_list *ap)
{
    if (!cap)
        return SIZE_MAX;
    size_t pos = 0;
    const char *f = fmt;
    while (*f) {
        if (*f != '%') { /* labels' literal runs are short: a byte loop */
            if (pos + 1 >= cap)
                return SIZE_MAX;
            out[pos++] = *f++;
            continue;
        }
        f++;
        spec s = {.prec = -1};
        for (;; f++) {
            if (*f == '-')
                s.left = true;
            else if (*f == '0')
                s.zero = true;
            else if (*f == '+')
                s.plus = true;
            else if (*f == ' ')
                s.space = true;
            else
                break;
        }
        if (*f == '*') {
            int w = va_arg(*ap, int);
            if (w == INT_MIN)
                return SIZE_MAX;
            if (w < 0) {
                s.left = true;
                w = -w;
            }
            s.width = w;
            f++;
        } else {
            while (*f >= '0' && *f <= '9') {
                if (s.width > 100000)
                    return SIZE_MAX;
                s.width = s.width * 10 + (*f++ - '0');
            }
        }
        if (*f == '.') {
            f++;
            if (*f == '*') {
                int p = va_arg(*ap, int);
                s.prec = p < 0 ? -1 : p;
                f++;
            } else {
                s.prec = 0;
                while (*f >= '0' && *f <= '9') {
                    if (s.prec > 100000)
                        return SIZE_MAX;
                    s.prec = s.prec * 10 + (*f++ - '0');
                }
            }
        }
        enum { L_INT, L_CHAR, L_SHORT, L_LONG, L_LLONG, L_SIZE, L_MAX, L_PTRDIFF } len = L_INT;
        if (f[0] == 'h' && f[1] == 'h') {
            len = L_CHAR;
            f += 2;
        } else if (f[0] == 'h') {
            len = L_SHORT;
            f++;
        } else if (f[0] == 'l' && f[1] == 'l') {
            len = L_LLONG;
            f += 2;
        } else if (f[0] == 'l') {
            len = L_LONG;
            f++;
        } else if (f[0] == 'z') {
            len = L_SIZE;
            f++;
        } else if (f[0] == 'j') {
            len = L_MAX;
            f++;
        } else if (f[0] == 't') {
            len = L_PTRDIFF;
            f++;
        }
        char conv = *f++;
        switch (conv) {
        case 'd':
        case 'i': {
            intmax_t v;
            switch (len) {
            case L_CHAR:
                v = (signed char)va_arg(*ap, int);
                break;
            case L_SHORT:
                v = (short)va_arg(*ap, int);
                break;
            case L_LONG:
                v = va_arg(*ap, long);
                break;
            case L_LLONG:
                v = va_arg(*ap, long long);
                break;
            case L_SIZE:
            case L_PTRDIFF: /* the signed type of size_t's width */
                v = va_arg(*ap, ptrdiff_t);
                break;
            case L_MAX:
                v = va_arg(*ap, intmax_t);
                break;
            default:
                v = va_arg(*ap, int);
                break;
            }
            uintmax_t mag = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
            if (!put_int(out, cap, &pos, &s, v < 0, mag, 10, false, true))
                return SIZE_MAX;
            break;
        }
        case 'u':
        case 'x':
        case 'X': {
            uintmax_t v;
            switch (len) {
            case L_CHAR:
                v = (unsigned char)va_arg(*ap, unsigned);
                break;
            case L_SHORT:
                v = (unsigned short)va_arg(*ap, unsigned);
                break;
            case L_LONG:
                v = va_arg(*ap, unsigned long);
                break;
            case L_LLONG:
                v = va_arg(*ap, unsigned long long);
                break;
            case L_SIZE:
            case L_PTRDIFF:
                v = va_arg(*ap, size_t);
                break;
            case L_MAX:
                v = va_arg(*ap, uintmax_t);
                break;
            default:
                v = va_arg(*ap, unsigned);
                break;
            }
            if (!put_int(out, cap, &pos, &s, false, v, conv == 'u' ? 10 : 16, conv == 'X', false))
                return SIZE_MAX;
            break;
        }
        case 'c': {
            if (len != L_INT || s.zero)
                return SIZE_MAX; /* %lc: a wide character; '0': undefined */
            char c = (char)(unsigned char)va_arg(*ap, int);
            if (!put(out, cap, &pos, &s, "", 0, 0, &c, 1))
                return SIZE_MAX;
            break;
        }
        case 's': {
            if (len != L_INT || s.zero)
                return SIZE_MAX; /* %ls; '0': undefined */
            const char *str = va_arg(*ap, const char *);
            if (!str)
                return SIZE_MAX;
            size_t n = s.prec < 0 ? strlen(str) : strnlen(str, (size_t)s.prec);
            if (!put(out, cap, &pos, &s, "", 0, 0, str, n))
                return SIZE_MAX;
            break;
        }
        case '%':
            if (pos + 1 >= cap)
                return SIZE_MAX;
            out[pos++] = '%';
            break;
        default:
            return SIZE_MAX; /* floating point, %p, %n, '#', the end of the string... */
        }
    }
    out[pos] = 0;
    return pos;
}
