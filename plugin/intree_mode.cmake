# In-tree test mode (included by the top-level CMakeLists.txt when
# CUCKOO_INTREE_ROCKSDB names a RocksDB tree built by `make DEBUG_LEVEL=0
# ROCKSDB_PLUGINS=cuckoo static_lib`, as ./setup.sh intree does):
#   cmake -S . -B build-intree-7.8.3 -G Ninja \
#     -DCUCKOO_INTREE_ROCKSDB=$(./setup.sh intree-bin-dir 7.8.3)
# The tests, tools and benchmarks are compiled against that tree's headers
# with its ABI and linked to its librocksdb.a, which already holds the
# plugin as RocksDB's make compiled it: our library sources are not compiled
# again, so the tests test exactly what in-tree users run.

set(_tree "${CUCKOO_INTREE_ROCKSDB}")
foreach(f make_config.mk include/rocksdb/version.h table/table_reader.h
          tools/ldb_tool.cc
          plugin/cuckoo/plugin/registration.cc)
  if(NOT EXISTS "${_tree}/${f}")
    message(FATAL_ERROR "CUCKOO_INTREE_ROCKSDB=${_tree}: no ${f}; "
      "build it with ./setup.sh intree <version>")
  endif()
endforeach()
# Only the links need it: objects can be compiled while make still runs.
if(NOT EXISTS "${_tree}/librocksdb.a")
  message(WARNING "${_tree}/librocksdb.a does not exist (yet): "
    "./setup.sh intree <version> builds it")
endif()
if(CUCKOO_SANITIZE)
  message(FATAL_ERROR "CUCKOO_INTREE_ROCKSDB: librocksdb.a is not "
    "instrumented; leave CUCKOO_SANITIZE empty")
endif()
if(CUCKOO_FUZZ)
  message(FATAL_ERROR "CUCKOO_INTREE_ROCKSDB: no fuzzer in this mode (it "
    "needs ASan and libFuzzer coverage of the library's own objects)")
endif()

# One `NAME=value` line of make_config.mk, which the tree's make wrote.
function(_cuckoo_make_config name out)
  file(STRINGS "${_tree}/make_config.mk" _line REGEX "^${name}=")
  string(REGEX REPLACE "^${name}=" "" _value "${_line}")
  set(${out} "${_value}" PARENT_SCOPE)
endfunction()
_cuckoo_make_config(ROCKSDB_MAJOR _major)
_cuckoo_make_config(ROCKSDB_MINOR _minor)
_cuckoo_make_config(ROCKSDB_PATCH _patch)
_cuckoo_make_config(PLATFORM_CXXFLAGS _cxxflags)
_cuckoo_make_config(PLATFORM_LDFLAGS _ldflags)
_cuckoo_make_config(EXEC_LDFLAGS _exec_ldflags)
_cuckoo_make_config(JEMALLOC _jemalloc)
_cuckoo_make_config(WITH_JEMALLOC_FLAG _with_jemalloc_flag)
_cuckoo_make_config(JEMALLOC_LIB _jemalloc_lib)
message(STATUS "In-tree RocksDB ${_major}.${_minor}.${_patch}: ${_tree}")

# RocksDB's release flags (its Makefile adds these to make_config.mk's):
# NDEBUG changes the layout of internal structs, and the library has no RTTI.
separate_arguments(_cxxflags UNIX_COMMAND "${_cxxflags}")
# The tree's C++ standard (C++20 from RocksDB 10.7 on), through
# CMAKE_CXX_STANDARD: a second -std flag would fight CMake's.
set(_std "${_cxxflags}")
list(FILTER _std INCLUDE REGEX "^-std=(c|gnu)\\+\\+[0-9]+$")
if(_std)
  string(REGEX REPLACE "^-std=(c|gnu)\\+\\+" "" CMAKE_CXX_STANDARD "${_std}")
endif()
list(FILTER _cxxflags EXCLUDE REGEX "^-std=")
if(_jemalloc STREQUAL "1")
  list(APPEND _cxxflags -DROCKSDB_JEMALLOC -DJEMALLOC_NO_DEMANGLE)
