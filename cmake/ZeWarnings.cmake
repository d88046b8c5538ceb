# Compiler flags shared by every target of the project.
add_compile_definitions(_POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)
# (the prototype warnings are C's: the C++ files are bench/ui_imgui_ref.cpp and
# src/cook/draco_decode.cpp)
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
                    $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
                    $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_compile_definitions(ZE_DEBUG=1)
endif()

if(ZE_SANITIZE STREQUAL "address")
  set(ZE_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                   -fno-omit-frame-pointer)
  add_compile_options(${ZE_SAN_FLAGS} -O1)
  add_link_options(${ZE_SAN_FLAGS})
  add_compile_definitions(ZE_SANITIZER_ADDRESS=1)
elseif(ZE_SANITIZE STREQUAL "thread")
  set(ZE_SAN_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
  add_compile_options(${ZE_SAN_FLAGS} -O1)
  add_link_options(${ZE_SAN_FLAGS})
  add_compile_definitions(ZE_SANITIZER_THREAD=1)
elseif(NOT ZE_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ZE_SANITIZE must be empty, address or thread")
endif()
if(ZE_FUZZ)
  # Coverage feedback from the library too, not only from the fuzz targets.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(ZE_MEM_PASSTHROUGH)
  add_compile_definitions(ZE_MEM_PASSTHROUGH=1)
endif()
