/* This file contains the kernel side of images (OpenCL C 3.0 section
 * 6.15.15, "Image Read and Write Functions" and "Image Query Functions"):
 * where a pixel lies (through the skein_image descriptor an image
 * argument points at, builtins/abi.h), every format's conversion to and
 * from what a kernel sees (the Conversion Rules), and sampling: the
 * addressing modes, normalised coordinates, nearest and linear filtering
 * ("Image Addressing and Filtering"). image.cl holds the overloads for
 * every image type and calls the functions here. It is C because only C
 * can see the descriptor behind an image value or the bits behind a
 * sampler_t (OpenCL C has no cast from either). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include "abi.h"
#include "image_channels.h"

/* The -ffake-address-space-map numbers of the front end: an image value
 * is a global pointer (to its skein_image), a sampler_t a constant one
 * whose address is the sampler_t bits. */
#define AS_GLOBAL __attribute__((address_space(1)))
#define AS_CONSTANT __attribute__((address_space(2)))

/* OpenCL C's float4, int4 and uint4: the same IR types as image.cl's. */
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef unsigned uint4 __attribute__((ext_vector_type(4)));

#define INLINE static inline __attribute__((always_inline))
#define NOINLINE static __attribute__((noinline))
/* The reads and writes image.cl calls: inlined into the kernel, so that
 * the image type (a constant argument), a constant sampler and the
 * common formats' conversions fold into straight-line code. */
#define ENTRY __attribute__((always_inline))

/* Coordinates and weights are computed as the specification writes them,
 * each operation rounded to float (no fused multiply-adds), so a host
 * that evaluates the same formulas gets the same pixels. */
#pragma STDC FP_CONTRACT OFF

/* ---- Handles ------------------------------------------------------------ */

/* What image.cl passes for an image: its value, which is the address of
 * the image's skein_image. One function per image type and access, since
 * OpenCL C declares each type apart; all return their argument. */
#define HANDLE(tag)                                                        \
  const AS_GLOBAL void *__skein_image_##tag(const AS_GLOBAL void *image) { \
    return image;                                                          \
  }
#define HANDLES(tag) HANDLE(tag##_ro) HANDLE(tag##_wo) HANDLE(tag##_rw)
HANDLES(1d)
HANDLES(1db)
HANDLES(1da)
HANDLES(2d)
HANDLES(2da)
HANDLES(3d)
HANDLES(2dd)
HANDLES(2dad)

/* A sampler_t's value is its bits (SKEIN_SAMPLER_*), as a pointer. */
uint32_t __skein_sampler_bits(const AS_CONSTANT void *sampler) {
  return (uint32_t)(uintptr_t)sampler;
}

/* Clang turns a sampler_t constant of the program (program scope or
 * kernel scope) into a call of this function with the constant's value:
 * the value is already the bits. */
AS_CONSTANT void *__translate_sampler_initializer(int bits) {
  return (AS_CONSTANT void *)(uintptr_t)(uint32_t)bits;
}

/* An address-space cast, not a round trip through an integer: the
 * optimiser then knows the descriptor from the image value (its loads
 * can be hoisted where the image value is known dereferenceable). */
INLINE const skein_image *desc_of(const AS_GLOBAL void *image) {
  return (const skein_image *)image;
}

/* ---- Queries ------------------------------------------------------------ */

/* The image queries of image.cl: which is one of QUERY_*. */
enum {
  QUERY_WIDTH, QUERY_HEIGHT, QUERY_DEPTH, QUERY_ARRAY_SIZE,
  QUERY_CHANNEL_TYPE, QUERY_CHANNEL_ORDER,
};
uint64_t __skein_image_query(const AS_GLOBAL void *image, int which) {
  const skein_image *d = desc_of(image);
  switch (which) {
  case QUERY_WIDTH:
    return d->width;
  case QUERY_HEIGHT:
    return d->height;
  case QUERY_DEPTH:
    return d->depth;
  case QUERY_ARRAY_SIZE:
    return d->array_size;
  case QUERY_CHANNEL_TYPE:
    return d->channel_type;
  default:
    return d->channel_order;
  }
}

/* ---- Where a pixel lies ------------------------------------------------- */

/* An image's channel order and data type as one 64-bit key (the two
 * fields are adjacent in skein_image: grid_of reads both at once). */
#define FORMAT_KEY(order, type) ((uint64_t)(type) << 32 | (uint64_t)(order))
_Static_assert(__builtin_offsetof(skein_image, channel_type) ==
                   __builtin_offsetof(skein_image, channel_order) + 4,
               "grid_of reads channel_order and channel_type at once");

/* Pixels are addressed as (x, y, z) with z the slice of a 3D image or the
 * layer of an array (a 1D array's layer is its z here: its y is 0), so
 * that pixel (x, y, z) is at data + x * element_size + y * row_pitch +
 * z * slice_pitch for every type (the slice pitch of an array is its
 * layer pitch). extent[i] is the number of pixels along axis i.
 *
 * Pixel indices, extents and the guessed column are 32-bit: every
 * extent fits (the device's limits: 65536 for 2D, 8192 for 3D and
 * arrays, and CL_DEVICE_IMAGE_MAX_BUFFER_SIZE at most INT32_MAX pixels,
 * runtime/core/image.c), a kernel's integer coordinates are ints, and a
 * float coordinate's index is kept within +-2^30 (floor_int). Once a
 * work-item loop is vectorised, a 64-bit index takes two registers per
 * 16 lanes for every add, compare and select of the border tests and
 * clamps, and a sign extension besides: in the sampler-less R8 copy's
 * loop (64 pixels an iteration) the 64-bit index work was about half of
 * its 170 instructions. */
typedef struct grid {
  const skein_image *d;
  int32_t extent[3];
  int dims;          /* axes the sampler addresses: 1, 2 or 3 */
  int layer_axis;    /* 2 for an array (its layer), else -1 */
  uint32_t type;     /* CL_MEM_OBJECT_IMAGE* */
  /* The descriptor's fields that every access needs. */
  unsigned char *data;
  uint64_t row_pitch, slice_pitch, element_size;
  uint64_t key;      /* FORMAT_KEY(channel order, data type) */
  int32_t lane_x;    /* __skein_image_lane_x(): the guessed column */
} grid;

/* The image's format as one 64-bit key, FORMAT_KEY(channel order, data
 * type) (the two fields are adjacent in skein_image). Every access reads
 * it through one of these calls, which the compiler's image pass
 * (compiler/image_version.cpp) replaces: by a constant in the copies of
 * a work-item loop it versions on the format, by a load of the key
 * elsewhere. The reads and writes of floats (read_imagef/h,
 * write_imagef/h) call the _f one, those of integers the _i one. Kept
 * out of line so that the pass finds every call; without the pass each
 * is a load. */
#define KEY_FUNCTION(name)                                                 \
  __attribute__((noinline)) uint64_t name(const AS_GLOBAL void *image) {  \
    uint64_t key;                                                          \
    __builtin_memcpy(&key,                                                 \
                     (const AS_GLOBAL char *)image +                      \
                         __builtin_offsetof(skein_image, channel_order),  \
                     8);                                                   \
    return key;                                                            \
  }
KEY_FUNCTION(__skein_image_key_f)
KEY_FUNCTION(__skein_image_key_i)

/* The global x id of the work-item that reads, as a guess of the column
 * it samples: image filters read their own pixel or its neighbours, and
 * a read whose column is the guess takes its address from the id, which
 * the loop vectoriser sees run consecutively across work-items (one
 * contiguous load for 16 work-items instead of a gather of 16 addresses
 * it cannot see the order of, through floating-point coordinates and
 * clamps). Any value is correct, the guess only chooses which of two
 * equal addresses a read uses. The image pass replaces every call: by
 * its argument, get_global_id(0), in the work-item loops it versions on
 * the format, by INT32_MIN (no column: grid_of truncates the value to
 * 32 bits, and INT32_MIN + 1, a linear read's upper column, is no column
 * either) elsewhere, where the id is then dead code; without the pass it
 * is no column. A truncated id is still a guess (any value is correct).
 * Weak, so that the builtins' own optimisation cannot see its value and
 * fold the guess away before the pass has replaced the calls. */
__attribute__((noinline, weak)) int64_t __skein_image_lane_x(int64_t id) {
  (void)id;
  return INT32_MIN;
}

/* OpenCL C's get_global_id (Itanium-mangled, as Clang emits it), which
 * the work-group function generator lowers in every execution mode. */
__attribute__((const)) uint64_t _Z13get_global_idj(uint32_t dim);

/* An extent of the descriptor as a 32-bit index bound. Every extent is
 * below 2^31 (see grid); the mask says so to the optimiser, so that an
 * unsigned test of a constant column INT32_MIN against it (texel_f's
 * guessed column where there is no guess) folds to false. */
INLINE int32_t extent_of(uint64_t n) { return (int32_t)(n & INT32_MAX); }

/* The grid of image value `image` of type `type` (CL_MEM_OBJECT_IMAGE*),
 * which image.cl passes as a constant (each overload knows its image
 * type), so that once inlined the grid's shape folds away; `kind` 0 for
 * an access of floats, 1 for one of integers (a constant too). */
