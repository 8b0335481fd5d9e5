# `cmake --install` and the .deb (CPack): the keel command, its web UI, llama.cpp's libraries it
# loads at run time, and for C++ programs the public headers, the layer libraries, a CMake
# package (find_package(keel) -> keel::keel, keel::runtime, ...) and a pkg-config file (keel.pc).
#
#   cmake --install build/default --prefix /opt/keel
#   cd build/default && cpack -G DEB          # keel_<version>_amd64.deb
#
# Layout under the prefix: bin/keel, share/keel/web, lib/keel/*.so (llama.cpp), include/keel,
# lib/libkeel_*.a, lib/cmake/keel, lib/pkgconfig/keel.pc. The installed keel finds its web UI and
# llama.cpp beside its executable (src/base/install_paths.hpp).
include(CMakePackageConfigHelpers)

# The layers, highest first (the order a linker needs them in; keel.pc lists them so).
set(KEEL_INSTALLED_LAYERS keel_api keel_mcp_server keel_server keel_autopilot keel_assembly keel_skills keel_runtime
    keel_knowledge keel_mcp keel_tools keel_llm keel_store keel_net keel_base keel_core)
set(KEEL_PC_LIBS "")
foreach(layer IN LISTS KEEL_INSTALLED_LAYERS)
  string(REPLACE "keel_" "" short "${layer}")
  set_target_properties(${layer} PROPERTIES EXPORT_NAME ${short})
  string(APPEND KEEL_PC_LIBS " -l${layer}")
  if(layer STREQUAL "keel_llm" AND TARGET keel_jinja)
    string(APPEND KEEL_PC_LIBS " -lkeel_jinja")
  endif()
endforeach()
set(KEEL_INSTALLED_TARGETS ${KEEL_INSTALLED_LAYERS})
if(TARGET keel_jinja)
  set_target_properties(keel_jinja PROPERTIES EXPORT_NAME jinja)
  list(APPEND KEEL_INSTALLED_TARGETS keel_jinja)
endif()

# keel::keel: everything an embedder needs to build an agent from configuration (the assembly
# layer and all below it).
add_library(keel_package INTERFACE)
target_link_libraries(keel_package INTERFACE keel_assembly)
set_target_properties(keel_package PROPERTIES EXPORT_NAME keel)
list(APPEND KEEL_INSTALLED_TARGETS keel_package)

install(TARGETS ${KEEL_INSTALLED_TARGETS} EXPORT keelTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/keel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT keelTargets NAMESPACE keel:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/keel COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/keelConfig.cmake.in ${CMAKE_BINARY_DIR}/keelConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/keel)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/keelConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/keelConfig.cmake ${CMAKE_BINARY_DIR}/keelConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/keel COMPONENT dev)
# keel.pc is relocatable: its prefix is found from where the file is (${pcfiledir}), so
# `cmake --install --prefix ANY` and the .deb's /usr both work.
string(REGEX MATCHALL "[^/]+" _keel_libdir_parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
set(KEEL_PC_PREFIX "\${pcfiledir}")
foreach(_part IN LISTS _keel_libdir_parts)
  string(APPEND KEEL_PC_PREFIX "/..")
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/cmake/keel.pc.in ${CMAKE_BINARY_DIR}/keel.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/keel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

install(TARGETS keel RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/web/ DESTINATION ${CMAKE_INSTALL_DATADIR}/keel/web COMPONENT runtime)
if(TARGET keel_llama AND NOT KEEL_LLAMA_DIR AND NOT KEEL_LLAMA_SYSTEM)
  # The fetched llama.cpp release: libllama, ggml and ggml's CPU variants, loaded at first use.
  file(GLOB KEEL_LLAMA_SHARED_LIBS "${KEEL_LLAMA_FETCH_DIR}/lib/*.so")
  install(FILES ${KEEL_LLAMA_SHARED_LIBS} DESTINATION ${CMAKE_INSTALL_LIBDIR}/keel COMPONENT runtime)
endif()

# The .deb: one package with the command and the development files. Its dependencies are the
# Debian packages of the libraries the keel command loads (the others are linked into it with
# KEEL_STATIC_DEPS), and for C++ programs the -dev packages of the libraries the layers use.
set(CPACK_PACKAGE_NAME keel)
set(CPACK_PACKAGE_VENDOR "keel")
set(CPACK_PACKAGE_CONTACT "keel maintainers <keel@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "a correctness-first LLM agent runtime (command, server and C++ library)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
if(KEEL_STATIC_DEPS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4, libssl3, libpq5, bubblewrap, tzdata")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libcurl4, libssl3, libsqlite3-0, libpq5, libyaml-cpp0.7, libre2-9, liblua5.4-0, libgumbo1, libseccomp2, bubblewrap, tzdata")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "nlohmann-json3-dev, libsqlite3-dev, libpq-dev, libyaml-cpp-dev, libre2-dev, liblua5.4-dev, libgumbo-dev, libseccomp-dev")
set(CPACK_PACKAGE_FILE_NAME "keel_${PROJECT_VERSION}_amd64")
include(CPack)
