/* This file decides how a work-item body is vectorised on the target
 * (target.c): whether its vector-typed values are split into lanes, so
 * that LLVM's loop vectoriser widens each lane across work-items, and how
 * many vectors of work-items each iteration of the work-item loop
 * interleaves. Both follow from the target's vector width, register
 * count and FMA chains, never from constants of one machine; the
 * reasoning is in docs/architecture.md, "The target model".
 *
 * A body that is one long dependent chain per work-item (clpeak's, most
 * iterative solvers') runs at the FMA latency, not its throughput,
 * unless the core has enough independent chains in flight: two FMA pipes
 * of four cycles need eight. Vectorised across work-items, a vector of
 * work-items is one chain per lane of the kernel's own vectors; the
 * interleave count multiplies that, and the register file bounds it:
 * every copy keeps its carried values in registers. */
#include "compiler_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bodies shorter than this are left to LLVM's cost model, which
 * interleaves small loops itself. */
enum { LONG_BODY_OPS = 16 };

/* Split, a vector that consecutive work-items load side by side is an
 * interleaved group of as many loads as it has lanes, which the loop
 * vectoriser turns into wide loads and shuffles. Up to 4 lanes that is
 * what it does (clpeak's float2 and float4 reads: <32 x float> and
 * <64 x float> loads for 16 work-items on AVX-512); with 8, clpeak's
 * float8 read was left unvectorised and its float16 read lost its wide
 * loads (the optimised IR, znver5 and haswell, 2026-11-26), so wider
 * vectors in memory stay whole. */
enum { MAX_INTERLEAVED_LANES = 4 };

/* Work-items one trip of an interleaved vector loop may take: a common
 * group size, and region mode's largest strip (region_driver.cpp). */
enum { MAX_LOOP_ITEMS = 256 };

/* What the plan needs to know of fn's arithmetic: how many operations
 * (floating-point arithmetic instructions and calls; after inlining, the
 * builtins' fma/sqrt/... intrinsics; integer vector arithmetic and
 * integer multiplies), and the
 * widest floating-point or integer vector value (lanes and bits; 1 lane
 * if none). */
typedef struct body_profile {
  unsigned ops;
  unsigned lanes;
  unsigned bits;
  unsigned half_results;   /* values rounded to half (arithmetic on half
                            * is done in float and rounded: math_half.cl) */
  bool images;             /* it reads or writes images */
  unsigned narrowest;      /* bits of its narrowest integer or float
                            * value (loads, stores, arithmetic); 0: none */
  bool fp_widest;          /* its widest vector is floating-point */
  unsigned vector_int_muls; /* multiplies of integer vectors */
  unsigned byte_muls;      /* multiplies of bytes: of i8 values, or of
                            * i8 values extended (C's promotion) */
  unsigned narrow_muls;    /* integer multiplies of 32 bits or fewer */
  unsigned half_mads;      /* half mads widened to float fmas (they carry
                            * !fpmath: half_lower.c) */
} body_profile;

/* Whether i calls one of the image builtins' format keys, which only
 * image accesses have (image_version.cpp versions the loop on them). */
static bool image_key_call(LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMCall)
    return false;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t len = 0;
  const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
  return strncmp(name, "__skein_image_key", 17) == 0;
}

/* Whether v is a byte (or byte vector) extended: the operands of a
 * char multiply as the front end writes it, in int after C's integer
 * promotion. */
static bool from_byte(LLVMValueRef v) {
  if (!LLVMIsASExtInst(v) && !LLVMIsAZExtInst(v))
    return false;
  LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(v, 0));
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    t = LLVMGetElementType(t);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(t) == 8;
}

