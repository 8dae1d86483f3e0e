// Test program for dpn_rt_cuda.cuh (built by hls-emit/tests/cuda_runtime.rs).
//
//   test_rt_cuda             self-test: FIFOs, scratchpad, progress across 3 blocks; exit 0
//   test_rt_cuda deadlock    a deadlocked network: exit 3 with the report on stderr
//   test_rt_cuda range       a scratchpad access out of range: exit 3 with the message
//
// Without a CUDA device every mode prints "no CUDA device: compiled only" and exits 0.
// Any other CUDA failure (e.g. a driver older than the runtime) exits 2.
#include "dpn_rt_cuda.cuh"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

constexpr int kN = 10000;       // values through the float FIFO
constexpr int kCells = 1000;    // values through the scratchpad
constexpr int kDoubles = 1000;  // values through the double FIFO (capacity 1)
constexpr int kKeyLen = 5;

__device__ dpn_gpu::Fifo<float, 4> f_vals;     // block 0 -> block 1
__device__ dpn_gpu::Fifo<double, 1> f_sums;    // block 1 -> block 2
__device__ dpn_gpu::Scratchpad<float, 16> sp;  // block 0 -> block 1
__device__ dpn_gpu::Progress<kKeyLen> prog;    // block 0 -> block 2
__device__ int data[kN];                       // plain memory ordered by prog

struct Result {
  double sum;           // block 1: sum of the popped floats
  int order_errors;     // block 1: pops out of order
  int cell_errors;      // block 1: wrong scratchpad values
  int data_errors;      // block 2: data not visible when its progress key was reached
  int double_errors;    // block 2: wrong values from the double FIFO
  double double_sum;    // block 2
  int done[3];
};
__device__ Result result;

enum { kChVals = 0, kChSums = 1, kChSp = 2, kChProg = 3 };

__global__ void self_test() {
  switch (blockIdx.x) {
    case 0: {  // producer
      long long key[kKeyLen] = {1, 0, 7, -1, 0};
      for (int i = 0; i < kN; ++i) {
        data[i] = 3 * i + 1;
        f_vals.push(static_cast<float>(i), kChVals);
        if (i < kCells) sp.write(static_cast<unsigned long long>(i % 16), static_cast<float>(i) * 0.5f, kChSp);
        if (i % 100 == 99) {
          key[1] = i / 100;
          key[4] = i;
          prog.publish(key, kChProg);
        }
      }
      prog.finish();
      result.done[0] = 1;
      break;
    }
    case 1: {  // consumer
      double sum = 0;
      int order = 0, cells = 0;
      for (int i = 0; i < kN; ++i) {
        const float v = f_vals.pop(kChVals);
        if (v != static_cast<float>(i)) ++order;
        sum += v;
        if (i < kCells) {
          const unsigned long long a = static_cast<unsigned long long>(i % 16);
          if (sp.read(a, kChSp) != static_cast<float>(i) * 0.5f) ++cells;
          if (sp.read(a, kChSp) != static_cast<float>(i) * 0.5f) ++cells;  // reads until released
          sp.release(a, kChSp);
        }
      }
      for (int i = 0; i < kDoubles; ++i) f_sums.push(sum + i, kChSums);
      result.sum = sum;
      result.order_errors = order;
      result.cell_errors = cells;
      result.done[1] = 1;
      break;
    }
    case 2: {  // progress waiter
      int errors = 0;
      for (int j = 0; j < kN / 100; ++j) {
        const long long want[kKeyLen] = {1, j, 7, -1, 100LL * j + 99};
        prog.wait_reached(want, kChProg);
        for (int i = 100 * j; i < 100 * j + 100; ++i)
          if (*static_cast<volatile int*>(&data[i]) != 3 * i + 1) ++errors;
      }
      const long long beyond[kKeyLen] = {2, 0, 0, 0, 0};
      prog.wait_reached(beyond, kChProg);  // returns once the publisher finished
      double dsum = 0;
      int derr = 0;
      double first = 0;
      for (int i = 0; i < kDoubles; ++i) {
        const double v = f_sums.pop(kChSums);
        if (i == 0) first = v;
        if (v != first + i) ++derr;
        dsum += v;
      }
      result.data_errors = errors;
      result.double_errors = derr;
      result.double_sum = dsum;
      result.done[2] = 1;
      break;
    }
  }
  dpn_gpu::process_done();
}

// A deadlocked network: two processes pop from each other, one waits for a progress key that
// its publisher never reaches (the publisher waits to read an empty cell), one waits to
// overwrite a full cell, one returns.
__device__ dpn_gpu::Fifo<int, 2> d_ab, d_ba;
__device__ dpn_gpu::Fifo<float, 1> d_full;
__device__ dpn_gpu::Scratchpad<float, 32> d_sp;
__device__ dpn_gpu::Progress<3> d_prog;

