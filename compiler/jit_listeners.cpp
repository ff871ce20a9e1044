// This file contains the JIT event listeners that make kernel code
// visible to gdb and perf. The C API has the gap: it can create LLVM's
// gdb and perf-jitdump listeners and attach them to an RTDyld object
// layer, but a listener of one's own (the perf map writer here) must
// subclass llvm::JITEventListener.
//
// Only programs that need it get the RTDyld layer with listeners (a -g
// build, or any build while SKEIN_PERF is set): every other program keeps
// LLJIT's default linker (JITLink on x86-64), untouched.
#include "jit_listeners.h"

#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/OrcEE.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/Object/SymbolSize.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

namespace {

// SKEIN_PERF: a comma-separated list of "map" and "jitdump" ("1" means
// map), read once.
// SKEIN_JIT_LINKER=rtdyld: the RTDyld layer without listeners, for
// comparing the two linkers. Their code differs: RTDyld's addresses
// constants with 64-bit absolute moves (the large code model) and is
// scheduled differently (docs/performance.md, "half8: the scheduler,
// not the linker").
struct perf_modes {
  bool map = false, jitdump = false, rtdyld = false;
  perf_modes() {
    const char *linker = getenv("SKEIN_JIT_LINKER");
    rtdyld = linker && strcmp(linker, "rtdyld") == 0;
    const char *env = getenv("SKEIN_PERF");
    if (!env)
      return;
    map = strstr(env, "map") || strcmp(env, "1") == 0;
    jitdump = strstr(env, "jitdump") != nullptr;
  }
};

const perf_modes &modes() {
  static const perf_modes m;
  return m;
}

// Appends "address size name" lines for every function of each loaded
// object to /tmp/perf-<pid>.map, the file perf reads to name addresses
// in anonymous executable memory. Entries are never removed: perf keeps
// the last entry that covers an address, so reused memory is named by
// its newest code.
class perf_map_listener : public llvm::JITEventListener {
  std::mutex lock_;
  int fd_ = -1;
  bool tried_ = false;

  bool open_locked() {
    if (!tried_) {
      tried_ = true;
      char path[64];
      snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
      fd_ = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    return fd_ >= 0;
  }

public:
  void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile &obj,
                          const llvm::RuntimeDyld::LoadedObjectInfo &info)
      override {
    // The debug object has each section at its load address.
    llvm::object::OwningBinary<llvm::object::ObjectFile> dbg =
        info.getObjectForDebug(obj);
    if (!dbg.getBinary())
      return;
    std::string text;
    for (const auto &sym_size :
         llvm::object::computeSymbolSizes(*dbg.getBinary())) {
      const llvm::object::SymbolRef &sym = sym_size.first;
      auto type = sym.getType();
      auto name = sym.getName();
      auto addr = sym.getAddress();
      if (!type || !name || !addr ||
          *type != llvm::object::SymbolRef::ST_Function ||
          sym_size.second == 0) {
        if (!type) llvm::consumeError(type.takeError());
        if (!name) llvm::consumeError(name.takeError());
        if (!addr) llvm::consumeError(addr.takeError());
        continue;
      }
      char line[64];
      snprintf(line, sizeof line, "%llx %llx ", (unsigned long long)*addr,
               (unsigned long long)sym_size.second);
      text += line;
      text += name->str();
      text += '\n';
    }
    std::lock_guard<std::mutex> guard(lock_);
    if (!text.empty() && open_locked() &&
        write(fd_, text.data(), text.size()) != (ssize_t)text.size()) {
      close(fd_);   // a full disk ends the map, not the application
      fd_ = -1;
    }
  }
};

thread_local bool debug_next __attribute__((tls_model("initial-exec")));
thread_local bool no_opt_next __attribute__((tls_model("initial-exec")));

struct layer_wants {
  bool gdb, map, jitdump;
};

// LLJIT calls this while it is being created (on the creating thread).
LLVMOrcObjectLayerRef make_layer(void *ctx, LLVMOrcExecutionSessionRef es,
                                 const char *) {
  const layer_wants *w = static_cast<const layer_wants *>(ctx);
  LLVMOrcObjectLayerRef layer =
      LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(es);
  // The listeners are process-wide singletons, never freed.
  if (w->gdb)
    LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(
        layer, LLVMCreateGDBRegistrationListener());
  if (w->map) {
    static perf_map_listener *map = new perf_map_listener;
    LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(layer,
                                                            llvm::wrap(map));
  }
  if (w->jitdump) {
    // NULL when LLVM was built without perf support.
    static LLVMJITEventListenerRef dump = LLVMCreatePerfJITEventListener();
    if (dump)
      LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(layer, dump);
  }
  return layer;
}

} // namespace

extern "C" void cc_jit_set_debug(bool debug, bool opt_disable) {
  debug_next = debug;
  no_opt_next = debug && opt_disable;
}

extern "C" void cc_jit_listeners_attach(LLVMOrcLLJITBuilderRef jb) {
  bool debug = debug_next;
  debug_next = false;
  if (no_opt_next) {
    // -g -cl-opt-disable: the code generator keeps each line's stores
    // with the line (at its default level it moved a variable's store
    // after the next line's first instruction, where gdb stops). The C
    // API has no setter: its builder handle is the C++ builder.
    auto *b = reinterpret_cast<llvm::orc::LLJITBuilder *>(jb);
    if (auto &jtmb = b->getJITTargetMachineBuilder())
      jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    no_opt_next = false;
  }
  const perf_modes &m = modes();
  if (!debug && !m.map && !m.jitdump && !m.rtdyld)
    return;
  // One of the four combinations, static: the creator keeps the pointer.
  static const layer_wants wants[2][2][2] = {
      {{{false, false, false}, {false, false, true}},
       {{false, true, false}, {false, true, true}}},
      {{{true, false, false}, {true, false, true}},
       {{true, true, false}, {true, true, true}}}};
  LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(
      jb, make_layer,
      const_cast<layer_wants *>(&wants[debug][m.map][m.jitdump]));
}

// The C API's DIBuilder puts new subprograms in a unit of its own; gdb
// finds a kernel inlined into a work-group function by name only when
// both are in the kernel's unit.
extern "C" void cc_debug_same_unit(LLVMMetadataRef sp, LLVMMetadataRef of) {
  llvm::unwrap<llvm::DISubprogram>(sp)->replaceUnit(
      llvm::unwrap<llvm::DISubprogram>(of)->getUnit());
}
