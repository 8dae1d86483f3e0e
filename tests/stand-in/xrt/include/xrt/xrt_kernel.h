// xrt/xrt_kernel.h: a stand-in for the XRT native C++ API, written for dpnc's tests.
//
// XRT cannot be installed where dpnc is tested, so the host programs dpnc generates are
// syntax-checked against this stand-in (g++ -std=c++17 -fsyntax-only -I<this include dir>).
// It declares only what generated hosts use, with the names and signatures of XRT's own API
// (xrt::kernel, xrt::run, ert_cmd_state); the bodies are placeholders that do nothing. Real
// builds use the headers that come with XRT ($XILINX_XRT/include).
//
// One check is stricter than XRT, on purpose: a scalar kernel argument must be trivially
// copyable and must not be a pointer (XRT copies sizeof(arg) bytes, so a host pointer or a
// std::vector passed by mistake would compile there and fail at run time).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "xrt_bo.h"
#include "xrt_device.h"

// State of a run (XRT's ert.h).
enum ert_cmd_state {
  ERT_CMD_STATE_NEW = 1,
  ERT_CMD_STATE_QUEUED = 2,
  ERT_CMD_STATE_RUNNING = 3,
  ERT_CMD_STATE_COMPLETED = 4,
  ERT_CMD_STATE_ERROR = 5,
  ERT_CMD_STATE_ABORT = 6,
  ERT_CMD_STATE_SUBMITTED = 7,
  ERT_CMD_STATE_TIMEOUT = 8,
};

namespace xrt {

class kernel;

// One execution of a kernel: set its arguments, start it, wait for it.
class run {
 public:
  run() = default;
  explicit run(const kernel& /*krnl*/) {}

  void start() {}
  // Waits for completion; a timeout of 0 waits for ever.
  ert_cmd_state wait(const std::chrono::milliseconds& /*timeout*/ = std::chrono::milliseconds{0}) const {
    return ERT_CMD_STATE_COMPLETED;
  }
  ert_cmd_state wait(unsigned int timeout_ms) const { return wait(timeout_ms * std::chrono::milliseconds{1}); }
  ert_cmd_state state() const { return ERT_CMD_STATE_COMPLETED; }

  // A scalar argument.
  template <typename ArgType>
  void set_arg(int /*index*/, ArgType&& /*arg*/) {
    using T = std::remove_cv_t<std::remove_reference_t<ArgType>>;
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> && !std::is_array_v<T>,
                  "xrt::run::set_arg: a scalar kernel argument must be a trivially copyable non-pointer value "
                  "(pass device buffers as xrt::bo)");
  }
  // A buffer argument.
  void set_arg(int /*index*/, xrt::bo& /*boh*/) {}
  void set_arg(int /*index*/, const xrt::bo& /*boh*/) {}
  void set_arg(int /*index*/, xrt::bo&& /*boh*/) {}

  // Sets all arguments, in order from index 0, and starts the run.
  template <typename... Args>
  void operator()(Args&&... args) {
    set_args(0, std::forward<Args>(args)...);
    start();
  }

  explicit operator bool() const { return false; }

 private:
  void set_args(int /*index*/) {}
  template <typename ArgType, typename... Args>
  void set_args(int index, ArgType&& arg, Args&&... args) {
    set_arg(index, std::forward<ArgType>(arg));
    set_args(index + 1, std::forward<Args>(args)...);
  }
};

// The compute units of one kernel in the loaded xclbin.
class kernel {
 public:
  enum class cu_access_mode : uint8_t { exclusive = 0, shared = 1, none = 2 };

  kernel() = default;
  kernel(const xrt::device& /*device*/, const xrt::uuid& /*xclbin_id*/, const std::string& /*name*/,
         cu_access_mode /*mode*/ = cu_access_mode::shared) {}

  // Sets all arguments and starts a run of the kernel; returns that run.
  template <typename... Args>
  run operator()(Args&&... args) {
    run r(*this);
    r(std::forward<Args>(args)...);
    return r;
  }

  // Memory bank group of argument argno, for allocating its xrt::bo.
  int group_id(int /*argno*/) const { return 0; }
  uint32_t offset(int /*argno*/) const { return 0; }
  std::string get_name() const { return std::string(); }
};

}  // namespace xrt
