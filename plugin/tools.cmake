# Tools and examples built with the library (included by the top-level
# CMakeLists.txt). They include RocksDB's internal headers through
# cuckoo_internal, so like the library they are compiled without NDEBUG.

# sst_dump for CuckooHashTable files (the stock sst_dump rejects their magic
# number).
add_executable(cuckoo_sst_dump ${CMAKE_CURRENT_LIST_DIR}/cuckoo_sst_dump.cc)
target_link_libraries(cuckoo_sst_dump PRIVATE cuckoo_internal)

# ldb with the plugin registered: no LD_PRELOAD needed.
add_executable(cuckoo_ldb ${CMAKE_CURRENT_LIST_DIR}/cuckoo_ldb.cc)
target_link_libraries(cuckoo_ldb PRIVATE cuckoo_internal)

# An application that reaches the plugin only through an options string.
add_executable(options_string_example
  ${CMAKE_CURRENT_LIST_DIR}/example/options_string_example.cc)
target_link_libraries(options_string_example PRIVATE rocksdb_cuckoo_static)

# The example is its own smoke test: it exits non-zero unless the flushed
# file really is a CuckooHashTable file and every key reads back.
enable_testing()
add_test(NAME options_string_example
  COMMAND options_string_example
          ${CMAKE_CURRENT_BINARY_DIR}/options_string_example_db)
set_tests_properties(options_string_example PROPERTIES
  LABELS "unit;example" TIMEOUT 120)

# The library's sources as CMake finally has them (at generate time), for
# tests/plugin/cuckoo_mk_test, which checks them against plugin/cuckoo.mk as
# RocksDB reads it. (The in-tree mode has no such target and writes the list
# itself.)
if(TARGET cuckoo_objects)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cuckoo_lib_sources.txt
    CONTENT "$<JOIN:$<TARGET_PROPERTY:cuckoo_objects,SOURCES>,\n>\n")
endif()

# A remote-compaction worker with the plugin registered: DB::OpenAndCompact
# on one job a primary's CompactionService hands it.
add_executable(cuckoo_compaction_worker
  ${CMAKE_CURRENT_LIST_DIR}/cuckoo_compaction_worker.cc)
target_link_libraries(cuckoo_compaction_worker PRIVATE cuckoo_internal)

# The primary's side of it, an example to adapt: a CompactionService that
# runs each job in a worker process through a spool directory.
add_library(spool_compaction_service STATIC
  ${CMAKE_CURRENT_LIST_DIR}/example/spool_compaction_service.cc)
target_link_libraries(spool_compaction_service PUBLIC cuckoo_internal)
