"""Translates db_stress flags into an OPTIONS file that names our plugin.

With --options_file, db_stress (7.8.3 to 11.x) takes every DB and column
family option from the file and ignores the flags that would have set them
(mmap_read, prefix_size, write_buffer_size, compaction_style, ...), while its
test logic still reads some of those flags (prefix_size for prefix scans,
use_merge, ...).
Writing the file from the same flags keeps the two in agreement, so the
randomised flags of db_crashtest.py still vary the DB as they would with
BlockBasedTable. Mirrors InitializeOptionsFromFlags() in
db_stress_tool/db_stress_test_base.cc of 7.8.3, 9.10, 10.10 and 11.8, for
every option an OPTIONS file can express.
"""
import json
import os
import re
import subprocess

# Used when the caller does not say otherwise.
TABLE_OPTIONS = "hash_table_ratio=0.9"
MEMTABLE_OPTIONS = ""

_COMPRESSION = {
    "none": "kNoCompression", "snappy": "kSnappyCompression",
    "zlib": "kZlibCompression", "bzip2": "kBZip2Compression",
    "lz4": "kLZ4Compression", "lz4hc": "kLZ4HCCompression",
    "xpress": "kXpressCompression", "zstd": "kZSTD",
}
_COMPACTION_STYLE = {0: "kCompactionStyleLevel", 1: "kCompactionStyleUniversal",
                     2: "kCompactionStyleFIFO"}
_COMPACTION_PRI = {0: "kByCompensatedSize", 1: "kOldestLargestSeqFirst",
                   2: "kOldestSmallestSeqFirst", 3: "kMinOverlappingRatio",
                   4: "kRoundRobin"}


def flag_defaults(db_stress, work):
    """Every flag's default, as the binary itself reports it (--helpfull),
    asked once per work folder: every db_stress run of a test reads it."""
    cache = os.path.join(work, "db_stress_flag_defaults.json")
    if os.path.exists(cache):
        with open(cache) as f:
            return json.load(f)
    defaults = _ask_flag_defaults(db_stress)
    tmp = cache + ".%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(defaults, f)
    os.replace(tmp, cache)
    return defaults


def _ask_flag_defaults(db_stress):
    out = subprocess.run([db_stress, "--helpfull"], capture_output=True,
                         text=True).stdout
    defaults = {}
    # gflags wraps an entry over lines: "-name (text) type: T default: V",
    # breaking right after the name when the text's first word is long.
    for entry in re.split(r"\n\s+-(?=\w+\s+\()", out):
        m = re.match(r"(\w+)\s+\(.*?type: (\w+)\s+default: (\"[^\"]*\"|\S+)",
                     entry, re.S)
        if m:
            value = m.group(3)
            if m.group(2) == "string":
                value = value.strip('"')
            defaults[m.group(1)] = value
    if "prefix_size" not in defaults:
        raise RuntimeError(f"cannot read flag defaults from {db_stress} --helpfull")
    return defaults


def parse_flags(argv):
    """--name=value arguments (the form db_crashtest.py writes) to a dict."""
    flags = {}
    for arg in argv:
        m = re.match(r"--?(\w+)(?:=(.*))?$", arg)
        if m:
            flags[m.group(1)] = m.group(2) if m.group(2) is not None else "true"
    return flags


def _b(v):
    return "true" if str(v).lower() in ("1", "true", "yes") else "false"


def _options(flags, spec):
    """{option: value} for spec's entries (option, flags read, value from
    them, optional). An optional entry follows its flags where the release
    has them (see _newer, _older): without them the option keeps RocksDB's
    default. Any other missing flag is an error, so a misspelled name cannot
    hide. Later entries win, so an optional entry can refine an earlier one."""
    out = {}
    for option, names, value, optional in spec:
        missing = [k for k in names if k not in flags]
        if missing and optional:
            continue
        if missing:
            raise RuntimeError("db_stress has no flag --%s (for option %s)" %
                               (missing[0], option))
        v = value(*(flags[k] for k in names))
        if v is not None:  # None: RocksDB's default, as db_stress leaves it
            out[option] = v
    return out


def _same(name):  # option and flag share a name
    return (name, (name,), str, False)


