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
#include <vector>
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
// A process about to read a cell that is not valid yet takes one arrival per pass of its loop
// until it is (`has`, `take`); in its other passes it takes the next arrival if that one's cell
// is free (`arrive`), so arrivals come in while it computes. The cell count comes from the
// schedule: when an arrival is needed, the value that last lived in its cell has had its last
// read, so an arrival never lands on a live value (checked in software), and one taken early
// has waited for its cell.
template <class T, int CELLS, int AW>
struct Scratchpad {
    T data[CELLS];
    bool valid[CELLS];
    Cell<T, AW> next;  // an arrival read early, waiting for its cell
    bool early;

    Scratchpad() : next(), early(false) {
        for (int i = 0; i < CELLS; ++i) valid[i] = false;
    }
    // A value written by the process itself (a channel from a process to itself).
    void put(size_t at, T v) {
        if (valid[at]) DPN_FAIL("scratchpad: a value arrived in a cell that still holds a live one");
        data[at] = v;
        valid[at] = true;
    }
    bool has(size_t at) const { return valid[at]; }
    // The next arrival, into its cell (waits for it).
    void take(hls::stream<Cell<T, AW>>& in) {
        if (!early) next = in.read();
        early = false;
        put(next.at, next.v);
    }
    // The next arrival, if there is one and its cell is free (never waits).
    void arrive(hls::stream<Cell<T, AW>>& in) {
        if (!early) early = in.read_nb(next);
        if (early && !valid[next.at]) {
            put(next.at, next.v);
            early = false;
        }
    }
    // The value in cell `at`, which has arrived or which the process wrote itself.
    T get(size_t at) {
        if (!valid[at]) DPN_FAIL("scratchpad: read of a cell that holds no value");
        return data[at];
    }
    void release(size_t at) { valid[at] = false; }
};

// The read and write positions of a ring of N values: a FIFO from a process to itself, kept as
// an array in the process so that HLS schedules the distance between a value's write and its
// read (a stream read that waits would stall the pipeline stage that writes the value).
template <int N>
struct Ring {
    int rd, wr;
#ifndef __SYNTHESIS__
    int n;  // values held, for the checks
#endif
    Ring() : rd(0), wr(0) {
#ifndef __SYNTHESIS__
        n = 0;
#endif
    }
    int put() {
#ifndef __SYNTHESIS__
        if (n++ == N) DPN_FAIL("ring: a write to a full ring");
#endif
        const int at = wr;
        wr = wr + 1 == N ? 0 : wr + 1;
        return at;
    }
    int take() {
#ifndef __SYNTHESIS__
        if (n-- == 0) DPN_FAIL("ring: a read before its value's write");
#endif
        const int at = rd;
        rd = rd + 1 == N ? 0 : rd + 1;
        return at;
    }
};

// One beat of a 512-bit m_axi port: 64 bytes of an array, in address order.
typedef ap_uint<512> Line;
const int LINE_BYTES = 64;
// Beats in 4 KiB, the most one AXI burst may span (it must not cross a 4 KiB boundary, and
// arrays start on one).
const int PAGE_LINES = 4096 / LINE_BYTES;

template <int BYTES>
struct UintOf;
template <>
struct UintOf<1> {
    typedef uint8_t type;
};
template <>
struct UintOf<4> {
    typedef uint32_t type;
};
template <>
struct UintOf<8> {
    typedef uint64_t type;
};

// A value's bits and back, unchanged (a union, which Vitis HLS accepts for type punning).
template <class T>
uint64_t to_bits(T v) {
    union {
        T t;
        typename UintOf<sizeof(T)>::type u;
    } x;
    x.t = v;
    return x.u;
}
template <class T>
T from_bits(uint64_t b) {
    union {
        T t;
        typename UintOf<sizeof(T)>::type u;
    } x;
    x.u = (typename UintOf<sizeof(T)>::type)b;
    return x.t;
}

// Element k of a beat holding elements of type T, and its write.
template <class T>
T lane(const Line& l, int k) {
    return from_bits<T>(l.range(8 * sizeof(T) * (k + 1) - 1, 8 * sizeof(T) * k).to_uint64());
}
template <class T>
void set_lane(Line& l, int k, T v) {
    l.range(8 * sizeof(T) * (k + 1) - 1, 8 * sizeof(T) * k) = to_bits(v);
}

// The DDR side of a memory process: the loads and stores of one array of T (LINES beats long)
// on its m_axi port, in the order the process makes them. Nothing else uses the port (Vitis
// dataflow gives each m_axi argument one process), so what this object holds is always the
// array as the process's order has made it:
// * loads go through a direct-mapped cache of CACHE lines. A miss fetches its line in a
//   burst, and a miss on the line after the previous fetch doubles the burst (up to 4 KiB),
//   so streaming through an array reads long bursts and a tile row reads little beyond itself;
// * stores write into the cached copy of their line, if any, and into the held run of
//   consecutive lines, which goes out as one burst when a store leaves it, before a fetch
//   that overlaps it, and at the end. Lines of the run that not every element was stored to
//   take the rest from the cache or from DDR as they go out.
// The port is a step of its process's one pipelined loop: while a burst is under way (`busy`),
// each pass moves one beat of it (`beat`); a load that misses, or a store that must first send
// the held run, starts that burst and answers false, and the process asks again once the port
// is idle.
template <class T, long long LINES, int CACHE = 256>
struct Port {
    static const int PER_LINE = LINE_BYTES / sizeof(T);
    static const uint64_t ELEM_MASK = (1ull << sizeof(T)) - 1;  // an element's bytes
    enum Burst { IDLE, FETCH, FLUSH };