static body_profile profile_body(LLVMValueRef fn) {
  body_profile p = {0, 1, 0, 0, false, 0, false, 0, 0, 0, 0};
  unsigned fpmath = LLVMGetMDKindIDInContext(
      LLVMGetTypeContext(LLVMTypeOf(fn)), "fpmath", 6);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      p.images |= image_key_call(i);
      LLVMTypeRef t = LLVMTypeOf(i);
      bool vector = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
      LLVMTypeRef et = vector ? LLVMGetElementType(t) : t;
      LLVMTypeKind k = LLVMGetTypeKind(et);
      bool fp = k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
                k == LLVMHalfTypeKind;
      /* Integer vectors (int2 ... int16) count too; scalar integer
       * arithmetic is mostly addressing and does not. */
      bool int_vector = vector && k == LLVMIntegerTypeKind;
      p.ops += fp && (op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul ||
                      op == LLVMFDiv || op == LLVMCall);
      p.vector_int_muls += int_vector && op == LLVMMul;
      if (op == LLVMMul && k == LLVMIntegerTypeKind &&
          LLVMGetIntTypeWidth(et) <= 32) {
        p.narrow_muls++;
        p.byte_muls += LLVMGetIntTypeWidth(et) == 8 ||
                       (from_byte(LLVMGetOperand(i, 0)) &&
                        from_byte(LLVMGetOperand(i, 1)));
      }
      p.ops += int_vector && (op == LLVMAdd || op == LLVMSub ||
                              op == LLVMMul || op == LLVMShl ||
                              op == LLVMAnd || op == LLVMOr ||
                              op == LLVMXor);
      /* Scalar integer multiplies are arithmetic too (addressing has
       * few): clpeak's int body is one mul-add chain, which ran at half
       * the int2 figure uninterleaved on the 16-core Xeon. */
      p.ops += !vector && k == LLVMIntegerTypeKind && op == LLVMMul;
      /* A stored value's type, or the result's; i1 (conditions) and
       * pointers give no lanes. */
      LLVMTypeRef vt = op == LLVMStore ? LLVMTypeOf(LLVMGetOperand(i, 0)) : t;
      if (LLVMGetTypeKind(vt) == LLVMVectorTypeKind)
        vt = LLVMGetElementType(vt);
      unsigned vbits = LLVMGetTypeKind(vt) == LLVMIntegerTypeKind
                           ? LLVMGetIntTypeWidth(vt)
                       : LLVMGetTypeKind(vt) == LLVMHalfTypeKind   ? 16
                       : LLVMGetTypeKind(vt) == LLVMFloatTypeKind  ? 32
                       : LLVMGetTypeKind(vt) == LLVMDoubleTypeKind ? 64
                                                                   : 0;
      if (vbits > 1 && (op == LLVMLoad || op == LLVMStore || op == LLVMTrunc ||
                        op == LLVMMul || op == LLVMAdd || op == LLVMFAdd ||
                        op == LLVMFMul || op == LLVMCall) &&
          (!p.narrowest || vbits < p.narrowest))
        p.narrowest = vbits;
      p.half_mads += k == LLVMFloatTypeKind && op == LLVMCall &&
                     LLVMGetMetadata(i, fpmath) != NULL;
      p.half_results += k == LLVMHalfTypeKind &&
                        (op == LLVMFPTrunc || op == LLVMFAdd ||
                         op == LLVMFMul || op == LLVMFSub || op == LLVMCall);
      if (((fp && vector) || int_vector)) {
        unsigned lanes = LLVMGetVectorSize(t);
        unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(et)
                        : k == LLVMDoubleTypeKind ? 64
                        : k == LLVMHalfTypeKind   ? 16
                                                  : 32;
        if (lanes * bits > p.lanes * p.bits) {
          p.lanes = lanes;
          p.bits = bits;
          p.fp_widest = fp;
        }
      }
    }
  return p;
}

unsigned cc_interleave_count(void) {
  const char *env = getenv("SKEIN_INTERLEAVE");
  int count = env ? atoi(env) : 4;
  return count >= 1 && count <= 16 ? (unsigned)count : 4;
}

/* The interleave count that gives the target its FMA chains when each
 * copy of the body brings chains independent chains and holds regs
 * registers, without needing more registers than the target has. */
static unsigned interleave_for(const cc_target *t, unsigned chains,
                               unsigned regs) {
  if (chains < 1)
    chains = 1;
  unsigned count = (t->fma_chains + chains - 1) / chains;
  while (count > 1 && count * regs > t->vector_regs)
    count--;
  return count;
}

/* SKEIN_VECTOR_SPLIT=0/1 forces the split off or on (where it is legal),
 * SKEIN_INTERLEAVE=n the interleave count of every long body,
 * SKEIN_UNROLL_JAM=n the unroll-and-jam count of kept vectors (1: none):
 * all for measuring the model's choices against the alternatives.
 * -1: unset. */