INLINE grid grid_of(const AS_GLOBAL void *image, uint32_t type, int kind) {
  const skein_image *d = desc_of(image);
  uint64_t key = kind ? __skein_image_key_i(image) : __skein_image_key_f(image);
  grid g = {d,
            {extent_of(d->width), extent_of(d->height), extent_of(d->depth)},
            1,
            -1,
            type,
            (unsigned char *)d->data,
            d->row_pitch,
            d->slice_pitch,
            d->element_size,
            key,
            kind ? INT32_MIN
                 : (int32_t)__skein_image_lane_x(
                       (int64_t)_Z13get_global_idj(0))};
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    g.extent[1] = 1;
    g.extent[2] = extent_of(d->array_size);
    g.layer_axis = 2;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    g.extent[2] = extent_of(d->array_size);
    g.dims = 2;
    g.layer_axis = 2;
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    g.dims = 2;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    g.dims = 3;
    break;
  default: /* 1D, 1D buffer */
    break;
  }
  return g;
}

/* A kernel's coordinate vector as (x, y, z) of the grid: a 1D array's
 * layer is its coordinate's y. */
INLINE void grid_coords_i(const grid *g, int4 c, int32_t out[3]) {
  out[0] = c.x;
  out[1] = g->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : c.y;
  out[2] = g->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? c.y : c.z;
}

INLINE void grid_coords_f(const grid *g, float4 c, float out[3]) {
  out[0] = c.x;
  out[1] = g->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0.0f : c.y;
  out[2] = g->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? c.y : c.z;
}

/* Whether p lies inside the image: every axis tested without
 * short-circuits (one branch), each as one unsigned comparison (an
 * extent is below 2^31, so a negative index compares above it). Signed
 * tests against 0 and the extent were two vector comparisons per axis,
 * and InstCombine merged the sign tests of x and y into a vector or of
 * the two (y uniform in a row): in the vectorised sampler-less R8 copy,
 * 20 of 123 instructions per 64 pixels. */
INLINE int inside(const grid *g, const int32_t p[3]) {
  return ((uint32_t)p[0] < (uint32_t)g->extent[0]) &
         ((uint32_t)p[1] < (uint32_t)g->extent[1]) &
         ((uint32_t)p[2] < (uint32_t)g->extent[2]);
}

/* The bytes of one pixel: a constant for the formats that convert
 * inline, so that where the key is a constant (a work-item loop versioned
 * on the format) consecutive x are consecutive pixels to the vectoriser. */
INLINE uint64_t pixel_bytes(const grid *g) {
  switch (g->key) {
  case FORMAT_KEY(CL_R, CL_UNORM_INT8):
    return 1;
  case FORMAT_KEY(CL_RGBA, CL_UNORM_INT8):
  case FORMAT_KEY(CL_BGRA, CL_UNORM_INT8):
  case FORMAT_KEY(CL_RGBA, CL_UNSIGNED_INT8):
  case FORMAT_KEY(CL_R, CL_FLOAT):
    return 4;
  case FORMAT_KEY(CL_RGBA, CL_FLOAT):
  case FORMAT_KEY(CL_RGBA, CL_UNSIGNED_INT32):
  case FORMAT_KEY(CL_RGBA, CL_SIGNED_INT32):
    return 16;
  default:
    return g->element_size;
  }
}

/* The address of pixel p (inside the image). The indices are widened
 * with their sign (they are not negative here): a vectorised gather
 * then takes 32-bit indices, 16 lanes to an instruction. */
INLINE unsigned char *pixel_at(const grid *g, const int32_t p[3]) {
  return g->data + (uint64_t)(int64_t)p[0] * pixel_bytes(g) +
         (uint64_t)(int64_t)p[1] * g->row_pitch +
         (uint64_t)(int64_t)p[2] * g->slice_pitch;
}

/* The address of pixel q (inside the image, q[0] the guessed column) of
 * a raw_format image, as a global pointer (load_raw_guessed): the
 * image's data cast before the offsets are added and the column an
 * index of a pointer to the pixel's type, zero-extended, so that the
 * vectoriser sees consecutive columns at consecutive addresses (an
 * explicit column * 4 of sign-extended 32-bit columns became shifts it
 * cannot follow: the pixel loads of RGBA8 and R FLOAT were gathers). */
INLINE const AS_GLOBAL unsigned char *guessed_at(const grid *g,
                                                const int32_t q[3]) {
  const AS_GLOBAL unsigned char *row =
      (const AS_GLOBAL unsigned char *)g->data +
      (uint64_t)(int64_t)q[1] * g->row_pitch +
      (uint64_t)(int64_t)q[2] * g->slice_pitch;
  uint64_t column = (uint32_t)q[0];
  switch (pixel_bytes(g)) {
  case 1:
    return row + column;
  case 4:
    return (const AS_GLOBAL unsigned char *)((const AS_GLOBAL uint32_t *)row +
                                             column);
  default: /* 16 */
    return (const AS_GLOBAL unsigned char *)((const AS_GLOBAL uint4 *)row +
                                             column);
  }
}

/* i clamped to 0..n - 1 (n is at least 1): a maximum and a minimum, in
 * the form InstCombine makes smax and smin of (the nested choice on i
 * that this replaced was four vector instructions, a compare, a blend,
 * a shift and an and-not, per clamped coordinate). */
INLINE int32_t clamp_edge(int32_t i, int32_t n) {
  int32_t t = i > 0 ? i : 0;
  return t < n - 1 ? t : n - 1;
}

/* floor(f) as an integer, kept within +-2^30 (any pixel index of an
 * image lies well inside; NaN gives -2^30) so the conversion is defined
 * and the sums after it cannot overflow. */
INLINE int32_t floor_int(float f) {
  /* Selects, not branches: a coordinate that does not vary in a
   * work-item loop (a row's y) is then straight-line code that LICM
   * hoists out of it, and its pixels' rows are invariant addresses. */
  f = __builtin_floorf(f);
  f = f > 0x1p30f ? 0x1p30f : f;
  f = f > -0x1p30f ? f : -0x1p30f; /* NaN too */
  return (int32_t)f;
}

/* floor_int(u) for a nearest read's index along an axis (u the
 * unnormalised coordinate, before the addressing mode). Out of line and
 * weak for the image pass (compiler/image_centres.cpp), which finds every
 * call: where u is a pixel's centre computed from an int x, as image
 * filters write it (`convert_float(x) + 0.5f`, or that divided by the
 * extent and multiplied back by the sampler), the index is x itself,
 * and the pass puts x there (kept within the extents' bounds), sparing
 * every vectorised pixel the float round trip; elsewhere it inlines
 * this body. Without the pass it is a call. */
__attribute__((noinline, weak)) int32_t __skein_image_nearest_index(float u) {
  return floor_int(u);
}

/* An array's layer from its coordinate: rounded to nearest even, clamped
 * to the layers ("always CLK_ADDRESS_CLAMP_TO_EDGE"). */
INLINE int32_t layer_of(float f, int32_t layers) {
  int32_t l = floor_int(__builtin_rintf(f));
  return clamp_edge(l, layers);
}

/* ---- Conversions of one channel (the Conversion Rules) ------------------ */

/* Half bits to float, exactly (denormals, infinities and NaN kept). */
INLINE float half_to_float(uint32_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | mant << 13;
  } else if (exp) {
    bits = sign | (exp + 112) << 23 | mant << 13;
  } else {
    /* A denormal (or zero): mant * 2^-24, exact in float. */
    float f = (float)mant * 0x1p-24f;
    return sign ? -f : f;
  }
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

/* Float to half bits, rounded to nearest even (what write_imagef and
 * write_imageh store in a CL_HALF_FLOAT image). */
INLINE uint32_t float_to_half(float f) {
  uint32_t x;
  __builtin_memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN: quiet, top payload bits kept */
    return sign | 0x7e00u | ((a >> 13) & 0x3ff);
  if (a >= 0x477ff000u) /* at least 65520 after rounding: infinity */
    return sign | 0x7c00u;
  if (a < 0x38800000u) {
    /* Below the smallest normal half: a denormal in units of 2^-24, the
     * float's value times 2^24 rounded to even (exact: one rounding). */
    float v;
    __builtin_memcpy(&v, &a, 4);
    return sign | (uint32_t)__builtin_rintf(v * 0x1p24f);
  }
  uint32_t h = (a - 0x38000000u) >> 13, rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
    h++;
  return sign | h;
}

/* convert_<int>_sat_rte(f) for the range lo..hi: NaN gives 0. */
INLINE int32_t sat_rte(float f, float lo, float hi) {
  f = f == f ? f : 0.0f; /* selects, no branches: vectorisable */
  f = f < lo ? lo : f > hi ? hi : f;
  return (int32_t)__builtin_rintf(f);
}

/* A normalised channel's code from f: convert_<T>_sat_rte(f * scale). */
INLINE int32_t norm_code(float f, float scale, float lo, float hi) {
  return sat_rte(f * scale, lo, hi);
}

