// This file declares the forwarding of the ABI records' set-once fields
// in a work-group function (group_records.cpp), which bounds-checked
// kernels (bounds_lift.cpp) and region mode (region_driver.cpp) use.
#ifndef SKEIN_GROUP_RECORDS_H
#define SKEIN_GROUP_RECORDS_H

#include <llvm/IR/Function.h>

namespace skein_records {

// Replaces the loads of the group record's set-once fields outside the
// entry block by the values the entry block stored, and points the loads
// of region mode's launch copy at the launch itself (see the definition).
void forward_records(llvm::Function &f, bool collective_set_once);

} // namespace skein_records

#endif
