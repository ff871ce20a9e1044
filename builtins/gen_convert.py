#!/usr/bin/env python3
"""This file contains the generator of the explicit conversion builtins
(OpenCL C 3.0 section 6.4.3, convert_<dest>[_sat][_rte|_rtz|_rtp|_rtn],
half included with cl_khr_fp16):
it writes one OpenCL C file with every (source, destination, width,
saturation, rounding) combination, run by builtins/CMakeLists.txt at build
time into the build tree.

Usage: gen_convert.py OUTPUT.cl [HALF_OUTPUT.cl]

With HALF_OUTPUT.cl, the conversions to and from half go there (with
private copies of the float helpers they call), so that the build can
keep them in a bitcode of their own, linked only into programs that use
half; without it, everything is in OUTPUT.cl.

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
    'half': (True, 16, True),
}
ORDER = ['char', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong',
         'float', 'double']
PRECISION = {'float': 24, 'double': 53, 'half': 11}   # incl. implicit bit
# The pairs with a half side, in an order where every helper a body calls
# is defined before it.
HALF_PAIRS = ([('float', 'half'), ('half', 'half')] +
              [('half', t) for t in ORDER] +
              [(t, 'half') for t in ORDER if t != 'float'])
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
    return s + ('f' if t in ('float', 'half') else '')


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
        out.append(f'b += below & (neg | ({m})1);')
    elif mode == 'rtn':
        out.append(f'b -= above & (neg | ({m})1);')
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


# ---------------------------------------------------------------------------
# half (cl_khr_fp16): every conversion goes through float, reusing the float
# helpers generated before the half pairs. A half is exactly a float, so
# half -> T is float -> T of the converted value. T -> half rounds to
# nearest even with the plain conversion where that is one rounding (an
# integer beyond float's 24 bits is beyond half's range, so its float
# rounding cannot change the half result); a directed mode rounds to float
# in that mode first and then to half in that mode, which equals one
# directed rounding because the half values are float values. double ->
# half to nearest: see body_double_to_half_rte.

def body_from_half(s, d, n, key):
    return [f'return sk_cvt_float_{d}_{n}_{key}({cvt("x", "float", n)});']


def body_to_half_via_float(s, d, n, fkey, mode):
    return [f'{vt("float", n)} t = sk_cvt_{s}_float_{n}_{fkey}(x);',
            f'return sk_cvt_float_half_{n}_{mode}(t);']


def body_double_to_half_rte(s, d, n):
    """double to half, nearest even, as double -> float rounded to odd ->
    half: the float keeps 13 more bits than half, so the final rounding
    sees the same side of every half midpoint as the exact value (a value
    between two floats becomes the odd one, never a midpoint)."""
    mi, ft = mask_t('float', n), vt('float', n)
    gt, lt = cmp('back', '>', 'x', s, n), cmp('back', '<', 'x', s, n)
    return [f'{ft} f = {cvt("x", "float", n)};',
            f'{vt(s, n)} back = {cvt("f", s, n)};',
            f'{mi} above = {mask_cvt(gt, s, "float", n)};',
            f'{mi} below = {mask_cvt(lt, s, "float", n)};',
            f'{mi} b = __builtin_astype(f, {mi});',
            f'{mi} step = ((b & 1) - 1) & ((b >> 31) | 1);',
            'b += (below & step) - (above & step);',
            f'return {cvt(f"__builtin_astype(b, {ft})", "half", n)};']


def classify_half(s, d, sat, mode):
    """classify() for the pairs with a half side."""
    m = mode[1:] if mode else ''
    if s == d:
        return 'id', body_id
    if s == 'half':
        key = classify('float', d, sat, mode)[0]
        return key, lambda s, d, n: body_from_half(s, d, n, key)
    if s == 'float':
        if m in ('', 'rte'):
            return 'plain', body_plain
        return m, lambda s, d, n: body_double_to_float(s, d, n, m)
    if m in ('', 'rte'):
        if s == 'double':
            return 'rte', body_double_to_half_rte
        return 'plain', body_plain
    if not is_float(s) and bits(s) - (1 if TYPES[s][2] else 0) <= 11:
        return 'plain', body_plain
    fkey = classify(s, 'float', '', mode)[0]
    return m, lambda s, d, n: body_to_half_via_float(s, d, n, fkey, m)


def classify(s, d, sat, mode):
    """(category key, body function) for one public conversion; public
    functions whose semantics coincide share a category."""
    if 'half' in (s, d):
        return classify_half(s, d, sat, mode)
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
 * uchar, short, ushort, int, uint, long, ulong, float, double and half,
 * scalar and 2, 3, 4, 8, 16 lanes. Generated by builtins/gen_convert.py: edit that. */
#include "builtins.h"

#define SK_CVT __attribute__((overloadable, const, always_inline))
#define SK_CVT_HELPER static inline __attribute__((const, always_inline))
'''


def generate_half(helpers_too):
    """The half pairs; they call the float helpers (float -> half first,
    which the others call), emitted here as well when helpers_too."""
    out = ['#ifdef cl_khr_fp16']
    for n in WIDTHS:
        if helpers_too:
            for t in ORDER:
                out.extend(generate_pair('float', t, n, False))
                if t != 'float':
                    out.extend(generate_pair(t, 'float', n, False))
        for s, d in HALF_PAIRS:
            out.extend(generate_pair(s, d, n))
    out.append('#endif')
    return out


def generate(split):
    out = [HEADER]
    for n in WIDTHS:
        for s in ORDER:
            for d in ORDER:
                out.extend(generate_pair(s, d, n))
    if not split:
        out.extend(generate_half(False))
    return '\n'.join(out) + '\n'


def generate_pair(s, d, n, public=True):
    """The helpers and public functions converting vt(s, n) to vt(d, n)
    (only the helpers when not public)."""
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
            if public:
                out.append(f'{vt(d, n)} SK_CVT {name}({vt(s, n)} x) '
                           f'{{ return {helper}(x); }}')
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write('usage: gen_convert.py OUTPUT.cl [HALF_OUTPUT.cl]\n')
        return 2
    split = len(sys.argv) == 3
    with open(sys.argv[1], 'w') as f:
        f.write(generate(split))
    if split:
        with open(sys.argv[2], 'w') as f:
            f.write(HEADER + '\n'.join(generate_half(True)) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
