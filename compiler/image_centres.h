// This file declares the image pass's lowering of builtins/image.c's
// nearest-read index helper (image_centres.cpp).
#ifndef SKEIN_IMAGE_CENTRES_H
#define SKEIN_IMAGE_CENTRES_H

#include <llvm/IR/Function.h>

namespace skein_images {

// Replaces every call of __skein_image_nearest_index in f: where `fold`
// and its coordinate is a pixel centre computed from an int x (see
// image_centres.cpp), by x kept within +-2^22; otherwise by the helper's
// body, inlined. Returns the number of calls folded.
unsigned lower_nearest_index(llvm::Function &f, bool fold);

} // namespace skein_images

#endif
