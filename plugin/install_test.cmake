# Run by ctest (install_test, see plugin/install.cmake) in script mode:
# installs the build into a scratch prefix, then configures, builds and runs
# plugin/example/consumer against that prefix through find_package only.
#   cmake -DCUCKOO_BUILD_DIR=... -DCUCKOO_CONSUMER_DIR=... -DCUCKOO_WORK_DIR=...
#         [-DCUCKOO_GENERATOR=...] [-DCUCKOO_CXX_COMPILER=...]
#         -P install_test.cmake
cmake_minimum_required(VERSION 3.16)

foreach(var CUCKOO_BUILD_DIR CUCKOO_CONSUMER_DIR CUCKOO_WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "install_test: ${var} is not set")
  endif()
endforeach()

set(prefix ${CUCKOO_WORK_DIR}/prefix)
set(consumer_build ${CUCKOO_WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${CUCKOO_WORK_DIR})
file(MAKE_DIRECTORY ${CUCKOO_WORK_DIR})

function(run_step name)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_test: ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "install_test: ${name}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${CUCKOO_BUILD_DIR}
         --prefix ${prefix})

# What a user of the package relies on must be there.
foreach(f
    include/rocksdb_cuckoo/rocksdb_cuckoo.h
    include/rocksdb_cuckoo/cuckoo_hash_table.h
    bin/cuckoo_sst_dump
    bin/cuckoo_ldb)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_test: ${prefix}/${f} was not installed")
  endif()
endforeach()
file(GLOB_RECURSE config_files ${prefix}/*/RocksDBCuckooConfig.cmake)
file(GLOB_RECURSE shared_libs ${prefix}/*/librocksdb_cuckoo.so)
file(GLOB_RECURSE static_libs ${prefix}/*/librocksdb_cuckoo.a)
foreach(list config_files shared_libs static_libs)
  if(NOT ${list})
    message(FATAL_ERROR "install_test: nothing installed for ${list}")
  endif()
endforeach()

set(configure_args -S ${CUCKOO_CONSUMER_DIR} -B ${consumer_build}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
if(CUCKOO_GENERATOR)
  list(APPEND configure_args -G ${CUCKOO_GENERATOR})
endif()
if(CUCKOO_CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CUCKOO_CXX_COMPILER})
endif()
run_step("configure consumer" ${CMAKE_COMMAND} ${configure_args})
run_step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build} -j1)

foreach(app consumer_shared consumer_static)
  run_step("run ${app}" ${consumer_build}/${app} ${CUCKOO_WORK_DIR}/${app}_db)
  if(NOT step_output MATCHES "consumer OK")
    message(FATAL_ERROR "install_test: ${app} printed:\n${step_output}")
  endif()
endforeach()

run_step("run installed cuckoo_sst_dump --help" ${prefix}/bin/cuckoo_sst_dump
         --help)
file(GLOB sst_files ${CUCKOO_WORK_DIR}/consumer_static_db/*.sst)
if(NOT sst_files)
  message(FATAL_ERROR "install_test: the consumer wrote no SST file")
endif()
list(GET sst_files 0 sst)
run_step("installed cuckoo_sst_dump --command=check" ${prefix}/bin/cuckoo_sst_dump
         --file=${sst} --command=check)
message(STATUS "install_test: passed")
