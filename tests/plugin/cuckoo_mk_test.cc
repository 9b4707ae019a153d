// The library's sources are listed once, in plugin/cuckoo.mk, which RocksDB's
// in-tree build reads (its Makefile, and its CMakeLists.txt through
// plugin/CMakeLists.txt) and this project's CMakeLists.txt reads as well.
// These tests check that every build sees that list as RocksDB reads it,
// that it names every library source, and that register_rocksdb_cuckoo is the
// registrar.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = CUCKOO_SOURCE_DIR;
const std::string kBinaryDir = CUCKOO_BINARY_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream in(text);
  return std::vector<std::string>(std::istream_iterator<std::string>(in),
                                  std::istream_iterator<std::string>());
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// What RocksDB 7.8.3's CMakeLists.txt takes from a plugin's .mk file: the
// rest of the line after the first "<pattern> = " anywhere in the file.
bool MkValueAsRocksDbReadsIt(const std::string& mk, const std::string& pattern,
                             std::string* value, std::string* whole_line) {
  std::string needle = pattern + " = ";
  size_t pos = mk.find(needle);
  if (pos == std::string::npos) return false;
  size_t end = mk.find('\n', pos);
  *value = mk.substr(pos + needle.size(), end - pos - needle.size());
  size_t begin = mk.rfind('\n', pos);
  begin = begin == std::string::npos ? 0 : begin + 1;
  *whole_line = mk.substr(begin, end - begin);
  return true;
}

struct Result {
  int exit_code = -1;
  std::string output;
};

Result RunCommand(const std::string& command) {
  Result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

class PluginFragmentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mk_ = ReadFile(kSourceDir + "/plugin/cuckoo.mk");
    std::string value, line;
    if (MkValueAsRocksDbReadsIt(mk_, "SOURCES", &value, &line)) {
      lib_sources_ = SplitWords(value);
    }
    char tmpl[] = "/tmp/cuckoo_fragments_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    tmp_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }

  // Runs a scratch CMake project (no compiler needed) whose CMakeLists.txt
  // ends with `body`; returns the KEY=value lines it wrote to vars.txt.
  std::map<std::string, std::string> Configure(const std::string& dir,
                                               const std::string& body,
                                               Result* result) {
    fs::create_directories(dir);
    WriteFile(dir + "/CMakeLists.txt",
              "cmake_minimum_required(VERSION 3.16)\n"
              "project(fragment_check NONE)\n" +
                  body);
    *result =
        RunCommand("cmake -S " + Quote(dir) + " -B " + Quote(dir + "/build"));
    std::map<std::string, std::string> vars;
    std::istringstream in(ReadFile(dir + "/vars.txt"));
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find('=');
      if (eq != std::string::npos)
        vars[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return vars;
  }

  // CMake that writes what a plugin's add_subdirectory left in scope.
  static std::string DumpVars(const std::string& out) {
    std::string s;
    for (const char* v : {"SOURCES", "HEADERS", "FUNC", "LIBS", "INCLUDE_PATHS",
                          "COMPILE_FLAGS"}) {
      s += std::string("file(APPEND \"") + out + "\" \"" + v + "=${cuckoo_" +
           v + "}\\n\")\n";
    }
    return s;
  }

  // Builds a minimal tree that install_in_tree.sh accepts as RocksDB's.
  std::string FakeRocksDb() {
    std::string root = tmp_ + "/rocksdb";
    fs::create_directories(root + "/include/rocksdb");
    fs::create_directories(root + "/plugin");
    WriteFile(root + "/include/rocksdb/db.h", "");
    WriteFile(root + "/Makefile", "");
    WriteFile(root + "/CMakeLists.txt", "");
    return root;
  }

  std::vector<std::string> lib_sources_;
  std::string mk_;
  std::string tmp_;
};

// Our sources sit beside RocksDB's in its tree (plugin/cuckoo/...), and both
// use "dir/file.h" includes: a path both trees have would make an include
// resolve by search order alone.
TEST(PluginPathsTest, NoFileSharesAPathWithRocksDb) {
  const fs::path rocksdb = CUCKOO_ROCKSDB_TREE;
  ASSERT_TRUE(fs::exists(rocksdb / "include/rocksdb/db.h")) << rocksdb;
  size_t checked = 0;
  for (const char* dir : {"table", "memtable", "util", "cache"}) {
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(kSourceDir) / dir)) {
      if (!entry.is_regular_file()) continue;
      const fs::path rel = fs::relative(entry.path(), kSourceDir);
      EXPECT_FALSE(fs::exists(rocksdb / rel))
          << rel << " also exists in RocksDB's tree";
      checked++;
    }
  }
  EXPECT_GT(checked, 50u);
}

