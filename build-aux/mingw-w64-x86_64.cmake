# SPDX-License-Identifier: LGPL-2.1-or-later
#
# CMake toolchain file for Windows x64 builds with Debian's mingw-w64 in its
# posix threads flavour (gcc-mingw-w64-x86-64-posix, g++-mingw-w64-x86-64-posix):
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=build-aux/mingw-w64-x86_64.cmake ...
#
# Libraries and packages are looked for in the mingw-w64 sysroot and in the
# dependency prefix that build-aux/win-deps.sh fills, never on the build
# machine: the prefix is $RFM_WIN_DEPS, else $XDG_CACHE_HOME/librfm/win64,
# else ~/.cache/librfm/win64 (the script's own rule). pkg-config (FindPkgConfig)
# sees only that prefix's lib/pkgconfig. Test programs (ctest, try_run) run
# through build-aux/win-env.sh, which runs them under wine with the prefix's
# and mingw's DLLs on the path and gives back their exit status.

set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

set(RFM_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${RFM_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${RFM_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${RFM_MINGW_TRIPLET}-windres)

# The same default as win-deps.sh and win-env.sh (try_compile re-reads this
# file in a child project, so the environment is the only input it keeps).
if(DEFINED ENV{RFM_WIN_DEPS} AND NOT "$ENV{RFM_WIN_DEPS}" STREQUAL "")
	set(RFM_WIN_DEPS "$ENV{RFM_WIN_DEPS}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
	set(RFM_WIN_DEPS "$ENV{XDG_CACHE_HOME}/librfm/win64")
else()
	set(RFM_WIN_DEPS "$ENV{HOME}/.cache/librfm/win64")
endif()

set(CMAKE_FIND_ROOT_PATH /usr/${RFM_MINGW_TRIPLET} "${RFM_WIN_DEPS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config: the prefix's .pc files only (they name absolute paths in the
# prefix, so no sysroot rewriting is wanted).
set(ENV{PKG_CONFIG_LIBDIR} "${RFM_WIN_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
unset(ENV{PKG_CONFIG_SYSROOT_DIR})

# ctest and try_run start Windows programs through wine.
get_filename_component(_rfm_aux_dir "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
set(CMAKE_CROSSCOMPILING_EMULATOR "${_rfm_aux_dir}/win-env.sh;--run")
