#!/usr/bin/env python3
"""This file contains the generator of the explicit conversion builtins
(OpenCL C 3.0 section 6.4.3, convert_<dest>[_sat][_rte|_rtz|_rtp|_rtn]):
it writes one OpenCL C file with every (source, destination, width,
saturation, rounding) combination, run by builtins/CMakeLists.txt at build
time into the build tree.

Usage: gen_convert.py OUTPUT.cl

Every function is branch-free (selects, element-wise builtins and
__builtin_convertvector) so that loop mode vectorises across work-items.
Rounding modes never touch the floating-point environment: an integer
destination rounds with roundeven/ceil/floor first, a floating-point
destination converts with the default (nearest-even) rounding and then moves
one ulp by bit arithmetic when the exact comparison of the result with the
source shows the directed mode wants the other neighbour.
"""

import sys
from fractions import Fraction

# name: (is_float, size in bits, signed); the precision of the floating-point
# types is in PRECISION.
TYPES = {
    'char': (False, 8, True), 'uchar': (False, 8, False),
    'short': (False, 16, True), 'ushort': (False, 16, False),
    'int': (False, 32, True), 'uint': (False, 32, False),
    'long': (False, 64, True), 'ulong': (False, 64, False),
    'float': (True, 32, True), 'double': (True, 64, True),
}
ORDER = ['char', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong',
         'float', 'double']
PRECISION = {'float': 24, 'double': 53}   # significand bits incl. implicit
MASK = {8: 'char', 16: 'short', 32: 'int', 64: 'long'}
WIDTHS = [1, 2, 3, 4, 8, 16]
MODES = ['', '_rte', '_rtz', '_rtp', '_rtn']
ROUND = {'rte': '__builtin_elementwise_roundeven',
         'rtp': '__builtin_elementwise_ceil',
         'rtn': '__builtin_elementwise_floor', 'rtz': None}


def is_float(t):
    return TYPES[t][0]


def bits(t):
    return TYPES[t][1]


def int_range(t):
    _, b, signed = TYPES[t]
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if signed else (0,
                                                                 (1 << b) - 1)


def vt(t, n):
    """OpenCL C type name of t with n lanes (n == 1: the scalar)."""
    return t if n == 1 else f'{t}{n}'


def mask_t(t, n):
    """The signed integer type a comparison of t operands yields."""
    return vt(MASK[bits(t)], n)


def cvt(expr, t, n):
    if n == 1:
        return f'(({t})({expr}))'
    return f'__builtin_convertvector({expr}, {vt(t, n)})'


def cmp(a, op, b, t, n):
    """a op b for operands of type t, as a mask of all-ones / zero lanes
    (scalars compare to 0/1, so they are negated into the same form)."""
    if n == 1:
        return f'(-({mask_t(t, 1)})({a} {op} {b}))'
    return f'({a} {op} {b})'


def mask_cvt(expr, from_t, to_t, n):
    """Re-sizes a mask of from_t-sized lanes to to_t-sized lanes."""
    if bits(from_t) == bits(to_t):
        return expr
    return cvt(expr, MASK[bits(to_t)], n)


def int_lit(v, t):
    if v == -(1 << 63):
        return '((long)(-0x7fffffffffffffffL - 1))'
    suffix = 'UL' if v >= 0 else 'L'
    return f'(({t})({"-" if v < 0 else ""}0x{abs(v):x}{suffix}))'


def float_lit(v, t):
    """v (a Fraction or int exactly representable in t) as a hex literal."""
    s = float(Fraction(v)).hex()
    return s + ('f' if t == 'float' else '')


def largest_float_le(v, t):
    """The largest t value <= the integer v > 0."""
    p = PRECISION[t]
    if v.bit_length() <= p:
        return v
    drop = v.bit_length() - p
    return (v >> drop) << drop


# ---------------------------------------------------------------------------
# Bodies: each returns a list of statements computing the result of type
# vt(d, n) from x of type vt(s, n).

def body_id(s, d, n):
    return ['return x;']


def body_plain(s, d, n):
    return [f'return {cvt("x", d, n)};']


def body_int_sat(s, d, n):
    """Integer to integer, clamping to the destination's range first."""
    smin, smax = int_range(s)
    dmin, dmax = int_range(d)
    V = vt(s, n)
    out = [f'{V} y = x;']
    if dmin > smin:
        lo = int_lit(dmin, s)
        out.append(f'y = __builtin_elementwise_max(y, ({V}){lo});')
    if dmax < smax:
        hi = int_lit(dmax, s)
        out.append(f'y = __builtin_elementwise_min(y, ({V}){hi});')
    out.append(f'return {cvt("y", d, n)};')
    return out


def step_lines(d, n, mode):
    """Given f (nearest-even result, type vt(d, n)) and the masks above /
    below (f > source, f < source exactly, d-sized lanes), moves f one ulp
    to the neighbour the directed mode asks for. An ulp step is +-1 on the
    bit pattern; the sign decides which way "up" is."""
    m = mask_t(d, n)
    sh = bits(d) - 1
    out = [f'{m} b = __builtin_astype(f, {m});',
           f'{m} neg = b >> {sh};']
    if mode == 'rtp':
        out.append('b += below & (neg | 1);')
    elif mode == 'rtn':
        out.append('b -= above & (neg | 1);')
    else:  # rtz: toward zero is one less magnitude, i.e. b - 1, either sign
        out.append('b += (above & ~neg) | (below & neg);')
    out.append(f'return __builtin_astype(b, {vt(d, n)});')
    return out