endif()
set(CMAKE_CXX_FLAGS_RELEASE "-O2")
set(CMAKE_CXX_EXTENSIONS OFF)  # -std=c++NN, as make_config.mk has it
add_compile_options(${_cxxflags} -DNDEBUG -fno-rtti)
# Each executable would carry its own copy of librocksdb.a's line tables
# (about 35 MB; the test suite alone 1.6 GB): leave debug sections out.
# Symbols stay, so perf and backtraces still name functions.
add_link_options(-Wl,--strip-debug)
# The libraries RocksDB's make linked its tools with.
separate_arguments(_ldflags UNIX_COMMAND
  "${_ldflags} ${_exec_ldflags} ${_jemalloc_lib}")
if(_with_jemalloc_flag STREQUAL "1")
  list(APPEND _ldflags -ljemalloc)
endif()

# librocksdb.a built from other sources than these would make the tests
# check something else than this checkout: say which files differ.
set(_stale)
file(GLOB_RECURSE _ours RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
  ${CMAKE_CURRENT_SOURCE_DIR}/cache/*.h ${CMAKE_CURRENT_SOURCE_DIR}/memtable/*.h
  ${CMAKE_CURRENT_SOURCE_DIR}/table/*.h ${CMAKE_CURRENT_SOURCE_DIR}/util/*.h
  ${CMAKE_CURRENT_SOURCE_DIR}/plugin/*.h)
foreach(f ${CUCKOO_LIB_SOURCES} ${_ours})
  set(_copy "${_tree}/plugin/cuckoo/${f}")
  if(NOT EXISTS "${_copy}")
    # A header the tree lacks is not in its library (tests only).
    if(f IN_LIST CUCKOO_LIB_SOURCES)
      list(APPEND _stale ${f})
    endif()
  else()
    file(SHA256 "${CMAKE_CURRENT_SOURCE_DIR}/${f}" _a)
    file(SHA256 "${_copy}" _b)
    if(NOT _a STREQUAL _b)
      list(APPEND _stale ${f})
    endif()
  endif()
endforeach()
if(_stale)
  string(REPLACE ";" " " _stale "${_stale}")
  message(WARNING "${_tree} was built from other versions of: ${_stale}. "
    "The tests check its librocksdb.a; ./setup.sh intree ${_major}.${_minor}.${_patch} "
    "rebuilds it from this checkout.")
endif()

set(ROCKSDB_SOURCE_DIR "${_tree}")
set(ROCKSDB_LIBRARY "${_tree}/librocksdb.a")
find_package(Threads REQUIRED)

# rocksdb_cuckoo_static: the plugin is inside librocksdb.a. The tree's copy
# of our headers comes first, so that the headers match the objects.
add_library(rocksdb_cuckoo_static INTERFACE)
target_include_directories(rocksdb_cuckoo_static INTERFACE
  ${_tree}/plugin/cuckoo ${CMAKE_CURRENT_SOURCE_DIR} ${_tree}/include)
target_link_libraries(rocksdb_cuckoo_static INTERFACE
  ${ROCKSDB_LIBRARY} ${_ldflags} Threads::Threads)
add_library(cuckoo_internal INTERFACE)
target_include_directories(cuckoo_internal INTERFACE
  ${_tree}/plugin/cuckoo ${CMAKE_CURRENT_SOURCE_DIR} ${_tree} ${_tree}/include)
target_link_libraries(cuckoo_internal INTERFACE rocksdb_cuckoo_static)

# For tests/plugin/cuckoo_mk_test, which compares the in-tree fragments with
# the library's sources.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cuckoo_lib_sources.txt
  CONTENT "$<JOIN:${CUCKOO_LIB_SOURCES},\n>\n")

# Left out in this mode:
# - librocksdb_cuckoo.so, and with it the tests that LD_PRELOAD or dlopen it
#   (they skip): it would load next to the plugin already in librocksdb.a.
# - install rules and install_test: nothing of ours is installed from here.
# - tests/intree/release_flags_check.cmake: this whole build is -fno-rtti.
# - the fuzzer: see CUCKOO_FUZZ above.
include(plugin/tools.cmake)
# LDBTool lives in the tree's tools library, which ldb links (before
# librocksdb.a, which it needs in turn).
target_link_libraries(cuckoo_ldb PRIVATE
  ${_tree}/librocksdb_tools.a ${ROCKSDB_LIBRARY})
enable_testing()
add_subdirectory(tests)
add_subdirectory(db_bench_ext)
