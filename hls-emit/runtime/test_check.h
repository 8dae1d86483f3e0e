// test_check.h: the CHECK macro the runtime test programs share (counts failures, keeps going).
#pragma once

#include <atomic>
#include <cstdio>

inline std::atomic<int> g_failures{0};

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      g_failures.fetch_add(1);                                      \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::fflush(stdout);                                          \
    }                                                               \
  } while (0)
