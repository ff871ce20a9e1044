/* This file contains the vector data load and store builtins (OpenCL C 3.0
 * section 6.15.7): vloadn/vstoren for every scalar element type (half
 * too), and the half-precision forms vload_half[n], vloada_halfn,
 * vstore_half[n] and vstorea_halfn with every rounding mode, from float
 * and double. */
#include "builtins.h"

/* Loads and stores read or write memory: not const, unlike OVL. */
#define SK_VLS __attribute__((overloadable, always_inline))
#define SK_HELPER static inline __attribute__((const, always_inline))

/* The address spaces a load reads (named ones for OpenCL C 1.2 and 3.0
 * without the generic address space; generic ones when the library is
 * compiled with that feature, for OpenCL C 2.0 programs). An empty
 * argument is the generic address space. */
#ifdef __opencl_c_generic_address_space
#define SK_GENERIC(M, ...) M(, __VA_ARGS__)
#else
#define SK_GENERIC(M, ...)
#endif
#define SK_STORE_AS(M, ...) M(__global, __VA_ARGS__) M(__local, __VA_ARGS__) \
  M(__private, __VA_ARGS__) SK_GENERIC(M, __VA_ARGS__)
#define SK_LOAD_AS(M, ...) SK_STORE_AS(M, __VA_ARGS__) \
  M(__constant, __VA_ARGS__)

/* vloadn and vstoren only promise element alignment, so the vector is
 * accessed through a typedef whose alignment is the element's. */
#define SK_UNALIGNED(T) \
  typedef T##2 __attribute__((aligned(sizeof(T)))) sk_##T##2_ua; \
  typedef T##4 __attribute__((aligned(sizeof(T)))) sk_##T##4_ua; \
  typedef T##8 __attribute__((aligned(sizeof(T)))) sk_##T##8_ua; \
  typedef T##16 __attribute__((aligned(sizeof(T)))) sk_##T##16_ua;
#define SK_ALL_TYPES(M, ...) M(char, __VA_ARGS__) M(uchar, __VA_ARGS__) \
  M(short, __VA_ARGS__) M(ushort, __VA_ARGS__) M(int, __VA_ARGS__) \
  M(uint, __VA_ARGS__) M(long, __VA_ARGS__) M(ulong, __VA_ARGS__) \
  M(float, __VA_ARGS__) M(double, __VA_ARGS__)
#define SK_UNALIGNED_EACH(T, unused) SK_UNALIGNED(T)
SK_ALL_TYPES(SK_UNALIGNED_EACH, 0)

/* ---- vloadn / vstoren: address p + offset * n ---------------------------
 * vload3/vstore3 touch exactly three elements, never a fourth. */
#define SK_VLOADN(AS, T, N) \
  T##N SK_VLS vload##N(size_t off, const AS T *p) { \
    return *(const AS sk_##T##N##_ua *)(p + off * N); \
  } \
  void SK_VLS vstore##N(T##N d, size_t off, AS T *p) { \
    *(AS sk_##T##N##_ua *)(p + off * N) = d; \
  }
#define SK_VLOAD3(AS, T) \
  T##3 SK_VLS vload3(size_t off, const AS T *p) { \
    const AS T *q = p + off * 3; \
    return (T##3)(q[0], q[1], q[2]); \
  } \
  void SK_VLS vstore3(T##3 d, size_t off, AS T *p) { \
    AS T *q = p + off * 3; \
    q[0] = d.x; q[1] = d.y; q[2] = d.z; \
  }
#define SK_VLOADS(AS, T) SK_VLOADN(AS, T, 2) SK_VLOAD3(AS, T) \
  SK_VLOADN(AS, T, 4) SK_VLOADN(AS, T, 8) SK_VLOADN(AS, T, 16)
/* Loads exist for __constant too; stores do not, hence two lists. */
#define SK_VLOAD_ONLY(AS, T, N) \
  T##N SK_VLS vload##N(size_t off, const AS T *p) { \
    return *(const AS sk_##T##N##_ua *)(p + off * N); \
  }
#define SK_VLOAD3_ONLY(AS, T) \
  T##3 SK_VLS vload3(size_t off, const AS T *p) { \
    const AS T *q = p + off * 3; \
    return (T##3)(q[0], q[1], q[2]); \
  }
#define SK_VLOADS_CONST(T, unused) SK_VLOAD_ONLY(__constant, T, 2) \
  SK_VLOAD3_ONLY(__constant, T) SK_VLOAD_ONLY(__constant, T, 4) \
  SK_VLOAD_ONLY(__constant, T, 8) SK_VLOAD_ONLY(__constant, T, 16)
