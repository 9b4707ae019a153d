#!/usr/bin/env python3
"""Lets RocksDB's own unit tests run with our parts: patches a RocksDB source
tree built for its tests (DEBUG_LEVEL=1), never a release tree.

  patch_test_tree.py <rocksdb-source-dir>

db/db_test_util.cc: DBTestBase::GetOptions, where it installs
BlockBasedTable and keeps the default memtable, takes instead the factories
that ROCKSDB_CUCKOO_TEST_TABLE and ROCKSDB_CUCKOO_TEST_MEMTABLE name (options
strings, through ObjectRegistry with strict ConfigOptions: a name nobody
registered aborts the test rather than silently running BlockBasedTable).
The option configurations about BlockBasedTable, its filters, PlainTable or
a named memtable keep theirs. Each process says once on stderr which factory
it substituted, so a run can show that ours was used.

env/env_test.cc: its thread-pool contract tests (EnvPosixTestWithParam) run
only with Env::Default() and a ChrootEnv; a third instantiation, TestEnvUri,
runs them with the Env TEST_ENV_URI names (none when it is unset).

Idempotent: each inserted block lies between begin and end marker lines; a
second run replaces it, so a tree patched by an older version of this script
gets the current blocks.
"""
import os
import re
import sys

MARKER = "rocksdb-cuckoo test substitution"

# DBTestBase option configurations that are about RocksDB's own table or
# memtable: substituting ours there would test nothing they mean to test.
KEEP_TABLE_PREFIXES = ("kBlockBasedTable", "kPlainTable")
KEEP_TABLE = {"kFilter", "kFullFilterWithNewTableReaderForCompactions",
              "kPartitionedFilterWithNewTableReaderForCompactions",
              "kOptimizeFiltersForHits", "kCRC32cChecksum"}
KEEP_MEMTABLE = {"kConcurrentSkipList"}  # and every kPlainTable* (prefix hash)

DB_TEST_UTIL_HOOK = r"""
  // {marker} begin: the table and memtable of ROCKSDB_CUCKOO_TEST_TABLE and
  // ROCKSDB_CUCKOO_TEST_MEMTABLE, except in the configurations above.
  {{
    ConfigOptions strict;
    strict.ignore_unknown_options = false;
    strict.ignore_unsupported_options = false;
    const char* table_spec = getenv("ROCKSDB_CUCKOO_TEST_TABLE");
    bool keep_table = !set_block_based_table_factory{keep_table};
    if (table_spec != nullptr && !keep_table) {{
      std::shared_ptr<TableFactory> table;
      Status s = TableFactory::CreateFromString(strict, table_spec, &table);
      if (!s.ok() || table == nullptr) {{
        fprintf(stderr, "ROCKSDB_CUCKOO_TEST_TABLE=%s: %s\n", table_spec,
                s.ToString().c_str());
        abort();
      }}
      options.table_factory = table;
      static bool said = false;
      if (!said) {{
        said = true;
        fprintf(stderr, "rocksdb-cuckoo: table_factory %s\n", table->Name());
      }}
    }}
    const char* memtable_spec = getenv("ROCKSDB_CUCKOO_TEST_MEMTABLE");
    bool keep_memtable =
        options.memtable_factory == nullptr ||
        std::string(options.memtable_factory->Name()) != "SkipListFactory"{keep_memtable};
    if (memtable_spec != nullptr && !keep_memtable) {{
      std::shared_ptr<MemTableRepFactory> memtable;
      Status s =
          MemTableRepFactory::CreateFromString(strict, memtable_spec, &memtable);
      if (!s.ok() || memtable == nullptr) {{
        fprintf(stderr, "ROCKSDB_CUCKOO_TEST_MEMTABLE=%s: %s\n", memtable_spec,
                s.ToString().c_str());
        abort();
      }}
      options.memtable_factory = memtable;
      static bool said = false;
      if (!said) {{
        said = true;
        fprintf(stderr, "rocksdb-cuckoo: memtable_factory %s\n",
                memtable->Name());
      }}
    }}
  }}
  // {marker} end
"""