/* An 8-bit unorm channel's code from f, convert_uchar_sat_rte(f *
 * 255.0f) with NaN giving 0: norm_code(f, 255, 0, 255) in fewer vector
 * instructions (write_imagef of the versioned formats runs it per
 * channel). The clamps are written so that each is one vmaxps/vminps (x86
 * returns the second operand where the first is NaN: NaN becomes 0), and
 * the rounding is 2^23 + f: in [2^23, 2^23 + 255] the floats are the
 * integers, so the sum is 2^23 + rint(f), rounded to nearest even as rint
 * does in the default rounding mode, and its bits are 0x4b000000 + the
 * code (one add and one subtract, where rint and a conversion were two
 * instructions and the NaN test two more). FP_CONTRACT is off: f * 255
 * is rounded before the sum, as the Conversion Rules' f * 255.0f is. */
INLINE uint32_t unorm8_code(float f) {
  f = f * 255.0f;
  f = f > 0.0f ? f : 0.0f;
  f = f < 255.0f ? f : 255.0f;
  f = f + 0x1p23f;
  uint32_t bits;
  __builtin_memcpy(&bits, &f, 4);
  return bits - 0x4b000000u;
}

/* sRGB code k (0..255) as linear light: the sRGB curve of the OpenCL C
 * specification, ((k / 255 + 0.055) / 1.055)^2.4 or k / 255 / 12.92, in
 * float (computed in double by a one-off script). */
static const float srgb_to_linear[256] = {
    0.000000000e+00f, 3.035269835e-04f, 6.070539671e-04f, 9.105809506e-04f,
    1.214107934e-03f, 1.517634918e-03f, 1.821161901e-03f, 2.124688885e-03f,
    2.428215868e-03f, 2.731742852e-03f, 3.035269835e-03f, 3.346535764e-03f,
    3.676507324e-03f, 4.024717018e-03f, 4.391442037e-03f, 4.776953481e-03f,
    5.181516702e-03f, 5.605391624e-03f, 6.048833023e-03f, 6.512090793e-03f,
    6.995410187e-03f, 7.499032043e-03f, 8.023192985e-03f, 8.568125618e-03f,
    9.134058702e-03f, 9.721217320e-03f, 1.032982303e-02f, 1.096009401e-02f,
    1.161224518e-02f, 1.228648836e-02f, 1.298303234e-02f, 1.370208305e-02f,
    1.444384360e-02f, 1.520851442e-02f, 1.599629337e-02f, 1.680737575e-02f,
    1.764195449e-02f, 1.850022013e-02f, 1.938236096e-02f, 2.028856306e-02f,
    2.121901038e-02f, 2.217388479e-02f, 2.315336618e-02f, 2.415763245e-02f,
    2.518685963e-02f, 2.624122189e-02f, 2.732089164e-02f, 2.842603950e-02f,
    2.955683444e-02f, 3.071344373e-02f, 3.189603307e-02f, 3.310476657e-02f,
    3.433980681e-02f, 3.560131488e-02f, 3.688945040e-02f, 3.820437160e-02f,
    3.954623528e-02f, 4.091519691e-02f, 4.231141062e-02f, 4.373502926e-02f,
    4.518620439e-02f, 4.666508634e-02f, 4.817182423e-02f, 4.970656598e-02f,
    5.126945837e-02f, 5.286064702e-02f, 5.448027644e-02f, 5.612849005e-02f,
    5.780543019e-02f, 5.951123816e-02f, 6.124605423e-02f, 6.301001765e-02f,
    6.480326669e-02f, 6.662593864e-02f, 6.847816984e-02f, 7.036009570e-02f,
    7.227185068e-02f, 7.421356838e-02f, 7.618538148e-02f, 7.818742181e-02f,
    8.021982031e-02f, 8.228270713e-02f, 8.437621154e-02f, 8.650046204e-02f,
    8.865558629e-02f, 9.084171118e-02f, 9.305896285e-02f, 9.530746663e-02f,
    9.758734714e-02f, 9.989872825e-02f, 1.022417331e-01f, 1.046164841e-01f,
    1.070231030e-01f, 1.094617108e-01f, 1.119324278e-01f, 1.144353738e-01f,
    1.169706678e-01f, 1.195384280e-01f, 1.221387722e-01f, 1.247718176e-01f,
    1.274376804e-01f, 1.301364767e-01f, 1.328683216e-01f, 1.356333297e-01f,
    1.384316150e-01f, 1.412632911e-01f, 1.441284709e-01f, 1.470272665e-01f,
    1.499597898e-01f, 1.529261520e-01f, 1.559264637e-01f, 1.589608351e-01f,
    1.620293756e-01f, 1.651321945e-01f, 1.682694002e-01f, 1.714411007e-01f,
    1.746474037e-01f, 1.778884160e-01f, 1.811642442e-01f, 1.844749945e-01f,
    1.878207723e-01f, 1.912016827e-01f, 1.946178304e-01f, 1.980693196e-01f,
    2.015562538e-01f, 2.050787364e-01f, 2.086368701e-01f, 2.122307574e-01f,
    2.158605001e-01f, 2.195261997e-01f, 2.232279573e-01f, 2.269658735e-01f,
    2.307400485e-01f, 2.345505822e-01f, 2.383975738e-01f, 2.422811225e-01f,
    2.462013267e-01f, 2.501582847e-01f, 2.541520943e-01f, 2.581828529e-01f,
    2.622506575e-01f, 2.663556048e-01f, 2.704977910e-01f, 2.746773121e-01f,
    2.788942635e-01f, 2.831487404e-01f, 2.874408377e-01f, 2.917706498e-01f,
    2.961382708e-01f, 3.005437944e-01f, 3.049873141e-01f, 3.094689228e-01f,
    3.139887134e-01f, 3.185467781e-01f, 3.231432091e-01f, 3.277780981e-01f,
    3.324515363e-01f, 3.371636150e-01f, 3.419144249e-01f, 3.467040564e-01f,
    3.515325995e-01f, 3.564001441e-01f, 3.613067798e-01f, 3.662525956e-01f,
    3.712376805e-01f, 3.762621230e-01f, 3.813260114e-01f, 3.864294338e-01f,
    3.915724777e-01f, 3.967552307e-01f, 4.019777798e-01f, 4.072402119e-01f,
    4.125426135e-01f, 4.178850708e-01f, 4.232676700e-01f, 4.286904966e-01f,
    4.341536362e-01f, 4.396571738e-01f, 4.452011945e-01f, 4.507857828e-01f,
    4.564110232e-01f, 4.620769997e-01f, 4.677837961e-01f, 4.735314961e-01f,
    4.793201831e-01f, 4.851499401e-01f, 4.910208498e-01f, 4.969329951e-01f,
    5.028864580e-01f, 5.088813209e-01f, 5.149176654e-01f, 5.209955732e-01f,
    5.271151257e-01f, 5.332764040e-01f, 5.394794890e-01f, 5.457244614e-01f,
    5.520114015e-01f, 5.583403896e-01f, 5.647115057e-01f, 5.711248295e-01f,
    5.775804404e-01f, 5.840784179e-01f, 5.906188409e-01f, 5.972017884e-01f,
    6.038273389e-01f, 6.104955708e-01f, 6.172065624e-01f, 6.239603917e-01f,
    6.307571363e-01f, 6.375968740e-01f, 6.444796820e-01f, 6.514056374e-01f,
    6.583748173e-01f, 6.653872983e-01f, 6.724431570e-01f, 6.795424696e-01f,
    6.866853124e-01f, 6.938717613e-01f, 7.011018919e-01f, 7.083757799e-01f,
    7.156935005e-01f, 7.230551289e-01f, 7.304607401e-01f, 7.379104088e-01f,
    7.454042095e-01f, 7.529422168e-01f, 7.605245047e-01f, 7.681511472e-01f,
    7.758222183e-01f, 7.835377915e-01f, 7.912979403e-01f, 7.991027380e-01f,
    8.069522577e-01f, 8.148465722e-01f, 8.227857544e-01f, 8.307698768e-01f,
    8.387990117e-01f, 8.468732315e-01f, 8.549926081e-01f, 8.631572135e-01f,
    8.713671192e-01f, 8.796223969e-01f, 8.879231179e-01f, 8.962693534e-01f,
    9.046611744e-01f, 9.130986518e-01f, 9.215818563e-01f, 9.301108584e-01f,
    9.386857285e-01f, 9.473065367e-01f, 9.559733532e-01f, 9.646862479e-01f,
    9.734452904e-01f, 9.822505503e-01f, 9.911020971e-01f, 1.000000000e+00f,
};

/* The linear values where the sRGB code of a write goes from k to k + 1:
 * the curve at (k + 0.5) / 255, so that a write rounds to the nearest
 * code of the exact curve. */
