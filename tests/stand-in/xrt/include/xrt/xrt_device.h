// xrt/xrt_device.h: a stand-in for the XRT native C++ API, written for dpnc's tests.
//
// XRT cannot be installed where dpnc is tested, so the host programs dpnc generates are
// syntax-checked against this stand-in (g++ -std=c++17 -fsyntax-only -I<this include dir>).
// It declares only what generated hosts use, with the names and signatures of XRT's own API
// (xrt::device, xrt::uuid); the bodies are placeholders that do nothing. Real builds use the
// headers that come with XRT ($XILINX_XRT/include) and link with -lxrt_coreutil.
#pragma once

#include <string>

namespace xrt {

// Identifier of an xclbin.
class uuid {
 public:
  uuid() = default;
  std::string to_string() const { return std::string(); }
};

// An accelerator card.
class device {
 public:
  device() = default;
  explicit device(unsigned int /*didx*/) {}
  explicit device(int /*didx*/) {}  // as in XRT: avoids ambiguity for a plain int index
  explicit device(const std::string& /*bdf*/) {}

  // Reads the xclbin file and programs the device with it; returns the xclbin's uuid.
  uuid load_xclbin(const std::string& /*xclbin_fnm*/) { return uuid(); }
  uuid get_xclbin_uuid() const { return uuid(); }

  explicit operator bool() const { return false; }
};

}  // namespace xrt
