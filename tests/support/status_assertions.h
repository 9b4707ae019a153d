// gtest assertions on rocksdb::Status that print the status on failure.
#pragma once

#include <gtest/gtest.h>

#define ASSERT_OK(expr)                              \
  do {                                               \
    const auto _status = (expr);                     \
    ASSERT_TRUE(_status.ok()) << _status.ToString(); \
  } while (0)

#define EXPECT_OK(expr)                              \
  do {                                               \
    const auto _status = (expr);                     \
    EXPECT_TRUE(_status.ok()) << _status.ToString(); \
  } while (0)