TEST_F(PluginFragmentsTest, MkSourcesExistOnceEach) {
  std::string value, line;
  ASSERT_TRUE(MkValueAsRocksDbReadsIt(mk_, "SOURCES", &value, &line));
  // RocksDB's regex takes the first "SOURCES = ": it must be ours.
  EXPECT_EQ(line.rfind("cuckoo_SOURCES = ", 0), 0u) << line;
  ASSERT_FALSE(lib_sources_.empty());
  std::set<std::string> unique(lib_sources_.begin(), lib_sources_.end());
  EXPECT_EQ(unique.size(), lib_sources_.size()) << "duplicate in cuckoo.mk";
  EXPECT_EQ(unique.count("plugin/registration.cc"), 1u);
  for (const auto& src : lib_sources_) {
    EXPECT_TRUE(fs::is_regular_file(kSourceDir + "/" + src)) << src;
    EXPECT_EQ(src.find('$'), std::string::npos)
        << src << ": variables are not allowed in cuckoo_SOURCES";
  }
}

// A source file added to a library folder but not to the list would build
// nowhere and fail to link everywhere; plugin/ holds tools and examples
// beside the registration.
TEST_F(PluginFragmentsTest, MkSourcesNameEveryLibrarySource) {
  const std::set<std::string> listed(lib_sources_.begin(), lib_sources_.end());
  int checked = 0;
  for (const char* folder : {"table", "memtable", "util", "cache"}) {
    for (const auto& entry :
         fs::recursive_directory_iterator(kSourceDir + "/" + folder)) {
      if (entry.path().extension() != ".cc") continue;
      const std::string rel =
          fs::relative(entry.path(), kSourceDir).generic_string();
      EXPECT_EQ(listed.count(rel), 1u) << rel << " is not in cuckoo_SOURCES";
      checked++;
    }
  }
  EXPECT_GT(checked, 30);
}

TEST_F(PluginFragmentsTest, TextParseMatchesWhatCMakeEvaluated) {
  // Written by plugin/tools.cmake at generate time.
  std::string path = kBinaryDir + "/cuckoo_lib_sources.txt";
  if (!fs::exists(path)) GTEST_SKIP() << path << " not generated";
  std::vector<std::string> evaluated;
  for (auto& src : SplitWords(ReadFile(path))) {
    // Sources given relative to the project may come back absolute.
    if (src.rfind(kSourceDir + "/", 0) == 0)
      src.erase(0, kSourceDir.size() + 1);
    evaluated.push_back(src);
  }
  EXPECT_EQ(Sorted(evaluated), Sorted(lib_sources_));
}

TEST_F(PluginFragmentsTest, MkFuncIsTheRegistrar) {
  std::string value, line;
  ASSERT_TRUE(MkValueAsRocksDbReadsIt(mk_, "_FUNC", &value, &line));
  EXPECT_EQ(line, "cuckoo_FUNC = register_rocksdb_cuckoo");
  EXPECT_EQ(value, "register_rocksdb_cuckoo");
  // The symbol RocksDB's generated build_version.cc declares extern "C".
  std::string registration = ReadFile(kSourceDir + "/plugin/registration.cc");
  EXPECT_NE(registration.find("extern \"C\" int register_rocksdb_cuckoo("),
            std::string::npos);
}

TEST_F(PluginFragmentsTest, MkLibsAndHeaders) {
  std::string value, line;
  ASSERT_TRUE(MkValueAsRocksDbReadsIt(mk_, "_LIBS", &value, &line));
  EXPECT_EQ(line.rfind("cuckoo_LIBS = ", 0), 0u) << line;
  ASSERT_TRUE(MkValueAsRocksDbReadsIt(mk_, "HEADERS", &value, &line));
  std::vector<std::string> headers = SplitWords(value);
  EXPECT_FALSE(headers.empty());
  for (const auto& h : headers) {
    EXPECT_TRUE(fs::is_regular_file(kSourceDir + "/" + h)) << h;
  }
}

TEST_F(PluginFragmentsTest, CMakeFragmentDefinesNoTargets) {
  std::string text = ReadFile(kSourceDir + "/plugin/CMakeLists.txt");
  ASSERT_FALSE(text.empty());
  std::istringstream in(text);
  std::string line;
  static const std::regex kTarget(
      R"(^\s*(add_library|add_executable|add_custom_target|add_subdirectory|project)\s*\()");
  while (std::getline(in, line)) {
    EXPECT_FALSE(std::regex_search(line, kTarget)) << line;
  }
  EXPECT_NE(text.find("PARENT_SCOPE"), std::string::npos);
}

// The project's own top-level CMakeLists.txt, added as RocksDB would add
// plugin/cuckoo, hands over the variables and nothing else.
TEST_F(PluginFragmentsTest, CMakeFragmentFromTopLevel) {
  std::string out = tmp_ + "/top/vars.txt";
  Result r;
  auto vars = Configure(tmp_ + "/top",
                        "set(ROCKSDB_PLUGINS cuckoo)\n"
                        "add_subdirectory(\"" +
                            kSourceDir + "\" cuckoo_bin)\n" + DumpVars(out),
                        &r);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> sources;
  for (auto& s :
       SplitWords(std::regex_replace(vars["SOURCES"], std::regex(";"), " "))) {
    sources.push_back(s);
  }
  EXPECT_EQ(Sorted(sources), Sorted(lib_sources_));
  EXPECT_EQ(vars["FUNC"], "register_rocksdb_cuckoo");
  EXPECT_EQ(vars["INCLUDE_PATHS"], kSourceDir);
  EXPECT_NE(vars["COMPILE_FLAGS"].find("-iquote " + kSourceDir),
            std::string::npos)
      << vars["COMPILE_FLAGS"];
  EXPECT_FALSE(vars["LIBS"].empty());
}

