"""Translates db_stress flags into an OPTIONS file that names our plugin.

With --options_file, db_stress (7.8.3 and 9.x) takes every DB and column
family option from the file and ignores the flags that would have set them
(mmap_read, prefix_size, write_buffer_size, compaction_style, ...), while its
test logic still reads some of those flags (prefix_size for prefix scans,
use_merge, ...).
Writing the file from the same flags keeps the two in agreement, so the
randomised flags of db_crashtest.py still vary the DB as they would with
BlockBasedTable. Mirrors InitializeOptionsFromFlags() in
db_stress_tool/db_stress_test_base.cc of 7.8.3 and 9.10, for every option an
OPTIONS file can express.
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
    # gflags wraps an entry over lines: "-name (text) type: T default: V".
    for entry in re.split(r"\n\s+-(?=\w+ \()", out):
        m = re.match(r"(\w+) \(.*?type: (\w+)\s+default: (\"[^\"]*\"|\S+)",
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


def _known(spec):
    """{option: value} for each (option, value function) of spec whose
    db_stress flags exist: the flag set differs between RocksDB releases, and
    an option the running db_stress has no flag for keeps RocksDB's default."""
    out = {}
    for option, value in spec:
        try:
            out[option] = value()
        except KeyError:
            pass
    return out


def options_file_text(flags, table_options=TABLE_OPTIONS,
                      memtable_options=MEMTABLE_OPTIONS):
    """flags: every db_stress flag (defaults overlaid with the given ones)."""
    f = flags
    i = lambda k: int(float(f[k]))
    same = lambda k: (k, lambda: f[k])  # option and flag share a name
    flag = lambda option, k: (option, lambda: f[k])
    boolean = lambda option, k: (option, lambda: _b(f[k]))
    db = _known([
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
        ("manual_wal_flush", lambda: _b(i("manual_wal_flush_one_in") > 0)),
        boolean("avoid_unnecessary_blocking_io",
                "avoid_unnecessary_blocking_io"),
        boolean("write_dbid_to_manifest", "write_dbid_to_manifest"),
        boolean("write_identity_file", "write_identity_file"),
        boolean("avoid_flush_during_recovery", "avoid_flush_during_recovery"),
        boolean("avoid_flush_during_shutdown", "avoid_flush_during_shutdown"),
        same("max_write_batch_group_size_bytes"),
        ("track_and_verify_wals_in_manifest", lambda: "true"),
        boolean("verify_sst_unique_id_in_manifest",
                "verify_sst_unique_id_in_manifest"),
        boolean("best_efforts_recovery", "best_efforts_recovery"),
        boolean("fail_if_options_file_error", "fail_if_options_file_error"),
        boolean("allow_data_in_errors", "allow_data_in_errors"),
        ("wal_compression", lambda: _COMPRESSION[f["wal_compression"]]),
        same("daily_offpeak_time_utc"),
        boolean("allow_fallocate", "allow_fallocate"),
        same("table_cache_numshardbits"),
        same("log_readahead_size"),
        same("bgerror_resume_retry_interval"),
        same("max_log_file_size"),
        same("log_file_time_to_roll"),
        boolean("use_adaptive_mutex", "use_adaptive_mutex"),
        boolean("advise_random_on_open", "advise_random_on_open"),
        same("WAL_ttl_seconds"),
        same("WAL_size_limit_MB"),
        same("wal_bytes_per_sync"),
        boolean("strict_bytes_per_sync", "strict_bytes_per_sync"),
        boolean("dump_malloc_stats", "dump_malloc_stats"),
        same("stats_history_buffer_size"),
        boolean("skip_stats_update_on_db_open", "skip_stats_update_on_db_open"),
        boolean("enable_thread_tracking", "enable_thread_tracking"),
        same("manifest_preallocation_size"),
        same("max_total_wal_size"),
    ])
    universal = ";".join("%s=%s" % kv for kv in _known([
        flag("size_ratio", "universal_size_ratio"),
        flag("min_merge_width", "universal_min_merge_width"),
        flag("max_merge_width", "universal_max_merge_width"),
        flag("max_size_amplification_percent",
             "universal_max_size_amplification_percent"),
        flag("max_read_amp", "universal_max_read_amp"),
    ]).items())
    memtable = "striped_hash"
    if memtable_options:
        memtable = "{id=striped_hash;%s}" % memtable_options
    cf = {
        "table_factory": "CuckooHashTable",
        "memtable_factory": memtable,
        # What db_stress would install: its Merge calls expect put semantics.
        "merge_operator": "put_v1" if _b(f["use_full_merge_v1"]) == "true"
                          else "put",
        # Our table stores every file uncompressed whatever this says; the
        # random compression_type (xpress, ...) would only fail validation.
        "compression": "kNoCompression",
        "bottommost_compression": "kDisableCompressionOption",
        "compaction_options_universal": "{%s;}" % universal,
    }
    cf.update(_known([
        same("write_buffer_size"),
        same("max_write_buffer_number"),
        same("min_write_buffer_number_to_merge"),
        same("max_write_buffer_number_to_maintain"),
        same("max_write_buffer_size_to_maintain"),
        same("memtable_prefix_bloom_size_ratio"),
        boolean("memtable_whole_key_filtering", "memtable_whole_key_filtering"),
        boolean("disable_auto_compactions", "disable_auto_compactions"),
        ("compaction_style",
         lambda: _COMPACTION_STYLE[i("compaction_style")]),
        ("compaction_options_fifo", lambda: "{allow_compaction=%s;}" % _b(
            i("compaction_style") == 2 and _b(f["fifo_allow_compaction"])
            == "true")),
        ("compaction_pri", lambda: _COMPACTION_PRI[i("compaction_pri")]),
        same("num_levels"),
        ("prefix_extractor", lambda: ("rocksdb.FixedPrefix.%d" %
                                      i("prefix_size")
                                      if i("prefix_size") >= 0 else "nullptr")),
        same("target_file_size_base"),
        same("target_file_size_multiplier"),
        same("max_bytes_for_level_base"),
        same("max_bytes_for_level_multiplier"),
        same("level0_stop_writes_trigger"),
        same("level0_slowdown_writes_trigger"),
        same("level0_file_num_compaction_trigger"),
        # 9.x names the flag like the option; 7.8.3 has only in_place_update.
        boolean("inplace_update_support", "in_place_update"),
        boolean("inplace_update_support", "inplace_update_support"),
        same("periodic_compaction_seconds"),
        flag("ttl", "compaction_ttl"),
        boolean("level_compaction_dynamic_level_bytes",
                "level_compaction_dynamic_level_bytes"),
        same("memtable_protection_bytes_per_key"),
        same("block_protection_bytes_per_key"),
        # Our memtable answers RocksDB 9's checked lookups (key order and
        # checksums verified on the way).
        boolean("paranoid_memory_checks", "paranoid_memory_checks"),
        same("memtable_max_range_deletions"),
        same("bottommost_file_compaction_delay"),
        same("experimental_mempurge_threshold"),
        boolean("enable_blob_files", "enable_blob_files"),
        same("min_blob_size"),
        same("blob_file_size"),
        ("blob_compression_type",
         lambda: _COMPRESSION[f["blob_compression_type"]]),
        boolean("enable_blob_garbage_collection",
                "enable_blob_garbage_collection"),
        same("blob_garbage_collection_age_cutoff"),
        same("blob_garbage_collection_force_threshold"),
        same("blob_compaction_readahead_size"),
        same("blob_file_starting_level"),
        ("bottommost_temperature", lambda: (
            "kCold" if _b(f["enable_tiered_storage"]) == "true"
            else "kUnknown")),
        same("last_level_temperature"),
        same("default_write_temperature"),
        same("default_temperature"),
        same("preclude_last_level_data_seconds"),
        same("preserve_internal_time_seconds"),
        boolean("paranoid_file_checks", "paranoid_file_checks"),
        boolean("optimize_filters_for_hits", "optimize_filters_for_hits"),
        same("sample_for_compression"),
        boolean("report_bg_io_stats", "report_bg_io_stats"),
        same("max_sequential_skip_in_iterations"),
        same("uncache_aggressiveness"),
    ]))
    lines = ["[Version]", "  rocksdb_version=7.8.3",
             "  options_file_version=1.1", "", "[DBOptions]"]
    lines += [f"  {k}={v}" for k, v in db.items()]
    lines += ["", '[CFOptions "default"]']
    lines += [f"  {k}={v}" for k, v in cf.items()]
    lines += ["", '[TableOptions/CuckooHashTable "default"]']
    lines += ["  " + kv for kv in table_options.split(";") if kv]
    return "\n".join(lines) + "\n"
