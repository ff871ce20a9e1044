// This file declares what the region-mode files share: the state of one
// kernel's transformation (region.cpp), the uniformity analysis
// (region_uniform.cpp) and the work-group function that runs the regions
// (region_driver.cpp).
#ifndef SKEIN_REGION_INTERNAL_H
#define SKEIN_REGION_INTERNAL_H

#include "compiler_internal.h"

#include <llvm/ADT/BitVector.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skein_region {

using namespace llvm;   // inside this namespace only

// The sub-group functions in which each work-item reads the value of
// another lane (region_collective.cpp).
enum Exchange { NONE, BROADCAST, BROADCAST_FIRST, SHUFFLE, SHUFFLE_XOR,
                SHUFFLE_UP, SHUFFLE_DOWN, ROTATE };

// A reduction, scan, all or any that region mode computes between two
// work-item loops (region_collective.cpp).
struct GroupStep {
  Function *library;   // the __skein_ctx_ collective (fiber mode's)
  Type *type;          // of the value (and the result)
  bool sub_group, is_signed;
  bool logical;        // operands are predicates (all, any, logical_*)
  unsigned cluster;    // clustered_reduce's cluster size, else 0
  enum Kind { REDUCE, SCAN_INCLUSIVE, SCAN_EXCLUSIVE, ALL, ANY } kind;
  enum Op { ADD, MUL, MIN, MAX, AND, OR, XOR } op;
};

// A barrier or collective call of the region body.
struct Sync {
  CallInst *call;
  bool collective;
  bool group_wide;   // collective whose result is slot n (else slot lid)
  bool sub_group;    // sub-group collective: result in slot n + 1 + lid
  bool group_step;   // computed once per group after its region's loop:
  GroupStep step;    // what (parse_group_step), if group_step
  unsigned exchange; // a sub-group exchange (Exchange), else NONE
  bool uniform_arg;  // an exchange whose lane or delta is group-uniform
};

// A broadcast (or shuffle, or broadcast_first) of a lane that is the
// same for the whole group, computed between the loops of its own
// region and of the read (emit_exchange_step): each sub-group's slots
// all get the lane's value, and each work-item then reads its own slot.
struct ExchangeStep {
  unsigned exchange;    // BROADCAST, BROADCAST_FIRST or SHUFFLE
  Type *slot;           // sub_slot_type
  ConstantInt *lane;    // the lane if a constant, else stash_slot's
};

// One region: its start block, the blocks reachable from it without
// crossing a cut, their dominators within the region, and the regions a
// cut leads to.
struct Region {
  BasicBlock *start;
  std::vector<BasicBlock *> blocks;
  DenseMap<BasicBlock *, unsigned> index;
  std::vector<BitVector> dom;   // dom[i][j]: blocks[j] dominates blocks[i]
  std::vector<unsigned> next;
};

// Everything one kernel's transformation owns.
struct Cutter {
  Function *F;
  StructType *group_ty, *launch_ty;
  std::string why;                 // why region mode does not apply
  std::vector<Sync> syncs;
  BasicBlock *prologue = nullptr;  // allocas and context pointers
  std::vector<Region> regions;
  DenseMap<BasicBlock *, unsigned> cut_to;   // cut block -> region
  DenseSet<Value *> divergent;      // values that may differ per item
  DenseSet<Instruction *> uniform_loads;   // group-wide collective results
  DenseSet<BasicBlock *> collective_starts;  // a collective's own region
                                             // that calls the library
  DenseMap<BasicBlock *, GroupStep> group_steps;  // by the region start
                                                  // whose loop it follows
  DenseMap<BasicBlock *, ExchangeStep> exchange_steps;   // the same
  std::vector<AllocaInst *> demoted;
  // Every load spill() placed for a crossing use, with the value it
  // reloads: in a region where that value's definition dominates the
  // load, the region's clone uses the value itself (see clone_regions).
  std::vector<std::pair<LoadInst *, Instruction *>> reloads;
  // Uniform values crossing a cut: every work-item writes the first
  // (cur), crossing uses read the second (snap), which the work-group
  // function refreshes from cur before each region's loop.
  std::vector<std::pair<AllocaInst *, AllocaInst *>> uniform;
  std::vector<AllocaInst *> ctx_allocas;
  uint64_t ctx_bytes = 0;          // per work-item
  std::vector<uint64_t> slot_sizes, slot_aligns;   // each context array's
  uint64_t uniform_bytes = 0;      // each of cur and snap
  uint64_t ctx_align = 64;
  bool has_collective = false;
  bool wide_sub_slots = false;     // sub_slot_type
  bool wide_group_slots = false;   // group_slot_type
  // A barrier-free kernel whose loops region mode cuts at implicit
  // barriers (cut_loops); its loop-mode function runs groups too small to
  // vectorise (build_driver).
  bool loop_regions = false;
  Function *loop_fn = nullptr;
  // The headers of its loops that LLVM unrolls whole (not cut).
  DenseSet<BasicBlock *> unrolled_whole;
  unsigned interleave = 4;   // chains for long floating-point regions
  unsigned width = 0;        // work-items per vector (0: LLVM chooses)
  unsigned unroll = 1;       // work-items per trip of a kept vector body
};