// install_in_tree.sh makes <rocksdb>/plugin/cuckoo; RocksDB's way of reading
// it (add_subdirectory, then the .mk by regex) finds every source there.
TEST_F(PluginFragmentsTest, InstallInTreeCopy) {
  std::string rocksdb = FakeRocksDb();
  Result r = RunCommand(Quote(kSourceDir + "/plugin/install_in_tree.sh") + " " +
                        Quote(rocksdb));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("out of date"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("-DROCKSDB_PLUGINS=cuckoo"), std::string::npos);
  std::string dest = rocksdb + "/plugin/cuckoo";
  EXPECT_EQ(ReadFile(dest + "/cuckoo.mk"), mk_);
  EXPECT_EQ(ReadFile(dest + "/CMakeLists.txt"),
            ReadFile(kSourceDir + "/plugin/CMakeLists.txt"));

  // Mimic RocksDB 7.8.3: add_subdirectory(plugin/<name>), sources prefixed
  // with plugin/<name>/, and the .mk read by regex.
  std::string out = rocksdb + "/vars.txt";
  WriteFile(rocksdb + "/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\n"
            "project(fake_rocksdb NONE)\n"
            "set(ROCKSDB_PLUGINS cuckoo)\n"
            "add_subdirectory(plugin/cuckoo)\n" +
                DumpVars(out) +
                "file(READ plugin/cuckoo/cuckoo.mk mk)\n"
                "string(REGEX MATCH \"_FUNC = ([^\\n]*)\" unused \"${mk}\")\n"
                "file(APPEND \"" +
                out + "\" \"MKFUNC=${CMAKE_MATCH_1}\\n\")\n");
  r = RunCommand("cmake -S " + Quote(rocksdb) + " -B " +
                 Quote(rocksdb + "/build"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, std::string> vars;
  {
    std::istringstream in(ReadFile(out));
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find('=');
      if (eq != std::string::npos)
        vars[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  std::vector<std::string> sources =
      SplitWords(std::regex_replace(vars["SOURCES"], std::regex(";"), " "));
  EXPECT_EQ(Sorted(sources), Sorted(lib_sources_));
  for (const auto& src : sources) {
    EXPECT_TRUE(fs::is_regular_file(rocksdb + "/plugin/cuckoo/" + src)) << src;
  }
  EXPECT_EQ(vars["MKFUNC"], "register_rocksdb_cuckoo");
  EXPECT_EQ(vars["INCLUDE_PATHS"], dest);

  // Re-running replaces its own installation, removing a header the project
  // no longer has and the objects whose make dependencies name it (make
  // would stop on the missing header), and no other object.
  {
    std::ofstream(dest + "/.rocksdb_cuckoo_files", std::ios::app)
        << "util/gone.h\n";
    WriteFile(dest + "/util/gone.h", "");
    WriteFile(dest + "/plugin/registration.cc.d",
              "plugin/cuckoo/plugin/registration.o: "
              "plugin/cuckoo/util/gone.h\n");
    WriteFile(dest + "/plugin/registration.o", "object");
    WriteFile(dest + "/util/checksum.cc.d",
              "plugin/cuckoo/util/checksum.o: plugin/cuckoo/util/checksum.h\n");
    WriteFile(dest + "/util/checksum.o", "object");
  }
  r = RunCommand(Quote(kSourceDir + "/plugin/install_in_tree.sh") + " " +
                 Quote(rocksdb));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dest + "/util/gone.h"));
  EXPECT_FALSE(fs::exists(dest + "/plugin/registration.cc.d"));
  EXPECT_FALSE(fs::exists(dest + "/plugin/registration.o"));
  EXPECT_TRUE(fs::exists(dest + "/util/checksum.cc.d"));
  EXPECT_TRUE(fs::exists(dest + "/util/checksum.o"));
  // ...but not a plugin/cuckoo someone else put there.
  fs::remove_all(dest);
  fs::create_directories(dest);
  WriteFile(dest + "/theirs.txt", "x");
  r = RunCommand(Quote(kSourceDir + "/plugin/install_in_tree.sh") + " " +
                 Quote(rocksdb));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dest + "/theirs.txt"));
}

TEST_F(PluginFragmentsTest, InstallInTreeRejectsNonRocksDbDir) {
  fs::create_directories(tmp_ + "/not_rocksdb");
  Result r = RunCommand(Quote(kSourceDir + "/plugin/install_in_tree.sh") + " " +
                        Quote(tmp_ + "/not_rocksdb"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not a RocksDB source tree"), std::string::npos)
      << r.output;
}

}  // namespace
