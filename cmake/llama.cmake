# llama.cpp for the local backend (src/llm/llama_*). Three ways to get it:
#   default           scripts/fetch-llama.sh fetches the prebuilt libraries of @node-llama-cpp/linux-x64
#                     (KEEL_LLAMA_FLAVOR=cuda: linux-x64-cuda) and the headers of the same release from npm
#                     into build/llama
#   KEEL_LLAMA_DIR    a llama.cpp install prefix of your own (include/llama.h, lib/libllama.so, libggml*.so)
#   KEEL_LLAMA_SYSTEM find_package(llama) (a llama.cpp installed with its CMake package files)
# KEEL_LLAMA=OFF builds keel without the local backend (gguf: and local/ models then report that).
# Defines keel::llama (llama.cpp's headers and where its library is: keel loads it at first use of
# a local model, see src/llm/llama_library.hpp), keel::llama_linked (the same, linked: for code
# that calls llama.cpp directly, the tests' GGUF writer) and KEEL_LLAMA_BACKEND_DIR (where ggml's
# backend variants are loaded from).
option(KEEL_LLAMA "Build the in-process llama.cpp backend" ON)
set(KEEL_LLAMA_VERSION "3.22.1" CACHE STRING "node-llama-cpp release the llama.cpp libraries and headers come from")
set(KEEL_LLAMA_FLAVOR "cpu" CACHE STRING "cpu or cuda: which prebuilt llama.cpp package to fetch")
set(KEEL_LLAMA_DIR "" CACHE PATH "a llama.cpp install prefix to use instead of the npm packages")
option(KEEL_LLAMA_SYSTEM "Use find_package(llama) instead of the npm packages" OFF)
set(KEEL_LLAMA_FETCH_DIR "${CMAKE_SOURCE_DIR}/build/llama" CACHE PATH "where the npm packages are unpacked")

if(NOT KEEL_LLAMA)
  return()
endif()