// Region mode's collective slots (collective_setup, region_driver.cpp,
// allocates them 64-byte aligned) are three areas of slot_area(n) 8-byte
// slots each: the work-group collectives' n + 1 (the library's
// work_group_broadcast uses these as builtins/abi.h lays them out), the
// sub-group steps' n, the exchanges' n. Each area is n + 1 slots rounded
// up to a whole 64 bytes, so that every area starts on a cache line: the
// steps load a vector of the target's width at a time, at the same
// offsets as the vector stores of the deposit before them (or the
// aligned stores of the memcpy the deposit loop becomes), and a load that
// straddles two stores waits for both to reach the cache instead of
// taking its bytes from the store buffer (the native float scan's first
// load after a memcpy into 8-byte-aligned slots took 17-28 % of the
// step's samples).
inline llvm::Value *slot_area(llvm::IRBuilder<> &b, llvm::Value *n) {
  return b.CreateAnd(b.CreateAdd(n, b.getInt64(8)), b.getInt64(-8));
}
// The exchanges' area lies between two pads of exchange_pad_slots() slots (a
// whole number of cache lines, so it stays on one): they let
// read_exchange load lanes lid - d and lid + d for any d below the
// largest sub-group size (it then selects among them) without leaving
// the allocation, whatever n.
// Derived from cc_sub_group_sizes (the largest, rounded up to 8 slots),
// so that a larger supported size cannot outgrow the pads.
inline uint64_t exchange_pad_slots() {
  const size_t *sizes;
  size_t count = cc_sub_group_sizes(&sizes), largest = 8;
  for (size_t i = 0; i < count; i++)
    largest = sizes[i] > largest ? sizes[i] : largest;
  return (largest + 7) & ~(uint64_t)7;
}
// Where the exchanges' area starts, in 8-byte slots.
inline llvm::Value *exchange_slots(llvm::IRBuilder<> &b, llvm::Value *n) {
  return b.CreateAdd(b.CreateMul(slot_area(b, n), b.getInt64(2)),
                     b.getInt64(exchange_pad_slots()));
}

// Where an exchange step's lane that is not a constant waits for the
// step: the 8-byte slot before the exchanges' (in the first pad), which
// every work-item's deposit writes (the same value).
inline llvm::Value *stash_slot(llvm::IRBuilder<> &b, llvm::Value *slots,
                               llvm::Value *n) {
  return b.CreateInBoundsGEP(
      b.getInt64Ty(), slots,
      b.CreateSub(exchange_slots(b, n), b.getInt64(1)));
}

// The function attribute of region mode's work-group functions.
static const char *const region_attribute = "skein-region";

// The driver's fixed-size state block: the next region's number (an
// i32), padding to this offset, then the uniform slots (place()).
static const uint64_t state_header = 64;

