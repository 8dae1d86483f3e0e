// dpn_rt_cuda.cuh: device runtime for the CUDA backend of dpnc (header-only, C++17, sm_70+).
//
// The CUDA flavour runs a whole process network in one kernel launch: every process is a
// __device__ function and runs as its own thread block of one thread (blockIdx.x selects the
// process), and every block must be resident at once (host_launch below uses a cooperative
// launch, which refuses a grid that cannot be). Processes talk through
//   * Fifo<T, CAP>          bounded queues, one pushing block and one popping block,
//   * Scratchpad<T, CELLS>  addressed buffers with a valid flag per cell, one writing block and
//                           one reading/releasing block,
//   * Progress<LEN>         a process's position in the schedule (a lexicographic int64 key),
//                           one publishing block and any number of waiting blocks,
// with the same semantics as dpn_rt.hpp (the CPU flavour).
//
// Rules for generated code:
//   * channel objects are __device__ globals (namespace scope). They are aggregates without
//     constructors, so they are zero-initialised when the module loads, and zero means empty
//     (a kernel that runs the network twice must zero them again, e.g. with cudaMemcpyToSymbol);
//   * every operation takes an `id`: the index of the channel in the names table that the host
//     passes to host_error_message; process ids are block indices into the process names table;
//   * include this header in one translation unit (its globals are `static`, so two units
//     would get two separate copies of the bookkeeping);
//   * call host_init() once before the first launch: it puts the error record in mapped host
//     memory, which stays readable after a device-side trap has killed the context; launch with
//     host_launch (cooperative: all blocks resident, or an error instead of a hang); after a
//     failed launch, host_error_message() says what went wrong;
//   * optionally call process_done() when a process function returns, so that a deadlock report
//     leaves the finished processes out.
//
// Memory model: values are stored with plain stores and published by a release store of an
// index or flag (PTX st.release.gpu); the partner reads the index or flag with an acquire load
// (ld.acquire.gpu) before it reads the values. Progress keys are published as a seqlock.
//
// Deadlock detection: a blocked operation spins with __nanosleep. Every successful operation
// increments a global counter (sharded over 64 cache lines to keep atomics uncontended); a wait
// that sees the counter unchanged for longer than the timeout (DPN_GPU_TIMEOUT_NS, default 10 s;
// at run time DPN_TIMEOUT=<seconds> read by host_init; 0 disables) calls fail() with the wait's
// kind, which snapshots what every process is waiting for and traps. As on the CPU, a process
// that computes for longer than the timeout without touching a channel while all others wait
// looks like a deadlock: raise the timeout for such kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "dpn_rt_cuda.cuh needs sm_70 or newer (ld.acquire/st.release, __nanosleep)"
#endif

#ifndef DPN_GPU_TIMEOUT_NS
#define DPN_GPU_TIMEOUT_NS 10000000000ULL  // 10 s without any channel operation = deadlock
#endif
#ifndef DPN_GPU_MAX_PROCS
#define DPN_GPU_MAX_PROCS 4096  // processes (blocks) whose waits a deadlock report can describe
#endif
#ifndef DPN_GPU_MAX_KEY
#define DPN_GPU_MAX_KEY 8  // progress key words shown in a deadlock report
#endif

