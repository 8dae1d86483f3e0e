// hls_stream.h: a software stand-in for Vitis HLS's hls::stream, written for dpnc.
//
// It lets the HLS C++ that dpnc generates compile with a plain C++17 compiler and run as
// software, each dataflow process on its own thread (dpn::run_processes). It is not Xilinx's
// header and models only what dpnc's generated code uses; real HLS builds use Vitis's own.
//
// Differences from Vitis's C simulation, on purpose:
//   * streams are BOUNDED: a write to a full stream blocks until the reader makes room, a read
//     from an empty stream blocks until the writer supplies a value. That is the hardware
//     behaviour, and it is how dpnc checks that the FIFO depths it computes cannot deadlock.
//     (Vitis's C simulation lets streams grow without bound.)
//   * capacity: DEPTH for hls::stream<T, DEPTH>; 2 (the hardware default) for a plain
//     hls::stream<T>, unless set_depth() is called before the stream is used.
//   * every stream is a dpn::Fifo (dpn_rt.hpp), so the runtime's watchdog covers it: a process
//     blocked on a stream is reported by the stream's name (exit status 3) instead of hanging.
//     Only threads started by dpn::run_processes are watched; a stream read or written on any
//     other thread (a test bench's main thread) blocks silently when it would block.
//
// Rules (those of Vitis dataflow, and of dpn::Fifo):
//   * one writing thread and one reading thread per stream; one thread may be both (a stream
//     local to a process), as long as it never writes to a full stream or reads an empty one;
//   * streams must outlive the processes that use them (the watchdog reads their names);
//   * elements must be default-constructible and copy-assignable (storage is allocated up front).
//
// Build: g++ -std=c++17 -pthread with -I for this folder and for the folder of dpn_rt.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "dpn_rt.hpp"

namespace hls {

namespace detail {

// Vitis's hardware default depth for a stream declared without one.
constexpr std::size_t kDefaultDepth = 2;

// Name of a stream constructed without one: "hls::stream_1", "hls::stream_2", ...
inline std::string next_stream_name() {
  static std::atomic<unsigned long> counter{0};
  return "hls::stream_" + std::to_string(counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

}  // namespace detail

template <typename T, int DEPTH = 0>
class stream;

// The base class: all state and all operations. A hls::stream<T, DEPTH> is a hls::stream<T>,
// so functions take `hls::stream<T>&` whatever the depth of the stream passed.
template <typename T>
class stream<T, 0> {
 public:
  stream() : stream(detail::next_stream_name().c_str(), detail::kDefaultDepth) {}
  explicit stream(const char* name) : stream(name, detail::kDefaultDepth) {}
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  // Blocking read: waits while the stream is empty.
  T read() { return fifo_->pop(); }
  void read(T& out) { out = fifo_->pop(); }
  void operator>>(T& out) { out = fifo_->pop(); }

  // Blocking write: waits while the stream is full.
  void write(const T& v) { fifo_->push(v); }
  void operator<<(const T& v) { fifo_->push(v); }

  // Non-blocking: false, and nothing read or written (`out` keeps its value), when the
  // stream is empty (read_nb) or full (write_nb).
  bool read_nb(T& out) { return fifo_->try_pop(out); }
  bool write_nb(const T& v) { return fifo_->try_push(v); }

  // On the reading thread, !empty() guarantees that read() will not block; on the writing
  // thread, !full() guarantees that write() will not block. Elsewhere they are snapshots.
  bool empty() const { return fifo_->occupancy() == 0; }
  bool full() const { return fifo_->occupancy() >= fifo_->capacity(); }
  std::size_t size() const { return fifo_->occupancy(); }
  std::size_t capacity() const { return fifo_->capacity(); }
  const char* name() const { return fifo_->name(); }

  // Changes the capacity; only before the stream is used (no thread may be using it), and
  // never while it holds data (that is fatal: exit status 3).
  void set_depth(std::size_t depth) {
    if (fifo_->occupancy() != 0)
      dpn::fail(std::string("hls::stream ") + fifo_->name() + ": set_depth(" + std::to_string(depth) +
                ") on a stream that holds data; set the depth before the stream is used");
    fifo_.reset(new dpn::Fifo<T>(fifo_->name(), depth));
  }

 protected:
  stream(const char* name, std::size_t depth) : fifo_(new dpn::Fifo<T>(name, depth)) {}

 private:
  std::unique_ptr<dpn::Fifo<T>> fifo_;
};

// A stream with a fixed depth, as `hls::stream<T, DEPTH>` in Vitis.
template <typename T, int DEPTH>
class stream : public stream<T, 0> {
  static_assert(DEPTH > 0, "hls::stream<T, DEPTH>: DEPTH must be positive (0 means the default depth, 2)");
  using base = stream<T, 0>;

 public:
  stream() : base(detail::next_stream_name().c_str(), static_cast<std::size_t>(DEPTH)) {}
  explicit stream(const char* name) : base(name, static_cast<std::size_t>(DEPTH)) {}
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
};

}  // namespace hls