// The address of field f (element idx if idx >= 0) of the group struct.
inline llvm::Value *group_field(llvm::IRBuilder<> &b, llvm::StructType *st,
                               llvm::Value *g,
                          unsigned f, int idx = -1) {
  if (idx < 0)
    return b.CreateStructGEP(st, g, f);
  llvm::Value *ix[3] = {b.getInt32(0), b.getInt32(f), b.getInt32(idx)};
  return b.CreateInBoundsGEP(st, g, ix);
}

// Fills c.divergent: the values of the region body that may differ
// between the work-items of a group (region_uniform.cpp).
void find_divergent(Cutter &c);

// The condition of block bb's conditional branch or switch, or null.
Value *branch_condition(BasicBlock *bb);

// Adds to out the blocks that only some work-items of a group may run:
// those a branch on a divergent value leads to before its paths join
// again. Fills c.divergent for that (find_divergent); callers empty it
// before the body is cut (demote() computes it again afterwards).
void divergently_executed(Cutter &c, DenseSet<BasicBlock *> &out);

// Gives the loop whose latch branch is latch a new loop ID made of props
// (each an MDNode of a property name and its values).
void set_loop_properties(Instruction *latch, ArrayRef<Metadata *> props);

// Parses a reduce, scan, all or any collective's name into out (false
// for others); converts values to whole 8-byte slots and back; emits the
// step at b, after the loop of the region that deposited the values
// (region_collective.cpp).
bool parse_group_step(CallInst *call, StringRef name, bool sub_group,
                      GroupStep *out);
Value *to_slot(IRBuilder<> &b, Value *v);
// A sub-group group step's or an exchange's slots: 4 bytes for values of
// at most 32 bits (half the bytes they move), else 8, and 8 for all of a
// kernel's if any of its sub-group values is 64 bits wide: a region can
// read one collective's result and deposit the next one's value, and
// work-item k's 8-byte deposit would overwrite the unread 4-byte results
// of work-items 2k and 2k + 1; and the address of
// lane lid's slot among a sub-group step's (they start at slot
// slot_area(n) of the group's 8-byte slots; an exchange's at
// exchange_slots()).
Type *sub_slot_type(const Cutter &c, Type *value);
// A work-group group step's slots: 4 bytes for values of at most 32 bits
// (the deposit, the step and the read move half the bytes, and AVX2 code
// has no widening or narrowing of a whole register in one instruction:
// an int scan spent more shuffles on its 8-byte slots than on the scan),
// else 8; 8 for all of a kernel's work-group steps if any of them is 64
// bits wide, for the reason sub_slot_type gives. work_group_broadcast
// keeps the library's 8-byte slots: it deposits in its own region, which
// reads no step's result, and its result is slot n of them, past the
// 4-byte slots' last byte (4n + 4 <= 8n).
Type *group_slot_type(const Cutter &c, Type *value);
Value *sub_slot_at(IRBuilder<> &b, Value *slots, Value *n, Type *slot,
                   Value *lid);
Value *to_slot(IRBuilder<> &b, Value *v, Type *slot);
// The Exchange a __skein_ctx_ name calls, or NONE.
Exchange parse_exchange(StringRef name);
// An exchange after its cut: each work-item reads the slot of the lane
// it names (or its own where that lane is not in its sub-group).
void read_exchange(Cutter &c, Sync &s, BasicBlock *after);
// Whether exchange s is an exchange step (ExchangeStep); emits one.
bool is_exchange_step(const Sync &s);
void emit_exchange_step(IRBuilder<> &b, Cutter &c, const ExchangeStep &x,
                        Value *group, Value *n);
Value *from_slot(IRBuilder<> &b, Value *slot, Type *t);
void emit_group_step(IRBuilder<> &b, Cutter &c, const GroupStep &s,
                     Value *group, Value *n);

// Replaces the placeholder call of c.F in rwg by the loops that run the
// region functions fns (region r is fns[r]) and inlines them
// (region_driver.cpp). False if rwg has no placeholder call.
bool build_driver(Cutter &c, llvm::Function *rwg,
                  std::vector<llvm::Function *> &fns);

} // namespace skein_region

#endif
