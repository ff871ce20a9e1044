/* This file contains what a -g build adds to make kernels debuggable:
 * the file its debug info names (cc_debug_source) and subprograms for
 * the functions Skein generates around kernels (cc_debug_generated).
 *
 * The file name: Skein compiles source from memory. Skein compiles source from memory, so gdb would have no
 * file to show ("input.cl"); a #line directive at the top of the source
 * names a real file instead. Why #line: it is the preprocessor's own,
 * documented way to name a source's presumed file, so Clang puts that
 * name in the line table and the variables' locations without any change
 * to the front end, and diagnostics name the same file. */
#include "jit_listeners.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FNV-1a, 64 bits: a name for the text, not a security boundary (a
 * collision shows the other text in gdb; the build is unaffected). */
static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

/* mkdir -p of path (modifiable). */
static bool make_dirs(char *path) {
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      int r = mkdir(path, 0755);
      *p = '/';
      if (r != 0 && errno != EEXIST)
        return false;
    }
  return mkdir(path, 0755) == 0 || errno == EEXIST;
}

/* The folder for source copies, or false if none is known. */
static bool source_dir(char *out, size_t cap) {
  const char *dir = getenv("SKEIN_DEBUG_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (dir && *dir)
    n = snprintf(out, cap, "%s", dir);
  else if (xdg && *xdg == '/')
    n = snprintf(out, cap, "%s/skein/source", xdg);
  else if (home && *home)
    n = snprintf(out, cap, "%s/.cache/skein/source", home);
  else
    n = snprintf(out, cap, "/tmp/skein-source-%d", (int)getuid());
  return n > 0 && (size_t)n < cap && make_dirs(out);
}

/* Writes the source to path unless a file of that name (the same text:
 * the name is its hash) is there; atomically, through a temporary file
 * and rename, so concurrent builds never show gdb half a file. */
static bool write_copy(const char *path, const char *source, size_t length) {
  if (access(path, R_OK) == 0)
    return true;
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  bool ok = write(fd, source, length) == (ssize_t)length;
  ok = close(fd) == 0 && ok;
  if (ok && rename(tmp, path) == 0)
    return true;
  unlink(tmp);
  return false;
}

char *cc_debug_source(const char *source, size_t length, const char *named,
                      size_t *out_length) {
  char dir[4096], path[4200];
  const char *file = named;
  if (!file) {
    if (!source_dir(dir, sizeof dir))
      return NULL;
    snprintf(path, sizeof path, "%s/kernel-%016llx.cl", dir,
             (unsigned long long)fnv1a(source, length));
    if (!write_copy(path, source, length))
      return NULL;
    file = path;
  }
  /* The directive's string is a C string literal: escape \ and ". */
  size_t flen = strlen(file);
  char *out = malloc(2 * flen + length + 16);
  if (!out)
    return NULL;
  size_t n = (size_t)sprintf(out, "#line 1 \"");
  for (size_t i = 0; i < flen; i++) {
    if (file[i] == '\\' || file[i] == '"')
      out[n++] = '\\';
    out[n++] = file[i];
  }
  n += (size_t)sprintf(out + n, "\"\n");
  memcpy(out + n, source, length);
  *out_length = n + length;
  return out;
}

/* The first called function in f that has a subprogram (a kernel), or
 * NULL. */
static LLVMValueRef debug_callee(LLVMValueRef f) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee =
          LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
      if (callee && LLVMIsAFunction(callee) && LLVMGetSubprogram(callee))
        return callee;
    }
  return NULL;
}

void cc_debug_generated(LLVMModuleRef m) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMDIBuilderRef dib = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || LLVMGetSubprogram(f))
      continue;
    LLVMValueRef kernel = debug_callee(f);
    if (!kernel)
      continue;
    LLVMMetadataRef ksp = LLVMGetSubprogram(kernel);
    LLVMMetadataRef file = LLVMDIScopeGetFile(ksp);
    unsigned line = LLVMDISubprogramGetLine(ksp);
    if (!dib) {
      /* The C API's builder needs a unit of its own to create
       * definitions in; each subprogram then moves to its kernel's unit
       * (cc_debug_same_unit), where gdb looks up the inlined kernel by
       * name. The builder's unit stays empty. */
      dib = LLVMCreateDIBuilder(m);
      static const char producer[] = "Skein work-group functions";
      LLVMDIBuilderCreateCompileUnit(
          dib, LLVMDWARFSourceLanguageOpenCL, file, producer,
          sizeof producer - 1, 1, "", 0, 0, "", 0, LLVMDWARFEmissionFull, 0,
          0, 0, "", 0, "", 0);
    }
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    LLVMMetadataRef type =
        LLVMDIBuilderCreateSubroutineType(dib, file, NULL, 0, 0);
    LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(
        dib, file, name, len, name, len, file, line, type, 0, 1, line,
        LLVMDIFlagArtificial, 1);
    cc_debug_same_unit(sp, ksp);
    LLVMSetSubprogram(f, sp);
    /* Calls of the kernel need a location in f: the inliner makes it the
     * inlinedAt of the kernel's own lines, which gdb then shows as the
     * kernel's frame inside the work-group function. */
    LLVMMetadataRef at = LLVMDIBuilderCreateDebugLocation(ctx, line, 0, sp,
                                                          NULL);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if (LLVMIsACallInst(i) && !LLVMInstructionGetDebugLoc(i))
          LLVMInstructionSetDebugLoc(i, at);
  }
  if (dib) {
    LLVMDIBuilderFinalize(dib);
    LLVMDisposeDIBuilder(dib);
  }
}