add_library(keel_llama INTERFACE)
add_library(keel::llama ALIAS keel_llama)
add_library(keel_llama_linked INTERFACE)
add_library(keel::llama_linked ALIAS keel_llama_linked)
target_link_libraries(keel_llama_linked INTERFACE keel_llama)
if(KEEL_LLAMA_SYSTEM)
  find_package(llama CONFIG REQUIRED)
  target_include_directories(keel_llama SYSTEM INTERFACE $<TARGET_PROPERTY:llama,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(keel_llama_linked INTERFACE llama)
  get_target_property(_llama_lib llama LOCATION)
  get_filename_component(KEEL_LLAMA_BACKEND_DIR "${_llama_lib}" DIRECTORY)
  set(KEEL_LLAMA_LIB "${_llama_lib}")
else()
  if(KEEL_LLAMA_DIR)
    set(_prefix "${KEEL_LLAMA_DIR}")
    set(_incdirs "${_prefix}/include")
    set(_libdirs "${_prefix}/lib" "${_prefix}/lib64" "${_prefix}/build/bin" "${_prefix}")
  else()
    execute_process(COMMAND ${CMAKE_SOURCE_DIR}/scripts/fetch-llama.sh ${KEEL_LLAMA_VERSION} ${KEEL_LLAMA_FLAVOR}
                            ${KEEL_LLAMA_FETCH_DIR}
                    RESULT_VARIABLE _fetch_rc)
    if(NOT _fetch_rc EQUAL 0)
      message(FATAL_ERROR "keel: could not fetch llama.cpp from npm (see above). Configure with -DKEEL_LLAMA=OFF "
                          "to build without the local backend, or -DKEEL_LLAMA_DIR=/your/llama.cpp/prefix.")
    endif()
    set(_incdirs "${KEEL_LLAMA_FETCH_DIR}/include")
    set(_libdirs "${KEEL_LLAMA_FETCH_DIR}/lib")
  endif()
  find_path(KEEL_LLAMA_INCLUDE llama.h PATHS ${_incdirs} NO_DEFAULT_PATH)
  find_path(KEEL_GGML_INCLUDE ggml.h PATHS ${_incdirs} ${_incdirs}/ggml "${KEEL_LLAMA_DIR}/ggml/include" NO_DEFAULT_PATH)
  find_library(KEEL_LLAMA_LIB NAMES llama llama.v0.5.0 PATHS ${_libdirs} NO_DEFAULT_PATH)
  find_library(KEEL_GGML_LIB NAMES ggml ggml.v0.5.0 PATHS ${_libdirs} NO_DEFAULT_PATH)
  find_library(KEEL_GGML_BASE_LIB NAMES ggml-base PATHS ${_libdirs} NO_DEFAULT_PATH)
  if(NOT KEEL_LLAMA_INCLUDE OR NOT KEEL_GGML_INCLUDE OR NOT KEEL_LLAMA_LIB OR NOT KEEL_GGML_LIB OR NOT KEEL_GGML_BASE_LIB)
    message(FATAL_ERROR "keel: llama.cpp not found under ${_incdirs} / ${_libdirs} (need llama.h, ggml.h, "
                        "libllama, libggml, libggml-base). Fix KEEL_LLAMA_DIR or configure with -DKEEL_LLAMA=OFF.")
  endif()
  target_include_directories(keel_llama SYSTEM INTERFACE ${KEEL_LLAMA_INCLUDE} ${KEEL_GGML_INCLUDE})
  target_link_libraries(keel_llama_linked INTERFACE ${KEEL_LLAMA_LIB} ${KEEL_GGML_LIB} ${KEEL_GGML_BASE_LIB})
  get_filename_component(KEEL_LLAMA_BACKEND_DIR "${KEEL_LLAMA_LIB}" DIRECTORY)
endif()
target_compile_definitions(keel_llama INTERFACE KEEL_HAS_LLAMA=1 KEEL_LLAMA_BACKEND_DIR="${KEEL_LLAMA_BACKEND_DIR}"
                                                KEEL_LLAMA_LIBRARY="${KEEL_LLAMA_LIB}")
message(STATUS "keel: llama.cpp from ${KEEL_LLAMA_BACKEND_DIR}")

# llama.cpp's Jinja engine (common/jinja, with the common/json and common/unicode it uses), built
# from the sources of the same release: keel executes a model's own chat template with it
# (src/llm/model_chat_template.cpp). The fetched release carries them; a KEEL_LLAMA_DIR that is a
# llama.cpp source tree does too; otherwise point KEEL_JINJA_SOURCE_DIR at a llama.cpp common/ folder.
# Without it, local models fall back to keel's four built-in prompt formats.
set(KEEL_JINJA_SOURCE_DIR "" CACHE PATH "llama.cpp's common/ folder (holding jinja/); empty: the fetched release's")
set(_jinja_dir "${KEEL_JINJA_SOURCE_DIR}")
if(NOT _jinja_dir)
  if(KEEL_LLAMA_DIR)
    set(_jinja_dir "${KEEL_LLAMA_DIR}/common")
  elseif(NOT KEEL_LLAMA_SYSTEM)
    set(_jinja_dir "${KEEL_LLAMA_FETCH_DIR}/common")
  endif()
endif()
if(_jinja_dir AND EXISTS "${_jinja_dir}/jinja/runtime.h" AND EXISTS "${_jinja_dir}/json.cpp")
  file(GLOB _jinja_sources "${_jinja_dir}/jinja/*.cpp")
  add_library(keel_jinja STATIC ${_jinja_sources} "${_jinja_dir}/json.cpp" "${_jinja_dir}/unicode.cpp")
  target_include_directories(keel_jinja SYSTEM PUBLIC "$<BUILD_INTERFACE:${_jinja_dir}>")
  target_include_directories(keel_jinja PRIVATE "${CMAKE_SOURCE_DIR}/cmake/jinja_shim")
  target_compile_options(keel_jinja PRIVATE -w)  # another project's code: its warnings are not ours to fix
  target_link_libraries(keel_jinja PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(keel_jinja INTERFACE KEEL_HAS_JINJA=1)
  set_target_properties(keel_jinja PROPERTIES UNITY_BUILD OFF)
  message(STATUS "keel: Jinja engine from ${_jinja_dir}")
else()
  message(STATUS "keel: no llama.cpp Jinja sources (KEEL_JINJA_SOURCE_DIR); models' own chat templates are not executed")
endif()
if(NOT KEEL_LLAMA_DIR AND NOT KEEL_LLAMA_SYSTEM)
  set(KEEL_LLAMA_TEMPLATES_DIR "${KEEL_LLAMA_FETCH_DIR}/templates")
endif()