static const float srgb_steps[255] = {
    1.517634918e-04f, 4.552904753e-04f, 7.588174589e-04f, 1.062344442e-03f,
    1.365871426e-03f, 1.669398410e-03f, 1.972925393e-03f, 2.276452377e-03f,
    2.579979360e-03f, 2.883506344e-03f, 3.188300904e-03f, 3.509259350e-03f,
    3.848314933e-03f, 4.205748030e-03f, 4.581832741e-03f, 4.976837250e-03f,
    5.391024160e-03f, 5.824650784e-03f, 6.277969427e-03f, 6.751227633e-03f,
    7.244668422e-03f, 7.758530499e-03f, 8.293048455e-03f, 8.848452952e-03f,
    9.424970891e-03f, 1.002282557e-02f, 1.064223685e-02f, 1.128342126e-02f,
    1.194659215e-02f, 1.263195981e-02f, 1.333973160e-02f, 1.407011200e-02f,
    1.482330280e-02f, 1.559950311e-02f, 1.639890952e-02f, 1.722171611e-02f,
    1.806811463e-02f, 1.893829446e-02f, 1.983244280e-02f, 2.075074465e-02f,
    2.169338291e-02f, 2.266053845e-02f, 2.365239016e-02f, 2.466911500e-02f,
    2.571088806e-02f, 2.677788263e-02f, 2.787027021e-02f, 2.898822059e-02f,
    3.013190190e-02f, 3.130148060e-02f, 3.249712161e-02f, 3.371898824e-02f,
    3.496724235e-02f, 3.624204428e-02f, 3.754355296e-02f, 3.887192588e-02f,
    4.022731918e-02f, 4.160988767e-02f, 4.301978482e-02f, 4.445716284e-02f,
    4.592217266e-02f, 4.741496402e-02f, 4.893568542e-02f, 5.048448422e-02f,
    5.206150661e-02f, 5.366689765e-02f, 5.530080130e-02f, 5.696336045e-02f,
    5.865471691e-02f, 6.037501146e-02f, 6.212438386e-02f, 6.390297287e-02f,
    6.571091626e-02f, 6.754835085e-02f, 6.941541251e-02f, 7.131223618e-02f,
    7.323895588e-02f, 7.519570475e-02f, 7.718261504e-02f, 7.919981813e-02f,
    8.124744458e-02f, 8.332562409e-02f, 8.543448553e-02f, 8.757415699e-02f,
    8.974476575e-02f, 9.194643832e-02f, 9.417930042e-02f, 9.644347704e-02f,
    9.873909241e-02f, 1.010662700e-01f, 1.034251327e-01f, 1.058158025e-01f,
    1.082384007e-01f, 1.106930482e-01f, 1.131798648e-01f, 1.156989699e-01f,
    1.182504822e-01f, 1.208345198e-01f, 1.234512000e-01f, 1.261006396e-01f,
    1.287829547e-01f, 1.314982609e-01f, 1.342466731e-01f, 1.370283056e-01f,
    1.398432722e-01f, 1.426916860e-01f, 1.455736597e-01f, 1.484893052e-01f,
    1.514387341e-01f, 1.544220573e-01f, 1.574393851e-01f, 1.604908274e-01f,
    1.635764935e-01f, 1.666964922e-01f, 1.698509319e-01f, 1.730399202e-01f,
    1.762635645e-01f, 1.795219715e-01f, 1.828152475e-01f, 1.861434984e-01f,
    1.895068294e-01f, 1.929053454e-01f, 1.963391508e-01f, 1.998083496e-01f,
    2.033130451e-01f, 2.068533405e-01f, 2.104293382e-01f, 2.140411405e-01f,
    2.176888490e-01f, 2.213725650e-01f, 2.250923893e-01f, 2.288484224e-01f,
    2.326407643e-01f, 2.364695145e-01f, 2.403347723e-01f, 2.442366365e-01f,
    2.481752054e-01f, 2.521505770e-01f, 2.561628489e-01f, 2.602121184e-01f,
    2.642984823e-01f, 2.684220370e-01f, 2.725828787e-01f, 2.767811030e-01f,
    2.810168053e-01f, 2.852900806e-01f, 2.896010235e-01f, 2.939497283e-01f,
    2.983362889e-01f, 3.027607989e-01f, 3.072233515e-01f, 3.117240396e-01f,
    3.162629557e-01f, 3.208401921e-01f, 3.254558406e-01f, 3.301099928e-01f,
    3.348027400e-01f, 3.395341729e-01f, 3.443043823e-01f, 3.491134583e-01f,
    3.539614910e-01f, 3.588485700e-01f, 3.637747846e-01f, 3.687402239e-01f,
    3.737449765e-01f, 3.787891310e-01f, 3.838727754e-01f, 3.889959976e-01f,
    3.941588852e-01f, 3.993615253e-01f, 4.046040051e-01f, 4.098864111e-01f,
    4.152088298e-01f, 4.205713473e-01f, 4.259740495e-01f, 4.314170219e-01f,
    4.369003499e-01f, 4.424241185e-01f, 4.479884124e-01f, 4.535933162e-01f,
    4.592389142e-01f, 4.649252902e-01f, 4.706525280e-01f, 4.764207111e-01f,
    4.822299226e-01f, 4.880802457e-01f, 4.939717629e-01f, 4.999045567e-01f,
    5.058787093e-01f, 5.118943028e-01f, 5.179514188e-01f, 5.240501388e-01f,
    5.301905441e-01f, 5.363727156e-01f, 5.425967342e-01f, 5.488626805e-01f,
    5.551706346e-01f, 5.615206767e-01f, 5.679128866e-01f, 5.743473441e-01f,
    5.808241284e-01f, 5.873433188e-01f, 5.939049942e-01f, 6.005092333e-01f,
    6.071561148e-01f, 6.138457168e-01f, 6.205781175e-01f, 6.273533947e-01f,
    6.341716262e-01f, 6.410328894e-01f, 6.479372614e-01f, 6.548848195e-01f,
    6.618756404e-01f, 6.689098006e-01f, 6.759873768e-01f, 6.831084450e-01f,
    6.902730814e-01f, 6.974813617e-01f, 7.047333615e-01f, 7.120291564e-01f,
    7.193688216e-01f, 7.267524320e-01f, 7.341800626e-01f, 7.416517880e-01f,
    7.491676827e-01f, 7.567278210e-01f, 7.643322770e-01f, 7.719811246e-01f,
    7.796744376e-01f, 7.874122894e-01f, 7.951947535e-01f, 8.030219030e-01f,
    8.108938110e-01f, 8.188105503e-01f, 8.267721935e-01f, 8.347788132e-01f,
    8.428304815e-01f, 8.509272707e-01f, 8.590692527e-01f, 8.672564993e-01f,
    8.754890821e-01f, 8.837670725e-01f, 8.920905419e-01f, 9.004595613e-01f,
    9.088742016e-01f, 9.173345337e-01f, 9.258406282e-01f, 9.343925555e-01f,
    9.429903859e-01f, 9.516341896e-01f, 9.603240364e-01f, 9.690599963e-01f,
    9.778421388e-01f, 9.866705335e-01f, 9.955452497e-01f,
};

/* ---- Pixels ------------------------------------------------------------- */

/* The stored channels of one pixel in storage order: floats for
 * normalised and floating types, integers (sign-extended for signed
 * types) for the integer types. */
typedef struct channels {
  float f[4];
  uint32_t u[4];
} channels;

INLINE uint32_t load_bits(const unsigned char *p, unsigned size) {
  switch (size) {
  case 1:
    return p[0];
  case 2: {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
  }
  default: {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
  }
  }
}

INLINE void store_bits(unsigned char *p, unsigned size, uint32_t v) {
  switch (size) {
  case 1:
    p[0] = (unsigned char)v;
    break;
  case 2: {
    uint16_t s = (uint16_t)v;
    __builtin_memcpy(p, &s, 2);
    break;
  }
  default:
    __builtin_memcpy(p, &v, 4);
    break;
  }
}


INLINE int is_srgb(uint32_t order) {
  return order == CL_sRGBA || order == CL_sBGRA || order == CL_sRGB ||
         order == CL_sRGBx;
}

/* An 8-bit unorm code as float, exactly code / 255 as the Conversion
 * Rules say (the float division, correctly rounded), with float
 * operations only, which vectorise at full width. x = code * 0x10101
 * (the code in three bytes: below 2^24, exact as a float) is code *
 * (2^24 - 1) / 255, so code / 255 = x * 2^-24 + x / (2^24 * (2^24 - 1)),
 * and that second term is more than half an ulp of f = x * 2^-24 and
 * less than one and a half: the quotient rounds to the float after f.
 * So does f + f * 2^-24 (the product exact, a power of two, and more
 * than half an ulp of f and less than one, never a tie: f is never a
 * power of two, 0x10101 being odd), with no integer operation and no
 * denormal anywhere: code 0 gives 0 + 0 (the float after 0, a
 * denormal, made a vector multiply take a microcode assist on Intel
 * cores when the code-0 lanes were stepped to it: skein-bench-images
 * -m 0 -z, a black RGBA8 image's sampler-less copy, 55.4 -> 6.8 ms on
 * the 2-core Emerald Rapids when code 0 was kept 0), 255 gives 1.0.
 * The step after f was its bits plus 1 before, a compare, a mask move
 * and a subtract per vector on AVX-512 where this is a multiply and an
 * add. Checked for all 256 codes by tests/test-images-kernels.c (the
 * versioned R and RGBA loops and the generic path). The product with
 * the double reciprocal used before that is exact too, but converts
 * each channel to double and back; a division is a long-latency vdivps
 * per channel, the float reciprocal alone is an ulp off for 126 codes,
 * and an FMA correction would be a library call on a CPU without FMA
 * (the builtins are generic bitcode). */
