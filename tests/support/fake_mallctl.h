// A stand-in for jemalloc's mallctl, for testing the code that reads
// jemalloc's controls without jemalloc, and its failures: it answers from a
// table of controls, fails on demand, and records every call. The newest
// one alive answers (a JemallocApi holds a plain function pointer).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cache/jemalloc_runtime.h"

namespace rocksdb_cuckoo::testing {

class FakeMallctl {
 public:
  struct Call {
    std::string name;
    size_t old_size = 0;  // *oldlenp on entry; 0 without one
    bool writes = false;  // a new value was given
    size_t new_size = 0;
  };

  FakeMallctl() : previous_(current_) { current_ = this; }
  ~FakeMallctl() { current_ = previous_; }
  FakeMallctl(const FakeMallctl&) = delete;
  FakeMallctl& operator=(const FakeMallctl&) = delete;

  // A control's value; a read copies as many bytes as the caller asks for.
  void Set(const std::string& name, uint64_t value) { values_[name] = value; }
  // mallctl returns `error` for this control.
  void Fail(const std::string& name, int error) { errors_[name] = error; }
  // Reads succeed but set *oldlenp to `size`, as a control of that width
  // would (0: the caller's size stays).
  void ReportSize(size_t size) { reported_size_ = size; }

  // Only mallctl is set: the code under test must call nothing else.
  JemallocApi Api() const {
    JemallocApi api{};
    api.mallctl = &FakeMallctl::Mallctl;
    return api;
  }
  const std::vector<Call>& calls() const { return calls_; }
  size_t CallsTo(const std::string& name) const {
    return static_cast<size_t>(
        std::count_if(calls_.begin(), calls_.end(),
                      [&](const Call& c) { return c.name == name; }));
  }

 private:
  // Reads of controls not Set fail with ENOENT, as jemalloc's do; calls
  // that read nothing (writes, actions) succeed.
  static int Mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp,
                     size_t newlen) {
    FakeMallctl* self = current_;
    self->calls_.push_back(
        {name, oldlenp != nullptr ? *oldlenp : 0, newp != nullptr, newlen});
    auto error = self->errors_.find(name);
    if (error != self->errors_.end()) return error->second;
    if (oldp == nullptr || oldlenp == nullptr) return 0;
    auto value = self->values_.find(name);
    if (value == self->values_.end()) return ENOENT;
    memcpy(oldp, &value->second, std::min(*oldlenp, sizeof(uint64_t)));
    if (self->reported_size_ != 0) *oldlenp = self->reported_size_;
    return 0;
  }

  static inline FakeMallctl* current_ = nullptr;
  FakeMallctl* const previous_;
  std::map<std::string, uint64_t> values_;
  std::map<std::string, int> errors_;
  size_t reported_size_ = 0;
  std::vector<Call> calls_;
};

}  // namespace rocksdb_cuckoo::testing