namespace dpn_gpu {

// What a process waits for; also the fail() codes of the deadlocks (code == wait kind).
enum : int {
  kWaitNone = 0,
  kWaitPush = 1,   // FIFO full
  kWaitPop = 2,    // FIFO empty
  kWaitRead = 3,   // scratchpad cell empty
  kWaitWrite = 4,  // scratchpad cell still full
  kWaitReach = 5,  // progress key not reached yet
  kDone = 6,       // process returned (process_done)
};

// Other fail() codes. Generated code may use its own codes from kErrUser on.
enum : int {
  kErrCellRange = 16,          // scratchpad address >= CELLS (detail: address, detail2: CELLS)
  kErrReleaseEmpty = 17,       // release of a cell that holds no value (detail: address)
  kErrKeyDecrease = 18,        // progress key smaller than the previous one
  kErrPublishAfterFinish = 19, // publish after finish
  kErrUser = 100,
};

namespace detail {

// ---------------------------------------------------------------------------------------------
// Memory operations (generic addresses, GPU scope).

__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ long long ld_relaxed(const long long* p) {
  long long v;
  asm volatile("ld.relaxed.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int ld_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_release(int* p, int v) {
  asm volatile("st.release.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed(long long* p, long long v) {
  asm volatile("st.relaxed.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Nanoseconds since some epoch, the same on every SM.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping shared by all blocks. All zero-initialised except the timeout (a constant).

constexpr int kOpShards = 64;
struct alignas(128) OpShard {
  unsigned long long n;
};
// Successful channel operations, summed over the shards; only its changes matter.
static __device__ OpShard g_ops[kOpShards];

static __device__ unsigned long long g_timeout_ns = DPN_GPU_TIMEOUT_NS;

// What each process waits for now (written by the process itself, read by the reporter).
struct WaitRec {
  int kind;  // kWait* or kDone
  int id;
  unsigned long long detail;  // FIFO capacity or scratchpad cell
  // kWaitReach: the progress waited on, and the key wanted.
  const unsigned long long* pseq;
  const long long* pkey;
  const int* pfin;
  int plen;
  int key_len;
  long long key[DPN_GPU_MAX_KEY];
};
static __device__ WaitRec g_wait[DPN_GPU_MAX_PROCS];

// Snapshot of one process in the error record.
struct ProcSnap {
  int kind;
  int id;
  unsigned long long detail;
  int key_len;
  int at_state;  // kWaitReach: 0 unreadable, 1 nothing published, 2 published at[], 3 finished
  int at_len;
  int pad;
  long long key[DPN_GPU_MAX_KEY];
  long long at[DPN_GPU_MAX_KEY];
};

// The error record, in mapped host memory (see host_init); `written` is set last.
struct ErrorRecord {
  int written;
  int code;
  int id;
  int block;
  unsigned long long detail;
  unsigned long long detail2;
  unsigned long long timeout_ns;
  int nblocks;  // gridDim.x of the failing launch
  int nsnap;    // entries of procs[] filled (deadlocks only)
  ProcSnap procs[DPN_GPU_MAX_PROCS];
};
static __device__ ErrorRecord* g_err;  // set by host_init; null: no report, trap only
static __device__ int g_claim;         // the first failing block reports, the others wait

__device__ __forceinline__ void count_op() { atomicAdd(&g_ops[blockIdx.x % kOpShards].n, 1ULL); }

__device__ inline unsigned long long ops_sum() {
  unsigned long long s = 0;
  for (int c = 0; c < kOpShards; c += 8) {  // eight loads in flight at a time, few registers
    unsigned long long v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = ld_relaxed(&g_ops[c + i].n);
#pragma unroll
    for (int i = 0; i < 8; ++i) s += v[i];
  }
  return s;
}

// Fills s.at_state and s.at[] from the progress that w waits on (a seqlock read, bounded).
inline __device__ __noinline__ void snapshot_progress(const volatile WaitRec& w, volatile ProcSnap& s) {
  const unsigned long long* pseq = w.pseq;
  const long long* pkey = w.pkey;
  const int plen = w.plen;
  const int n = plen < DPN_GPU_MAX_KEY ? plen : DPN_GPU_MAX_KEY;
  s.at_len = plen;
  s.at_state = 0;
  if (!pseq) return;
  if (ld_acquire(w.pfin)) {
    s.at_state = 3;
    return;
  }
#pragma unroll 1
  for (int tries = 0; tries < 1000; ++tries) {
    const unsigned long long s1 = ld_acquire(pseq);
    if (s1 == 0) {
      s.at_state = 1;
      return;
    }
    if (s1 & 1) {
      __nanosleep(100);
      continue;
    }
#pragma unroll 1
    for (int i = 0; i < n; ++i) s.at[i] = ld_relaxed(pkey + i);
    fence_acq_rel();
    if (ld_relaxed(pseq) == s1) {
      s.at_state = 2;
      return;
    }
  }
}

// Records the failure (and, for deadlocks, what every process waits for) and traps. Only the
// first failing block reports; a block arriving later waits for that block's trap to end the
// kernel, so that its own trap cannot cut the report short.
inline __device__ __noinline__ void fail_at(int code, int id, unsigned long long detail, unsigned long long detail2) {
  if (atomicCAS(&g_claim, 0, 1) != 0) {
    for (;;) __nanosleep(1000000);
  }
  volatile ErrorRecord* r = *static_cast<ErrorRecord* volatile*>(&g_err);
  if (r) {
    r->code = code;
    r->id = id;
    r->block = static_cast<int>(blockIdx.x);
    r->detail = detail;
    r->detail2 = detail2;
    r->timeout_ns = *static_cast<volatile unsigned long long*>(&g_timeout_ns);
    r->nblocks = static_cast<int>(gridDim.x);
    int nsnap = 0;
    if (code >= kWaitPush && code <= kWaitReach) {
      nsnap = gridDim.x < DPN_GPU_MAX_PROCS ? static_cast<int>(gridDim.x) : DPN_GPU_MAX_PROCS;
#pragma unroll 1
      for (int b = 0; b < nsnap; ++b) {
        const volatile WaitRec& w = g_wait[b];
        volatile ProcSnap& s = r->procs[b];
        s.kind = w.kind;
        s.id = w.id;
        s.detail = w.detail;
        s.at_state = 0;
        s.key_len = 0;
        if (w.kind == kWaitReach) {
          const int kl = w.key_len;
          s.key_len = kl;
#pragma unroll 1
          for (int i = 0; i < kl && i < DPN_GPU_MAX_KEY; ++i) s.key[i] = w.key[i];
          snapshot_progress(w, s);
        }
      }
    }
    r->nsnap = nsnap;
    __threadfence_system();
    r->written = 1;
    __threadfence_system();
  }
  __trap();
}

// A blocked operation: records itself in g_wait, naps, and checks for a deadlock now and then.
struct Wait {
  unsigned long long t0, ops0, timeout, detail;
  int kind, id;
  unsigned n;
};

__device__ inline void wait_begin(Wait& w, int kind, int id, unsigned long long detail) {
  w.kind = kind;
  w.id = id;
  w.detail = detail;
  w.n = 0;
  w.timeout = *static_cast<volatile unsigned long long*>(&g_timeout_ns);
  w.t0 = global_ns();
  w.ops0 = ~0ULL;  // the first check reads the counter (and restarts the clock): waits that end soon stay cheap
  if (blockIdx.x < DPN_GPU_MAX_PROCS) {
    volatile WaitRec& r = g_wait[blockIdx.x];
    r.id = id;
    r.detail = detail;
    r.kind = kind;
  }
}

__device__ inline void wait_end(const Wait&) {
  if (blockIdx.x < DPN_GPU_MAX_PROCS) *static_cast<volatile int*>(&g_wait[blockIdx.x].kind) = kWaitNone;
}

__device__ inline void wait_pause(Wait& w) {
  __nanosleep(100);
  if ((++w.n & 255u) != 0 || w.timeout == 0) return;
  const unsigned long long now = global_ns(), ops = ops_sum();
  if (ops != w.ops0) {
    w.ops0 = ops;
    w.t0 = now;
  } else if (now - w.t0 >= w.timeout) {
    fail_at(w.kind, w.id, w.detail, 0);
  }
}

}  // namespace detail

// Fatal error from device code: records (code, id) for host_error_message and traps.
__device__ inline void fail(int code, int id) { detail::fail_at(code, id, 0, 0); }

// Marks the calling process as finished (counts as progress; a deadlock report skips it).
__device__ inline void process_done() {
  if (blockIdx.x < DPN_GPU_MAX_PROCS) *static_cast<volatile int*>(&detail::g_wait[blockIdx.x].kind) = kDone;
  detail::count_op();
}

// ---------------------------------------------------------------------------------------------
// Channels

// Bounded queue between one producer block and one consumer block. head and tail count pushes
// and pops (64-bit, never wrap in practice); each side keeps a possibly stale copy of the
// other's counter and re-reads the real one only when the copy says full or empty.
template <class T, unsigned long long CAP>
struct Fifo {
  static_assert(CAP >= 1, "Fifo: capacity must be at least 1");
  T buf[CAP];
  alignas(128) unsigned long long head;  // producer's line
  unsigned long long tail_seen;
  alignas(128) unsigned long long tail;  // consumer's line
  unsigned long long head_seen;

  __device__ void push(const T& v, int id) {
    const unsigned long long h = head;  // only this block writes head
    if (h - tail_seen >= CAP) {
      tail_seen = detail::ld_acquire(&tail);
      if (h - tail_seen >= CAP) wait_room(h, id);
    }
    buf[h % CAP] = v;
    detail::st_release(&head, h + 1);  // publishes the value stored above
    detail::count_op();
  }

  __device__ T pop(int id) {
    const unsigned long long t = tail;  // only this block writes tail
    if (t == head_seen) {
      head_seen = detail::ld_acquire(&head);
      if (t == head_seen) wait_data(t, id);
    }
    T v = buf[t % CAP];
    detail::st_release(&tail, t + 1);  // the slot may be overwritten after this
    detail::count_op();
    return v;
  }

  __device__ __noinline__ void wait_room(unsigned long long h, int id) {
    detail::Wait w;
    detail::wait_begin(w, kWaitPush, id, CAP);
    do {
      detail::wait_pause(w);
      tail_seen = detail::ld_acquire(&tail);
    } while (h - tail_seen >= CAP);
    detail::wait_end(w);
  }

  __device__ __noinline__ void wait_data(unsigned long long t, int id) {
    detail::Wait w;
    detail::wait_begin(w, kWaitPop, id, CAP);
    do {
      detail::wait_pause(w);
      head_seen = detail::ld_acquire(&head);
    } while (t == head_seen);
    detail::wait_end(w);
  }
};

// Addressed buffer with a valid flag per cell: one writing block, one reading/releasing block.
// The value is stored before the flag is set (release) and read after it is seen set (acquire);
// the flag is cleared (release) after the last read, and the writer waits to see it clear
// (acquire) before it overwrites the cell.
template <class T, unsigned long long CELLS>
struct Scratchpad {
  static_assert(CELLS >= 1, "Scratchpad: needs at least 1 cell");
  T buf[CELLS];
  int valid[CELLS];

  __device__ void write(unsigned long long addr, const T& v, int id) {
    if (addr >= CELLS) detail::fail_at(kErrCellRange, id, addr, CELLS);
    if (detail::ld_acquire(&valid[addr])) wait_cell(addr, 0, id);
    buf[addr] = v;
    detail::st_release(&valid[addr], 1);
    detail::count_op();
  }

  __device__ T read(unsigned long long addr, int id) {
    if (addr >= CELLS) detail::fail_at(kErrCellRange, id, addr, CELLS);
    if (!detail::ld_acquire(&valid[addr])) wait_cell(addr, 1, id);
    T v = buf[addr];
    detail::count_op();
    return v;
  }

  // `id` only names the channel in an error report.
  __device__ void release(unsigned long long addr, int id = -1) {
    if (addr >= CELLS) detail::fail_at(kErrCellRange, id, addr, CELLS);
    // Only this block clears the flag, so a set flag stays set.
    if (!detail::ld_relaxed(&valid[addr])) detail::fail_at(kErrReleaseEmpty, id, addr, CELLS);
    detail::st_release(&valid[addr], 0);  // orders our reads before the next write
    detail::count_op();
  }

  __device__ __noinline__ void wait_cell(unsigned long long addr, int want, int id) {
    detail::Wait w;
    detail::wait_begin(w, want ? kWaitRead : kWaitWrite, id, addr);
    do detail::wait_pause(w);
    while (detail::ld_acquire(&valid[addr]) != want);
    detail::wait_end(w);
  }
};

// A process's position in the schedule, published as a seqlock: the publisher makes seq odd,
// stores the words, then makes seq even with release; a waiter retries if seq was odd or
// changed. seq == 0: nothing published yet. A waiter that sees key >= k also sees every write
// the publisher made before publishing it.
template <int LEN>
struct Progress {
  static_assert(LEN >= 0, "Progress: negative key length");
  long long key[LEN > 0 ? LEN : 1];
  unsigned long long seq;  // 64-bit: 2 per publish, must not wrap back to 0
  int finished;

  // `id` only names the channel in an error report.
  __device__ void publish(const long long* k, int id = -1) {
    if (finished) detail::fail_at(kErrPublishAfterFinish, id, 0, 0);  // only this block writes
    const unsigned long long s = seq;
    if (s != 0 && less(k, key)) detail::fail_at(kErrKeyDecrease, id, 0, 0);
    detail::st_relaxed(&seq, s + 1);
    detail::fence_acq_rel();  // a waiter that sees a new word sees the odd seq too
    for (int i = 0; i < LEN; ++i) detail::st_relaxed(&key[i], k[i]);
    detail::st_release(&seq, s + 2);
    detail::count_op();
  }

  __device__ void finish() {
    detail::st_release(&finished, 1);
    detail::count_op();
  }

  // Until the published key is >= k lexicographically, or the publisher finished.
  __device__ void wait_reached(const long long* k, int id) {
    if (!reached(k)) wait_slow(k, id);
  }

  __device__ static bool less(const long long* a, const long long* b) {
    for (int i = 0; i < LEN; ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    return false;
  }

  __device__ bool reached(const long long* k) {
    if (detail::ld_acquire(&finished)) return true;
    for (;;) {
      const unsigned long long s1 = detail::ld_acquire(&seq);
      if (s1 == 0) return false;
      if (s1 & 1) {  // the publisher is mid-update and never blocks there
        __nanosleep(20);
        continue;
      }
      bool ge = true;  // equal so far
      for (int i = 0; i < LEN; ++i) {
        const long long w = detail::ld_relaxed(&key[i]);
        if (w != k[i]) {
          ge = w > k[i];
          break;
        }
      }
      detail::fence_acq_rel();
      if (detail::ld_relaxed(&seq) == s1) return ge;
    }
  }

  __device__ __noinline__ void wait_slow(const long long* k, int id) {
    detail::Wait w;
    detail::wait_begin(w, kWaitReach, id, 0);
    if (blockIdx.x < DPN_GPU_MAX_PROCS) {
      volatile detail::WaitRec& r = detail::g_wait[blockIdx.x];
      r.pseq = &seq;
      r.pkey = key;
      r.pfin = &finished;
      r.plen = LEN;
      r.key_len = LEN;
      for (int i = 0; i < LEN && i < DPN_GPU_MAX_KEY; ++i) r.key[i] = k[i];
    }
    do detail::wait_pause(w);
    while (!reached(k));
    detail::wait_end(w);
  }
};

// ---------------------------------------------------------------------------------------------
// Host side

namespace detail {

inline ErrorRecord*& host_record() {
  static ErrorRecord* rec = nullptr;
  return rec;
}

inline std::string fmt_key(const volatile long long* k, int shown, int len) {
  std::string s = "(";
  for (int i = 0; i < shown; ++i) {
    if (i) s += ", ";
    s += std::to_string(k[i]);
  }
  if (shown < len) s += shown ? ", ..." : "...";
  return s + ")";
}

inline std::string proc_label(const char* const* names, int b) {
  std::string s = "process " + std::to_string(b);
  if (names && b >= 0 && names[b]) s += std::string(" (") + names[b] + ")";
  return s;
}

inline std::string chan_label(const char* const* names, int id) {
  if (id < 0) return "channel ?";
  std::string s = "channel " + std::to_string(id);
  if (names && names[id]) s += std::string(" (") + names[id] + ")";
  return s;
}

// "waits to push channel 7 (x): full, capacity 4" and the like.
inline std::string describe_wait(int kind, int id, unsigned long long detail, const volatile ProcSnap* snap,
                                 const char* const* chans) {
  const std::string ch = chan_label(chans, id);
  switch (kind) {
    case kWaitPush:
      return "waits to push " + ch + ": full, capacity " + std::to_string(detail);
    case kWaitPop:
      return "waits to pop " + ch + ": empty, capacity " + std::to_string(detail);
    case kWaitRead:
      return "waits to read " + ch + " cell " + std::to_string(detail) + ": empty";
    case kWaitWrite:
      return "waits to write " + ch + " cell " + std::to_string(detail) + ": full";
    case kWaitReach: {
      std::string s = "waits for " + ch + " to reach ";
      if (!snap) return s + "a key";
      const int kl = snap->key_len, ks = kl < DPN_GPU_MAX_KEY ? kl : DPN_GPU_MAX_KEY;
      s += fmt_key(snap->key, ks, kl);
      switch (snap->at_state) {
        case 1:
          return s + "; it has published nothing yet";
        case 2: {
          const int al = snap->at_len, as = al < DPN_GPU_MAX_KEY ? al : DPN_GPU_MAX_KEY;
          return s + "; it is at " + fmt_key(snap->at, as, al);
        }
        case 3:
          return s + "; it has finished";
        default:
          return s;
      }
    }
    default:
      return "is running (not blocked on a channel)";
  }
}

}  // namespace detail

// Call once before the first launch. Puts the error record in mapped host memory and sets the
// deadlock timeout from DPN_TIMEOUT (seconds, 0 disables; unset: DPN_GPU_TIMEOUT_NS). Returns
// an empty string, or what went wrong.
inline std::string host_init() {
  detail::ErrorRecord*& rec = detail::host_record();
  if (!rec) {
    void* p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, sizeof(detail::ErrorRecord), cudaHostAllocMapped);
    if (e != cudaSuccess) return std::string("cannot allocate the error record: ") + cudaGetErrorString(e);
    std::memset(p, 0, sizeof(detail::ErrorRecord));
    void* d = nullptr;
    e = cudaHostGetDevicePointer(&d, p, 0);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(detail::g_err, &d, sizeof d);
    if (e != cudaSuccess) {
      cudaFreeHost(p);
      return std::string("cannot map the error record: ") + cudaGetErrorString(e);
    }
    rec = static_cast<detail::ErrorRecord*>(p);
  }
  const char* env = std::getenv("DPN_TIMEOUT");
  if (env && *env) {
    char* end = nullptr;
    const double s = std::strtod(env, &end);
    while (end && *end == ' ') ++end;
    if (end == env || !end || *end || !(s >= 0) || s > 1e9)
      return std::string("DPN_TIMEOUT must be a number of seconds (0 disables the watchdog), got '") + env + "'";
    const unsigned long long ns = static_cast<unsigned long long>(s * 1e9);
    const cudaError_t e = cudaMemcpyToSymbol(detail::g_timeout_ns, &ns, sizeof ns);
    if (e != cudaSuccess) return std::string("cannot set the timeout: ") + cudaGetErrorString(e);
  }
  return std::string();
}

// Launches kernel(args...) with nblocks blocks of one thread, all resident at once: a
// cooperative launch where the device supports it (cudaErrorCooperativeLaunchTooLarge when the
// grid cannot be resident), otherwise a plain launch after the same check by occupancy.
template <class... P, class... A>
cudaError_t host_launch(void (*kernel)(P...), unsigned nblocks, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "host_launch: wrong number of kernel arguments");
  std::tuple<P...> vals(std::forward<A>(args)...);
  return std::apply(
      [&](auto&... v) -> cudaError_t {
        void* ptrs[] = {static_cast<void*>(&v)..., nullptr};
        int dev = 0, coop = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        if (e != cudaSuccess) return e;
        const void* fn = reinterpret_cast<const void*>(kernel);
        if (coop) return cudaLaunchCooperativeKernel(fn, dim3(nblocks), dim3(1), ptrs, 0, nullptr);
        int per_sm = 0, sms = 0;
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 1, 0);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e != cudaSuccess) return e;
        if (static_cast<long long>(nblocks) > static_cast<long long>(per_sm) * sms)
          return cudaErrorCooperativeLaunchTooLarge;
        return cudaLaunchKernel(fn, dim3(nblocks), dim3(1), ptrs, 0, nullptr);
      },
      vals);
}

// After a launch failed (a device-side fail() traps: cudaErrorLaunchFailure or similar), the
// message for what the runtime recorded, e.g.
//   deadlock: process 3 (load_A) waits to push channel 7 (load_A_to_S0_r1): full, capacity 4; no progress for 10 s
//     process 5 (S0) waits to pop channel 8 (x): empty, capacity 2
//     ...
// process_names[b] names block b, channel_names[id] the channel passed as `id` (either table may
// be null). Empty when nothing was recorded (no dpn failure, or host_init was not called).
inline std::string host_error_message(const char* const* process_names, const char* const* channel_names) {
  const detail::ErrorRecord* rec = detail::host_record();
  if (!rec) return std::string();
  const volatile detail::ErrorRecord* r = rec;
  if (!r->written) return std::string();
  const int code = r->code, id = r->id, block = r->block;
  const unsigned long long detail = r->detail, detail2 = r->detail2;
  const std::string who = detail::proc_label(process_names, block);
  const std::string ch = detail::chan_label(channel_names, id);
  char secs[64];
  std::snprintf(secs, sizeof secs, "%g", static_cast<double>(r->timeout_ns) / 1e9);
  switch (code) {
    case kWaitPush:
    case kWaitPop:
    case kWaitRead:
    case kWaitWrite:
    case kWaitReach: {
      const int nsnap = r->nsnap;
      const volatile detail::ProcSnap* own = block < nsnap ? &r->procs[block] : nullptr;
      std::string msg = "deadlock: " + who + " " + detail::describe_wait(code, id, detail, own, channel_names) +
                        "; no progress for " + secs + " s";
      for (int b = 0; b < nsnap; ++b) {
        const volatile detail::ProcSnap& s = r->procs[b];
        if (b == block || s.kind == kDone) continue;
        msg += "\n  " + detail::proc_label(process_names, b) + " " +
               detail::describe_wait(s.kind, s.id, s.detail, &s, channel_names);
      }
      if (r->nblocks > nsnap)
        msg += "\n  (" + std::to_string(r->nblocks - nsnap) + " more processes not shown; raise DPN_GPU_MAX_PROCS)";
      msg += "\n  (DPN_TIMEOUT=<seconds> changes the limit, 0 disables this check)";
      return msg;
    }
    case kErrCellRange:
      return who + ": " + ch + ": access to cell " + std::to_string(detail) + " outside 0.." +
             std::to_string(detail2 - 1);
    case kErrReleaseEmpty:
      return who + ": " + ch + ": release of cell " + std::to_string(detail) + ", which holds no value";
    case kErrKeyDecrease:
      return who + ": " + ch + ": published a progress key smaller than the previous one (keys must not decrease)";
    case kErrPublishAfterFinish:
      return who + ": " + ch + ": publish after finish";
    default:
      return who + " failed with error code " + std::to_string(code) + " (id " + std::to_string(id) + ")";
  }
}

}  // namespace dpn_gpu