#define SK_VLOADS_EACH(T, unused) SK_STORE_AS(SK_VLOADS, T)
SK_ALL_TYPES(SK_VLOADS_EACH, 0)
SK_ALL_TYPES(SK_VLOADS_CONST, 0)

/* ---- half <-> float / double conversions --------------------------------
 * Integer arithmetic only: exact for every input, independent of the
 * floating-point environment and of denormal flushing, and branch-free so
 * that loop mode vectorises it. CV converts lane-wise (a cast for
 * scalars, __builtin_convertvector for vectors). */
#define SK_CAST(x, T, N) ((T)(x))
#define SK_CONVV(x, T, N) __builtin_convertvector(x, T##N)

/* half bits -> float: normal halves re-bias the exponent, INF/NaN keep
 * their mantissa (a NaN stays a NaN), zeros and denormals are m * 2^-24
 * computed from an exact integer conversion. */
#define SK_H2F(N, CV) \
  SK_HELPER float##N sk_h2f##N(ushort##N hs) { \
    uint##N h = CV(hs, uint, N); \
    uint##N a = h & 0x7fffu; \
    uint##N e = a >> 10; \
    uint##N bits = e == (uint##N)31 ? (a << 13) | (uint##N)0x7f800000u \
                                    : (a << 13) + (uint##N)(112u << 23); \
    float##N sub = CV(a, float, N) * (float##N)0x1p-24f; \
    float##N f = e == (uint##N)0 ? sub : __builtin_astype(bits, float##N); \
    uint##N s = (h & 0x8000u) << 16; \
    return __builtin_astype(__builtin_astype(f, uint##N) | s, float##N); \
  }

/* Rounding increment (0 or 1) of the truncated half t given the dropped
 * bits r, the halfway value hw and the sign s, per rounding mode; and the
 * result of an overflow (INF when the mode rounds away from zero for this
 * sign, HALF_MAX otherwise). */
#define SK_INC_rte(U, t, r, hw, s) \
  (((r > hw) | ((r == hw) & ((t & (U)1) != (U)0))) ? (U)1 : (U)0)
#define SK_INC_rtz(U, t, r, hw, s) ((U)0)
#define SK_INC_rtp(U, t, r, hw, s) \
  (((r != (U)0) & (s == (U)0)) ? (U)1 : (U)0)
#define SK_INC_rtn(U, t, r, hw, s) \
  (((r != (U)0) & (s != (U)0)) ? (U)1 : (U)0)
#define SK_OVF_rte(U, s) ((U)0x7c00)
#define SK_OVF_rtz(U, s) ((U)0x7bff)
#define SK_OVF_rtp(U, s) (s == (U)0 ? (U)0x7c00 : (U)0x7bff)
#define SK_OVF_rtn(U, s) (s == (U)0 ? (U)0x7bff : (U)0x7c00)

/* float/double -> half bits with rounding mode MODE. F is the source
 * type, U the unsigned integer of its size; the other arguments describe
 * the source format: SH the shift bringing its sign to bit 15, MB its
 * mantissa bits, DROP = MB - 10, BIAS the exponent bias difference to half
 * (127 - 15 or 1023 - 15), SUB the constant for which a source of biased
 * exponent e and significand m (implicit bit included) is m >> (SUB - e)
 * units of 2^-24 (the denormal half's ulp), SHMAX a shift that drops every
 * significand bit, INF the source's INF bit pattern. */
#define SK_F2H(MODE, F, U, N, CV, SH, MB, BIAS, SUB, SHMAX, INF) \
  SK_HELPER ushort##N sk_##F##2h_##MODE##N(F##N f) { \
    U##N u = __builtin_astype(f, U##N); \
    U##N s = (u >> SH) & (U##N)0x8000; \
    U##N a = u & ~((U##N)1 << (SH + 15)); \
    U##N e = a >> MB; \
    /* Normal half: drop MB - 10 mantissa bits, re-bias the exponent. */ \
    U##N tn = (a >> (MB - 10)) - (U##N)((BIAS) << 10); \
    U##N rn = a & (((U##N)1 << (MB - 10)) - (U##N)1); \
    /* Denormal half: value = m * 2^(e - SUB) units of 2^-24. */ \
    U##N m = (a & (((U##N)1 << MB) - (U##N)1)) | \
             (e != (U##N)0 ? ((U##N)1 << MB) : (U##N)0); \
    U##N sh = __builtin_elementwise_min((U##N)(SUB) - e, (U##N)(SHMAX)); \
    U##N td = m >> sh; \
    U##N rd = m & (((U##N)1 << sh) - (U##N)1); \
    U##N hd = (U##N)1 << (sh - (U##N)1); \
    U##N t = e > (U##N)(BIAS) ? tn : td; \
    U##N r = e > (U##N)(BIAS) ? rn : rd; \
    U##N hw = e > (U##N)(BIAS) ? ((U##N)1 << (MB - 11)) : hd; \
    U##N h = t + SK_INC_##MODE(U##N, t, r, hw, s); \
    h = h >= (U##N)0x7c00 ? SK_OVF_##MODE(U##N, s) : h; \
    /* INF converts to INF in every mode; a NaN stays a (quiet) NaN. */ \
    U##N nan = ((a >> (MB - 10)) & (U##N)0x3ff) | (U##N)0x7e00; \
    h = a >= (U##N)(INF) ? (a == (U##N)(INF) ? (U##N)0x7c00 : nan) : h; \
    return CV(h | s, ushort, N); \
  }
#define SK_F2H_MODES(F, U, N, CV, ...) \
  SK_F2H(rte, F, U, N, CV, __VA_ARGS__) SK_F2H(rtz, F, U, N, CV, __VA_ARGS__) \
  SK_F2H(rtp, F, U, N, CV, __VA_ARGS__) SK_F2H(rtn, F, U, N, CV, __VA_ARGS__)
#define SK_HALF_HELPERS(N, CV) SK_H2F(N, CV) \
  SK_F2H_MODES(float, uint, N, CV, 16, 23, 112, 126, 25, 0x7f800000u) \
  SK_F2H_MODES(double, ulong, N, CV, 48, 52, 1008, 1051, 54, \
               0x7ff0000000000000ul)
SK_HALF_HELPERS(, SK_CAST)
SK_HALF_HELPERS(2, SK_CONVV)
SK_HALF_HELPERS(3, SK_CONVV)
SK_HALF_HELPERS(4, SK_CONVV)
SK_HALF_HELPERS(8, SK_CONVV)
SK_HALF_HELPERS(16, SK_CONVV)

/* ---- vload_half, vload_halfn, vloada_halfn ------------------------------
 * vload_halfn reads at p + offset * n with half alignment; vloada_halfn
 * with the vector's alignment, and vloada_half3 at p + offset * 4. */
/* Half data is accessed as its bit pattern, through a type that may alias
 * whatever type the program wrote it with. */
typedef ushort __attribute__((may_alias)) sk_half_bits;
typedef ushort2 __attribute__((aligned(2))) sk_half2_ua;
typedef ushort4 __attribute__((aligned(2))) sk_half4_ua;
typedef ushort8 __attribute__((aligned(2))) sk_half8_ua;
typedef ushort16 __attribute__((aligned(2))) sk_half16_ua;

#define SK_VLOAD_HALFN(AS, N) \
  float##N SK_VLS vload_half##N(size_t off, const AS half *p) { \
    return sk_h2f##N(*(const AS sk_half##N##_ua *)(p + off * N)); \
  } \
  float##N SK_VLS vloada_half##N(size_t off, const AS half *p) { \
    return sk_h2f##N(*(const AS ushort##N *)(p + off * N)); \
  }
#define SK_VLOAD_HALF3(AS, STEP, NAME) \
  float3 SK_VLS NAME(size_t off, const AS half *p) { \
    const AS sk_half_bits *q = (const AS sk_half_bits *)(p + off * STEP); \
    return sk_h2f3((ushort3)(q[0], q[1], q[2])); \
  }
#define SK_VLOAD_HALFS(AS, unused) \
  float SK_VLS vload_half(size_t off, const AS half *p) { \
    return sk_h2f(*(const AS sk_half_bits *)(p + off)); \
  } \
  SK_VLOAD_HALFN(AS, 2) SK_VLOAD_HALFN(AS, 4) SK_VLOAD_HALFN(AS, 8) \
  SK_VLOAD_HALFN(AS, 16) SK_VLOAD_HALF3(AS, 3, vload_half3) \
  SK_VLOAD_HALF3(AS, 4, vloada_half3)
SK_LOAD_AS(SK_VLOAD_HALFS, 0)

/* ---- vstore_half[n][_mode], vstorea_halfn[_mode] ------------------------
 * SUF is the name's suffix, MODE the rounding it selects (no suffix: the
 * default, round to nearest even). */
#define SK_VSTORE_HALFN(AS, F, N, SUF, MODE) \
  void SK_VLS vstore_half##N##SUF(F##N d, size_t off, AS half *p) { \
    *(AS sk_half##N##_ua *)(p + off * N) = sk_##F##2h_##MODE##N(d); \
  } \
  void SK_VLS vstorea_half##N##SUF(F##N d, size_t off, AS half *p) { \
    *(AS ushort##N *)(p + off * N) = sk_##F##2h_##MODE##N(d); \
  }
#define SK_VSTORE_HALF3(AS, F, SUF, MODE, STEP, NAME) \
  void SK_VLS NAME##SUF(F##3 d, size_t off, AS half *p) { \
    ushort3 h = sk_##F##2h_##MODE##3(d); \
    AS sk_half_bits *q = (AS sk_half_bits *)(p + off * STEP); \
    q[0] = h.x; q[1] = h.y; q[2] = h.z; \
  }
#define SK_VSTORE_HALF_MODE(AS, F, SUF, MODE) \
  void SK_VLS vstore_half##SUF(F d, size_t off, AS half *p) { \
    *(AS sk_half_bits *)(p + off) = sk_##F##2h_##MODE(d); \
  } \
  SK_VSTORE_HALFN(AS, F, 2, SUF, MODE) SK_VSTORE_HALFN(AS, F, 4, SUF, MODE) \
  SK_VSTORE_HALFN(AS, F, 8, SUF, MODE) SK_VSTORE_HALFN(AS, F, 16, SUF, MODE) \
  SK_VSTORE_HALF3(AS, F, SUF, MODE, 3, vstore_half3) \
  SK_VSTORE_HALF3(AS, F, SUF, MODE, 4, vstorea_half3)
#define SK_VSTORE_HALFS(AS, F) \
  SK_VSTORE_HALF_MODE(AS, F, , rte) SK_VSTORE_HALF_MODE(AS, F, _rte, rte) \
  SK_VSTORE_HALF_MODE(AS, F, _rtz, rtz) SK_VSTORE_HALF_MODE(AS, F, _rtp, rtp) \
  SK_VSTORE_HALF_MODE(AS, F, _rtn, rtn)
SK_STORE_AS(SK_VSTORE_HALFS, float)
SK_STORE_AS(SK_VSTORE_HALFS, double)

/* ---- vloadn / vstoren of halfn (cl_khr_fp16) ----------------------------
 * Through the bit-pattern types above (element alignment), reinterpreted
 * as half vectors. */
#define SK_VLOAD_HALFV(AS, N) \
  half##N SK_VLS vload##N(size_t off, const AS half *p) { \
    return __builtin_astype(*(const AS sk_half##N##_ua *)(p + off * N), \
                            half##N); \
  }
#define SK_VSTORE_HALFV(AS, N) \
  void SK_VLS vstore##N(half##N d, size_t off, AS half *p) { \
    *(AS sk_half##N##_ua *)(p + off * N) = __builtin_astype(d, ushort##N); \
  }
#define SK_VLOAD_HALFV_ALL(AS, unused) \
  SK_VLOAD_HALFV(AS, 2) SK_VLOAD_HALFV(AS, 4) SK_VLOAD_HALFV(AS, 8) \
  SK_VLOAD_HALFV(AS, 16) \
  half3 SK_VLS vload3(size_t off, const AS half *p) { \
    const AS sk_half_bits *q = (const AS sk_half_bits *)(p + off * 3); \
    return __builtin_astype((ushort3)(q[0], q[1], q[2]), half3); \
  }
#define SK_VSTORE_HALFV_ALL(AS, unused) \
  SK_VSTORE_HALFV(AS, 2) SK_VSTORE_HALFV(AS, 4) SK_VSTORE_HALFV(AS, 8) \
  SK_VSTORE_HALFV(AS, 16) \
  void SK_VLS vstore3(half3 d, size_t off, AS half *p) { \
    ushort3 h = __builtin_astype(d, ushort3); \
    AS sk_half_bits *q = (AS sk_half_bits *)(p + off * 3); \
    q[0] = h.x; q[1] = h.y; q[2] = h.z; \
  }
SK_LOAD_AS(SK_VLOAD_HALFV_ALL, 0)
SK_STORE_AS(SK_VSTORE_HALFV_ALL, 0)