static int forced(const char *name) {
  const char *env = getenv(name);
  return env && *env ? atoi(env) : -1;
}

cc_vector_plan cc_plan_vectors(LLVMValueRef fn, LLVMValueRef latch,
                               const char *name) {
  const cc_target *t = cc_target_get();
  body_profile body = profile_body(fn);
  cc_vector_plan plan = {false, 1, body.ops, 0, 1, false};
  /* Image kernels belong to the image pass (image_version.cpp), which
   * versions the loop on the images' formats and splits each version's
   * pixels itself, keeping pixel loads and stores whole; split here
   * first, the loop vectoriser no longer widened them at all (the
   * sampler-less RGBA8 copy lost every <16 x> vector). */
  if (body.images)
    return plan;
  /* A short body of vector values is not left to the cost model: the
   * loop vectoriser widens no loop of vector-typed values, so kept, its
   * work-item loop runs one work-item at a time (clpeak's float2 and
   * float4 reads: 16 loads of one float2 per trip). Split, its lanes
   * are widened like a scalar body's; nothing more is asked of it. */
  bool short_body = body.ops < LONG_BODY_OPS;
  if (short_body && body.lanes == 1)
    return plan;
  /* Half arithmetic without AVX-512 FP16 is float arithmetic between
   * F16C conversions (half_lower.c): each operation needs a register
   * more than its float values for the conversions' results. Without
   * it, clpeak's half16 on AVX-512 was jammed 16 work-items deep in all
   * 32 zmm registers and spilled: 40 GFLOPS against 103 with 8 jammed
   * (the 2-core Zen 5, 2026-11-26). */
  bool half_in_float = body.half_results * 2 >= body.ops &&
                       !t->fp16_arith && t->f16c;
  unsigned width_bits = body.lanes * body.bits;
  unsigned chains = 1, regs = 2;
  if (body.lanes > 1) {
    cc_vector_shape_t shape;
    cc_vector_shape(fn, latch, &shape);
    /* Split where the kernel's vectors are narrower than the target's
     * registers (a float4 in a zmm register wastes 12 lanes) or exactly
     * as wide, as long as the lanes the loops carry fit in the register
     * file once each is a register of work-items. Wider vectors (a
     * float16 on AVX2, a double16 on AVX-512) already fill their
     * registers, and split, their 32 carried lanes spill: clpeak's
     * double16 ran at 230 GFLOPS split and 363 kept on the 16-core Xeon
     * (docs/performance.md). */
    int force = forced("SKEIN_VECTOR_SPLIT");
    /* Vectors loaded or stored in a loop LLVM unrolls whole become,
     * split, interleaved groups of as many members as they have lanes
     * (MAX_INTERLEAVED_LANES). */
    bool legal = shape.carried > 0 && !shape.inner_vector_memory &&
                 shape.unrolled_vector_lanes <= MAX_INTERLEAVED_LANES &&
                 !getenv("SKEIN_NO_SCALARIZE");
    /* A vector exactly as wide as a register wastes no lanes kept.
     * Split, its carried lanes may take every register (clpeak's float16
     * on AVX-512: 32 of 32 zmm, and the cut loop's context pointers
     * spilled around them); kept, the work-item loop is unroll-and-
     * jammed instead (below), which needs twice the FMA chains in
     * registers: jammed chains run on through the kernel's whole loop,
     * where region mode's short trips of split lanes overlap in the
     * out-of-order window. Kept where both hold: float16 and int16 on
     * AVX-512 (clpeak's float16 on the loaded Zen 5, one thread, best of
     * 41: 214 GFLOPS kept, 192-203 split; skein-bench-peak's int16 130-138
     * GIOPS kept against 62-64). On AVX2 there are registers for only 8
     * jammed chains: int8 ran at 63-69 GIOPS kept against 78 split. */
    unsigned kept_regs = shape.carried * body.bits / t->vector_bits;
    bool jam_room = kept_regs * 2 * t->fma_chains <= t->vector_regs;
    /* Narrower vectors whose split lanes would take every register are
     * kept too where their arithmetic is floating-point done natively:
     * clpeak's half16 on AVX-512 FP16 (32 carried lanes in 32 zmm, and
     * the lanes' constant initial values besides) ran at 84-165 GFLOPS
     * split against 308-334 kept and unroll-and-jammed (the 2-core
     * Xeon, 2026-11-26, alternating runs); char16 and short16 there ran
     * faster split in the same runs. */
    bool fp_all_registers = body.fp_widest && !half_in_float &&
                            shape.carried >= t->vector_regs;
    /* Half mads chained in float (half_mad_chains.cpp: no AVX-512 FP16)
     * in vectors whose floats fill a ymm register or more (half8,
     * half16) are kept as well, where the kernel's loop is unrolled
     * whole. Split, half8 was 8 chains of two <8 x float> or
     * <16 x float> values, every register of AVX2 (16 of 16) or, jammed
     * twice, of AVX-512; with the loop's id induction and the stores'
     * conversions on top, LLVM's scheduler ran the chains one after
     * another to keep them in registers (the loop's code shows 128
     * dependent FMAs in a row). skein-bench-peak on the 2-core Xeon,
     * two alternating rounds: half8 28-33 GFLOPS split against 82 kept
     * with haswell code, 42-52 against 86 with skylake-avx512 code
     * (half2 and half4 kept: 20-43, against 66-152 split). Native FP16
     * half8 is faster split (188-197 against 44-50). Where the loop
     * stays a loop (clpeak's half8: 16 trips of 16 mads), the kept
     * vector depends on unroll-and-jam, which did not happen there:
     * 8-10 GFLOPS kept against 64 split, haswell code, same machine. */
    bool half_mads_kept = body.half_mads * 2 >= body.ops &&
                          !t->fp16_arith && body.bits == 32 &&
                          width_bits >= 256 && !shape.kept_inner_loop;
    /* Integer vectors of two registers (int16 on AVX2, long16 on
     * AVX-512) whose multiply is one instruction (32-bit elements on
     * every x86-64-v2 CPU, 64-bit ones with AVX-512 DQ's vpmullq):
     * kept, a work-item gives the multiplier one chain per register it
     * fills, where vpmulld's 10 cycles and vpmullq's 15 want more than
     * the FMA model's chains; split, each lane is a chain of its own
     * across work-items. skein-bench-peak on the 16-core Xeon, three
     * rounds (docs/performance.md): AVX2 int16 279-300 GIOPS kept,
     * 354-436 split; AVX-512 long16 137-143 kept, 197-215 split. An
     * emulated multiply is throughput-bound and split only spills (AVX2
     * long16: 77-80 kept, 55-58 split). Vectors of two registers, as
     * measured, with at most twice the registers' lanes carried, so that
     * a kernel of many such vectors stays kept. */
    bool int_mul_wide =
        !body.fp_widest && body.vector_int_muls > 0 &&
        width_bits == 2 * t->vector_bits &&
        (body.bits == 32 ||
         (body.bits == 64 && cc_feature_on(t->features, "avx512dq"))) &&
        shape.carried <= 2 * t->vector_regs;
    /* Without room to jam, a register-wide vector is split as long as
     * its lanes fit the registers at all (int8 on AVX2: 16 of 16). A
     * kernel of many such vectors (skein-bench-peak's float16 with 8
     * chains per work-item: 256 carried lanes) brings its own chains:
     * split, every lane spilled once its loop was unrolled whole
     * (956-1101 GFLOPS against 1448-1624 kept on the 16-core Xeon). */
    bool fits = width_bits < t->vector_bits
                    ? shape.carried <= t->vector_regs && !fp_all_registers
                : width_bits == t->vector_bits
                    ? shape.carried < t->vector_regs ||
                          (!jam_room && shape.carried <= t->vector_regs)
                    : int_mul_wide;
    plan.split = legal && (force >= 0 ? force != 0 : fits && !half_mads_kept);
    /* Measured as the kernel wrote them, the loops unrolled_whole.h
     * takes as unrolled whole are no longer small once split: ask LLVM
     * to unroll them anyway, or the work-item loop stays outside them
     * and unvectorised. */
    if (plan.split)
      cc_unroll_whole_loops(fn, latch);
    if (short_body) {
      if (plan.split)
        cc_scalarize_function(fn);
      plan.force = plan.split;
      if (cc_dump_enabled("modes"))
        fprintf(stderr, "skein: %s: vectors %s (short body)\n", name,
                plan.split ? "split into lanes" : "kept");
      return plan;
    }
    if (plan.split) {
      cc_scalarize_function(fn);
      chains = body.lanes;
      regs = shape.carried;
    } else {
      /* Unsplit, a work-item's vector is its own chains (one per
       * register it fills); LLVM interleaves no loop of vector-typed
       * values, so the count below is moot unless it does. */
      chains = width_bits > t->vector_bits ? width_bits / t->vector_bits
                                           : 1;
      regs = shape.carried * body.bits / t->vector_bits;
      if (regs < 2 * chains)
        regs = 2 * chains;
      regs += half_in_float;
      /* ... but it does unroll-and-jam the work-item loop around the
       * kernel's own loop (unroll_jam.cpp), which gives the FMA units
       * as many chains: clpeak's double16 on the Xeon had 2 chains. */
      int jam = forced("SKEIN_UNROLL_JAM");
      plan.jam = jam >= 1 && jam <= 16 ? (unsigned)jam
                                       : interleave_for(t, chains, regs);
      /* Exactly the pipes' chains leave no margin for the ends of each
       * jammed group (its first loads, its reductions), which the core
       * cannot overlap with the next group's chains: where the registers
       * hold twice as many, take them, in powers of two that divide the
       * usual group sizes (clpeak's float16 on the loaded Zen 5, one
       * thread, best of 41: 200 GFLOPS with 8 work-items jammed, 214
       * with 16, in all 32 zmm registers without a spill). */
      while (jam < 1 && plan.jam * 2 * regs <= t->vector_regs &&
             plan.jam * chains < 2 * t->fma_chains)
        plan.jam *= 2;
    }
  }
  /* Half arithmetic without AVX-512 FP16 is float arithmetic between
   * F16C conversions, which LLVM's cost model prices so high that it
   * vectorises such bodies 4 work-items wide, or not at all: ask for the
   * target's float lanes (a measured 4x on the loaded Zen 5). */
  if (body.half_results * 2 >= body.ops && !t->fp16_arith && t->f16c)
    plan.width = t->vector_bits / 32;
  /* A body whose multiplies are all of bytes, widened across
   * work-items, is vectorised at the target's short width (16 work-items
   * to a ymm register, not 32): x86 has no byte multiply, and after the
   * optimiser a byte chain that multiplies is computed in 16-bit lanes
   * where those fit one register (byte_chains.c): one vpmullw a
   * multiply, where LLVM's byte multiply of a register of 32 bytes was
   * two vpmullw between unpacks, masks and a pack. skein-bench-peak's
   * char widths on the 16-core Xeon, native: 663-1162 GIOPS before,
   * 985-1607 after (short: 1018-2009). */
  bool byte_lanes = body.byte_muls > 0 &&
                    body.byte_muls == body.narrow_muls &&
                    (plan.split || body.lanes == 1) &&
                    !cc_env_switch("SKEIN_BYTE_MULS");
  if (byte_lanes)
    plan.width = t->vector_bits / 16;
  int ic = forced("SKEIN_INTERLEAVE");
  plan.interleave = ic >= 1 && ic <= 16 ? (unsigned)ic
                                        : interleave_for(t, chains, regs);
  /* The loop vectoriser widens narrow types further (64 chars to a zmm
   * register): interleaved 8 times, a char kernel's vector loop took
   * 512 work-items per trip, more than a group of 256 (or a region
   * strip) has, and only the remainder loop ever ran (22 GIOPS against
   * char8's 71 on the Zen 5). At most MAX_LOOP_ITEMS work-items per
   * trip, whatever the element size. */
  if (ic < 1 && body.narrowest && body.narrowest < 32) {
    unsigned per_vector =
        t->vector_bits / (byte_lanes ? 16 : body.narrowest);
    unsigned cap = per_vector >= MAX_LOOP_ITEMS ? 1
                                                : MAX_LOOP_ITEMS / per_vector;
    if (plan.interleave > cap)
      plan.interleave = cap;
  }
  if (cc_dump_enabled("modes"))
    fprintf(stderr,
            "skein: %s: vectors %s, %u work-item vectors of %u bits "
            "interleaved, %u jammed (%u chains, %u registers each)\n",
            name, plan.split ? "split into lanes" : "kept", plan.interleave,
            t->vector_bits, plan.jam, chains, regs);
  return plan;
}
