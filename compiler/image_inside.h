// This file declares the image pass's versions of a format copy for
// work-groups whose pixels are all inside the images (image_inside.cpp),
// which the image pass (image_version.cpp) makes after its format copies.
#ifndef SKEIN_IMAGE_INSIDE_H
#define SKEIN_IMAGE_INSIDE_H

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Metadata.h>

#include <cstdint>

namespace skein_images {

// A fresh loop id for a copied loop's metadata (a copy must not share
// its loop's identity); id itself where it is no loop id.
llvm::MDNode *fresh_loop_id(llvm::MDNode *id);

// In work-group function f, whose entry block ends in the image pass's
// switch over its copies, gives each copy whose case value `wanted`
// accepts a second copy, run where a test at the work-group's start
// shows that every comparison of a work-item's coordinate with an
// image's extent (the border tests of image.c) has the same outcome for
// every work-item of the group; in that copy the comparisons are
// constants. Returns the number of copies made.
unsigned version_inside(llvm::Function &f,
                        llvm::function_ref<bool(uint64_t)> wanted);

} // namespace skein_images

#endif
