// Tests for dpn_rt.hpp. Build: g++ -std=c++17 -O2 -Wall -Wextra -Werror -pthread test_rt.cpp
//
//   test_rt [DIR]            all tests (npy files go to DIR, default "."); exit 0 when all pass,
//                            otherwise prints each failed check and exits 1. Fatal cases (exit 3)
//                            run in forked children whose stderr is captured and checked.
//   test_rt deadlock         two processes popping each other's empty FIFO: must exit 3 with
//                            the report (set DPN_TIMEOUT=1 to make it quick)
//   test_rt deadlock-all     one blocked process per kind of wait, for the report format
//   test_rt npy-mismatch DIR loads a <f8 (3, 2) file as <f4 (2, 3): must exit 3
//   test_rt throw            a process throws while its partner is blocked: must exit 3
#include "dpn_rt.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_check.h"

namespace {

#define CHECK_CONTAINS(text, needle)                                                              \
  do {                                                                                            \
    const std::string t_ = (text), n_ = (needle);                                                 \
    if (t_.find(n_) == std::string::npos) {                                                       \
      g_failures.fetch_add(1);                                                                    \
      std::printf("FAILED %s:%d: output lacks \"%s\"; output was:\n%s\n", __FILE__, __LINE__,     \
                  n_.c_str(), t_.c_str());                                                        \
      std::fflush(stdout);                                                                        \
    }                                                                                             \
  } while (0)

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// ---------------------------------------------------------------------------------------------
// Scenarios that end the program (exit 3); used both as command-line modes and in children.

void scenario_deadlock() {
  dpn::Fifo<int> ab("chan_AB", 2), ba("chan_BA", 2);
  dpn::run_processes({
      {"proc_A", [&] { ab.push(ba.pop()); }},
      {"proc_B", [&] { ba.push(ab.pop()); }},
  });
}

void scenario_deadlock_all() {
  dpn::Fifo<int> empty("empty_fifo", 4), full("full_fifo", 1);
  dpn::Scratchpad<float> x("X", 32);
  dpn::Progress store("store_A", 3);
  dpn::run_processes({
      {"C_S0", [&] { empty.pop(); }},
      {"load_B", [&] { full.push(1); full.push(2); }},
      {"S1", [&] { x.read(17); }},
      {"S2", [&] { x.write(3, 1.0f); x.write(3, 2.0f); }},
      {"store_A", [&] { const int64_t k[3] = {0, 1, 4}; store.publish(k); }},
      {"load_A", [&] { const int64_t k[3] = {0, 1, 5}; store.wait_reached(k); }},
      {"busy", [&] { sleep_ms(60000); }},
      {"done", [] {}},
  });
}

void scenario_throw() {
  dpn::Fifo<int> q("never_fed", 4);
  dpn::run_processes({
      {"waiter", [&] { q.pop(); }},
      {"thrower", [] { sleep_ms(20); throw std::runtime_error("boom at 42"); }},
  });
}

void scenario_npy_mismatch(const std::string& dir) {
  const std::string path = dir + "/mismatch.npy";
  dpn::npy_save<double>(path, {3, 2}, {1, 2, 3, 4, 5, 6});
  dpn::npy_load<float>(path, {2, 3});
}

// ---------------------------------------------------------------------------------------------
// Forked children: run `body` with DPN_TIMEOUT=1, capture stderr, return exit status and text.

struct Child {
  int status = -1;  // exit status, or -1 if killed by a signal
  std::string err;
  double ms = 0;
};

Child run_child(const std::function<void()>& body) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 2);
    close(fds[1]);
    setenv("DPN_TIMEOUT", "1", 1);
    alarm(30);  // a broken watchdog must not hang the test
    body();
    std::fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  Child c;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) c.err.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  c.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  c.ms = ms_since(t0);
  return c;
}

// ---------------------------------------------------------------------------------------------
// FIFO

