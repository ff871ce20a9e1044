# Runs at install time (cmake --install, cpack): writes the vendor file
# that names the installed libskein.so by absolute path. The prefix is
# the one of this install (cmake --install --prefix may differ from the
# configured one), so the file is made here rather than at configure time.
#
# Where it goes: SKEIN_ICD_INSTALL_DIR if set; else /etc/OpenCL/vendors
# for a system prefix (/usr, /usr/local, /), where the loader looks; else
# <prefix>/etc/OpenCL/vendors, which a user without root can write, and
# which OCL_ICD_VENDORS then names.
#
# Set by the install(CODE) before this script: SKEIN_ICD_LIBDIR (relative
# or absolute library folder), SKEIN_ICD_LIBNAME, SKEIN_ICD_INSTALL_DIR.
set(prefix "${CMAKE_INSTALL_PREFIX}")
if(IS_ABSOLUTE "${SKEIN_ICD_LIBDIR}")
  set(lib "${SKEIN_ICD_LIBDIR}/${SKEIN_ICD_LIBNAME}")
else()
  set(lib "${prefix}/${SKEIN_ICD_LIBDIR}/${SKEIN_ICD_LIBNAME}")
endif()
if(SKEIN_ICD_INSTALL_DIR)
  set(dir "${SKEIN_ICD_INSTALL_DIR}")
elseif(prefix MATCHES "^/(usr(/local)?)?/*$")
  set(dir "/etc/OpenCL/vendors")
else()
  set(dir "${prefix}/etc/OpenCL/vendors")
endif()
set(icd "$ENV{DESTDIR}${dir}/skein.icd")
message(STATUS "Installing: ${icd} (names ${lib})")
file(WRITE "${icd}" "${lib}\n")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${icd}")
if(NOT dir STREQUAL "/etc/OpenCL/vendors" AND NOT "$ENV{DESTDIR}")
  message(STATUS "Skein: the vendor file is outside /etc/OpenCL/vendors; "
                 "run OpenCL programs with OCL_ICD_VENDORS=${dir}")
endif()
