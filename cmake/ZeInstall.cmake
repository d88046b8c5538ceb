# `cmake --install <build> [--prefix P]` puts the engine into a prefix:
#   include/zengine/*.h              the public headers
#   lib/libzengine.so.*, libzengine.a the shared and static library
#   bin/zengine                       the command-line program (also the
#                                     child cooker the engine runs)
#   share/zengine/ZodiacEngine/       shaders and fonts (found by the
#                                     library through ze_path_installed)
#   lib/libzengine_inspect.a          the inspector (zengine::inspect): a
#                                     game that hosts it links it before
#                                     the engine, one that does not links
#                                     no HTTP library
#   lib/cmake/zengine/                find_package(zengine): the imported
#                                     targets zengine::zengine (shared),
#                                     zengine::zengine_static and
#                                     zengine::inspect
#   lib/pkgconfig/zengine.pc          pkg-config --cflags --libs zengine
#   lib/pkgconfig/zengine-inspect.pc  pkg-config ... zengine-inspect zengine
# The consumer in examples/consumer/ is built against such a prefix in CI
# (scripts/consumer.sh). A static consumer finds ZodiacEngine/ and the
# cooker under the prefix configured at build time (CMAKE_INSTALL_PREFIX);
# one linking the shared library finds them from the library's own path,
# wherever the prefix was moved.
include(CMakePackageConfigHelpers)

set(ZE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zengine)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/zengine
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(TARGETS zengine zengine_static zengine_usage
        EXPORT zengineTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The inspector for consumers: the module's objects in their own archive.
# In the build tree zengine_inspect links the module libraries; installed,
# it names only its own libraries (libmicrohttpd, jansson) and is linked
# with whichever engine library the game uses (shared or static), so it
# never pulls both in.
add_library(zengine_inspect_pkg STATIC $<TARGET_OBJECTS:ze_inspect_obj>)
target_link_libraries(zengine_inspect_pkg PUBLIC zengine_usage PkgConfig::MHD PkgConfig::JANSSON)
# (its own folder: the build tree's module library has the same name)
set_target_properties(zengine_inspect_pkg PROPERTIES OUTPUT_NAME zengine_inspect EXPORT_NAME inspect
                      ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/install)
install(TARGETS zengine_inspect_pkg EXPORT zengineTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS zengine_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${ZE_ENGINE_ASSET_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zengine/ZodiacEngine)

install(EXPORT zengineTargets NAMESPACE zengine:: DESTINATION ${ZE_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/zengineConfig.cmake.in
  ${CMAKE_BINARY_DIR}/zengineConfig.cmake INSTALL_DESTINATION ${ZE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/zengineConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/zengineConfig.cmake ${CMAKE_BINARY_DIR}/zengineConfigVersion.cmake
        DESTINATION ${ZE_CMAKE_DIR})

# pkg-config: the prefix from the .pc file's own place, so a moved prefix
# still works.
file(RELATIVE_PATH ZE_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ZE_PC_TO_PREFIX "${ZE_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/zengine.pc.in ${CMAKE_BINARY_DIR}/zengine.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/zengine-inspect.pc.in ${CMAKE_BINARY_DIR}/zengine-inspect.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/zengine.pc ${CMAKE_BINARY_DIR}/zengine-inspect.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
