// dpn_hls.h: what dpnc's Vitis HLS kernels share (written by dpnc; do not edit).
//
// Synthesis (__SYNTHESIS__): the dataflow region is the plain sequence of process calls under
// `#pragma HLS dataflow`, and checks vanish. Software (csim, or g++ with the stand-in headers in
// sw/): every process of the region runs on its own thread through dpn_rt.hpp, whose watchdog
// turns a deadlock into a report naming the blocked streams. Threads are needed because the
// network may have cycles (a compute process feeding another that feeds it back), which a
// sequential C simulation of the region cannot run.
#pragma once

#ifndef __SYNTHESIS__
#define HLS_STREAM_THREAD_SAFE  // Vitis's own hls_stream.h: blocking reads across threads
#endif
#include <ap_int.h>
#include <hls_stream.h>
#include <stddef.h>
#include <stdint.h>
#include "dpn_math.h"  // dpnc's exp/pow, as every backend computes them

#ifdef __SYNTHESIS__
#define DPN_FAIL(msg) ((void)0)
#define DPN_DATAFLOW_BEGIN
#define DPN_PROCESS(f, ...) f(__VA_ARGS__)
#define DPN_DATAFLOW_END
#else
#include "dpn_rt.hpp"
#define DPN_FAIL(msg) dpn::fail(msg)
#define DPN_DATAFLOW_BEGIN { std::vector<std::pair<std::string, std::function<void()>>> dpn_processes_;
#define DPN_PROCESS(f, ...) dpn_processes_.emplace_back(#f, [&] { f(__VA_ARGS__); })
#define DPN_DATAFLOW_END dpn::run_processes(dpn_processes_); }
#endif

namespace dpn_hls {

// A value on its way to a scratchpad: the cell it goes to, and the value. A plain struct (no
// methods), as Vitis wants for stream elements.
template <class T, int AW>
struct Cell {
    ap_uint<AW> at;
    T v;
};

template <int AW, class T>
Cell<T, AW> cell(size_t at, T v) {
    Cell<T, AW> c;
    c.at = at;
    c.v = v;
    return c;
}

// A scratchpad as the process that reads it holds it: values arrive through a stream in their
// producer's order and wait in their cells (valid bit set) until their last read releases them.
// Reading a cell that is not valid yet takes arrivals until it is. The cell count comes from the
// schedule: when an arrival is taken, the value that last lived in its cell has had its last
// read, so an arrival never lands on a live value (checked in software).
template <class T, int CELLS, int AW>
struct Scratchpad {
    T data[CELLS];
    bool valid[CELLS];

    Scratchpad() {
        for (int i = 0; i < CELLS; ++i) valid[i] = false;
    }
    // A value written by the process itself (a channel from a process to itself).
    void put(size_t at, T v) {
        if (valid[at]) DPN_FAIL("scratchpad: a value arrived in a cell that still holds a live one");
        data[at] = v;
        valid[at] = true;
    }
    T read(hls::stream<Cell<T, AW>>& in, size_t at) {
        while (!valid[at]) {
            const Cell<T, AW> c = in.read();
            put(c.at, c.v);
        }
        return data[at];
    }
    // A value the process wrote itself, earlier in its own order.
    T get(size_t at) {
        if (!valid[at]) DPN_FAIL("scratchpad: read of a cell the process has not written");
        return data[at];
    }
    void release(size_t at) { valid[at] = false; }
};

}  // namespace dpn_hls
