# Third-party libraries, all from Debian 12 packages (scripts/deps.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
pkg_check_modules(UUID REQUIRED IMPORTED_TARGET uuid)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(CGLM REQUIRED IMPORTED_TARGET cglm)
# deflate for our PNG writer (screenshots): zlib1g-dev
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
# Asset importers (issue 6): assimp has a .pc file; stb (header only) and
# meshoptimizer (a C++ library with a C API, hence the C++ runtime) are
# found by path.
pkg_check_modules(ASSIMP REQUIRED IMPORTED_TARGET assimp)
find_path(STB_INCLUDE_DIR stb/stb_image.h REQUIRED)
find_path(MESHOPT_INCLUDE_DIR meshoptimizer.h REQUIRED)
find_library(MESHOPT_LIBRARY meshoptimizer REQUIRED)
# KHR_draco_mesh_compression (issue 17): libdraco, a C++ library, behind
# the cooker's one C++ file (src/cook/draco_decode.cpp).
pkg_check_modules(DRACO REQUIRED IMPORTED_TARGET draco)
# The inspector (zengine::inspect, issue 15): libmicrohttpd (libmicrohttpd-dev),
# linked only into programs that host it.
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
