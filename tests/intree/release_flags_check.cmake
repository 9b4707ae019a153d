# Compiles every library source once more the way RocksDB's release build
# compiles an in-tree plugin (-fno-rtti -DNDEBUG), so a dynamic_cast or
# typeid creeping back in fails the ordinary build instead of only the
# in-tree one. Objects only: nothing links or installs them, and -O0 keeps
# the extra compile cheap. (NDEBUG changes the layout of some RocksDB
# internal structs, which is why these objects must never be linked against
# Debian's librocksdb.) Skipped under sanitizers: -fsanitize=vptr needs RTTI.
if(NOT CUCKOO_SANITIZE)
  add_library(cuckoo_release_flags_check OBJECT
    ${CUCKOO_LIB_SOURCES} plugin/auto_register.cc)
  target_include_directories(cuckoo_release_flags_check PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR} ${ROCKSDB_SOURCE_DIR}
    ${ROCKSDB_SOURCE_DIR}/include)
  target_compile_definitions(cuckoo_release_flags_check PRIVATE
    ROCKSDB_PLATFORM_POSIX ROCKSDB_LIB_IO_POSIX OS_LINUX NDEBUG)
  target_compile_options(cuckoo_release_flags_check PRIVATE
    -fno-rtti -O0 -g0)
endif()