def body_int_to_float(s, d, n, mode):
    """Inexact integer to floating-point with a directed rounding mode."""
    lo, hi = int_range(s)
    p2 = hi + 1                       # a power of two, exact in d
    md, ms = mask_t(d, n), mask_t(s, n)
    gt, lt = cmp('fi', '>', 'x', s, n), cmp('fi', '<', 'x', s, n)
    out = [f'{vt(d, n)} f = {cvt("x", d, n)};',
           '/* f is integral; 2^bits (no source value) is above x. */',
           f'{md} big = {cmp("f", ">=", float_lit(p2, d), d, n)};',
           f'{vt(s, n)} fi = {cvt(f"big ? ({vt(d, n)})0 : f", s, n)};',
           f'{ms} bigs = {mask_cvt("big", d, s, n)};',
           f'{md} above = {mask_cvt(gt + " | bigs", s, d, n)};',
           f'{md} below = {mask_cvt(lt + " & ~bigs", s, d, n)};']
    return out + step_lines(d, n, mode)


def body_double_to_float(s, d, n, mode):
    """double to float with a directed rounding mode (NaN compares false
    both ways and stays NaN; an overflow to INF steps back to FLT_MAX)."""
    md = mask_t(d, n)
    gt, lt = cmp('back', '>', 'x', s, n), cmp('back', '<', 'x', s, n)
    out = [f'{vt(d, n)} f = {cvt("x", d, n)};',
           f'{vt(s, n)} back = {cvt("f", s, n)};',
           f'{md} above = {mask_cvt(gt, s, d, n)};',
           f'{md} below = {mask_cvt(lt, s, d, n)};']
    return out + step_lines(d, n, mode)


def body_float_to_int(s, d, n, mode, sat):
    """Floating-point to integer: round per mode, then convert; _sat clamps
    to the destination's range and maps NaN to 0. The clamp keeps every
    lane in range before the conversion, so no lane is poison."""
    fn = ROUND[mode]
    r = f'{fn}(x)' if fn else 'x'
    if not sat:
        return [f'return {cvt(r, d, n)};']
    dmin, dmax = int_range(d)
    hif = largest_float_le(dmax, s)
    V = vt(s, n)
    lo, hi = f'({V}){float_lit(dmin, s)}', f'({V}){float_lit(hif, s)}'
    out = [f'{V} r = {r};',
           f'r = r < {lo} ? {lo} : r;',
           f'r = r > {hi} ? {hi} : r;',
           f'r = x != x ? ({V})0 : r;',
           f'{vt(d, n)} y = {cvt("r", d, n)};']
    if hif != dmax:
        # The destination's maximum is not a value of s: everything at or
        # above the next power of two saturates to it.
        big = mask_cvt(cmp('x', '>=', float_lit(dmax + 1, s), s, n), s, d, n)
        out.append(f'y = {big} ? ({vt(d, n)}){int_lit(dmax, d)} : y;')
    out.append('return y;')
    return out


def classify(s, d, sat, mode):
    """(category key, body function) for one public conversion; public
    functions whose semantics coincide share a category."""
    if s == d:
        return 'id', body_id
    if not is_float(s) and not is_float(d):
        smin, smax = int_range(s)
        dmin, dmax = int_range(d)
        if sat and (smin < dmin or smax > dmax):
            return 'sat', body_int_sat
        return 'plain', body_plain
    m = mode[1:] if mode else ''
    if not is_float(s):  # integer to floating point
        mag = bits(s) - (1 if TYPES[s][2] else 0)
        if mag <= PRECISION[d] or m in ('', 'rte'):
            return 'plain', body_plain
        return m, lambda s, d, n: body_int_to_float(s, d, n, m)
    if is_float(d):  # floating point to floating point
        if s == 'float' or m in ('', 'rte'):
            return 'plain', body_plain
        return m, lambda s, d, n: body_double_to_float(s, d, n, m)
    m = m or 'rtz'
    key = m + ('_sat' if sat else '')
    return key, lambda s, d, n: body_float_to_int(s, d, n, m, sat)


HEADER = '''\
/* This file contains the explicit conversions convert_<dest>[_sat][_rte|
 * _rtz|_rtp|_rtn] (OpenCL C 3.0 section 6.4.3) for every pair of char,
 * uchar, short, ushort, int, uint, long, ulong, float and double, scalar and
 * 2, 3, 4, 8, 16 lanes. Generated by builtins/gen_convert.py: edit that. */
#include "builtins.h"

#define SK_CVT __attribute__((overloadable, const, always_inline))
#define SK_CVT_HELPER static inline __attribute__((const, always_inline))
'''


def generate():
    out = [HEADER]
    for n in WIDTHS:
        for s in ORDER:
            for d in ORDER:
                out.extend(generate_pair(s, d, n))
    return '\n'.join(out) + '\n'


def generate_pair(s, d, n):
    """The helpers and public functions converting vt(s, n) to vt(d, n)."""
    out, helpers = [], {}
    sats = ['', '_sat'] if not is_float(d) else ['']
    for sat in sats:
        for mode in MODES:
            key, body = classify(s, d, sat, mode)
            helper = f'sk_cvt_{s}_{d}_{n}_{key}'
            if key not in helpers:
                helpers[key] = helper
                out.append(f'SK_CVT_HELPER {vt(d, n)} {helper}'
                           f'({vt(s, n)} x) {{')
                out.extend('  ' + line for line in body(s, d, n))
                out.append('}')
            name = f'convert_{vt(d, n)}{sat}{mode}'
            out.append(f'{vt(d, n)} SK_CVT {name}({vt(s, n)} x) '
                       f'{{ return {helper}(x); }}')
    return out


def main():
    if len(sys.argv) != 2:
        sys.stderr.write('usage: gen_convert.py OUTPUT.cl\n')
        return 2
    text = generate()
    with open(sys.argv[1], 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
