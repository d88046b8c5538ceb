# The engine's packaged assets, built into ${CMAKE_BINARY_DIR}/bin/ZodiacEngine/
# (the VFS mounts "ZodiacEngine/ beside the executable" at /ZodiacEngine when
# neither desc.engine_root nor $ZENGINE_ASSET_ROOT says otherwise):
#
#   shaders/<file>.spv  every src/gfx/shaders/*.vert, *.frag, *.comp (GLSL 450)
#                       compiled by glslc for Vulkan 1.3 (-O; -g in Debug).
#                       Files of other extensions there (*.glsl) are includes:
#                       `#include "x.glsl"` resolves against the shader folder,
#                       and glslc's depfile tracks them.
#   fonts/DejaVuSans.ttf copied from fonts-dejavu when installed.
#
# Targets: zengine_shaders and zengine_fonts (both ALL). The gfx and engine
# modules depend on them, so every program linking it (zengine_cli, tests, samples)
# finds its assets beside it. For the tests: ZE_SHADER_SPV is the list of
# .spv paths, ZE_ENGINE_ASSET_DIR the ZodiacEngine folder, ZE_ENGINE_FONT the
# packaged font ("" when fonts-dejavu is missing).
# Included from the top-level CMakeLists.txt after add_subdirectory(src).

find_program(GLSLC glslc REQUIRED) # scripts/deps.sh installs it

set(ZE_ENGINE_ASSET_DIR ${CMAKE_BINARY_DIR}/bin/ZodiacEngine)
set(ZE_SHADER_SRC_DIR ${PROJECT_SOURCE_DIR}/src/gfx/shaders)
set(ZE_SHADER_OUT_DIR ${ZE_ENGINE_ASSET_DIR}/shaders)
# Exists even without shaders, so the VFS always finds the engine root.
file(MAKE_DIRECTORY ${ZE_SHADER_OUT_DIR})

set(ZE_GLSLC_FLAGS --target-env=vulkan1.3 -O -I ${ZE_SHADER_SRC_DIR})
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  list(APPEND ZE_GLSLC_FLAGS -g)
endif()

file(GLOB ZE_SHADER_SOURCES CONFIGURE_DEPENDS
     ${ZE_SHADER_SRC_DIR}/*.vert ${ZE_SHADER_SRC_DIR}/*.frag ${ZE_SHADER_SRC_DIR}/*.comp)
list(SORT ZE_SHADER_SOURCES)
set(ZE_SHADER_SPV "")
foreach(src ${ZE_SHADER_SOURCES})
  get_filename_component(name ${src} NAME) # forward.frag -> forward.frag.spv
  set(spv ${ZE_SHADER_OUT_DIR}/${name}.spv)
  set(dep ${CMAKE_CURRENT_BINARY_DIR}/shaders/${name}.d)
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders
            ${ZE_SHADER_OUT_DIR}
    COMMAND ${GLSLC} ${ZE_GLSLC_FLAGS} -MD -MF ${dep} -MT ${spv} -o ${spv} ${src}
    MAIN_DEPENDENCY ${src}
    DEPFILE ${dep}
    COMMENT "glslc ${name}"
    VERBATIM)
  list(APPEND ZE_SHADER_SPV ${spv})
endforeach()
add_custom_target(zengine_shaders ALL DEPENDS ${ZE_SHADER_SPV})

set(ZE_FONT_SOURCE /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)
set(ZE_ENGINE_FONT "")
if(EXISTS ${ZE_FONT_SOURCE})
  set(ZE_ENGINE_FONT ${ZE_ENGINE_ASSET_DIR}/fonts/DejaVuSans.ttf)
  add_custom_command(
    OUTPUT ${ZE_ENGINE_FONT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ZE_ENGINE_ASSET_DIR}/fonts
    COMMAND ${CMAKE_COMMAND} -E copy ${ZE_FONT_SOURCE} ${ZE_ENGINE_FONT}
    DEPENDS ${ZE_FONT_SOURCE}
    COMMENT "packaging DejaVuSans.ttf"
    VERBATIM)
else()
  message(STATUS "DejaVuSans.ttf not found (fonts-dejavu): no packaged UI font")
endif()
add_custom_target(zengine_fonts ALL DEPENDS ${ZE_ENGINE_FONT})

# Everything built from the library gets its packaged assets.
add_dependencies(ze_gfx_obj zengine_shaders zengine_fonts)
add_dependencies(ze_engine_obj zengine_shaders zengine_fonts)