__global__ void deadlock() {
  switch (blockIdx.x) {
    case 0:
      d_ab.push(d_ba.pop(1), 0);
      break;
    case 1:
      d_ba.push(d_ab.pop(0), 1);
      break;
    case 2: {
      const long long want[3] = {0, 1, 5};
      d_prog.wait_reached(want, 4);
      break;
    }
    case 3: {
      const long long at[3] = {0, 1, 4};
      d_prog.publish(at, 4);
      (void)d_sp.read(17, 3);
      break;
    }
    case 4:
      d_sp.write(3, 1.0f, 3);
      d_sp.write(3, 2.0f, 3);
      break;
    case 5:
      d_full.push(1.0f, 2);
      d_full.push(2.0f, 2);
      break;
  }
  dpn_gpu::process_done();
}

__device__ dpn_gpu::Scratchpad<float, 16> r_sp;

__global__ void range() {
  if (blockIdx.x == 1) r_sp.write(20, 1.0f, 0);
  dpn_gpu::process_done();
}

const char* const kDeadlockProcs[] = {"proc_A", "proc_B", "load_A", "store_A", "S2", "load_B", "done"};
const char* const kDeadlockChans[] = {"chan_AB", "chan_BA", "full_fifo", "X", "store_A_progress"};

int cuda_fail(const char* what, cudaError_t e) {
  std::fprintf(stderr, "test_rt_cuda: %s: %s\n", what, cudaGetErrorString(e));
  return 2;
}

// Runs a kernel that must fail; prints the runtime's report and returns 3 as dpn_rt does.
template <class K>
int expect_failure(K kernel, unsigned nblocks, const char* const* procs, const char* const* chans) {
  cudaError_t e = dpn_gpu::host_launch(kernel, nblocks);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    std::fprintf(stderr, "test_rt_cuda: the kernel was expected to fail but succeeded\n");
    return 1;
  }
  const std::string msg = dpn_gpu::host_error_message(procs, chans);
  if (msg.empty()) return cuda_fail("kernel failed without a dpn error record", e);
  std::fprintf(stderr, "dpn: error: %s\n", msg.c_str());
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "" && mode != "deadlock" && mode != "range") {
    std::fprintf(stderr, "usage: test_rt_cuda [deadlock|range]\n");
    return 64;
  }
  int driver = 0, count = 0;
  cudaDriverGetVersion(&driver);
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (driver == 0 || ce == cudaErrorNoDevice || (ce == cudaSuccess && count == 0)) {
    std::printf("no CUDA device: compiled only\n");
    return 0;
  }
  if (ce != cudaSuccess) {
    std::fprintf(stderr, "test_rt_cuda: driver supports CUDA %d.%d, this runtime is %d.%d\n", driver / 1000,
                 driver % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    if (ce == cudaErrorInsufficientDriver)
      std::fprintf(stderr, "test_rt_cuda: the driver is older than the toolkit (scripts/cuda.sh installs CUDA 13.0, which "
                           "needs driver r580 or newer); point DPNC_NVCC at an older toolkit's nvcc or update the driver\n");
    return cuda_fail("cudaGetDeviceCount", ce);
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    std::printf("device: %s (sm_%d%d), driver CUDA %d.%d, runtime %d.%d\n", prop.name, prop.major, prop.minor,
                driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);

  const std::string init = dpn_gpu::host_init();
  if (!init.empty()) {
    std::fprintf(stderr, "test_rt_cuda: %s\n", init.c_str());
    return 2;
  }

  if (mode == "deadlock") return expect_failure(deadlock, 7, kDeadlockProcs, kDeadlockChans);
  if (mode == "range") {
    const char* const procs[] = {"idle", "writer"};
    const char* const chans[] = {"R"};
    return expect_failure(range, 2, procs, chans);
  }

  const auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = dpn_gpu::host_launch(self_test, 3);
  if (e != cudaSuccess) return cuda_fail("launch", e);
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    const char* const procs[] = {"producer", "consumer", "waiter"};
    const char* const chans[] = {"vals", "sums", "sp", "prog"};
    const std::string msg = dpn_gpu::host_error_message(procs, chans);
    std::fprintf(stderr, "dpn: error: %s\n", msg.empty() ? cudaGetErrorString(e) : msg.c_str());
    return 3;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  Result r;
  e = cudaMemcpyFromSymbol(&r, result, sizeof r);
  if (e != cudaSuccess) return cuda_fail("cudaMemcpyFromSymbol", e);

  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what);
      ++failures;
    }
  };
  const double want_sum = 0.5 * kN * (kN - 1.0);
  check(r.done[0] && r.done[1] && r.done[2], "every block finished");
  check(r.sum == want_sum, "sum of the popped floats");
  check(r.order_errors == 0, "FIFO order");
  check(r.cell_errors == 0, "scratchpad values");
  check(r.data_errors == 0, "data visible once the progress key is reached");
  check(r.double_errors == 0, "double FIFO values");
  check(r.double_sum == kDoubles * want_sum + 0.5 * kDoubles * (kDoubles - 1.0), "double FIFO sum");
  std::printf("sum %.1f (want %.1f), double sum %.1f, %d+%d+%d errors, %.2f ms\n", r.sum, want_sum, r.double_sum,
              r.order_errors + r.cell_errors, r.data_errors, r.double_errors, ms);
  if (failures) return 1;
  std::printf("all CUDA runtime tests passed\n");
  return 0;
}
