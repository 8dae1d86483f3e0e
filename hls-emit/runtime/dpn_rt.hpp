// dpn_rt.hpp: runtime for the CPU backend of dpnc (header-only, C++17).
//
// A generated program is a data-aware process network: every process runs on its own thread
// (run_processes) and processes talk through
//   * Fifo<T>        bounded single-producer/single-consumer queues,
//   * Scratchpad<T>  addressed buffers with one valid bit per cell,
//   * Progress       a process's position in the global schedule, for ordering through memory.
// All blocking operations spin briefly, then yield, then nap; none takes a lock. A watchdog in
// run_processes turns a deadlock (a channel sized too small, a codegen bug) into a readable
// report and exit status 3 instead of a silent hang.
//
// Rules for generated code:
//   * each Fifo has exactly one pushing and one popping thread; each Scratchpad exactly one
//     writing thread and one reading/releasing thread; each Progress one publishing thread;
//   * channel objects must outlive run_processes (declare them outside the process bodies):
//     the watchdog reads their names when it reports;
//   * names passed to constructors are copied; element types must be default-constructible
//     and copy-assignable (buffers are allocated up front);
//   * the watchdog measures channel operations, not work: a process that computes for longer
//     than DPN_TIMEOUT (default 10 s) without touching a channel while the others wait looks
//     like a deadlock; raise DPN_TIMEOUT or set it to 0 for such kernels.
#pragma once

#include "dpn_math.h"  // dpnc's exp/pow, as every backend computes them

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "dpn_rt.hpp assumes a little-endian host (npy files are read and written without swapping)"
#endif