ENV_TEST_HOOK = r"""
// {marker} begin: the thread-pool contract tests with the Env of
// TEST_ENV_URI. gtest evaluates an instantiation's generator once per TEST_P,
// so the Env is created on the first call and shared by every later one.
namespace {{
Env* TestEnvUriEnv() {{
  static std::shared_ptr<Env> guard;
  static Env* env = [] {{
    Env* created = nullptr;
    const char* uri = getenv("TEST_ENV_URI");
    if (uri == nullptr) return created;
    ConfigOptions strict;
    strict.ignore_unknown_options = false;
    strict.ignore_unsupported_options = false;
    Status s = Env::CreateFromUri(strict, uri, "", &created, &guard);
    if (!s.ok() || created == nullptr) {{
      fprintf(stderr, "TEST_ENV_URI=%s: %s\n", uri, s.ToString().c_str());
      abort();
    }}
    fprintf(stderr, "rocksdb-cuckoo: env %s\n", created->Name());
    return created;
  }}();
  return env;
}}

std::vector<std::pair<Env*, bool>> TestEnvUriEnvs() {{
  std::vector<std::pair<Env*, bool>> envs;
  if (TestEnvUriEnv() != nullptr) envs.emplace_back(TestEnvUriEnv(), false);
  return envs;
}}
}}  // namespace
INSTANTIATE_TEST_CASE_P(TestEnvUri, EnvPosixTestWithParam,
                        ::testing::ValuesIn(TestEnvUriEnvs()));
// {marker} end
"""


def config_names(tree):
    text = open(os.path.join(tree, "db", "db_test_util.h")).read()
    body = re.search(r"enum OptionConfig : int \{(.*?)\};", text, re.S).group(1)
    return re.findall(r"^\s*(k\w+)", body, re.M)


def condition(names):
    return "".join("\n        || option_config == %s" % n for n in names)


def without_block(text):
    """The text with an earlier version of our block taken out."""
    begin = text.find("// %s begin" % MARKER)
    if begin < 0:
        if MARKER in text:
            raise SystemExit("patch_test_tree: a block from a version without "
                             "end markers; restore the file from RocksDB's "
                             "sources")
        return text
    begin = text.rfind("\n", 0, begin) + 1
    end_line = "// %s end\n" % MARKER
    end = text.find(end_line, begin)
    if end < 0:
        raise SystemExit("patch_test_tree: a block without its end marker; "
                         "restore the file from RocksDB's sources")
    return text[:begin] + text[end + len(end_line):]


def splice(path, find_anchor, block):
    """Inserts block at find_anchor(text); True when the file changed."""
    original = open(path).read()
    text = without_block(original)
    anchor = find_anchor(text)
    if anchor is None:
        raise SystemExit("patch_test_tree: no anchor found in " + path)
    text = text[:anchor] + block + text[anchor:]
    if text == original:
        return False
    open(path, "w").write(text)
    return True


def patch_db_test_util(tree):
    names = config_names(tree)
    keep_table = [n for n in names
                  if n.startswith(KEEP_TABLE_PREFIXES) or n in KEEP_TABLE]
    keep_memtable = [n for n in names
                     if n.startswith("kPlainTable") or n in KEEP_MEMTABLE]

    def after_block_based_installation(text):
        found = re.search(
            r"  if \(set_block_based_table_factory\) \{\n"
            r"    options\.table_factory\.reset\(NewBlockBasedTableFactory\("
            r"table_options\)\);\n  \}\n", text)
        return found.end() if found else None

    hook = DB_TEST_UTIL_HOOK.format(marker=MARKER,
                                    keep_table=condition(keep_table),
                                    keep_memtable=condition(keep_memtable))
    return splice(os.path.join(tree, "db", "db_test_util.cc"),
                  after_block_based_installation, hook.lstrip("\n"))


def patch_env_test(tree):
    def before_namespace_end(text):
        anchor = text.rfind("}  // namespace ROCKSDB_NAMESPACE")
        return anchor if anchor >= 0 else None

    hook = ENV_TEST_HOOK.format(marker=MARKER).lstrip("\n")
    return splice(os.path.join(tree, "env", "env_test.cc"),
                  before_namespace_end, hook)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    tree = sys.argv[1]
    for name, patch in (("db/db_test_util.cc", patch_db_test_util),
                        ("env/env_test.cc", patch_env_test)):
        print("patch_test_tree: %s %s" % (
            name, "patched" if patch(tree) else "already current"))


if __name__ == "__main__":
    main()