void test_fifo_order_and_blocking() {
  const int64_t n = 1000000;
  dpn::Fifo<int64_t> q("q", 4);
  std::atomic<int64_t> pushed{0};
  std::atomic<int64_t> pushed_at_wake{-1};
  int64_t bad = 0;
  const auto t0 = Clock::now();
  dpn::run_processes({
      {"producer",
       [&] {
         for (int64_t i = 0; i < n; ++i) {
           q.push(3 * i + 1);
           pushed.store(i + 1, std::memory_order_relaxed);
         }
       }},
      {"consumer",
       [&] {
         // The producer fills the FIFO and must then stay blocked while nobody pops.
         const auto t_wait = Clock::now();
         while (pushed.load() < 4 && ms_since(t_wait) < 10000) sleep_ms(1);
         sleep_ms(100);
         pushed_at_wake = pushed.load();
         for (int64_t i = 0; i < n; ++i)
           if (q.pop() != 3 * i + 1) ++bad;
       }},
  });
  const double ms = ms_since(t0);
  CHECK(pushed_at_wake.load() == 4);
  CHECK(bad == 0);
  CHECK(q.peak() == 4);
  CHECK(std::strcmp(q.name(), "q") == 0);
  std::printf("fifo: 10^6 items through capacity 4 in %.1f ms (including a 100 ms pause)\n", ms);
}

void test_fifo_throughput() {
  const int64_t n = 1000000;
  dpn::Fifo<float> q("wide", 1024);
  int64_t bad = 0;
  const auto t0 = Clock::now();
  dpn::run_processes({
      {"producer", [&] { for (int64_t i = 0; i < n; ++i) q.push(static_cast<float>(i & 0xffff)); }},
      {"consumer", [&] { for (int64_t i = 0; i < n; ++i) if (q.pop() != static_cast<float>(i & 0xffff)) ++bad; }},
  });
  CHECK(bad == 0);
  CHECK(q.peak() >= 1 && q.peak() <= 1024);
  std::printf("fifo: 10^6 items through capacity 1024 in %.1f ms, peak %zu\n", ms_since(t0), q.peak());
}

void test_fifo_small_and_odd() {
  // Capacity 1 and a non-power-of-two capacity, on plain threads (no process slot).
  for (size_t cap : {size_t(1), size_t(3)}) {
    dpn::Fifo<int> q("small", cap);
    int bad = 0;
    std::thread prod([&] { for (int i = 0; i < 100000; ++i) q.push(i); });
    for (int i = 0; i < 100000; ++i)
      if (q.pop() != i) ++bad;
    prod.join();
    CHECK(bad == 0);
    CHECK(q.peak() >= 1 && q.peak() <= cap);
  }
  // A non-trivial element type.
  dpn::Fifo<std::string> s("strings", 3);
  int bad = 0;
  std::thread prod([&] { for (int i = 0; i < 10000; ++i) s.push("item " + std::to_string(i)); });
  for (int i = 0; i < 10000; ++i)
    if (s.pop() != "item " + std::to_string(i)) ++bad;
  prod.join();
  CHECK(bad == 0);
  // Single thread: fill to capacity, drain, peak is exact.
  dpn::Fifo<int> q("local", 5);
  for (int i = 0; i < 3; ++i) q.push(i);
  CHECK(q.pop() == 0);
  q.push(3);
  q.push(4);
  CHECK(q.peak() == 4);
  for (int i = 1; i < 5; ++i) CHECK(q.pop() == i);
}

// ---------------------------------------------------------------------------------------------
// Scratchpad

