# Packaging: `cpack -G DEB` in a build directory configured with
# -DCMAKE_INSTALL_PREFIX=/usr makes skein_<version>_<arch>.deb, holding
# libskein.so and /etc/OpenCL/vendors/skein.icd (README, "Packaging").
# Its dependencies come from dpkg-shlibdeps (LLVM 19, Clang 19, hwloc,
# sleef, libc...), plus an OpenCL ICD loader to find it; like Debian's
# own ICD packages it provides the virtual package opencl-icd.
set(CPACK_PACKAGE_NAME "skein")
set(CPACK_PACKAGE_VENDOR "Skein")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "OpenCL 3.0 platform for CPUs (Clang/LLVM 19 JIT, hwloc workers)")
set(CPACK_PACKAGE_DESCRIPTION
    "Skein is an OpenCL 3.0 implementation for x86-64 and AArch64 CPUs. It
installs as an ICD: any program linked with the system's OpenCL loader
finds it through /etc/OpenCL/vendors/skein.icd.")
# The package installs where the configured prefix says: the .icd file
# names the library by that absolute path.
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)   # RelWithDebInfo's debug info stays in the build
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Skein maintainers <skein@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Beyond the linked libraries: the Clang resource folder the front end
# reads at run time (opencl-c-base.h; compiler/clang_frontend.cpp), from
# the package that owns it here.
execute_process(
  COMMAND dpkg -S ${SKEIN_CLANG_RESOURCE_DIR}/include/opencl-c-base.h
  OUTPUT_VARIABLE resource_owner ERROR_QUIET)
string(REGEX MATCH "^[^:]+" resource_package "${resource_owner}")
if(NOT resource_package)
  set(resource_package "libclang-common-19-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "${resource_package}, ocl-icd-libopencl1 | opencl-icd-loader")
set(CPACK_DEBIAN_PACKAGE_PROVIDES "opencl-icd")
# SPIR-V programs (clCreateProgramWithIL) run these tools when present.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "llvm-spirv-15, spirv-tools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "clinfo")
# The vendor file is configuration (dpkg keeps a local edit of it) when
# it goes to /etc, as cmake/install_icd.cmake chooses for these prefixes.
if(CMAKE_INSTALL_PREFIX MATCHES "^/(usr(/local)?)?/*$" AND
   (NOT SKEIN_ICD_INSTALL_DIR OR
    SKEIN_ICD_INSTALL_DIR STREQUAL "/etc/OpenCL/vendors"))
  file(WRITE ${CMAKE_BINARY_DIR}/cpack/conffiles
       "/etc/OpenCL/vendors/skein.icd\n")
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/cpack/conffiles)
endif()
set(CPACK_GENERATOR "DEB")
include(CPack)
