// xrt/xrt_bo.h: a stand-in for the XRT native C++ API, written for dpnc's tests.
//
// XRT cannot be installed where dpnc is tested, so the host programs dpnc generates are
// syntax-checked against this stand-in (g++ -std=c++17 -fsyntax-only -I<this include dir>).
// It declares only what generated hosts use, with the names and signatures of XRT's own API
// (xrt::bo, xclBOSyncDirection); the bodies are placeholders that do nothing (map() returns
// a null pointer). Real builds use the headers that come with XRT ($XILINX_XRT/include).
#pragma once

#include <cstddef>
#include <cstdint>

// Direction of bo::sync (XRT declares more directions, for AIE; generated hosts use these two).
enum xclBOSyncDirection {
  XCL_BO_SYNC_BO_TO_DEVICE = 0,
  XCL_BO_SYNC_BO_FROM_DEVICE = 1,
};

namespace xrt {

class device;

// Memory bank group of a buffer, as returned by xrt::kernel::group_id.
using memory_group = uint32_t;

// A buffer object: host-side storage mirrored in device memory.
class bo {
 public:
  // Buffer kinds. The enumerators are XRT's; their values here are not.
  enum class flags : uint32_t { normal = 0, cacheable, device_only, host_only, p2p, svm };

  bo() = default;
  bo(const xrt::device& /*device*/, size_t /*sz*/, flags /*flags*/, memory_group /*grp*/) {}
  bo(const xrt::device& /*device*/, size_t /*sz*/, memory_group /*grp*/) {}
  bo(const xrt::device& /*device*/, void* /*userptr*/, size_t /*sz*/, flags /*flags*/, memory_group /*grp*/) {}
  bo(const xrt::device& /*device*/, void* /*userptr*/, size_t /*sz*/, memory_group /*grp*/) {}

  size_t size() const { return 0; }
  uint64_t address() const { return 0; }
  memory_group get_memory_group() const { return 0; }
  flags get_flags() const { return flags::normal; }

  // Copies between the host-side storage and the device.
  void sync(xclBOSyncDirection /*dir*/, size_t /*sz*/, size_t /*offset*/) {}
  void sync(xclBOSyncDirection dir) { sync(dir, size(), 0); }

  // The host-side storage.
  void* map() { return nullptr; }
  template <typename MapType>
  MapType map() {
    return reinterpret_cast<MapType>(map());
  }

  // Copies into / out of the host-side storage (the whole buffer, or size bytes at an offset).
  void write(const void* /*src*/, size_t /*size*/, size_t /*seek*/) {}
  void write(const void* src) { write(src, size(), 0); }
  void read(void* /*dst*/, size_t /*size*/, size_t /*skip*/) {}
  void read(void* dst) { read(dst, size(), 0); }

  explicit operator bool() const { return false; }
};

}  // namespace xrt
