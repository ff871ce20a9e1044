// This file declares what chain_schedule.cpp shares with jam_tails.cpp:
// how both find the unroll-and-jammed loops they work on.
#ifndef SKEIN_CHAIN_SCHEDULE_H
#define SKEIN_CHAIN_SCHEDULE_H

#include <llvm/IR/BasicBlock.h>

namespace skein_chains {

// Whether bb is a loop of one block (it branches to itself) that does
// nothing but arithmetic (intrinsics included, no memory, no other
// calls): a jammed body of chains. Loops that load or store (the loop
// vectoriser's, whose copies already alternate) are not.
bool arithmetic_self_loop(llvm::BasicBlock &bb);

} // namespace skein_chains

#endif
