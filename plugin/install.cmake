# Install rules and the CMake package `RocksDBCuckoo` (included by the
# top-level CMakeLists.txt):
#   cmake --install <build> --prefix <prefix>
# gives
#   <prefix>/lib/librocksdb_cuckoo.{so,a}
#   <prefix>/include/rocksdb_cuckoo/{rocksdb_cuckoo.h,cuckoo_hash_table.h,
#                                     striped_hash_memtable.h}
#   <prefix>/bin/{cuckoo_sst_dump,cuckoo_ldb}
#   <prefix>/lib/cmake/RocksDBCuckoo/RocksDBCuckoo{Config,ConfigVersion,
#                                                   Targets*}.cmake
# and a consumer does
#   find_package(RocksDBCuckoo REQUIRED)
#   target_link_libraries(app PRIVATE RocksDBCuckoo::rocksdb_cuckoo)
# (or RocksDBCuckoo::rocksdb_cuckoo_static, then call register_rocksdb_cuckoo)
# and includes <rocksdb_cuckoo/rocksdb_cuckoo.h>.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CUCKOO_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/RocksDBCuckoo"
    CACHE STRING "Where RocksDBCuckooConfig.cmake is installed")

# The public headers include only RocksDB's public headers (no other header
# of ours), so they install flat under include/rocksdb_cuckoo/. install_test
# compiles each installed header on its own to keep it that way.
set(CUCKOO_PUBLIC_HEADERS
  ${CMAKE_CURRENT_LIST_DIR}/rocksdb_cuckoo.h
  ${CMAKE_CURRENT_SOURCE_DIR}/table/cuckoo_hash_table.h
  ${CMAKE_CURRENT_SOURCE_DIR}/memtable/striped_hash_memtable.h)
install(FILES ${CUCKOO_PUBLIC_HEADERS}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rocksdb_cuckoo
  COMPONENT devel)

install(TARGETS rocksdb_cuckoo rocksdb_cuckoo_static
  EXPORT RocksDBCuckooTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

foreach(tool cuckoo_sst_dump cuckoo_ldb)
  if(TARGET ${tool})
    install(TARGETS ${tool}
      RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()

install(EXPORT RocksDBCuckooTargets
  NAMESPACE RocksDBCuckoo::
  FILE RocksDBCuckooTargets.cmake
  DESTINATION ${CUCKOO_INSTALL_CMAKEDIR}
  COMPONENT devel)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/RocksDBCuckooConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/RocksDBCuckooConfig.cmake
  INSTALL_DESTINATION ${CUCKOO_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/RocksDBCuckooConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/RocksDBCuckooConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/RocksDBCuckooConfigVersion.cmake
  DESTINATION ${CUCKOO_INSTALL_CMAKEDIR}
  COMPONENT devel)

# install_test: install into a scratch prefix, then configure, build and run
# the consumer project in plugin/example/consumer against it, through
# find_package alone.
if(NOT CUCKOO_SANITIZE)
  set(_cuckoo_install_test_dir ${CMAKE_CURRENT_BINARY_DIR}/install_test)
  add_test(NAME install_test
    COMMAND ${CMAKE_COMMAND}
      -DCUCKOO_BUILD_DIR=${CMAKE_BINARY_DIR}
      -DCUCKOO_CONSUMER_DIR=${CMAKE_CURRENT_LIST_DIR}/example/consumer
      -DCUCKOO_WORK_DIR=${_cuckoo_install_test_dir}
      -DCUCKOO_GENERATOR=${CMAKE_GENERATOR}
      -DCUCKOO_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
  set_tests_properties(install_test PROPERTIES
    LABELS "unit;install" TIMEOUT 300)
endif()
