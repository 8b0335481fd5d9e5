# KEEL_STATIC_DEPS (CMakeLists.txt says why): the imported targets of the third-party libraries are
# pointed at their static archives, found beside the shared objects CMake and pkg-config found.

# A shared object's name ends so: libx.so or libx.so.N.N.N.
set(KEEL_SHARED_SUFFIX "\\.so(\\.[0-9.]+)?$")

# The static archive beside shared object `so` (libx.so or libx.so.N.N.N -> libx.a), into `out`.
function(keel_static_archive out so)
  get_filename_component(dir "${so}" DIRECTORY)
  get_filename_component(name "${so}" NAME)
  string(REGEX REPLACE "${KEEL_SHARED_SUFFIX}" ".a" archive "${name}")
  if(NOT EXISTS "${dir}/${archive}")
    message(FATAL_ERROR "keel: ${dir}/${archive} (the static archive of ${so}) is missing; install the "
                        "library's -dev package, or configure with -DKEEL_STATIC_DEPS=OFF")
  endif()
  set(${out} "${dir}/${archive}" PARENT_SCOPE)
endfunction()

# An imported target found by pkg_check_modules(IMPORTED_TARGET): its list of libraries, with the
# static archives' own dependencies (`pkg-config --static`) after them.
function(keel_static_pkg target extra)
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  set(static_libs "")
  foreach(lib IN LISTS libs)
    if(lib MATCHES "${KEEL_SHARED_SUFFIX}")
      keel_static_archive(archive "${lib}")
      list(APPEND static_libs "${archive}")
    else()
      list(APPEND static_libs "${lib}")
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${static_libs};${extra}")
endfunction()

keel_static_pkg(PkgConfig::RE2 Threads::Threads)
keel_static_pkg(PkgConfig::LUA "m;${CMAKE_DL_LIBS}")
keel_static_pkg(PkgConfig::GUMBO "")
keel_static_pkg(PkgConfig::SECCOMP "")

# Targets found by find_package, with an imported location (per configuration for yaml-cpp's).
foreach(target SQLite::SQLite3 yaml-cpp)
  foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_NONE IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_DEBUG
                   IMPORTED_LOCATION_RELWITHDEBINFO)
    get_target_property(location ${target} ${property})
    if(location)
      keel_static_archive(archive "${location}")
      set_target_properties(${target} PROPERTIES ${property} "${archive}")
    endif()
  endforeach()
endforeach()
set_property(TARGET SQLite::SQLite3 APPEND PROPERTY INTERFACE_LINK_LIBRARIES m)

# The C++ runtime, linked into `target`: an executable that loads no C++ shared library at start
# and exports none of the runtime's symbols, so llama.cpp, opened at run time with its own
# libstdc++, binds to that one (its exceptions stay inside it).
function(keel_static_runtime target)
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
endfunction()
