"""Translates db_stress flags into an OPTIONS file that names our plugin.

With --options_file, db_stress 7.8.3 takes every DB and column family option
from the file and ignores the flags that would have set them (mmap_read,
prefix_size, write_buffer_size, compaction_style, ...), while its test logic
still reads some of those flags (prefix_size for prefix scans, use_merge, ...).
Writing the file from the same flags keeps the two in agreement, so the
randomised flags of db_crashtest.py still vary the DB as they would with
BlockBasedTable. Mirrors InitializeOptionsFromFlags() in
db_stress_tool/db_stress_test_base.cc of 7.8.3, for every option an OPTIONS
file can express.
"""
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


def flag_defaults(db_stress):
    """Every flag's default, as the binary itself reports it (--helpfull)."""
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


def options_file_text(flags, table_options=TABLE_OPTIONS,
                      memtable_options=MEMTABLE_OPTIONS):
    """flags: every db_stress flag (defaults overlaid with the given ones)."""
    f = flags
    i = lambda k: int(float(f[k]))
    db = {
        "db_write_buffer_size": f["db_write_buffer_size"],
        "max_background_compactions": f["max_background_compactions"],
        "max_background_flushes": f["max_background_flushes"],
        "max_open_files": f["open_files"],
        "use_fsync": _b(f["use_fsync"]),
        "compaction_readahead_size": f["compaction_readahead_size"],
        "allow_mmap_reads": _b(f["mmap_read"]),
        "allow_mmap_writes": _b(f["mmap_write"]),
        "use_direct_reads": _b(f["use_direct_reads"]),
        "use_direct_io_for_flush_and_compaction":
            _b(f["use_direct_io_for_flush_and_compaction"]),
        "recycle_log_file_num": f["recycle_log_file_num"],
        "max_manifest_file_size": f["max_manifest_file_size"],
        "max_subcompactions": f["subcompactions"],
        "allow_concurrent_memtable_write":
            _b(f["allow_concurrent_memtable_write"]),
        "stats_dump_period_sec": f["stats_dump_period_sec"],
        "enable_pipelined_write": _b(f["enable_pipelined_write"]),
        "enable_write_thread_adaptive_yield":
            _b(f["enable_write_thread_adaptive_yield"]),
        "atomic_flush": _b(f["atomic_flush"]),
        "manual_wal_flush": _b(i("manual_wal_flush_one_in") > 0),
        "avoid_unnecessary_blocking_io": _b(f["avoid_unnecessary_blocking_io"]),
        "write_dbid_to_manifest": _b(f["write_dbid_to_manifest"]),
        "avoid_flush_during_recovery": _b(f["avoid_flush_during_recovery"]),
        "max_write_batch_group_size_bytes":
            f["max_write_batch_group_size_bytes"],
        "track_and_verify_wals_in_manifest": "true",
        "verify_sst_unique_id_in_manifest":
            _b(f["verify_sst_unique_id_in_manifest"]),
        "best_efforts_recovery": _b(f["best_efforts_recovery"]),
        "fail_if_options_file_error": _b(f["fail_if_options_file_error"]),
        "allow_data_in_errors": _b(f["allow_data_in_errors"]),
        "wal_compression": _COMPRESSION[f["wal_compression"]],
    }
    universal = ("{size_ratio=%s;min_merge_width=%s;max_merge_width=%s;"
                 "max_size_amplification_percent=%s;}" % (
                     f["universal_size_ratio"], f["universal_min_merge_width"],
                     f["universal_max_merge_width"],
                     f["universal_max_size_amplification_percent"]))
    memtable = "striped_hash"
    if memtable_options:
        memtable = "{id=striped_hash;%s}" % memtable_options
    cf = {
        "table_factory": "CuckooHashTable",
        "memtable_factory": memtable,
        # What db_stress would install: its Merge calls expect put semantics.
        "merge_operator": "put_v1" if _b(f["use_full_merge_v1"]) == "true"
                          else "put",
        "write_buffer_size": f["write_buffer_size"],
        "max_write_buffer_number": f["max_write_buffer_number"],
        "min_write_buffer_number_to_merge":
            f["min_write_buffer_number_to_merge"],
        "max_write_buffer_number_to_maintain":
            f["max_write_buffer_number_to_maintain"],
        "max_write_buffer_size_to_maintain":
            f["max_write_buffer_size_to_maintain"],
        "memtable_prefix_bloom_size_ratio":
            f["memtable_prefix_bloom_size_ratio"],
        "memtable_whole_key_filtering": _b(f["memtable_whole_key_filtering"]),
        "disable_auto_compactions": _b(f["disable_auto_compactions"]),
        "compaction_style": _COMPACTION_STYLE[i("compaction_style")],
        "compaction_pri": _COMPACTION_PRI[i("compaction_pri")],
        "num_levels": f["num_levels"],
        "prefix_extractor": ("rocksdb.FixedPrefix.%d" % i("prefix_size")
                             if i("prefix_size") >= 0 else "nullptr"),
        "target_file_size_base": f["target_file_size_base"],
        "target_file_size_multiplier": f["target_file_size_multiplier"],
        "max_bytes_for_level_base": f["max_bytes_for_level_base"],
        "max_bytes_for_level_multiplier": f["max_bytes_for_level_multiplier"],
        "level0_stop_writes_trigger": f["level0_stop_writes_trigger"],
        "level0_slowdown_writes_trigger": f["level0_slowdown_writes_trigger"],
        "level0_file_num_compaction_trigger":
            f["level0_file_num_compaction_trigger"],
        # Our table stores every file uncompressed whatever this says; the
        # random compression_type (xpress, ...) would only fail validation.
        "compression": "kNoCompression",
        "bottommost_compression": "kDisableCompressionOption",
        "inplace_update_support": _b(f["in_place_update"]),
        "periodic_compaction_seconds": f["periodic_compaction_seconds"],
        "ttl": f["compaction_ttl"],
        "compaction_options_universal": universal,
        "level_compaction_dynamic_level_bytes":
            _b(f["level_compaction_dynamic_level_bytes"]),
        "memtable_protection_bytes_per_key":
            f["memtable_protection_bytes_per_key"],
        "experimental_mempurge_threshold":
            f["experimental_mempurge_threshold"],
        "enable_blob_files": _b(f["enable_blob_files"]),
        "min_blob_size": f["min_blob_size"],
        "blob_file_size": f["blob_file_size"],
        "blob_compression_type": _COMPRESSION[f["blob_compression_type"]],
        "enable_blob_garbage_collection":
            _b(f["enable_blob_garbage_collection"]),
        "blob_garbage_collection_age_cutoff":
            f["blob_garbage_collection_age_cutoff"],
        "blob_garbage_collection_force_threshold":
            f["blob_garbage_collection_force_threshold"],
        "blob_compaction_readahead_size": f["blob_compaction_readahead_size"],
        "blob_file_starting_level": f["blob_file_starting_level"],
        "bottommost_temperature": ("kCold" if _b(f["enable_tiered_storage"])
                                   == "true" else "kUnknown"),
        "preclude_last_level_data_seconds":
            f["preclude_last_level_data_seconds"],
        "preserve_internal_time_seconds": f["preserve_internal_time_seconds"],
        "paranoid_file_checks": _b(f["paranoid_file_checks"]),
    }
    lines = ["[Version]", "  rocksdb_version=7.8.3",
             "  options_file_version=1.1", "", "[DBOptions]"]
    lines += [f"  {k}={v}" for k, v in db.items()]
    lines += ["", '[CFOptions "default"]']
    lines += [f"  {k}={v}" for k, v in cf.items()]
    lines += ["", '[TableOptions/CuckooHashTable "default"]']
    lines += ["  " + kv for kv in table_options.split(";") if kv]
    return "\n".join(lines) + "\n"