namespace dpn {

// Fatal runtime error. Exits with _Exit rather than exit: other process threads may still be
// running (or blocked forever), and running static destructors under them would be unsafe.
[[noreturn]] inline void fail(const std::string& msg) {
  // Never unlocked: a second thread failing at the same time waits here until the process dies,
  // so reports never interleave.
  static std::mutex once;
  once.lock();
  std::fflush(stdout);
  std::fprintf(stderr, "dpn: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

namespace detail {

constexpr size_t kLine = 64;  // cache line; producer and consumer state live on separate lines

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

#ifndef DPN_SPIN_ITERS
#define DPN_SPIN_ITERS 64  // busy-wait rounds before yielding; raise on dedicated cores
#endif

// Waiting policy: a short spin catches the common case of a partner a few hundred cycles
// behind; yielding lets other processes run when there are more threads than cores; after a
// few thousand rounds (about a millisecond) the wait is long and napping frees the core.
class Backoff {
  static constexpr unsigned kSpin = DPN_SPIN_ITERS;

 public:
  void pause() {
    if (n_ < kSpin) {
      cpu_relax();
    } else if (n_ < kSpin + 4000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      return;
    }
    ++n_;
  }

 private:
  unsigned n_ = 0;
};

enum class WaitKind : int { None = 0, Push, Pop, Read, Write, Reach };

// Per-process state shared with the watchdog. Only the owning thread writes it (the watchdog
// only reads), so the operation counter needs no read-modify-write and no shared cache line:
// this is the "something happened" signal, summed over all processes by the watchdog.
struct alignas(kLine) Slot {
  static constexpr int kMaxKey = 16;
  std::atomic<uint64_t> ops{0};
  std::atomic<int> kind{0};  // WaitKind; published last (release), read first (acquire)
  std::atomic<const void*> obj{nullptr};
  std::atomic<size_t> addr{0};
  std::atomic<int> key_len{0};
  std::atomic<int64_t> key[kMaxKey];
  std::atomic<bool> done{false};
  std::string name;

  Slot() {
    for (auto& k : key) k.store(0, std::memory_order_relaxed);
  }
};

// Set by run_processes on each process thread; null on other threads (their operations are
// then neither counted nor reported).
inline thread_local Slot* t_slot = nullptr;

inline void count_op() noexcept {
  if (Slot* s = t_slot) s->ops.store(s->ops.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Records what the current thread blocks on, for the deadlock report, for the scope's lifetime.
class WaitScope {
 public:
  WaitScope(WaitKind k, const void* obj, size_t addr, const int64_t* key = nullptr, int len = 0) : s_(t_slot) {
    if (!s_) return;
    s_->obj.store(obj, std::memory_order_relaxed);
    s_->addr.store(addr, std::memory_order_relaxed);
    const int n = len < Slot::kMaxKey ? len : Slot::kMaxKey;
    for (int i = 0; i < n; ++i) s_->key[i].store(key[i], std::memory_order_relaxed);
    s_->key_len.store(len, std::memory_order_relaxed);
    s_->kind.store(static_cast<int>(k), std::memory_order_release);
  }
  ~WaitScope() {
    if (s_) s_->kind.store(static_cast<int>(WaitKind::None), std::memory_order_release);
  }
  WaitScope(const WaitScope&) = delete;
  WaitScope& operator=(const WaitScope&) = delete;

 private:
  Slot* s_;
};

inline std::string fmt_key(const int64_t* key, int len) {
  std::string s = "(";
  for (int i = 0; i < len; ++i) {
    if (i) s += ", ";
    s += std::to_string(key[i]);
  }
  return s + ")";
}

// Type-independent parts of the channels, so that the watchdog can describe them.
class FifoBase {
 public:
  const char* name() const { return name_.c_str(); }
  size_t capacity() const { return cap_; }

 protected:
  FifoBase(const char* name, size_t cap) : name_(name ? name : "?"), cap_(cap) {
    if (cap == 0) fail("FIFO " + name_ + ": capacity must be at least 1");
  }
  std::string name_;
  size_t cap_;
};

class ScratchBase {
 public:
  const char* name() const { return name_.c_str(); }
  size_t cells() const { return cells_; }

 protected:
  ScratchBase(const char* name, size_t cells) : name_(name ? name : "?"), cells_(cells) {
    if (cells == 0) fail("scratchpad " + name_ + ": needs at least 1 cell");
  }
  [[noreturn]] void out_of_range(const char* op, size_t addr) const {
    fail("scratchpad " + name_ + ": " + op + " of cell " + std::to_string(addr) + " outside 0.." +
         std::to_string(cells_ - 1));
  }
  std::string name_;
  size_t cells_;
};

}  // namespace detail

// Bounded SPSC ring. head/tail are monotonic element counts (64-bit: they never wrap in
// practice); the slot positions wrap separately so capacity need not be a power of two.
// Each side keeps a private, possibly stale copy of the other side's index and refreshes it
// only when needed, so the fast path touches the partner's cache line rarely.
template <class T>
class alignas(detail::kLine) Fifo : public detail::FifoBase {
 public:
  Fifo(const char* name, size_t capacity) : FifoBase(name, capacity), buf_(new T[capacity == 0 ? 1 : capacity]()) {}
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;

  void push(const T& v) {
    const size_t h = p_.head.load(std::memory_order_relaxed);  // we are the only writer of head
    // The stale tail over-estimates occupancy; only when that estimate could be a new peak
    // (or overflow) do we read the real tail. This keeps peak() exact and the check cheap.
    if (h + 1 - p_.tail_seen > p_.peak.load(std::memory_order_relaxed)) make_room(h);
    buf_[p_.pos] = v;
    if (++p_.pos == cap_) p_.pos = 0;
    p_.head.store(h + 1, std::memory_order_release);  // publishes the value stored above
    detail::count_op();
  }

  T pop() {
    const size_t t = c_.tail.load(std::memory_order_relaxed);  // we are the only writer of tail
    if (t == c_.head_seen) {
      c_.head_seen = p_.head.load(std::memory_order_acquire);
      if (t == c_.head_seen) wait_nonempty(t);
    }
    T v = std::move(buf_[c_.pos]);
    if (++c_.pos == cap_) c_.pos = 0;
    c_.tail.store(t + 1, std::memory_order_release);  // the slot may be overwritten after this
    detail::count_op();
    return v;
  }

  // Largest occupancy the producer saw right after a push, i.e. the capacity it actually
  // needed; equals capacity() if the FIFO was ever full.
  size_t peak() const { return p_.peak.load(std::memory_order_relaxed); }

  // Non-blocking push (the pushing thread only): false, and nothing changes, when the FIFO is
  // full. A failed attempt is not progress for the watchdog, so a process polling a FIFO that
  // never drains is still reported (as running, not blocked).
  bool try_push(const T& v) {
    const size_t h = p_.head.load(std::memory_order_relaxed);
    if (h + 1 - p_.tail_seen > p_.peak.load(std::memory_order_relaxed)) {  // as in push: refresh only when needed
      p_.tail_seen = c_.tail.load(std::memory_order_acquire);
      const size_t occ = h + 1 - p_.tail_seen;
      if (occ > cap_) return false;
      if (occ > p_.peak.load(std::memory_order_relaxed)) p_.peak.store(occ, std::memory_order_relaxed);
    }
    buf_[p_.pos] = v;
    if (++p_.pos == cap_) p_.pos = 0;
    p_.head.store(h + 1, std::memory_order_release);
    detail::count_op();
    return true;
  }

  // Non-blocking pop (the popping thread only): false, and `out` untouched, when the FIFO is
  // empty. A failed attempt is not progress for the watchdog.
  bool try_pop(T& out) {
    const size_t t = c_.tail.load(std::memory_order_relaxed);
    if (t == c_.head_seen) {
      c_.head_seen = p_.head.load(std::memory_order_acquire);
      if (t == c_.head_seen) return false;
    }
    out = std::move(buf_[c_.pos]);
    if (++c_.pos == cap_) c_.pos = 0;
    c_.tail.store(t + 1, std::memory_order_release);
    detail::count_op();
    return true;
  }

  // Number of elements held, from any thread. Exact on a thread that both pushes and pops;
  // on the pushing thread it may over-estimate (so occupancy() < capacity() guarantees that a
  // push will not block), on the popping thread it may under-estimate (so occupancy() > 0
  // guarantees that a pop will not block); elsewhere it is a snapshot, clamped to capacity().
  size_t occupancy() const {
    // tail first: head is read later, so it is at least the tail read here, and the difference
    // cannot wrap.
    const size_t t = c_.tail.load(std::memory_order_acquire);
    const size_t h = p_.head.load(std::memory_order_acquire);
    const size_t n = h - t;
    return n < cap_ ? n : cap_;
  }

 private:
  [[gnu::noinline]] void make_room(size_t h) {
    p_.tail_seen = c_.tail.load(std::memory_order_acquire);
    if (h + 1 - p_.tail_seen > cap_) {
      detail::WaitScope w(detail::WaitKind::Push, static_cast<const detail::FifoBase*>(this), 0);
      detail::Backoff b;
      do {
        b.pause();
        p_.tail_seen = c_.tail.load(std::memory_order_acquire);
      } while (h + 1 - p_.tail_seen > cap_);
    }
    const size_t occ = h + 1 - p_.tail_seen;
    if (occ > p_.peak.load(std::memory_order_relaxed)) p_.peak.store(occ, std::memory_order_relaxed);
  }

  [[gnu::noinline]] void wait_nonempty(size_t t) {
    detail::WaitScope w(detail::WaitKind::Pop, static_cast<const detail::FifoBase*>(this), 0);
    detail::Backoff b;
    do {
      b.pause();
      c_.head_seen = p_.head.load(std::memory_order_acquire);
    } while (t == c_.head_seen);
  }

  std::unique_ptr<T[]> buf_;
  struct alignas(detail::kLine) Producer {
    std::atomic<size_t> head{0};
    size_t tail_seen = 0;
    size_t pos = 0;
    std::atomic<size_t> peak{0};  // written by the producer only; atomic so peak() may be called anytime
  } p_;
  struct alignas(detail::kLine) Consumer {
    std::atomic<size_t> tail{0};
    size_t head_seen = 0;
    size_t pos = 0;
  } c_;
};

// Addressed buffer with a valid bit per cell. The value is stored before the bit is set
// (release) and read after the bit is seen set (acquire); the bit is cleared (release) only
// after the consumer's last read, and the producer waits to see it clear (acquire) before
// overwriting.
template <class T>
class alignas(detail::kLine) Scratchpad : public detail::ScratchBase {
 public:
  Scratchpad(const char* name, size_t cells)
      : ScratchBase(name, cells),
        data_(new T[cells == 0 ? 1 : cells]()),
        valid_(new std::atomic<uint8_t>[cells == 0 ? 1 : cells]) {
    for (size_t i = 0; i < cells_; ++i) valid_[i].store(0, std::memory_order_relaxed);
  }
  Scratchpad(const Scratchpad&) = delete;
  Scratchpad& operator=(const Scratchpad&) = delete;

  void write(size_t addr, const T& v) {
    if (addr >= cells_) out_of_range("write", addr);
    if (valid_[addr].load(std::memory_order_acquire)) wait_cell(addr, 0);
    data_[addr] = v;
    valid_[addr].store(1, std::memory_order_release);
    // valid cells = writes - releases. The consumer counts a release before clearing the bit,
    // so this difference never exceeds the true count; as in Fifo, the partner's counter is
    // re-read only when the stale estimate could be a new peak.
    const size_t w = ++p_.writes;
    if (w - p_.rel_seen > p_.peak.load(std::memory_order_relaxed)) {
      p_.rel_seen = c_.releases.load(std::memory_order_relaxed);
      const size_t occ = w - p_.rel_seen;
      if (occ > p_.peak.load(std::memory_order_relaxed)) p_.peak.store(occ, std::memory_order_relaxed);
    }
    detail::count_op();
  }

  T read(size_t addr) {
    if (addr >= cells_) out_of_range("read", addr);
    if (!valid_[addr].load(std::memory_order_acquire)) wait_cell(addr, 1);
    T v = data_[addr];
    detail::count_op();
    return v;
  }

  void release(size_t addr) {
    if (addr >= cells_) out_of_range("release", addr);
    // Only this thread clears the bit, so a relaxed check is stable.
    if (!valid_[addr].load(std::memory_order_relaxed))
      fail("scratchpad " + name_ + ": release of cell " + std::to_string(addr) + ", which holds no value");
    c_.releases.store(c_.releases.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    valid_[addr].store(0, std::memory_order_release);  // orders our reads (and the count) before the next write
    detail::count_op();
  }

  // Maximum number of simultaneously valid cells seen by the writer.
  size_t peak() const { return p_.peak.load(std::memory_order_relaxed); }

 private:
  [[gnu::noinline]] void wait_cell(size_t addr, uint8_t want) {
    detail::WaitScope w(want ? detail::WaitKind::Read : detail::WaitKind::Write,
                        static_cast<const detail::ScratchBase*>(this), addr);
    detail::Backoff b;
    do b.pause();
    while (valid_[addr].load(std::memory_order_acquire) != want);
  }

  std::unique_ptr<T[]> data_;
  std::unique_ptr<std::atomic<uint8_t>[]> valid_;
  struct alignas(detail::kLine) Producer {
    size_t writes = 0;
    size_t rel_seen = 0;
    std::atomic<size_t> peak{0};
  } p_;
  struct alignas(detail::kLine) Consumer {
    std::atomic<size_t> releases{0};
  } c_;
};

// A process's position in the schedule, published as a seqlock so that readers see a
// consistent multi-word key: the writer makes the sequence odd, stores the words, then makes
// it even with release; a reader retries if the sequence was odd or changed. The words use
// release/acquire instead of fences (free on x86, and ThreadSanitizer understands them).
// seq == 0 means nothing published yet. A reader that sees key >= k through the final acquire also sees every
// memory write the publisher made before publishing it.
class alignas(detail::kLine) Progress {
 public:
  Progress(const char* name, int len) : name_(name ? name : "?"), len_(len), n_(len > 0 ? static_cast<size_t>(len) : 0) {
    if (len < 0) fail("progress " + name_ + ": negative key length");
    words_.reset(new std::atomic<int64_t>[n_ == 0 ? 1 : n_]);
    for (size_t i = 0; i < n_; ++i) words_[i].store(0, std::memory_order_relaxed);
    last_.assign(n_, 0);
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  const char* name() const { return name_.c_str(); }
  int len() const { return len_; }

  void publish(const int64_t* key) {
    if (seq_.load(std::memory_order_relaxed) != 0 && less(key, last_.data())) {
      fail("progress " + name_ + ": published " + detail::fmt_key(key, len_) + " after " +
           detail::fmt_key(last_.data(), len_) + " (keys must not decrease)");
    }
    if (finished_.load(std::memory_order_relaxed)) fail("progress " + name_ + ": publish after finish");
    std::copy(key, key + len_, last_.begin());
    const uint64_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);
    // Release on each word: a reader that sees a new word also sees the odd sequence and retries.
    for (size_t i = 0; i < n_; ++i) words_[i].store(key[i], std::memory_order_release);
    seq_.store(s + 2, std::memory_order_release);
    detail::count_op();
  }

  void finish() {
    finished_.store(true, std::memory_order_release);
    detail::count_op();
  }

  void wait_reached(const int64_t* key) {
    if (reached(key)) return;
    detail::WaitScope w(detail::WaitKind::Reach, this, 0, key, len_);
    detail::Backoff b;
    do b.pause();
    while (!reached(key));
  }

  // Consistent copy of the published key; false if nothing is published yet.
  bool snapshot(std::vector<int64_t>& out) const {
    out.resize(n_);
    for (;;) {
      const uint64_t s1 = seq_.load(std::memory_order_acquire);
      if (s1 == 0) return false;
      if (s1 & 1) {
        detail::cpu_relax();
        continue;
      }
      for (size_t i = 0; i < n_; ++i) out[i] = words_[i].load(std::memory_order_acquire);
      if (seq_.load(std::memory_order_relaxed) == s1) return true;
    }
  }

  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  bool less(const int64_t* a, const int64_t* b) const {
    for (int i = 0; i < len_; ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    return false;
  }

  // Published key >= key (or finished)?
  bool reached(const int64_t* key) const {
    if (finished_.load(std::memory_order_acquire)) return true;
    for (;;) {
      const uint64_t s1 = seq_.load(std::memory_order_acquire);
      if (s1 == 0) return false;
      if (s1 & 1) {
        detail::cpu_relax();
        continue;
      }
      bool ge = true;  // equal so far
      for (size_t i = 0; i < n_; ++i) {
        const int64_t w = words_[i].load(std::memory_order_acquire);
        if (w != key[i]) {
          ge = w > key[i];
          break;
        }
      }
      if (seq_.load(std::memory_order_relaxed) == s1) return ge;  // after the acquire loads above
    }
  }

  std::string name_;  // read-only after construction
  int len_;
  size_t n_;  // len_ as an index bound
  std::unique_ptr<std::atomic<int64_t>[]> words_;
  alignas(detail::kLine) std::atomic<uint64_t> seq_{0};  // written by the publisher, polled by waiters
  std::atomic<bool> finished_{false};
  std::vector<int64_t> last_;  // the publisher's private copy of its last key
};

namespace detail {

inline std::string describe_wait(const Slot& s) {
  const auto kind = static_cast<WaitKind>(s.kind.load(std::memory_order_acquire));
  const void* obj = s.obj.load(std::memory_order_relaxed);
  const size_t addr = s.addr.load(std::memory_order_relaxed);
  const std::string who = "  " + s.name;
  switch (kind) {
    case WaitKind::Pop:
    case WaitKind::Push: {
      const auto* f = static_cast<const FifoBase*>(obj);
      const bool pop = kind == WaitKind::Pop;
      return who + (pop ? " waits to pop FIFO " : " waits to push FIFO ") + f->name() + (pop ? " (empty" : " (full") +
             ", capacity " + std::to_string(f->capacity()) + ")";
    }
    case WaitKind::Read:
    case WaitKind::Write: {
      const auto* p = static_cast<const ScratchBase*>(obj);
      const bool rd = kind == WaitKind::Read;
      return who + (rd ? " waits to read scratchpad " : " waits to write scratchpad ") + p->name() + " cell " +
             std::to_string(addr) + (rd ? " (empty)" : " (full)");
    }
    case WaitKind::Reach: {
      const auto* p = static_cast<const Progress*>(obj);
      const int len = s.key_len.load(std::memory_order_relaxed);
      const int n = len < Slot::kMaxKey ? len : Slot::kMaxKey;
      std::vector<int64_t> want(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) want[static_cast<size_t>(i)] = s.key[i].load(std::memory_order_relaxed);
      std::string line = who + " waits for " + p->name() + " to reach " + fmt_key(want.data(), n);
      if (n < len) line.insert(line.size() - 1, ", ...");
      std::vector<int64_t> at;
      if (p->snapshot(at))
        line += "; " + std::string(p->name()) + " is at " + fmt_key(at.data(), p->len());
      else
        line += "; " + std::string(p->name()) + " has published nothing yet";
      return line;
    }
    case WaitKind::None:
      break;
  }
  return who + " is running (not blocked on a channel)";
}

inline std::string fmt_seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// DPN_TIMEOUT: seconds without any channel operation before a deadlock is declared; 0 disables.
inline double watchdog_timeout() {
  const char* e = std::getenv("DPN_TIMEOUT");
  if (!e || !*e) return 10.0;
  char* end = nullptr;
  const double v = std::strtod(e, &end);
  while (end && *end == ' ') ++end;
  if (end == e || !end || *end || !(v >= 0) || v > 1e9)
    fail(std::string("DPN_TIMEOUT must be a number of seconds (0 disables the watchdog), got '") + e + "'");
  return v;
}

}  // namespace detail

// Runs each process on its own thread; the calling thread is the watchdog. A process that
// throws ends the program at once (its partners could otherwise block forever).
inline void run_processes(const std::vector<std::pair<std::string, std::function<void()>>>& procs) {
  const size_t n = procs.size();
  if (n == 0) return;
  const double timeout = detail::watchdog_timeout();

  std::vector<std::unique_ptr<detail::Slot>> slots;
  slots.reserve(n);
  for (const auto& p : procs) {
    slots.emplace_back(new detail::Slot());
    slots.back()->name = p.first;
  }

  std::mutex m;
  std::condition_variable cv;
  size_t ndone = 0;
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    detail::Slot* s = slots[i].get();
    const std::function<void()>* fn = &procs[i].second;
    try {
      threads.emplace_back([s, fn, &m, &cv, &ndone] {
        detail::t_slot = s;
        try {
          (*fn)();
        } catch (const std::exception& e) {
          fail("process " + s->name + " failed: " + e.what());
        } catch (...) {
          fail("process " + s->name + " failed with an unknown exception");
        }
        detail::t_slot = nullptr;
        s->done.store(true, std::memory_order_release);
        {
          std::lock_guard<std::mutex> g(m);
          ++ndone;
        }
        cv.notify_one();  // safe after unlocking: run_processes joins us before cv dies
      });
    } catch (const std::system_error& e) {
      fail("cannot start a thread for process " + s->name + ": " + e.what());
    }
  }

  {
    std::unique_lock<std::mutex> lk(m);
    if (timeout <= 0) {
      cv.wait(lk, [&] { return ndone == n; });
    } else {
      using clock = std::chrono::steady_clock;
      const auto limit = std::chrono::duration<double>(timeout);
      uint64_t last = ~uint64_t(0);
      auto last_change = clock::now();
      while (ndone < n) {
        cv.wait_for(lk, std::chrono::milliseconds(50));
        if (ndone == n) break;
        uint64_t sum = ndone;  // a process returning counts as progress too
        for (const auto& s : slots) sum += s->ops.load(std::memory_order_relaxed);
        const auto now = clock::now();
        if (sum != last) {
          last = sum;
          last_change = now;
        } else if (now - last_change >= limit) {
          lk.unlock();
          std::string msg = "deadlock: no progress for " + detail::fmt_seconds(timeout) + " s";
          for (const auto& s : slots)
            if (!s->done.load(std::memory_order_acquire)) msg += "\n" + detail::describe_wait(*s);
          msg += "\n  (DPN_TIMEOUT=<seconds> changes the limit, 0 disables this check)";
          fail(msg);
        }
      }
    }
  }
  for (auto& t : threads) t.join();
}

// ---------------------------------------------------------------------------------------------
// .npy files

namespace detail {

template <class>
constexpr bool kDependentFalse = false;

template <class T>
struct NpyType {
  static_assert(kDependentFalse<T>, "npy: element type must be float, double, int32_t, int64_t, int8_t or char");
};
template <> struct NpyType<float> { static constexpr const char* descr = "<f4"; };
template <> struct NpyType<double> { static constexpr const char* descr = "<f8"; };
template <> struct NpyType<int32_t> { static constexpr const char* descr = "<i4"; };
template <> struct NpyType<int64_t> { static constexpr const char* descr = "<i8"; };
template <> struct NpyType<int8_t> { static constexpr const char* descr = "|i1"; };
template <> struct NpyType<char> { static constexpr const char* descr = "|i1"; };

inline std::string shape_str(const std::vector<size_t>& shape) {
  if (shape.empty()) return "()";
  if (shape.size() == 1) return "(" + std::to_string(shape[0]) + ",)";
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + ")";
}

inline bool shape_elems(const std::vector<size_t>& shape, size_t& n) {
  n = 1;
  for (size_t d : shape) {
    if (d != 0 && n > SIZE_MAX / d) return false;
    n *= d;
  }
  return true;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Parser for the header dictionary, a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyHeaderParser {
 public:
  NpyHeaderParser(const std::string& path, const std::string& text) : path_(path), s_(text) {}

  void parse(std::string& descr, bool& fortran, std::vector<size_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (!eat('}')) {
      const std::string key = str();
      expect(':');
      if (key == "descr") {
        ws();
        if (i_ < s_.size() && s_[i_] == '[') bad("structured (record) dtypes are not supported");
        descr = str();
        have_descr = true;
      } else if (key == "fortran_order") {
        ws();
        if (s_.compare(i_, 4, "True") == 0) {
          fortran = true;
          i_ += 4;
        } else if (s_.compare(i_, 5, "False") == 0) {
          fortran = false;
          i_ += 5;
        } else {
          bad("'fortran_order' is not True or False");
        }
        have_fortran = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    ws();
    if (i_ != s_.size()) bad("unexpected text after the dictionary");
    if (!have_descr) bad("no 'descr'");
    if (!have_fortran) bad("no 'fortran_order'");
    if (!have_shape) bad("no 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& what) const { fail(path_ + ": malformed .npy header: " + what); }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) bad(std::string("expected '") + c + "'");
  }
  std::string str() {
    ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) bad("expected a quoted string");
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string::npos) bad("unterminated string");
    std::string out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return out;
  }
  std::vector<size_t> tuple() {
    std::vector<size_t> out;
    expect('(');
    if (eat(')')) return out;
    for (;;) {
      ws();
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') bad("shape entry is not a non-negative integer");
      size_t v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        const size_t d = static_cast<size_t>(s_[i_++] - '0');
        if (v > (SIZE_MAX - d) / 10) bad("shape entry too large");
        v = v * 10 + d;
      }
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long literal
      out.push_back(v);
      if (eat(')')) return out;
      expect(',');
      if (eat(')')) return out;
    }
  }

  const std::string& path_;
  const std::string& s_;
  size_t i_ = 0;
};

// Opens `path`, parses the header and leaves the file positioned at the data.
inline File npy_open(const std::string& path, std::string& descr, std::vector<size_t>& shape) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail("cannot open " + path + ": " + std::strerror(errno));
  unsigned char pre[8];
  if (std::fread(pre, 1, 8, f.get()) != 8 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    fail(path + ": not a .npy file (bad magic)");
  const int major = pre[6];
  if (major < 1 || major > 3) fail(path + ": unsupported .npy format version " + std::to_string(major));
  unsigned char lenb[4] = {0, 0, 0, 0};
  const size_t nlen = major == 1 ? 2 : 4;
  if (std::fread(lenb, 1, nlen, f.get()) != nlen) fail(path + ": truncated .npy header");
  const size_t hlen = size_t(lenb[0]) | size_t(lenb[1]) << 8 | size_t(lenb[2]) << 16 | size_t(lenb[3]) << 24;
  if (hlen > (size_t(1) << 24)) fail(path + ": implausible .npy header length " + std::to_string(hlen));
  std::string text(hlen, '\0');
  if (hlen && std::fread(&text[0], 1, hlen, f.get()) != hlen) fail(path + ": truncated .npy header");
  bool fortran = false;
  NpyHeaderParser(path, text).parse(descr, fortran, shape);
  if (fortran) fail(path + ": Fortran-order arrays are not supported; save in C order");
  if (descr == "<i1" || descr == "i1" || descr == "=i1") descr = "|i1";  // same type, other spellings
  return f;
}

}  // namespace detail

template <class T>
std::vector<T> npy_load(const std::string& path, const std::vector<size_t>& shape) {
  const std::string want = detail::NpyType<T>::descr;
  std::string descr;
  std::vector<size_t> file_shape;
  detail::File f = detail::npy_open(path, descr, file_shape);
  if (descr != want || file_shape != shape)
    fail(path + ": expected " + want + " array of shape " + detail::shape_str(shape) + ", file holds " + descr +
         " array of shape " + detail::shape_str(file_shape));
  size_t n = 0;
  if (!detail::shape_elems(shape, n)) fail(path + ": shape " + detail::shape_str(shape) + " is too large");
  std::vector<T> v(n);
  const size_t got = n ? std::fread(v.data(), sizeof(T), n, f.get()) : 0;
  if (got != n)
    fail(path + ": truncated data: shape " + detail::shape_str(shape) + " needs " + std::to_string(n) +
         " elements, file has " + std::to_string(got));
  if (std::fgetc(f.get()) != EOF) fail(path + ": unexpected bytes after the data");
  return v;
}

// Writes format version 1.0 with the same header bytes as numpy.save (and dpnc's Rust writer):
// room for the first dimension to grow to 21 digits, spaces and '\n' up to a 64-byte boundary.
template <class T>
void npy_save(const std::string& path, const std::vector<size_t>& shape, const std::vector<T>& data) {
  size_t n = 0;
  if (!detail::shape_elems(shape, n) || n != data.size())
    fail(path + ": shape " + detail::shape_str(shape) + " does not match the " + std::to_string(data.size()) +
         " elements to save");
  std::string header = std::string("{'descr': '") + detail::NpyType<T>::descr +
                       "', 'fortran_order': False, 'shape': " + detail::shape_str(shape) + ", }";
  const size_t growth = shape.empty() ? 0 : 21 - std::min<size_t>(21, std::to_string(shape[0]).size());
  const size_t total = (10 + header.size() + growth + 1 + 63) / 64 * 64;
  header.resize(total - 10 - 1, ' ');
  header += '\n';
  if (header.size() > 65535) fail(path + ": .npy header too long for format 1.0");
  const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(header.size() & 0xff),
                                 static_cast<unsigned char>(header.size() >> 8)};
  detail::File f(std::fopen(path.c_str(), "wb"));
  if (!f) fail("cannot create " + path + ": " + std::strerror(errno));
  bool ok = std::fwrite(pre, 1, sizeof pre, f.get()) == sizeof pre &&
            std::fwrite(header.data(), 1, header.size(), f.get()) == header.size() &&
            (n == 0 || std::fwrite(data.data(), sizeof(T), n, f.get()) == n);
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) fail("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace dpn
