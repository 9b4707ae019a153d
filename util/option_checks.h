// How this plugin's configurable objects check their options, the same way
// everywhere: each option is declared once, in its OptionTypeInfo, together
// with the check of its value; an unknown option name is an invalid
// argument; and a key-hashing structure refuses comparators under which
// different bytes may compare equal.
#pragma once

#include <string>
#include <unordered_map>

#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/options_type.h"

namespace rocksdb_cuckoo {

// What an option's value must satisfy: OK, or InvalidArgument naming the
// option (`name`) and what it accepts.
template <typename T>
using ValueCheck = ROCKSDB_NAMESPACE::Status (*)(const std::string& name,
                                                 const T& value);

// `info` with `check` run on the option's value whenever RocksDB prepares
// the object's options (CreateFromString, NewJemallocArenaAllocator) and
// when a DB validates them, so a value set in C++ is checked before use.
template <typename T>
ROCKSDB_NAMESPACE::OptionTypeInfo Checked(
    ROCKSDB_NAMESPACE::OptionTypeInfo info, ValueCheck<T> check) {
  info.SetPrepareFunc([check](const ROCKSDB_NAMESPACE::ConfigOptions&,
                              const std::string& name, void* addr) {
    return check(name, *static_cast<const T*>(addr));
  });
  info.SetValidateFunc([check](const ROCKSDB_NAMESPACE::DBOptions&,
                               const ROCKSDB_NAMESPACE::ColumnFamilyOptions&,
                               const std::string& name, const void* addr) {
    return check(name, *static_cast<const T*>(addr));
  });
  return info;
}

// A numeric option at `offset`, parsed as RocksDB parses its type and then
// checked, so an options string or OPTIONS file with a value out of range
// fails where it is parsed (even nested in column family options, which
// RocksDB does not prepare); and checked as above.
template <typename T>
ROCKSDB_NAMESPACE::OptionTypeInfo CheckedOption(
    size_t offset, ROCKSDB_NAMESPACE::OptionType type, ValueCheck<T> check) {
  const ROCKSDB_NAMESPACE::OptionTypeInfo at_zero(0, type);
  return Checked(
      ROCKSDB_NAMESPACE::OptionTypeInfo(
          static_cast<int>(offset), type,
          ROCKSDB_NAMESPACE::OptionVerificationType::kNormal,
          ROCKSDB_NAMESPACE::OptionTypeFlags::kNone,
          [at_zero, check](const ROCKSDB_NAMESPACE::ConfigOptions& config,
                           const std::string& name, const std::string& value,
                           void* addr) {
            T parsed{};
            ROCKSDB_NAMESPACE::Status s =
                at_zero.Parse(config, name, value, &parsed);
            if (s.ok()) s = check(name, parsed);
            if (s.ok()) *static_cast<T*>(addr) = parsed;
            return s;
          }),
      check);
}

// RocksDB reports an unknown option name as NotFound; to a user who typed
// the name it is an invalid argument (the message keeps the name).
inline ROCKSDB_NAMESPACE::Status UnknownOptionIsInvalidArgument(
    const char* owner, const ROCKSDB_NAMESPACE::Status& s) {
  return s.IsNotFound()
             ? ROCKSDB_NAMESPACE::Status::InvalidArgument(owner, s.getState())
             : s;
}

// Base (a Configurable), answering an unknown option name with
// InvalidArgument. (A class declared in a public header cannot derive from
// this internal one; it overrides ConfigureOptions with the function above.)
template <typename Base>
class RefusesUnknownOptions : public Base {
 public:
  using Base::Base;

 protected:
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& options_map,
      std::unordered_map<std::string, std::string>* unused) override {
    return UnknownOptionIsInvalidArgument(
        this->Name(),
        Base::ConfigureOptions(config_options, options_map, unused));
  }
};

// NotSupported unless equal keys have equal bytes under `comparator` and
// keys carry no timestamp: `owner` hashes key bytes.
ROCKSDB_NAMESPACE::Status CheckKeysCompareByBytes(
    const char* owner, const ROCKSDB_NAMESPACE::Comparator* comparator);

// OK when `value` is in [min, max]; otherwise InvalidArgument
// "<owner>: <name> must be in [<min>, <max>], got <value>".
template <typename T>
ROCKSDB_NAMESPACE::Status CheckInRange(const std::string& owner,
                                       const std::string& name, T value, T min,
                                       T max) {
  if (value >= min && value <= max) return ROCKSDB_NAMESPACE::Status::OK();
  return ROCKSDB_NAMESPACE::Status::InvalidArgument(
      owner + ": " + name + " must be in [" + std::to_string(min) + ", " +
      std::to_string(max) + "], got " + std::to_string(value));
}

}  // namespace rocksdb_cuckoo
