// This file runs the Clang front end in process: OpenCL C source to an
// LLVM module. It is C++ because Clang has no C API to run the front end
// (libclang's C API parses and indexes but cannot emit LLVM IR).
#include "compiler_internal.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

// The fixed part of every cc1 command line: the host triple with SPIR's
// address-space numbering, the OpenCL default header, and no LLVM passes
// (the compiler runs its own pipeline after generating work-group
// functions). -cl-kernel-arg-info is always on; whether names are shown
// is decided from the user's options.
static const char *const fixed_args[] = {
  "-triple", "x86_64-unknown-linux-gnu", "-ffake-address-space-map",
  "-x", "cl", "-finclude-default-header", "-fdeclare-opencl-builtins",
  "-O2", "-disable-llvm-passes", "-discard-value-names",
  "-cl-kernel-arg-info", "-Wno-psabi", "-emit-llvm",
  "-resource-dir", SKEIN_CLANG_RESOURCE_DIR,
  "-internal-isystem", SKEIN_CLANG_RESOURCE_DIR "/include",
};

static const char input_name[] = "input.cl";
// Skein's declarations of builtins Clang lacks (builtins/
// skein_uniform_arith.h and skein_extended_bit_ops.h) and the OpenCL C
// 3.1 macros (skein_opencl_c_3_1.h), included after the default header
// like -include; an absolute name, so that lookup finds the remapped
// buffer directly.
static const char decls_name[] = "/skein/skein_decls.h";
// clCompileProgram's embedded headers live in memory under this folder,
// which is searched first (-I): "#include "dir/name.h"" finds them
// without any file on disk.
static const char headers_dir[] = "/skein/input-headers";

// A file system that shows the n embedded headers under headers_dir
// over the real one (user -I folders and headers stay reachable).
static llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
headers_fs(const cc_header *headers, unsigned n) {
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (unsigned i = 0; i < n; i++) {
    std::string path = std::string(headers_dir) + "/" + headers[i].name;
    mem->addFile(path, 0,
                 llvm::MemoryBuffer::getMemBufferCopy(
                     llvm::StringRef(headers[i].text, headers[i].length),
                     path));
  }
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(mem);
  return overlay;
}

// The files on disk a compile read (user headers: -I folders, the
// current folder), for the disk cache, which checks them before it
// trusts an entry. Clang's own headers and the in-memory inputs are
// covered by the cache key already.
namespace {
class DiskFiles : public clang::DependencyCollector {
public:
  bool needSystemDependencies() override { return true; }
  bool sawDependency(llvm::StringRef name, bool from_module, bool is_system,
                     bool is_module_file, bool is_missing) override {
    (void)from_module; (void)is_system; (void)is_module_file;
    return !is_missing && name != input_name &&
           !name.starts_with("/skein/") &&
           !name.starts_with(SKEIN_CLANG_RESOURCE_DIR);
  }
};
}

// deps (may be NULL): the DiskFiles list as NUL-terminated names in one
// malloc'd block.
static bool keep_deps(const DiskFiles &files, char **deps, size_t *size) {
  size_t total = 0;
  for (const std::string &f : files.getDependencies())
    total += f.size() + 1;
  *deps = (char *)malloc(total ? total : 1);
  if (!*deps)
    return false;
  size_t at = 0;
  for (const std::string &f : files.getDependencies()) {
    memcpy(*deps + at, f.c_str(), f.size() + 1);
    at += f.size() + 1;
  }
  *size = total;
  return true;
}

extern "C" bool cc_clang_compile(LLVMContextRef ctx, const char *source,
                                 size_t length, const char *const *args,
                                 int nargs, const cc_header *headers,
                                 unsigned nheaders, LLVMModuleRef *out,
                                 cc_log *log, char **deps,
                                 size_t *deps_size) {
  std::vector<const char *> argv(std::begin(fixed_args),
                                 std::end(fixed_args));
  if (nheaders) {
    argv.push_back("-I");
    argv.push_back(headers_dir);
  }
  argv.insert(argv.end(), args, args + nargs);
  argv.push_back(input_name);

  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_opts =
      new clang::DiagnosticOptions();
  auto *printer = new clang::TextDiagnosticPrinter(diag_os, diag_opts.get());
  clang::CompilerInstance ci;
  ci.createDiagnostics(printer, /*ShouldOwnClient=*/true);
  ci.setVerboseOutputStream(diag_os);   // "1 error generated." goes there

  bool ok = clang::CompilerInvocation::CreateFromArgs(
      ci.getInvocation(), argv, ci.getDiagnostics());
  std::unique_ptr<llvm::Module> module;
  if (ok) {
    // The diagnostics engine predates the parsed options: apply -w,
    // -Werror and -Wno-... to it now, or they would have no effect.
    clang::ProcessWarningOptions(ci.getDiagnostics(), ci.getDiagnosticOpts(),
                                 /*ReportDiags=*/false);
    if (nheaders)
      ci.createFileManager(headers_fs(headers, nheaders));
    clang::PreprocessorOptions &pp = ci.getPreprocessorOpts();
    pp.addRemappedFile(input_name,
                       llvm::MemoryBuffer::getMemBufferCopy(
                           llvm::StringRef(source, length), input_name)
                           .release());
    pp.addRemappedFile(decls_name, llvm::MemoryBuffer::getMemBuffer(
                                       cc_skein_decls_h, decls_name)
                                       .release());
    pp.Includes.push_back(decls_name);
    auto files = std::make_shared<DiskFiles>();
    if (deps)
      ci.addDependencyCollector(files);
    clang::EmitLLVMOnlyAction action(llvm::unwrap(ctx));
    ok = ci.ExecuteAction(action);
    if (ok)
      module = action.takeModule();
    ok = ok && module;
    if (ok && deps && !keep_deps(*files, deps, deps_size))
      ok = false;
  }
  diag_os.flush();
  cc_log_append(log, diag_text.data(), diag_text.size());
  if (!ok)
    return false;
  *out = llvm::wrap(module.release());
  return true;
}