INLINE float unorm8(uint32_t code) {
  /* One product with the constant 65793 * 2^-24 (17 significant bits,
   * exact as a float): exact, since code * 65793 is below 2^24, so f is
   * x * 2^-24. Written as (float)code * 65793.0f first, InstCombine
   * turned that product of a converted integer and an integral constant
   * into an integer multiply, a vpmulld per vector (10 cycles' latency
   * on Intel cores) in every unorm8 decode. */
  float f = (float)(int32_t)code * (65793.0f * 0x1p-24f);
  return f + f * 0x1p-24f;
}

/* One stored channel's bits as a float (normalised integer to float as
 * the Conversion Rules say: code / scale, at least -1 for signed types)
 * and as an integer. */
INLINE void decode_channel(uint32_t type, uint32_t bits, float *f,
                           uint32_t *u) {
  switch (type) {
  case CL_UNORM_INT8:
    *f = unorm8(bits);
    break;
  case CL_UNORM_INT16:
    *f = (float)bits / 65535.0f;
    break;
  case CL_SNORM_INT8:
    *f = __builtin_fmaxf((float)(int8_t)bits / 127.0f, -1.0f);
    bits = (uint32_t)(int32_t)(int8_t)bits;
    break;
  case CL_SNORM_INT16:
    *f = __builtin_fmaxf((float)(int16_t)bits / 32767.0f, -1.0f);
    bits = (uint32_t)(int32_t)(int16_t)bits;
    break;
  case CL_SIGNED_INT8:
    bits = (uint32_t)(int32_t)(int8_t)bits;
    *f = (float)(int32_t)bits;
    break;
  case CL_SIGNED_INT16:
    bits = (uint32_t)(int32_t)(int16_t)bits;
    *f = (float)(int32_t)bits;
    break;
  case CL_SIGNED_INT32:
    *f = (float)(int32_t)bits;
    break;
  case CL_HALF_FLOAT:
    *f = half_to_float(bits);
    break;
  case CL_FLOAT:
    __builtin_memcpy(f, &bits, 4);
    break;
  default: /* unsigned integers */
    *f = (float)bits;
    break;
  }
  *u = bits;
}

/* The channels of the pixel at p. */
INLINE channels load_pixel(const skein_image *d, const unsigned char *p) {
  channels c = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  uint32_t w;
  switch (d->channel_type) {
  /* Packed: the first channel in the most significant bits. */
  case CL_UNORM_SHORT_565:
    w = load_bits(p, 2);
    c.u[0] = w >> 11, c.u[1] = (w >> 5) & 63, c.u[2] = w & 31;
    c.f[0] = (float)c.u[0] / 31.0f, c.f[1] = (float)c.u[1] / 63.0f;
    c.f[2] = (float)c.u[2] / 31.0f;
    return c;
  case CL_UNORM_SHORT_555:
    w = load_bits(p, 2);
    c.u[0] = (w >> 10) & 31, c.u[1] = (w >> 5) & 31, c.u[2] = w & 31;
    for (int i = 0; i < 3; i++)
      c.f[i] = (float)c.u[i] / 31.0f;
    return c;
  case CL_UNORM_INT_101010:
    w = load_bits(p, 4);
    c.u[0] = (w >> 20) & 1023, c.u[1] = (w >> 10) & 1023, c.u[2] = w & 1023;
    for (int i = 0; i < 3; i++)
      c.f[i] = (float)c.u[i] / 1023.0f;
    return c;
  case CL_UNORM_INT_101010_2:
    w = load_bits(p, 4);
    c.u[0] = w >> 22, c.u[1] = (w >> 12) & 1023, c.u[2] = (w >> 2) & 1023;
    c.u[3] = w & 3;
    for (int i = 0; i < 3; i++)
      c.f[i] = (float)c.u[i] / 1023.0f;
    c.f[3] = (float)c.u[3] / 3.0f;
    return c;
  }
  unsigned size = skein_channel_bytes(d->channel_type);
  for (unsigned i = 0; i < d->num_channels && i < 4; i++)
    decode_channel(d->channel_type, load_bits(p + i * size, size), &c.f[i],
                   &c.u[i]);
  /* sRGB: red, green and blue to linear light; alpha stays as it is. */
  if (is_srgb(d->channel_order))
    for (unsigned i = 0; i < 3; i++)
      c.f[i] = srgb_to_linear[c.u[i] & 255];
  return c;
}

/* Which of r, g, b, a (0..3) stored channel i of order holds; the same
 * placement as the runtime's fill (runtime/core/image_format.c). */
INLINE int channel_of(uint32_t order, unsigned i) {
  switch (order) {
  case CL_A:
    return 3;
  case CL_RA:
    return i == 0 ? 0 : 3;
  case CL_BGRA:
  case CL_sBGRA:
    return i == 0 ? 2 : i == 2 ? 0 : (int)i;
  case CL_ARGB:
    return i == 0 ? 3 : (int)i - 1;
  case CL_ABGR:
    return 3 - (int)i;
  default: /* R, Rx, RG, RGx, RGB(x), RGBA, sRGBA, INTENSITY, LUMINANCE,
              DEPTH: in order */
    return (int)i;
  }
}

/* Channels the pixel of an order stores by name (packed RGB formats hold
 * three, whatever num_channels says). */
INLINE unsigned stored_channels(const skein_image *d) {
  switch (d->channel_type) {
  case CL_UNORM_SHORT_565:
  case CL_UNORM_SHORT_555:
  case CL_UNORM_INT_101010:
    return 3;
  case CL_UNORM_INT_101010_2:
    return 4;
  }
  return d->num_channels;
}

/* The pixel as read_imagef sees it: each stored channel in its place,
 * the others 0 with alpha 1; INTENSITY is (I, I, I, I), LUMINANCE
 * (L, L, L, 1). Every format, out of line (pixel_f below inlines the
 * common ones). */