void test_scratchpad_blocking() {
  dpn::Scratchpad<int> sp("sp", 4);
  CHECK(std::strcmp(sp.name(), "sp") == 0);
  // read() waits for write().
  std::atomic<bool> got{false};
  int v = 0;
  std::thread reader([&] { v = sp.read(1); got = true; });
  sleep_ms(50);
  CHECK(!got.load());
  sp.write(1, 7);
  reader.join();
  CHECK(got.load() && v == 7);
  // write() waits for release(); reading does not release.
  std::atomic<bool> wrote{false};
  std::thread writer([&] { sp.write(1, 8); wrote = true; });
  sleep_ms(50);
  CHECK(!wrote.load());
  CHECK(sp.read(1) == 7);
  CHECK(sp.read(1) == 7);
  sleep_ms(20);
  CHECK(!wrote.load());
  sp.release(1);
  writer.join();
  CHECK(wrote.load());
  CHECK(sp.read(1) == 8);
  sp.release(1);
  // peak counts simultaneously valid cells.
  dpn::Scratchpad<int> p("p", 8);
  p.write(0, 1);
  p.write(1, 2);
  p.write(2, 3);
  CHECK(p.peak() == 3);
  p.release(1);
  p.write(1, 4);
  CHECK(p.peak() == 3);
  p.write(3, 5);
  CHECK(p.peak() == 4);
}

void test_scratchpad_stream() {
  const int rounds = 20000, cells = 8;
  dpn::Scratchpad<double> x("X", cells);
  int64_t bad = 0;
  dpn::run_processes({
      {"writer",
       [&] {
         for (int r = 0; r < rounds; ++r)
           for (int a = 0; a < cells; ++a) x.write(static_cast<size_t>(a), r * cells + a + 0.5);
       }},
      {"reader",
       [&] {
         // Reverse order: the reader waits for the last cell while the writer waits for the
         // first one to be released in the next round.
         for (int r = 0; r < rounds; ++r)
           for (int a = cells - 1; a >= 0; --a) {
             const double want = r * cells + a + 0.5;
             if (x.read(static_cast<size_t>(a)) != want) ++bad;
             if (x.read(static_cast<size_t>(a)) != want) ++bad;
             x.release(static_cast<size_t>(a));
           }
       }},
  });
  CHECK(bad == 0);
  CHECK(x.peak() >= 1 && x.peak() <= static_cast<size_t>(cells));
}

// ---------------------------------------------------------------------------------------------
// Progress

void test_progress_blocking() {
  dpn::Progress p("store_A", 3);
  std::atomic<bool> reached{false};
  std::thread waiter([&] {
    const int64_t k[3] = {0, 1, 5};
    p.wait_reached(k);
    reached = true;
  });
  const int64_t k1[3] = {0, 0, 9}, k2[3] = {0, 1, 4}, k3[3] = {0, 1, 5}, k4[3] = {2, -5, 0};
  sleep_ms(30);
  CHECK(!reached.load());
  p.publish(k1);
  sleep_ms(30);
  CHECK(!reached.load());
  p.publish(k2);
  p.publish(k2);  // equal keys are allowed
  sleep_ms(30);
  CHECK(!reached.load());
  p.publish(k3);
  waiter.join();
  CHECK(reached.load());
  p.wait_reached(k2);  // already passed: returns at once
  p.wait_reached(k3);
  p.publish(k4);
  const int64_t k5[3] = {1, 100, 100};
  p.wait_reached(k5);
  std::vector<int64_t> at;
  CHECK(p.snapshot(at) && at == std::vector<int64_t>({2, -5, 0}));

  // finish() releases every waiter.
  dpn::Progress q("q", 1);
  CHECK(!q.snapshot(at));
  std::atomic<bool> released{false};
  std::thread w2([&] {
    const int64_t k[1] = {1000};
    q.wait_reached(k);
    released = true;
  });
  sleep_ms(30);
  CHECK(!released.load());
  q.finish();
  w2.join();
  CHECK(released.load());
}