def _flag(option, name):
    return (option, (name,), str, False)


def _boolean(option, name):
    return (option, (name,), _b, False)


def _optional(entry):
    return entry[:3] + (True,)


# Flags only later releases have, and flags later releases removed: both
# optional, named apart so that each entry says which way it goes.
_newer = _older = _optional


def _int(v):
    return int(float(v))


def options_file_text(flags, table_options=TABLE_OPTIONS,
                      memtable_options=MEMTABLE_OPTIONS):
    """flags: every db_stress flag (defaults overlaid with the given ones)."""
    same, flag, boolean, newer, older = (_same, _flag, _boolean, _newer,
                                         _older)
    db = _options(flags, [
        same("db_write_buffer_size"),
        same("max_background_compactions"),
        same("max_background_flushes"),
        flag("max_open_files", "open_files"),
        boolean("use_fsync", "use_fsync"),
        same("compaction_readahead_size"),
        boolean("allow_mmap_reads", "mmap_read"),
        boolean("allow_mmap_writes", "mmap_write"),
        boolean("use_direct_reads", "use_direct_reads"),
        boolean("use_direct_io_for_flush_and_compaction",
                "use_direct_io_for_flush_and_compaction"),
        same("recycle_log_file_num"),
        same("max_manifest_file_size"),
        flag("max_subcompactions", "subcompactions"),
        boolean("allow_concurrent_memtable_write",
                "allow_concurrent_memtable_write"),
        same("stats_dump_period_sec"),
        boolean("enable_pipelined_write", "enable_pipelined_write"),
        boolean("enable_write_thread_adaptive_yield",
                "enable_write_thread_adaptive_yield"),
        boolean("atomic_flush", "atomic_flush"),
        ("manual_wal_flush", ("manual_wal_flush_one_in",),
         lambda v: _b(_int(v) > 0), False),
        boolean("avoid_unnecessary_blocking_io",
                "avoid_unnecessary_blocking_io"),
        boolean("write_dbid_to_manifest", "write_dbid_to_manifest"),
        newer(boolean("write_identity_file", "write_identity_file")),
        boolean("avoid_flush_during_recovery", "avoid_flush_during_recovery"),
        newer(boolean("avoid_flush_during_shutdown",
                      "avoid_flush_during_shutdown")),
        same("max_write_batch_group_size_bytes"),
        ("track_and_verify_wals_in_manifest", (), lambda: "true", False),
        boolean("verify_sst_unique_id_in_manifest",
                "verify_sst_unique_id_in_manifest"),
        boolean("best_efforts_recovery", "best_efforts_recovery"),
        # Removed from RocksDB in 10.0 (the behaviour is now always on).
        older(boolean("fail_if_options_file_error",
                      "fail_if_options_file_error")),
        boolean("allow_data_in_errors", "allow_data_in_errors"),
        ("wal_compression", ("wal_compression",), _COMPRESSION.__getitem__,
         False),
        newer(same("daily_offpeak_time_utc")),
        newer(boolean("allow_fallocate", "allow_fallocate")),
        newer(same("table_cache_numshardbits")),
        newer(same("log_readahead_size")),
        newer(same("bgerror_resume_retry_interval")),
        newer(same("max_log_file_size")),
        newer(same("log_file_time_to_roll")),
        newer(boolean("use_adaptive_mutex", "use_adaptive_mutex")),
        newer(boolean("advise_random_on_open", "advise_random_on_open")),
        newer(same("WAL_ttl_seconds")),
        newer(same("WAL_size_limit_MB")),
        same("wal_bytes_per_sync"),
        newer(boolean("strict_bytes_per_sync", "strict_bytes_per_sync")),
        newer(boolean("dump_malloc_stats", "dump_malloc_stats")),
        newer(same("stats_history_buffer_size")),
        newer(boolean("skip_stats_update_on_db_open",
                      "skip_stats_update_on_db_open")),
        # 11.x: db_stress turns skip_stats_update_on_db_open on for
        # open_files_async, which needs it.
        newer(("skip_stats_update_on_db_open",
               ("skip_stats_update_on_db_open", "open_files_async"),
               lambda skip, open_async: _b(_b(skip) == "true" or
                                           _b(open_async) == "true"),
               False)),
        newer(boolean("open_files_async", "open_files_async")),
        newer(boolean("async_wal_precreate", "async_wal_precreate")),
        newer(boolean("enable_thread_tracking", "enable_thread_tracking")),
        newer(same("manifest_preallocation_size")),
        newer(same("max_total_wal_size")),
        newer(boolean("use_direct_io_for_compaction_reads",
                      "use_direct_io_for_compaction_reads")),
        newer(same("max_manifest_space_amp_pct")),
        newer(boolean("verify_manifest_content_on_close",
                      "verify_manifest_content_on_close")),
        newer(boolean("optimize_manifest_for_recovery",
                      "optimize_manifest_for_recovery")),
        newer(boolean("reuse_manifest_on_open", "reuse_manifest_on_open")),
        newer(boolean("enforce_write_buffer_manager_during_recovery",
                      "enforce_write_buffer_manager_during_recovery")),
        newer(boolean("fast_sst_open", "fast_sst_open")),
        newer(same("max_compaction_trigger_wakeup_seconds")),
    ])
    universal = ";".join("%s=%s" % kv for kv in _options(flags, [
        flag("size_ratio", "universal_size_ratio"),
        flag("min_merge_width", "universal_min_merge_width"),
        flag("max_merge_width", "universal_max_merge_width"),
        flag("max_size_amplification_percent",
             "universal_max_size_amplification_percent"),
        newer(flag("max_read_amp", "universal_max_read_amp")),
        newer(boolean("reduce_file_locking", "universal_reduce_file_locking")),
    ]).items())
    # db_stress sets these for FIFO compaction only.
    fifo_mb = lambda style, mb: (str(_int(mb) << 20) if _int(style) == 2
                                 and _int(mb) > 0 else None)
    fifo = ";".join("%s=%s" % kv for kv in _options(flags, [
        newer(("allow_compaction",
               ("compaction_style", "fifo_allow_compaction"),
               lambda style, allow: _b(_int(style) == 2 and
                                       _b(allow) == "true"), False)),
        newer(("max_data_files_size",
               ("compaction_style", "fifo_compaction_max_data_files_size_mb"),
               fifo_mb, False)),
        newer(("max_table_files_size",
               ("compaction_style", "fifo_compaction_max_table_files_size_mb"),
               fifo_mb, False)),
        newer(("use_kv_ratio_compaction",
               ("compaction_style", "fifo_compaction_use_kv_ratio_compaction"),
               lambda style, v: _b(v) if _int(style) == 2 else None, False)),
    ]).items())
    memtable = "striped_hash"
    if memtable_options:
        memtable = "{id=striped_hash;%s}" % memtable_options
    cf = {
        "table_factory": "CuckooHashTable",
        "memtable_factory": memtable,
        # What db_stress would install: its Merge calls expect put semantics.
        "merge_operator": "put_v1" if _b(flags["use_full_merge_v1"]) == "true"
                          else "put",
        # Our table stores every file uncompressed whatever this says; the
        # random compression_type (xpress, ...) would only fail validation.
        "compression": "kNoCompression",
        "bottommost_compression": "kDisableCompressionOption",
        "compaction_options_universal": "{%s;}" % universal,
    }
    if fifo:
        cf["compaction_options_fifo"] = "{%s;}" % fifo
    cf.update(_options(flags, [
        same("write_buffer_size"),
        same("max_write_buffer_number"),
        same("min_write_buffer_number_to_merge"),
        # Removed from RocksDB in 10.0 (max_write_buffer_size_to_maintain
        # replaced it).
        older(same("max_write_buffer_number_to_maintain")),
        same("max_write_buffer_size_to_maintain"),
        same("memtable_prefix_bloom_size_ratio"),
        boolean("memtable_whole_key_filtering", "memtable_whole_key_filtering"),
        boolean("disable_auto_compactions", "disable_auto_compactions"),
        ("compaction_style", ("compaction_style",),
         lambda v: _COMPACTION_STYLE[_int(v)], False),
        ("compaction_pri", ("compaction_pri",),
         lambda v: _COMPACTION_PRI[_int(v)], False),
        same("num_levels"),
        ("prefix_extractor", ("prefix_size",),
         lambda v: ("rocksdb.FixedPrefix.%d" % _int(v)
                    if _int(v) >= 0 else "nullptr"), False),
        same("target_file_size_base"),
        same("target_file_size_multiplier"),
        same("max_bytes_for_level_base"),
        same("max_bytes_for_level_multiplier"),
        same("level0_stop_writes_trigger"),
        same("level0_slowdown_writes_trigger"),
        same("level0_file_num_compaction_trigger"),
        boolean("inplace_update_support", "in_place_update"),
        # 9.x also names the flag like the option; it wins when present.
        newer(boolean("inplace_update_support", "inplace_update_support")),
        same("periodic_compaction_seconds"),
        flag("ttl", "compaction_ttl"),
        boolean("level_compaction_dynamic_level_bytes",
                "level_compaction_dynamic_level_bytes"),
        same("memtable_protection_bytes_per_key"),
        newer(same("block_protection_bytes_per_key")),
        # Our memtable answers RocksDB 9's checked lookups (key order and
        # checksums verified on the way).
        newer(boolean("paranoid_memory_checks", "paranoid_memory_checks")),
        # 10.x spells this one so; 11.0 fixed the name of flag and option.
        _optional(boolean("memtable_veirfy_per_key_checksum_on_seek",
                          "memtable_veirfy_per_key_checksum_on_seek")),
        newer(boolean("memtable_verify_per_key_checksum_on_seek",
                      "memtable_verify_per_key_checksum_on_seek")),
        # 11.x: MultiGet through our memtable's batched lookup.
        newer(boolean("memtable_batch_lookup_optimization",
                      "memtable_batch_lookup_optimization")),
        newer(same("memtable_op_scan_flush_trigger")),
        newer(same("min_tombstones_for_range_conversion")),
        newer(same("read_triggered_compaction_threshold")),
        newer(same("verify_output_flags")),
        newer(same("memtable_max_range_deletions")),
        newer(same("bottommost_file_compaction_delay")),
        same("experimental_mempurge_threshold"),
        boolean("enable_blob_files", "enable_blob_files"),
        same("min_blob_size"),
        same("blob_file_size"),
        ("blob_compression_type", ("blob_compression_type",),
         _COMPRESSION.__getitem__, False),
        boolean("enable_blob_garbage_collection",
                "enable_blob_garbage_collection"),
        same("blob_garbage_collection_age_cutoff"),
        same("blob_garbage_collection_force_threshold"),
        same("blob_compaction_readahead_size"),
        same("blob_file_starting_level"),
        newer(boolean("enable_blob_direct_write", "enable_blob_direct_write")),
        newer(same("blob_direct_write_partitions")),
        # 7.8.3 only: 9.x replaced the flag by the temperatures below.
        older(("bottommost_temperature", ("enable_tiered_storage",),
               lambda v: "kCold" if _b(v) == "true" else "kUnknown", False)),
        newer(same("last_level_temperature")),
        newer(same("default_write_temperature")),
        newer(same("default_temperature")),
        same("preclude_last_level_data_seconds"),
        same("preserve_internal_time_seconds"),
        boolean("paranoid_file_checks", "paranoid_file_checks"),
        newer(boolean("optimize_filters_for_hits", "optimize_filters_for_hits")),
        newer(same("sample_for_compression")),
        newer(boolean("report_bg_io_stats", "report_bg_io_stats")),
        newer(same("max_sequential_skip_in_iterations")),
        newer(same("uncache_aggressiveness")),
    ]))
    lines = ["[Version]", "  rocksdb_version=7.8.3",
             "  options_file_version=1.1", "", "[DBOptions]"]
    lines += [f"  {k}={v}" for k, v in db.items()]
    lines += ["", '[CFOptions "default"]']
    lines += [f"  {k}={v}" for k, v in cf.items()]
    lines += ["", '[TableOptions/CuckooHashTable "default"]']
    lines += ["  " + kv for kv in table_options.split(";") if kv]
    return "\n".join(lines) + "\n"