NOINLINE float4 pixel_f_any(const skein_image *d, const unsigned char *p) {
  channels c = load_pixel(d, p);
  if (d->channel_order == CL_INTENSITY)
    return (float4){c.f[0], c.f[0], c.f[0], c.f[0]};
  if (d->channel_order == CL_LUMINANCE)
    return (float4){c.f[0], c.f[0], c.f[0], 1.0f};
  float v[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  for (unsigned i = 0; i < stored_channels(d); i++)
    v[channel_of(d->channel_order, i)] = c.f[i];
  return (float4){v[0], v[1], v[2], v[3]};
}

/* The pixel as read_imagei and read_imageui see it (integer formats):
 * missing channels 0, alpha 1. Out of line, as pixel_f_any. */
NOINLINE uint4 pixel_u_any(const skein_image *d, const unsigned char *p) {
  channels c = load_pixel(d, p);
  uint32_t v[4] = {0, 0, 0, 1};
  for (unsigned i = 0; i < stored_channels(d); i++)
    v[channel_of(d->channel_order, i)] = c.u[i];
  return (uint4){v[0], v[1], v[2], v[3]};
}

/* ---- The common formats, inline ---------------------------------------- */


/* The formats read_imagef converts inline (the formats that image
 * filters and video planes use): RGBA and BGRA of UNORM_INT8, RGBA and R
 * of FLOAT and R of UNORM_INT8. Their pixels are loaded as raw bits (up
 * to 16 bytes, in a uint4) and converted after, so that a read that may
 * come from either of two addresses (texel_f) loads in two places and
 * converts once. */
INLINE int raw_format(uint64_t k) {
  return k == FORMAT_KEY(CL_RGBA, CL_UNORM_INT8) ||
         k == FORMAT_KEY(CL_BGRA, CL_UNORM_INT8) ||
         k == FORMAT_KEY(CL_R, CL_UNORM_INT8) ||
         k == FORMAT_KEY(CL_RGBA, CL_FLOAT) || k == FORMAT_KEY(CL_R, CL_FLOAT);
}

/* The bits of the pixel at p of a raw_format image: load_raw through a
 * plain pointer, load_raw_guessed through a global one (address space
 * 1, the same memory). texel_f loads the guessed column's pixel through
 * the latter and p's own through the former: where both are loads of
 * one type, InstCombine merged the two into one load from an address
 * chosen per work-item (foldPHIArgLoadIntoPHI), which the vectoriser
 * made a gather of every lane (RGBA8 and R FLOAT reads with integer
 * coordinates or nearest filtering); loads through pointers of two
 * address spaces are never merged. */
#define LOAD_RAW(name, space)                                              \
  INLINE uint4 name(const grid *g, const space unsigned char *p) {        \
    uint4 raw = {0, 0, 0, 0};                                              \
    if (g->key == FORMAT_KEY(CL_RGBA, CL_FLOAT)) {                         \
      __builtin_memcpy(&raw, p, 16);                                       \
    } else if (g->key == FORMAT_KEY(CL_R, CL_UNORM_INT8)) {                \
      raw.x = p[0];                                                        \
    } else {                                                               \
      uint32_t w;                                                          \
      __builtin_memcpy(&w, p, 4);                                          \
      raw.x = w;                                                           \
    }                                                                      \
    return raw;                                                            \
  }
LOAD_RAW(load_raw, )
LOAD_RAW(load_raw_guessed, AS_GLOBAL)

/* The bits of pixel p of a raw_format image for a sampled read whose
 * column is not the guessed one (texel_f): once vectorised, a gather.
 * x86 gathers 32- and 64-bit elements only, and the loop vectoriser
 * turned a gather of R UNORM_INT8's bytes into a branch per lane, so
 * here its byte comes out of the 4-byte-aligned word that holds it.
 * Such a word never crosses a page, so it is readable wherever its byte
 * is (at most 3 bytes beside the image are read and dropped); only reads
 * through a sampler come here, and they are of read_only images, which
 * nothing writes during the launch. */
INLINE uint4 load_raw_apart(const grid *g, const int32_t p[3]) {
  const unsigned char *at = pixel_at(g, p);
  if (g->key != FORMAT_KEY(CL_R, CL_UNORM_INT8))
    return load_raw(g, at);
  /* The byte's place in its word from the low 32 bits of the data
   * pointer and the offsets (the same bits as at's): computed from at,
   * the 64-bit addresses were needed outside the gather, which is run
   * only where a lane misses the guess (cc_image_finish), and their
   * vector arithmetic ran in every iteration. */
  uint32_t skew = ((uint32_t)(uintptr_t)g->data + (uint32_t)p[0] +
                   (uint32_t)p[1] * (uint32_t)g->row_pitch +
                   (uint32_t)p[2] * (uint32_t)g->slice_pitch) &
                  3;
  uint32_t w;
  __builtin_memcpy(&w, __builtin_assume_aligned(at - skew, 4), 4);
  return (uint4){(w >> (8 * skew)) & 255, 0, 0, 0};
}

/* The pixel a raw_format image's bits hold, as read_imagef sees it. */
INLINE float4 pixel_of_raw(const grid *g, uint4 raw) {
  uint64_t k = g->key;
  uint32_t w = raw.x;
  if (k == FORMAT_KEY(CL_RGBA, CL_UNORM_INT8))
    return (float4){unorm8(w & 255), unorm8((w >> 8) & 255),
                    unorm8((w >> 16) & 255), unorm8(w >> 24)};
  if (k == FORMAT_KEY(CL_RGBA, CL_FLOAT)) {
    float4 v;
    __builtin_memcpy(&v, &raw, 16);
    return v;
  }
  if (k == FORMAT_KEY(CL_R, CL_FLOAT)) {
    float f;
    __builtin_memcpy(&f, &w, 4);
    return (float4){f, 0.0f, 0.0f, 1.0f};
  }
  if (k == FORMAT_KEY(CL_R, CL_UNORM_INT8))
    return (float4){unorm8(w), 0.0f, 0.0f, 1.0f};
  /* BGRA UNORM_INT8 */
  return (float4){unorm8((w >> 16) & 255), unorm8((w >> 8) & 255),
                  unorm8(w & 255), unorm8(w >> 24)};
}

/* read_imagei/ui's pixel: RGBA of the 8- and 32-bit integer types
 * inline, the others through pixel_u_any. */
INLINE uint4 pixel_u(const grid *g, const unsigned char *p) {
  uint64_t k = g->key;
  if (k == FORMAT_KEY(CL_RGBA, CL_UNSIGNED_INT8)) {
    uint32_t w;
    __builtin_memcpy(&w, p, 4);
    return (uint4){w & 255, (w >> 8) & 255, (w >> 16) & 255, w >> 24};
  }
  if (k == FORMAT_KEY(CL_RGBA, CL_UNSIGNED_INT32) ||
      k == FORMAT_KEY(CL_RGBA, CL_SIGNED_INT32)) {
    uint4 v;
    __builtin_memcpy(&v, p, 16);
    return v;
  }
  return pixel_u_any(g->d, p);
}

/* The border colour of CLK_ADDRESS_CLAMP (and of any read outside the
 * image): alpha 1 for the orders without an alpha channel, else all 0.
 * OpenCL C's "Determining the Border Color or Value" gives R, RG, RGB and
 * LUMINANCE (0, 0, 0, 1) and the padded orders Rx, RGx, RGBx (0, 0, 0, 0)
 * with the orders that have alpha; Skein reads the latter as the
 * border's channels, which the channel mapping table ("Mapping Image
 * Channels to Color Values") then returns as every read of those orders
 * returns a pixel: (r, g, b, 1.0), the missing alpha 1. That is also what
 * the Khronos CTS's reference expects (docs/features.md). */
INLINE int border_alpha(uint32_t order) {
  return order == CL_R || order == CL_RG || order == CL_RGB ||
         order == CL_LUMINANCE || order == CL_Rx || order == CL_RGx ||
         order == CL_RGBx || order == CL_sRGBx || order == CL_sRGB;
}

/* The sRGB code of linear value f: the nearest code of the exact curve
 * (the number of steps at or below f). */
INLINE uint32_t linear_to_srgb(float f) {
  if (!(f > 0.0f))
    return 0;
  uint32_t lo = 0, hi = 255; /* the answer lies in lo..hi */
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (f >= srgb_steps[mid])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* One channel of a non-packed type from a float (write_imagef): the
 * Conversion Rules' convert_<T>_sat_rte(f * scale) for normalised types,
 * round to nearest even for half; integer types (undefined for
 * write_imagef) take the saturated integer. */
INLINE uint32_t encode_channel_f(uint32_t type, float f) {
  switch (type) {
  case CL_UNORM_INT8:
    return unorm8_code(f);
  case CL_UNORM_INT16:
    return (uint32_t)norm_code(f, 65535.0f, 0.0f, 65535.0f);
  case CL_SNORM_INT8:
    return (uint32_t)norm_code(f, 127.0f, -128.0f, 127.0f);
  case CL_SNORM_INT16:
    return (uint32_t)norm_code(f, 32767.0f, -32768.0f, 32767.0f);
  case CL_HALF_FLOAT:
    return float_to_half(f);
  case CL_FLOAT: {
    uint32_t bits;
    __builtin_memcpy(&bits, &f, 4);
    return bits;
  }
  case CL_SIGNED_INT8:
    return (uint32_t)sat_rte(f, -128.0f, 127.0f);
  case CL_SIGNED_INT16:
    return (uint32_t)sat_rte(f, -32768.0f, 32767.0f);
  case CL_SIGNED_INT32:
    return (uint32_t)sat_rte(f, -0x1p31f, 0x1.fffffep30f);
  case CL_UNSIGNED_INT8:
    return (uint32_t)sat_rte(f, 0.0f, 255.0f);
  case CL_UNSIGNED_INT16:
    return (uint32_t)sat_rte(f, 0.0f, 65535.0f);
  default: /* unsigned 32-bit */
    return f >= 0x1p32f ? 0xffffffffu : f > 0.0f ? (uint32_t)__builtin_rintf(f)
                                                 : 0;
  }
}

/* One channel of an integer type from write_imagei's or write_imageui's
 * value v: convert_<T>_sat of an int (signed types) or a uint (unsigned
 * types). Other types (undefined) take v's low bits. */
INLINE uint32_t encode_channel_u(uint32_t type, uint32_t v) {
  int32_t s = (int32_t)v;
  switch (type) {
  case CL_SIGNED_INT8:
    return (uint32_t)(s < -128 ? -128 : s > 127 ? 127 : s);
  case CL_SIGNED_INT16:
    return (uint32_t)(s < -32768 ? -32768 : s > 32767 ? 32767 : s);
  case CL_UNSIGNED_INT8:
    return v > 255 ? 255 : v;
  case CL_UNSIGNED_INT16:
    return v > 65535 ? 65535 : v;
  default:
    return v;
  }
}

/* Stores colour (r, g, b, a as floats) at p: every format, out of line
 * (store_pixel_f below inlines the common ones). */
NOINLINE void store_pixel_f_any(const skein_image *d, unsigned char *p,
                                float4 colour) {
  float v[4] = {colour.x, colour.y, colour.z, colour.w};
  switch (d->channel_type) {
  case CL_UNORM_SHORT_565:
    store_bits(p, 2,
               (uint32_t)(norm_code(v[0], 31.0f, 0.0f, 31.0f) << 11 |
                          norm_code(v[1], 63.0f, 0.0f, 63.0f) << 5 |
                          norm_code(v[2], 31.0f, 0.0f, 31.0f)));
    return;
  case CL_UNORM_SHORT_555:
    store_bits(p, 2,
               (uint32_t)(norm_code(v[0], 31.0f, 0.0f, 31.0f) << 10 |
                          norm_code(v[1], 31.0f, 0.0f, 31.0f) << 5 |
                          norm_code(v[2], 31.0f, 0.0f, 31.0f)));
    return;
  case CL_UNORM_INT_101010:
    store_bits(p, 4,
               (uint32_t)(norm_code(v[0], 1023.0f, 0.0f, 1023.0f) << 20 |
                          norm_code(v[1], 1023.0f, 0.0f, 1023.0f) << 10 |
                          norm_code(v[2], 1023.0f, 0.0f, 1023.0f)));
    return;
  case CL_UNORM_INT_101010_2:
    store_bits(p, 4,
               (uint32_t)norm_code(v[0], 1023.0f, 0.0f, 1023.0f) << 22 |
                   (uint32_t)norm_code(v[1], 1023.0f, 0.0f, 1023.0f) << 12 |
                   (uint32_t)norm_code(v[2], 1023.0f, 0.0f, 1023.0f) << 2 |
                   (uint32_t)norm_code(v[3], 3.0f, 0.0f, 3.0f));
    return;
  }
  unsigned size = skein_channel_bytes(d->channel_type);
  int srgb = is_srgb(d->channel_order);
  /* sRGBx's padding byte gets alpha as UNORM_INT8: its content is
   * undefined, and the Khronos conformance tests expect alpha there. */
  unsigned n = d->channel_order == CL_sRGBx ? 4 : d->num_channels;
  for (unsigned i = 0; i < n && i < 4; i++) {
    int c = channel_of(d->channel_order, i);
    uint32_t bits = srgb && c < 3 ? linear_to_srgb(v[c])
                                  : encode_channel_f(d->channel_type, v[c]);
    store_bits(p + i * size, size, bits);
  }
}

/* write_imagef's store: RGBA and BGRA of UNORM_INT8, RGBA and R of FLOAT
 * and R of UNORM_INT8 inline (the same conversions as store_pixel_f_any), the others through
 * store_pixel_f_any. */
INLINE void store_pixel_f(const grid *g, unsigned char *p, float4 colour) {
  uint64_t k = g->key;
  if (k == FORMAT_KEY(CL_RGBA, CL_UNORM_INT8) ||
      k == FORMAT_KEY(CL_BGRA, CL_UNORM_INT8)) {
    uint32_t r = unorm8_code(colour.x), g = unorm8_code(colour.y),
             b = unorm8_code(colour.z), a = unorm8_code(colour.w);
    uint32_t w = k == FORMAT_KEY(CL_RGBA, CL_UNORM_INT8)
                     ? r | g << 8 | b << 16 | a << 24
                     : b | g << 8 | r << 16 | a << 24;
    __builtin_memcpy(p, &w, 4);
    return;
  }
  if (k == FORMAT_KEY(CL_RGBA, CL_FLOAT)) {
    __builtin_memcpy(p, &colour, 16);
    return;
  }
  if (k == FORMAT_KEY(CL_R, CL_FLOAT)) {
    float r = colour.x;
    __builtin_memcpy(p, &r, 4);
    return;
  }
  if (k == FORMAT_KEY(CL_R, CL_UNORM_INT8)) {
    p[0] = (unsigned char)unorm8_code(colour.x);
    return;
  }
  store_pixel_f_any(g->d, p, colour);
}

/* Stores an integer colour at p (write_imagei, write_imageui). */
INLINE void store_pixel_u(const skein_image *d, unsigned char *p,
                          uint4 colour) {
  uint32_t v[4] = {colour.x, colour.y, colour.z, colour.w};
  unsigned size = skein_channel_bytes(d->channel_type);
  if (size * d->num_channels != d->element_size)
    return; /* a packed type: no integer writes (undefined) */
  for (unsigned i = 0; i < d->num_channels && i < 4; i++)
    store_bits(p + i * size, size,
               encode_channel_u(d->channel_type,
                                v[channel_of(d->channel_order, i)]));
}

/* ---- Sampling ----------------------------------------------------------- */

/* How a sampler turns one coordinate into pixel indices along an axis of
 * n pixels. */
typedef struct axis {
  int32_t i0, i1;    /* nearest: i0; linear: the two pixels */
  float a;           /* linear: the weight of i1 */
} axis;

/* address_mode(i) of the clamping modes; REPEAT and MIRRORED_REPEAT
 * wrap before this. Indices that stay outside read the border colour. */
INLINE int32_t clamp_mode(uint32_t mode, int32_t i, int32_t n) {
  if (mode == SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE)
    return clamp_edge(i, n);
  if (mode == SKEIN_SAMPLER_ADDRESS_CLAMP)
    return i < -1 ? -1 : i > n ? n : i;
  return i; /* NONE */
}

INLINE float frac_of(float f) { return f - __builtin_floorf(f); }

/* The pixels a coordinate c (normalised or not, as the sampler says)
 * selects along an axis of n pixels: "Image Addressing and Filtering" of
 * the OpenCL C specification, mode by mode. */
INLINE axis address(uint32_t sampler, float c, int32_t n) {
  uint32_t mode = sampler & SKEIN_SAMPLER_ADDRESS_MASK;
  int linear = (sampler & SKEIN_SAMPLER_FILTER_MASK) ==
               SKEIN_SAMPLER_FILTER_LINEAR;
  int normalized = sampler & SKEIN_SAMPLER_NORMALIZED;
  float nf = (float)n;
  axis x = {0, 0, 0.0f};
  if (mode == SKEIN_SAMPLER_ADDRESS_REPEAT ||
      mode == SKEIN_SAMPLER_ADDRESS_MIRRORED_REPEAT) {
    /* Defined for normalised coordinates only; unnormalised ones are
     * taken as normalised (undefined results, but inside the image). */
    float u;
    if (mode == SKEIN_SAMPLER_ADDRESS_REPEAT) {
      u = (c - __builtin_floorf(c)) * nf;
    } else {
      float s = __builtin_fabsf(c - 2.0f * __builtin_rintf(0.5f * c));
      u = s * nf;
    }
    if (!linear) {
      x.i0 = floor_int(u);
      if (mode == SKEIN_SAMPLER_ADDRESS_REPEAT && x.i0 > n - 1)
        x.i0 -= n;
      if (x.i0 > n - 1)
        x.i0 = n - 1;
    } else {
      x.i0 = floor_int(u - 0.5f);
      x.i1 = x.i0 + 1;
      if (mode == SKEIN_SAMPLER_ADDRESS_REPEAT) {
        if (x.i0 < 0)
          x.i0 += n;
        if (x.i1 > n - 1)
          x.i1 -= n;
      } else {
        x.i0 = x.i0 < 0 ? 0 : x.i0;
        x.i1 = x.i1 > n - 1 ? n - 1 : x.i1;
      }
      x.a = frac_of(u - 0.5f);
    }
    return x;
  }
  float u = normalized ? c * nf : c;
  if (!linear) {
    x.i0 = clamp_mode(mode, __skein_image_nearest_index(u), n);
  } else {
    int32_t i = floor_int(u - 0.5f);
    x.i0 = clamp_mode(mode, i, n);
    x.i1 = clamp_mode(mode, i + 1, n);
    x.a = frac_of(u - 0.5f);
  }
  return x;
}

/* The colour of pixel p, or the border colour outside the image.
 * column: the column the read is guessed to sample (grid.lane_x, plus 1
 * for a linear read's upper column). The pixel of that column in p's row
 * is loaded first, wherever it lies inside the image, with an address
 * made from the guess, which the vectoriser sees run consecutively
 * across work-items (see __skein_image_lane_x); p's own address is
 * loaded only where p is in another column. The test is p != column, not
 * an equality that the optimiser could use to rewrite one address into
 * the other. The pixel is converted once, after the loads. sampled: a
 * constant, true where the read has a sampler (of a read_only image) and
 * guesses, so that p's own pixel may come from the aligned word that
 * holds it (load_raw_apart). edge: p was clamped to the edge on every
 * axis (a sampler's CLK_ADDRESS_CLAMP_TO_EDGE), so it is inside (every
 * extent is at least 1), which the optimiser could not see through the
 * clamps: the test was a vector compare and mask operations per read. */
INLINE float4 texel_f(const grid *g, const int32_t p[3], int32_t column,
                      int sampled, int edge) {
  if (!edge && !inside(g, p))
    return (float4){0.0f, 0.0f, 0.0f,
                    border_alpha((uint32_t)g->key) ? 1.0f : 0.0f};
  if (!raw_format(g->key))
    return pixel_f_any(g->d, pixel_at(g, p));
  uint4 guessed = {0, 0, 0, 0}, raw;
  int guess_inside = (uint32_t)column < (uint32_t)g->extent[0];
  if (guess_inside) {
    int32_t q[3] = {column, p[1], p[2]};
    guessed = load_raw_guessed(g, guessed_at(g, q));
  }
  /* p is inside, so p[0] == column only where the guess is: the first
   * test changes nothing, but where the column is a constant outside
   * (no guess: INT32_MIN) it folds the second away, which the optimiser
   * could not (p[0] == INT32_MIN is impossible only inside). */
  if (!guess_inside || p[0] != column)
    raw = sampled ? load_raw_apart(g, p) : load_raw(g, pixel_at(g, p));
  else
    raw = guessed;
  return pixel_of_raw(g, raw);
}

INLINE uint4 texel_u(const grid *g, const int32_t p[3]) {
  if (!inside(g, p))
    return (uint4){0, 0, 0, border_alpha((uint32_t)g->key) ? 1u : 0u};
  return pixel_u(g, pixel_at(g, p));
}

/* An axis the sampler does not address: an array's layer, rounded and
 * clamped, or 0. */
INLINE axis fixed_axis(const grid *g, int k, float c) {
  int32_t i = k == g->layer_axis ? layer_of(c, g->extent[k]) : 0;
  return (axis){i, i, 0.0f};
}

/* The axes of coordinate c: addressed ones through the sampler, an
 * array's layer rounded and clamped, unused ones 0. Written axis by axis
 * (no loop over an array of axes), so that the axes are plain values
 * once inlined and nothing of a read stays in memory: a work-item loop
 * with an alloca left in it is not vectorised. */
INLINE void address_all(const grid *g, uint32_t sampler, float4 coord,
                        axis ax[3]) {
  float c[3];
  grid_coords_f(g, coord, c);
  ax[0] = address(sampler, c[0], g->extent[0]);
  ax[1] = g->dims >= 2 ? address(sampler, c[1], g->extent[1])
                       : fixed_axis(g, 1, c[1]);
  ax[2] = g->dims >= 3 ? address(sampler, c[2], g->extent[2])
                       : fixed_axis(g, 2, c[2]);
}

/* One corner of linear filtering: sum plus the pixel that picks axis
 * k's upper pixel where hk is set, weighted by the product over the
 * addressed axes, x first, of a (upper) or 1 - a (lower). The order of
 * the products and of the sums is the specification's formula's, the
 * same in every mode and format. */
INLINE float4 corner_f(const grid *g, const axis ax[3], int hx, int hy,
                       int hz, int edge, float4 sum) {
  int32_t p[3] = {hx ? ax[0].i1 : ax[0].i0, hy ? ax[1].i1 : ax[1].i0,
                  hz ? ax[2].i1 : ax[2].i0};
  float w = 1.0f;
  w *= hx ? ax[0].a : 1.0f - ax[0].a;
  if (g->dims >= 2)
    w *= hy ? ax[1].a : 1.0f - ax[1].a;
  if (g->dims >= 3)
    w *= hz ? ax[2].a : 1.0f - ax[2].a;
  return sum +
         w * texel_f(g, p, (int32_t)((uint32_t)g->lane_x + (uint32_t)hx), 1,
                     edge);
}

/* read_imagef with a sampler and float coordinates. */
ENTRY float4 __skein_image_read_f(uint32_t type, const AS_GLOBAL void *image,
                                  uint32_t sampler, float4 coord) {
  grid g = grid_of(image, type, 0);
  axis ax[3];
  address_all(&g, sampler, coord, ax);
  /* Clamped to the edge: every pixel the read takes is inside (an
   * array's layer and the axes the sampler does not address are too). */
  int edge = (sampler & SKEIN_SAMPLER_ADDRESS_MASK) ==
             SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
  if ((sampler & SKEIN_SAMPLER_FILTER_MASK) != SKEIN_SAMPLER_FILTER_LINEAR) {
    int32_t p[3] = {ax[0].i0, ax[1].i0, ax[2].i0};
    return texel_f(&g, p, g.lane_x, 1, edge);
  }
  /* Linear: the weighted sum over the 2, 4 or 8 pixels around the
   * coordinate, corner m (bit k: axis k's upper pixel) in increasing
   * order, each corner written out so that a constant image type leaves
   * straight-line code, which a versioned work-item loop vectorises (a
   * loop over corners and axes kept the axes in memory, and the loop
   * scalar). */
  float4 sum = {0.0f, 0.0f, 0.0f, 0.0f};
  sum = corner_f(&g, ax, 0, 0, 0, edge, sum);
  sum = corner_f(&g, ax, 1, 0, 0, edge, sum);
  if (g.dims >= 2) {
    sum = corner_f(&g, ax, 0, 1, 0, edge, sum);
    sum = corner_f(&g, ax, 1, 1, 0, edge, sum);
  }
  if (g.dims >= 3) {
    sum = corner_f(&g, ax, 0, 0, 1, edge, sum);
    sum = corner_f(&g, ax, 1, 0, 1, edge, sum);
    sum = corner_f(&g, ax, 0, 1, 1, edge, sum);
    sum = corner_f(&g, ax, 1, 1, 1, edge, sum);
  }
  return sum;
}

/* read_imagei/read_imageui with a sampler and float coordinates: nearest
 * filtering (the only one integer images allow). */
ENTRY uint4 __skein_image_read_u(uint32_t type, const AS_GLOBAL void *image,
                                 uint32_t sampler, float4 coord) {
  grid g = grid_of(image, type, 1);
  axis ax[3];
  sampler = (sampler & ~(uint32_t)SKEIN_SAMPLER_FILTER_MASK) |
            SKEIN_SAMPLER_FILTER_NEAREST;
  address_all(&g, sampler, coord, ax);
  int32_t p[3] = {ax[0].i0, ax[1].i0, ax[2].i0};
  return texel_u(&g, p);
}

/* Integer coordinate i of axis k (see int_pixel). */
INLINE int32_t int_axis(const grid *g, uint32_t mode, int k, int32_t i) {
  if (k == g->layer_axis || mode == SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE)
    return clamp_edge(i, g->extent[k]);
  return k >= g->dims ? 0 : i;
}

/* Integer coordinates, with a sampler (which must be unnormalised and
 * nearest: addressing CLAMP_TO_EDGE clamps them, CLAMP and NONE read the
 * border colour outside; the wrapping modes are undefined with them and
 * read the border colour too) or without one (sampler 0: NONE, where a
 * read outside is undefined and gives the border colour). An array's
 * layer is clamped to its layers. Axis by axis, not a loop over them:
 * the image pass runs before the optimiser has unrolled such a loop, and
 * the loop left p in memory, where the pass cannot see the coordinates
 * of a border test (its inside versions, compiler/image_inside.cpp,
 * need them). */
INLINE void int_pixel(const grid *g, uint32_t sampler, int4 coord,
                      int32_t p[3]) {
  grid_coords_i(g, coord, p);
  uint32_t mode = sampler & SKEIN_SAMPLER_ADDRESS_MASK;
  p[0] = int_axis(g, mode, 0, p[0]);
  p[1] = int_axis(g, mode, 1, p[1]);
  p[2] = int_axis(g, mode, 2, p[2]);
}

ENTRY float4 __skein_image_read_fi(uint32_t type, const AS_GLOBAL void *image,
                                   uint32_t sampler, int4 coord) {
  grid g = grid_of(image, type, 0);
  int32_t p[3];
  int_pixel(&g, sampler, coord, p);
  /* Integer coordinates address pixels as they are, unless clamped to
   * the edge: only then can a guessed column help (coordinates that are
   * the work-items' ids already give consecutive addresses, and a guess
   * would only add a load). The guess is the coordinate's own column
   * before the clamp, not the work-item's id: the same pixel wherever
   * the clamp changes nothing, and consecutive across work-items where
   * the kernel reads its id plus a constant, as filters read their
   * neighbours (a 5x5 box filter's reads at x - 2 .. x + 2 missed the
   * id's guess four times in five and were gathers). Through
   * __skein_image_lane_x, so that outside the versioned loops there is
   * no guess. */
  int clamped = (sampler & SKEIN_SAMPLER_ADDRESS_MASK) ==
                SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
  int32_t column =
      clamped ? (int32_t)__skein_image_lane_x((int64_t)coord.x) : INT32_MIN;
  return texel_f(&g, p, column, clamped, clamped);
}

ENTRY uint4 __skein_image_read_ui(uint32_t type, const AS_GLOBAL void *image,
                                  uint32_t sampler, int4 coord) {
  grid g = grid_of(image, type, 1);
  int32_t p[3];
  int_pixel(&g, sampler, coord, p);
  return texel_u(&g, p);
}

/* ---- Writes ------------------------------------------------------------- */

/* The pixel a write's coordinate names, or false outside the image
 * (undefined: the write is dropped). The axes past the image's
 * dimensions, but an array's layer, are 0 (written out, not a loop:
 * see int_pixel). */
INLINE int write_pixel(const grid *g, int4 coord, int32_t p[3]) {
  grid_coords_i(g, coord, p);
  if (g->dims < 2 && g->layer_axis != 1)
    p[1] = 0;
  if (g->dims < 3 && g->layer_axis != 2)
    p[2] = 0;
  return inside(g, p);
}

ENTRY void __skein_image_write_f(uint32_t type, const AS_GLOBAL void *image,
                                 int4 coord, float4 colour) {
  grid g = grid_of(image, type, 0);
  int32_t p[3];
  if (write_pixel(&g, coord, p))
    store_pixel_f(&g, pixel_at(&g, p), colour);
}

ENTRY void __skein_image_write_u(uint32_t type, const AS_GLOBAL void *image,
                                 int4 coord, uint4 colour) {
  grid g = grid_of(image, type, 1);
  int32_t p[3];
  if (write_pixel(&g, coord, p))
    store_pixel_u(g.d, pixel_at(&g, p), colour);
}
