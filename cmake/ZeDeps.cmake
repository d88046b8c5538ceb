# Third-party libraries, all from Debian 12 packages (scripts/deps.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
pkg_check_modules(UUID REQUIRED IMPORTED_TARGET uuid)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(CGLM REQUIRED IMPORTED_TARGET cglm)
