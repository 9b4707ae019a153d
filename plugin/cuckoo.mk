# rocksdb-cuckoo as RocksDB's in-tree plugin `cuckoo`: RocksDB's Makefile
# includes this file and its CMakeLists.txt reads it (see plugin/README.md in
# RocksDB's source). cuckoo_SOURCES is the library's one list of sources: this
# project's CMakeLists.txt reads it too. RocksDB reads each assignment with a
# regular expression that takes only its own line, so each list stays on one
# line and no comment spells out an assignment.
# Paths are relative to the project's root (<rocksdb>/plugin/cuckoo in-tree).
cuckoo_SOURCES = cache/jemalloc_arena_allocator.cc cache/jemalloc_arenas.cc cache/jemalloc_runtime.cc memtable/entry_slabs.cc memtable/hash_slot_index.cc memtable/insert_log.cc memtable/memtable_user_comparator.cc memtable/resize_gate.cc memtable/sorted_run.cc memtable/sorted_view.cc memtable/striped_hash_factory.cc memtable/striped_hash_iterator.cc memtable/striped_hash_rep.cc memtable/striped_hash_stats.cc plugin/registration.cc table/background_loader.cc table/built_in_formats.cc table/chunk_verifier.cc table/cuckoo_hash_table_builder.cc table/cuckoo_hash_table_checks.cc table/cuckoo_hash_table_factory.cc table/cuckoo_hash_table_format.cc table/cuckoo_hash_table_iterator.cc table/cuckoo_hash_table_reader.cc table/cuckoo_placement.cc table/external_file_seqno.cc table/meta_block_check.cc table/pinned_file_memory.cc util/async_executor_env.cc util/checksum.cc util/cpu_topology.cc util/executor/adaptive_mutex.cc util/executor/cycle_clock.cc util/executor/delayed_task_queue.cc util/executor/executor_pool.cc util/executor/fair_ready_queue.cc util/executor/latency_histogram.cc util/executor/task_executor.cc util/executor/task_recycler.cc util/executor/thread_parker.cc util/executor/thread_priority.cc util/executor/tsc_steady_clock.cc util/key_hash.cc util/huge_pages.cc util/large_buffer.cc util/option_checks.cc util/plugin_usage.cc util/recycled_buffers.cc util/striped_counters.cc
# RocksJava's native side of the plugin's Java classes (java/src): RocksDB's
# rocksdbjava goal and java/jni.mk compile them into the JNI library.
cuckoo_JNI_NATIVE_SOURCES = java/rocksjni/async_executor_env.cc java/rocksjni/cuckoo_hash_table_config.cc java/rocksjni/cuckoo_options_util.cc java/rocksjni/cuckoo_table_format_config.cc java/rocksjni/striped_hash_memtable_config.cc
cuckoo_HEADERS = plugin/rocksdb_cuckoo.h table/cuckoo_hash_table.h memtable/striped_hash_memtable.h
cuckoo_FUNC = register_rocksdb_cuckoo
cuckoo_LIBS = pthread
cuckoo_LDFLAGS = -lpthread
# make only, for the objects and dependency files of our sources: they
# include "table/...", "util/..." relative to the plugin's root, and RocksDB
# has folders of the same names (table/, util/); -iquote makes ours win for our
# files only. RocksDB's warning set is wider than ours, so a new warning must
# not fail RocksDB's build.
$(OBJ_DIR)/plugin/cuckoo/%: CXXFLAGS += -iquote plugin/cuckoo -Wno-error
plugin/cuckoo/%: CXXFLAGS += -iquote plugin/cuckoo -Wno-error