    Line cache[CACHE];
    long long tag[CACHE];  // the line held in each entry, -1: none
    Line held[PAGE_LINES];
    uint64_t stored[PAGE_LINES];  // per held line, the bytes stored to it
    long long held_at;
    int held_n;
    long long next_fetch;  // the line after the last fetch
    int burst;             // that fetch's length
    Burst doing;           // the burst under way
    long long beat_at;     // its next line (FETCH) or held line (FLUSH)
    int beats_left;

    Port() : held_at(0), held_n(0), next_fetch(-1), burst(1), doing(IDLE), beat_at(0), beats_left(0) {
        for (int i = 0; i < CACHE; ++i) tag[i] = -1;
    }

    bool busy() const { return doing != IDLE; }

    // One beat of the burst under way: a line into the cache, or a held line out to DDR.
    void beat(Line* mem) {
        if (doing == FETCH) {
            cache[beat_at % CACHE] = mem[beat_at];
            tag[beat_at % CACHE] = beat_at;
        } else {
            const long long l = held_at + beat_at;
            Line line = held[beat_at];
            if (stored[beat_at] != ~0ull) {
                const Line old = tag[l % CACHE] == l ? cache[l % CACHE] : mem[l];
                for (int k = 0; k < PER_LINE; ++k) {
#pragma HLS unroll
                    if (((stored[beat_at] >> (k * sizeof(T))) & 1) == 0) set_lane<T>(line, k, lane<T>(old, k));
                }
            }
            mem[l] = line;
        }
        ++beat_at;
        if (--beats_left == 0) {
            if (doing == FLUSH) held_n = 0;
            doing = IDLE;
        }
    }

    // Element x into v, if its line is cached; otherwise starts the burst that brings it.
    bool load(long long x, T& v) {
        const long long l = x / PER_LINE;
        if (tag[l % CACHE] == l) {
            v = lane<T>(cache[l % CACHE], (int)(x % PER_LINE));
            return true;
        }
        int n = l == next_fetch ? 2 * burst : 1;
        if (n > PAGE_LINES - (int)(l % PAGE_LINES)) n = PAGE_LINES - (int)(l % PAGE_LINES);
        if (n > LINES - l) n = (int)(LINES - l);
        if (n > CACHE) n = CACHE;  // line l must still be there after its burst
        if (held_n > 0 && held_at < l + n && l < held_at + held_n) {
            flush();  // the fetch must see those stores
            return false;
        }
        doing = FETCH;
        beat_at = l;
        beats_left = n;
        next_fetch = l + n;
        burst = n;
        return false;
    }

    // Whether element x can be stored now; if the held run must go out first, starts that.
    bool can_store(long long x) {
        const long long l = x / PER_LINE;
        const bool inside = l >= held_at && l < held_at + held_n;
        const bool extends = l == held_at + held_n && l % PAGE_LINES != 0;
        if (held_n == 0 || inside || extends) return true;
        flush();
        return false;
    }

    // Stores v to element x (after can_store(x)).
    void store(long long x, T v) {
        const long long l = x / PER_LINE;
        const int k = (int)(x % PER_LINE);
        if (tag[l % CACHE] == l) set_lane<T>(cache[l % CACHE], k, v);
        if (held_n == 0) held_at = l;
        int i = (int)(l - held_at);
        if (i == held_n) {
            ++held_n;
            held[i] = Line();
            stored[i] = 0;
        }
        set_lane<T>(held[i], k, v);
        stored[i] |= ELEM_MASK << (k * sizeof(T));
    }

    // Starts sending the held run, if there is one (at the end: the process runs until false).
    bool flush() {
        if (held_n == 0) return false;
        doing = FLUSH;
        beat_at = 0;
        beats_left = held_n;
        return true;
    }
};

#ifndef __SYNTHESIS__
// An array as the lines of its m_axi port (the last one padded with zeros), and back: what a
// test bench passes to the kernel.
template <class T>
std::vector<Line> to_lines(const std::vector<T>& a) {
    const size_t per = LINE_BYTES / sizeof(T);
    std::vector<Line> lines((a.size() + per - 1) / per);
    for (size_t x = 0; x < a.size(); ++x) set_lane<T>(lines[x / per], (int)(x % per), a[x]);
    return lines;
}
template <class T>
void from_lines(const std::vector<Line>& lines, std::vector<T>& a) {
    const size_t per = LINE_BYTES / sizeof(T);
    for (size_t x = 0; x < a.size(); ++x) a[x] = lane<T>(lines[x / per], (int)(x % per));
}
#endif

}  // namespace dpn_hls