void test_progress_orders_memory() {
  // The publisher fills data[i] (plain memory) before publishing i; the waiter reads data[j]
  // after waiting for j. Any missing acquire/release would show as a wrong value (and under
  // ThreadSanitizer as a race).
  const int64_t n = 200000;
  std::vector<int64_t> data(static_cast<size_t>(n), -1);
  dpn::Progress p("writer", 2);
  int64_t bad = 0;
  dpn::run_processes({
      {"writer",
       [&] {
         for (int64_t i = 0; i < n; ++i) {
           data[static_cast<size_t>(i)] = 7 * i;
           const int64_t k[2] = {i / 1000, i % 1000};
           p.publish(k);
         }
         p.finish();
       }},
      {"reader",
       [&] {
         for (int64_t j = 0; j < n; j += 37) {
           const int64_t k[2] = {j / 1000, j % 1000};
           p.wait_reached(k);
           if (data[static_cast<size_t>(j)] != 7 * j) ++bad;
         }
       }},
  });
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------------------------
// npy

std::string read_file(const std::string& path) {
  std::string s;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::printf("cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

// A .npy file with the given header dictionary, format major version and raw data.
std::string npy_bytes(const std::string& dict, int major, const std::string& data) {
  const size_t pre = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((pre + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  const size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
void roundtrip(const std::string& dir, const std::string& tag, const std::vector<size_t>& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<int>(i * 37 % 251) - 125) / static_cast<T>(2);
  const std::string path = dir + "/rt_" + tag + "_" + std::to_string(shape.size()) + "d.npy";
  dpn::npy_save(path, shape, v);
  const std::vector<T> back = dpn::npy_load<T>(path, shape);
  CHECK(back.size() == n);
  CHECK(n == 0 || std::memcmp(back.data(), v.data(), n * sizeof(T)) == 0);
  const std::string bytes = read_file(path);
  CHECK(bytes.size() >= 10 && (bytes.size() - n * sizeof(T)) % 64 == 0);
}

template <class T>
void roundtrip_all(const std::string& dir, const std::string& tag) {
  roundtrip<T>(dir, tag, {});
  roundtrip<T>(dir, tag, {7});
  roundtrip<T>(dir, tag, {2, 3, 4});
  roundtrip<T>(dir, tag, {0, 3});
}

void test_npy(const std::string& dir) {
  roundtrip_all<float>(dir, "f4");
  roundtrip_all<double>(dir, "f8");
  roundtrip_all<int32_t>(dir, "i4");
  roundtrip_all<int64_t>(dir, "i8");
  roundtrip_all<int8_t>(dir, "i1");
  roundtrip_all<char>(dir, "c");

  // Byte-exact header, as numpy.save and dpnc's Rust writer produce it.
  const std::string path = dir + "/exact.npy";
  dpn::npy_save<float>(path, {2, 3}, {0, 1, 2, 3, 4, 5});
  const std::string bytes = read_file(path);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expect = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict;
  expect.resize(127, ' ');
  expect += '\n';
  CHECK(bytes.size() == 128 + 24);
  CHECK(bytes.compare(0, 128, expect) == 0);
  // 0-d and 1-d shape spelling.
  dpn::npy_save<double>(dir + "/scalar.npy", {}, {2.5});
  CHECK(read_file(dir + "/scalar.npy").find("'shape': (), }") != std::string::npos);
  dpn::npy_save<int32_t>(dir + "/vec.npy", {3}, {1, 2, 3});
  CHECK(read_file(dir + "/vec.npy").find("'shape': (3,), }") != std::string::npos);

  // Foreign headers: version 2.0, other key order, double quotes, odd spacing, no trailing comma.
  const std::vector<int32_t> i4 = {5, -6, 7, -8};
  write_file(dir + "/v2.npy", npy_bytes("{\"shape\":(4,),\"fortran_order\" : False,  \"descr\":\"<i4\"}", 2, raw(i4)));
  CHECK(dpn::npy_load<int32_t>(dir + "/v2.npy", {4}) == i4);
  const std::vector<double> f8 = {3.25};
  write_file(dir + "/v1_0d.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': ()}", 1, raw(f8)));
  CHECK(dpn::npy_load<double>(dir + "/v1_0d.npy", {}) == f8);
  const std::vector<int8_t> i1 = {1, -2, 3, -4, 5, -6};
  write_file(dir + "/i1.npy", npy_bytes("{'descr': '<i1', 'fortran_order': False, 'shape': (2,3), }", 1, raw(i1)));
  CHECK(dpn::npy_load<int8_t>(dir + "/i1.npy", {2, 3}) == i1);
  const std::vector<int64_t> i8 = {1, 2};
  write_file(dir + "/long.npy", npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1L, 2L), }", 1, raw(i8)));
  CHECK(dpn::npy_load<int64_t>(dir + "/long.npy", {1, 2}) == i8);
}

// ---------------------------------------------------------------------------------------------
// Fatal paths, each in a child.

void check_fatal(const char* what, const std::function<void()>& body, const std::vector<std::string>& needles) {
  const Child c = run_child(body);
  if (c.status != 3) {
    g_failures.fetch_add(1);
    std::printf("FAILED %s: exit status %d, expected 3; stderr:\n%s\n", what, c.status, c.err.c_str());
  }
  CHECK_CONTAINS(c.err, "dpn: error: ");
  for (const auto& n : needles) CHECK_CONTAINS(c.err, n);
}

void test_fatal(const std::string& dir) {
  check_fatal("fail", [] { dpn::fail("custom message"); }, {"dpn: error: custom message\n"});

  {
    const Child c = run_child(scenario_deadlock);
    CHECK(c.status == 3);
    CHECK(c.ms >= 900 && c.ms < 10000);
    CHECK_CONTAINS(c.err, "dpn: error: deadlock: no progress for 1 s\n");
    CHECK_CONTAINS(c.err, "  proc_A waits to pop FIFO chan_BA (empty, capacity 2)\n");
    CHECK_CONTAINS(c.err, "  proc_B waits to pop FIFO chan_AB (empty, capacity 2)\n");
  }
  {
    const Child c = run_child(scenario_deadlock_all);
    CHECK(c.status == 3);
    CHECK_CONTAINS(c.err, "dpn: error: deadlock: no progress for 1 s\n");
    CHECK_CONTAINS(c.err, "\n  C_S0 waits to pop FIFO empty_fifo (empty, capacity 4)\n");
    CHECK_CONTAINS(c.err, "\n  load_B waits to push FIFO full_fifo (full, capacity 1)\n");
    CHECK_CONTAINS(c.err, "\n  S1 waits to read scratchpad X cell 17 (empty)\n");
    CHECK_CONTAINS(c.err, "\n  S2 waits to write scratchpad X cell 3 (full)\n");
    CHECK_CONTAINS(c.err, "\n  load_A waits for store_A to reach (0, 1, 5); store_A is at (0, 1, 4)\n");
    CHECK_CONTAINS(c.err, "\n  busy is running (not blocked on a channel)\n");
    CHECK(c.err.find("  done") == std::string::npos);     // finished processes are not listed
    CHECK(c.err.find("  store_A ") == std::string::npos);
  }
  {
    const Child c = run_child([] {
      setenv("DPN_TIMEOUT", "60", 1);  // the failure must be reported at once, not by the watchdog
      scenario_throw();
    });
    CHECK(c.status == 3);
    CHECK(c.ms < 30000);
    CHECK(c.err.find("deadlock") == std::string::npos);
    CHECK_CONTAINS(c.err, "dpn: error: process thrower failed: boom at 42\n");
  }
  check_fatal("npy mismatch", [&] { scenario_npy_mismatch(dir); },
              {dir + "/mismatch.npy: expected <f4 array of shape (2, 3), file holds <f8 array of shape (3, 2)"});
  check_fatal("npy shape mismatch", [&] {
    dpn::npy_save<int32_t>(dir + "/shape.npy", {4}, {1, 2, 3, 4});
    dpn::npy_load<int32_t>(dir + "/shape.npy", {2, 2});
  }, {"shape.npy: expected <i4 array of shape (2, 2), file holds <i4 array of shape (4,)"});
  check_fatal("npy 0-d mismatch", [&] {
    dpn::npy_save<float>(dir + "/zero.npy", {}, {1});
    dpn::npy_load<float>(dir + "/zero.npy", {1});
  }, {"expected <f4 array of shape (1,), file holds <f4 array of shape ()"});
  check_fatal("npy missing", [&] { dpn::npy_load<float>(dir + "/nonexistent.npy", {1}); },
              {"cannot open " + dir + "/nonexistent.npy"});
  check_fatal("npy truncated", [&] {
    write_file(dir + "/trunc.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 1, "abcd"));
    dpn::npy_load<float>(dir + "/trunc.npy", {4});
  }, {"trunc.npy: truncated data"});
  check_fatal("npy trailing", [&] {
    write_file(dir + "/trail.npy", npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", 1, "abc"));
    dpn::npy_load<char>(dir + "/trail.npy", {2});
  }, {"trail.npy: unexpected bytes after the data"});
  check_fatal("npy fortran", [&] {
    write_file(dir + "/fortran.npy", npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", 1, "abcd"));
    dpn::npy_load<float>(dir + "/fortran.npy", {1});
  }, {"fortran.npy: Fortran-order arrays are not supported"});
  check_fatal("npy bad header", [&] {
    write_file(dir + "/badhdr.npy", npy_bytes("{'descr': '<f4', 'shape': (1,), }", 1, "abcd"));
    dpn::npy_load<float>(dir + "/badhdr.npy", {1});
  }, {"badhdr.npy: malformed .npy header: no 'fortran_order'"});
  check_fatal("npy bad magic", [&] {
    write_file(dir + "/magic.npy", "not an npy file at all");
    dpn::npy_load<float>(dir + "/magic.npy", {1});
  }, {"magic.npy: not a .npy file"});
  check_fatal("npy save size", [&] { dpn::npy_save<float>(dir + "/size.npy", {2, 2}, {1, 2, 3}); },
              {"size.npy: shape (2, 2) does not match the 3 elements to save"});

  check_fatal("fifo capacity 0", [] { dpn::Fifo<int> q("zero", 0); }, {"FIFO zero: capacity must be at least 1"});
  check_fatal("scratchpad range", [] {
    dpn::Scratchpad<int> s("S", 4);
    s.write(4, 1);
  }, {"scratchpad S: write of cell 4 outside 0..3"});
  check_fatal("scratchpad double release", [] {
    dpn::Scratchpad<int> s("S", 4);
    s.write(2, 1);
    s.release(2);
    s.release(2);
  }, {"scratchpad S: release of cell 2, which holds no value"});
  check_fatal("progress backwards", [] {
    dpn::Progress p("P", 2);
    const int64_t a[2] = {1, 5}, b[2] = {1, 4};
    p.publish(a);
    p.publish(b);
  }, {"progress P: published (1, 4) after (1, 5)"});
  check_fatal("bad DPN_TIMEOUT", [] {
    setenv("DPN_TIMEOUT", "soon", 1);
    dpn::run_processes({{"p", [] {}}});
  }, {"DPN_TIMEOUT must be a number of seconds"});

  // DPN_TIMEOUT=0 disables the watchdog: a 1.5 s silent process is not a deadlock.
  const Child quiet = run_child([] {
    setenv("DPN_TIMEOUT", "0", 1);
    dpn::run_processes({{"slow", [] { sleep_ms(1500); }}});
  });
  CHECK(quiet.status == 0);
  CHECK(quiet.err.empty());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "deadlock") {
    scenario_deadlock();
    return 0;  // unreachable when the runtime works
  }
  if (mode == "deadlock-all") {
    scenario_deadlock_all();
    return 0;
  }
  if (mode == "throw") {
    scenario_throw();
    return 0;
  }
  if (mode == "npy-mismatch") {
    scenario_npy_mismatch(argc > 2 ? argv[2] : ".");
    return 0;
  }
  const std::string dir = mode.empty() ? "." : mode;

  // Fatal cases first, while this process has a single thread (forking is simplest then).
  test_fatal(dir);
  test_fifo_order_and_blocking();
  test_fifo_throughput();
  test_fifo_small_and_odd();
  test_scratchpad_blocking();
  test_scratchpad_stream();
  test_progress_blocking();
  test_progress_orders_memory();
  test_npy(dir);

  if (g_failures.load() != 0) {
    std::printf("%d runtime check(s) failed\n", g_failures.load());
    return 1;
  }
  std::printf("all runtime tests passed\n");
  return 0;
}
